// The walk's first sections (walk.ts): the device, its users, a customer.
import { randomBytes } from 'node:crypto';
import { expect, get, type Json, type Walk } from './walk-session.ts';

export async function walkDeviceAndUsers({ session, settings, device }: Walk): Promise<void> {
  const { tpin, branch, recorder } = settings;
  const { credentials, call, data, until, answeredCall, item, needs } = session;

  // ---- the device ----
  await item(1, async (notes) => {
    const tenant = await data('POST', '/api/v1/tenants', { auth: 'partner', body: { name: 'Certification merchant', tpin } });
    device.tenantId = tenant.id as number;
    await data('POST', `/api/v1/tenants/${device.tenantId}/devices`, {
      auth: 'partner',
      body: { deviceSerial: settings.serial, branch, vsdcBaseUrl: recorder.url },
    });
    const initialised = await data('POST', `/api/v1/tenants/${device.tenantId}/devices/${branch}/initialize`, { auth: 'partner' });
    expect(initialised.initialized === true, 'the device is not initialised');
    device.sdcId = initialised.sdcId as string;
    device.mrcNo = initialised.mrcNo as string;
    device.taxpayerName = (initialised.taxpayerName as string | null) ?? null;
    const token = await data('POST', `/api/v1/tenants/${device.tenantId}/tokens`, { auth: 'partner', body: { name: 'certify' } });
    credentials.tenantToken = token.token as string;
    notes.push(
      `merchant ${device.tenantId} (TPIN ${tpin}), branch ${branch}, serial ${settings.serial}: initialised, SDC id ${device.sdcId}, MRC ${device.mrcNo}`,
    );
  });
  const deviceReady = () => needs(1);

  await item(3, async (notes) => {
    deviceReady();
    // The first use of the catalogue fetches it (the worker would only retry within a minute).
    const classes = await call('GET', '/api/v1/item-classes?code=5022');
    expect(
      classes.status === 200 && Array.isArray(get(classes.body, 'data')),
      `GET /api/v1/item-classes answered ${classes.status}: ${classes.text.slice(0, 200)}`,
    );
    await answeredCall('selectItemsClass', 'the classification catalogue');
    notes.push(
      `the catalogue was fetched (selectItemsClass); GET /api/v1/item-classes?code=5022 lists ${(get(classes.body, 'data') as unknown[]).length} classes`,
    );
  });
  await item(2, async (notes) => {
    needs(3);
    await answeredCall('selectCodes', 'the code tables');
    const codes = (await data('GET', '/api/v1/codes')) as unknown as Json[];
    const payment = codes.find((c) => c.classCode === '07');
    expect(codes.length > 0 && payment, `GET /api/v1/codes lists ${codes.length} classes, without the payment types (07)`);
    notes.push(
      `the code tables were fetched with the catalogue (selectCodes); GET /api/v1/codes lists ${codes.length} classes, e.g. ${String(payment.className)}: ${(payment.codes as Json[]).length} codes`,
    );
  });
  await item(6, async (notes) => {
    deviceReady();
    await answeredCall('selectBranches', 'the branch register');
    const me = await data('GET', '/api/v1/me');
    notes.push(
      `the authority's branch register was read (selectBranches); GET /api/v1/me: ${JSON.stringify(get(me, 'branches') ?? get(me, 'devices') ?? '').slice(0, 200)}`,
    );
  });

  // ---- users ----
  const password = `Cert-${randomBytes(9).toString('base64url')}`;
  const email = `certify-${Date.now()}@example.com`;
  await item(22, async (notes) => {
    deviceReady();
    const invitation = await data('POST', `/api/v1/tenants/${device.tenantId}/invitations`, { auth: 'partner', body: { email } });
    const token = new URL(String(invitation.link).replace('#', '?')).searchParams.get('token');
    expect(token, `the invitation link has no token: ${String(invitation.link)}`);
    await data('POST', '/api/v1/account/invitations/accept', { auth: 'none', body: { token, password } });
    const wrong = await call('POST', '/api/v1/account/signin', { auth: 'none', body: { email, password: `${password}x` } });
    expect(wrong.status === 401, `a wrong password answered ${wrong.status}, not 401`);
    const signin = await call('POST', '/api/v1/account/signin', { auth: 'none', body: { email, password } });
    expect(signin.status === 200, `signing in answered ${signin.status}: ${signin.text.slice(0, 200)}`);
    const cookie = (signin.headers.get('set-cookie') ?? '').split(';')[0]!;
    credentials.session = { cookie, csrf: String(get(signin.body, 'data', 'csrfToken')) };
    const me = await data('GET', '/api/v1/account/me', { auth: 'session' });
    expect(get(me, 'user', 'email') === email, "the session is not the user's");
    const unsigned = await call('GET', '/api/v1/account/me', { auth: 'none' });
    expect(unsigned.status === 401, `the account without a session answered ${unsigned.status}, not 401`);
    notes.push(
      `user ${email} set a password of their own (invitation), signed in with it; a wrong password was refused (401); scrypt hashes at rest`,
    );
  });
  await item(5, async (notes) => {
    needs(22);
    const users = await until(
      '/api/v1/account/users',
      (list) => {
        const user = (list as unknown as Json[]).find((u) => u.email === email);
        return get(user, 'vsdcRegistration', 'state') === 'registered';
      },
      "the user's registration with the branch",
      'session',
    );
    notes.push(
      `the user is registered with the branch (saveBrancheUser): ${JSON.stringify((users as unknown as Json[]).find((u) => u.email === email)?.vsdcRegistration)}`,
    );
  });

  await item(4, async (notes) => {
    deviceReady();
    const customer = await data('POST', '/api/v1/customers', { body: { name: 'Certification customer', tpin: settings.customerTpin } });
    const done = await until(
      `/api/v1/customers/${customer.id as number}`,
      (c) => get(c, 'registration', 'state') === 'registered' && get(c, 'verification', 'state') === 'verified',
      "the customer's verification and registration",
    );
    notes.push(
      `customer ${settings.customerTpin} verified as "${String(get(done, 'verification', 'authorityName'))}" (selectCustomer) and registered on the branch (saveBrancheCustomers)`,
    );
  });
}
