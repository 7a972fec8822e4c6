// The checklist's walk: every item done the way a merchant and its partner do it, through the
// gateway's own HTTP API and background workers (never by calling the VSDC directly). Each item's
// check either passes, with what it saw, or fails with why. The VSDC's side of an item (a customs
// line or a supplier's sale waiting for the merchant) is seeded through the simulator's control
// API when certify runs its own simulator; against a real VSDC it uses what is waiting there.
import { randomBytes } from 'node:crypto';
import { CHECKLIST_ITEMS, MINIMUM_FEATURES } from './checklist.ts';
import { expect, get, walkSession, type ItemResult, type Json, type WalkSettings } from './walk-session.ts';

export interface WalkOutcome {
  results: ItemResult[];
  /** What the run learned about the device (sdcId, mrcNo), for the report. */
  device: { sdcId: string | null; mrcNo: string | null; tenantId: number | null; taxpayerName: string | null };
}

export async function walkChecklist(settings: WalkSettings): Promise<WalkOutcome> {
  const { tpin, branch, recorder } = settings;
  const device: WalkOutcome['device'] = { sdcId: null, mrcNo: null, tenantId: null, taxpayerName: null };
  const { credentials, results, call, data, until, answeredCall, ourCalls, seed, item, needs } = walkSession(settings);

  // ---- the device ----
  await item(1, async (notes) => {
    const tenant = await data('POST', '/api/v1/tenants', { auth: 'partner', body: { name: 'Certification merchant', tpin } });
    device.tenantId = tenant.id as number;
    await data('POST', `/api/v1/tenants/${device.tenantId}/devices`, { auth: 'partner', body: { deviceSerial: settings.serial, branch, vsdcBaseUrl: recorder.url } });
    const initialised = await data('POST', `/api/v1/tenants/${device.tenantId}/devices/${branch}/initialize`, { auth: 'partner' });
    expect(initialised.initialized === true, 'the device is not initialised');
    device.sdcId = initialised.sdcId as string;
    device.mrcNo = initialised.mrcNo as string;
    device.taxpayerName = (initialised.taxpayerName as string | null) ?? null;
    const token = await data('POST', `/api/v1/tenants/${device.tenantId}/tokens`, { auth: 'partner', body: { name: 'certify' } });
    credentials.tenantToken = token.token as string;
    notes.push(`merchant ${device.tenantId} (TPIN ${tpin}), branch ${branch}, serial ${settings.serial}: initialised, SDC id ${device.sdcId}, MRC ${device.mrcNo}`);
  });
  const deviceReady = () => needs(1);

  await item(3, async (notes) => {
    deviceReady();
    // The first use of the catalogue fetches it (the worker would only retry within a minute).
    const classes = await call('GET', '/api/v1/item-classes?code=5022');
    expect(classes.status === 200 && Array.isArray(get(classes.body, 'data')), `GET /api/v1/item-classes answered ${classes.status}: ${classes.text.slice(0, 200)}`);
    await answeredCall('selectItemsClass', 'the classification catalogue');
    notes.push(`the catalogue was fetched (selectItemsClass); GET /api/v1/item-classes?code=5022 lists ${(get(classes.body, 'data') as unknown[]).length} classes`);
  });
  await item(2, async (notes) => {
    needs(3);
    await answeredCall('selectCodes', 'the code tables');
    const codes = (await data('GET', '/api/v1/codes')) as unknown as Json[];
    const payment = codes.find((c) => c.classCode === '07');
    expect(codes.length > 0 && payment, `GET /api/v1/codes lists ${codes.length} classes, without the payment types (07)`);
    notes.push(`the code tables were fetched with the catalogue (selectCodes); GET /api/v1/codes lists ${codes.length} classes, e.g. ${String(payment.className)}: ${(payment.codes as Json[]).length} codes`);
  });
  await item(6, async (notes) => {
    deviceReady();
    await answeredCall('selectBranches', 'the branch register');
    const me = await data('GET', '/api/v1/me');
    notes.push(`the authority's branch register was read (selectBranches); GET /api/v1/me: ${JSON.stringify(get(me, 'branches') ?? get(me, 'devices') ?? '').slice(0, 200)}`);
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
    expect(get(me, 'user', 'email') === email, 'the session is not the user\'s');
    const unsigned = await call('GET', '/api/v1/account/me', { auth: 'none' });
    expect(unsigned.status === 401, `the account without a session answered ${unsigned.status}, not 401`);
    notes.push(`user ${email} set a password of their own (invitation), signed in with it; a wrong password was refused (401); scrypt hashes at rest`);
  });
  await item(5, async (notes) => {
    needs(22);
    const users = await until('/api/v1/account/users', (list) => {
      const user = (list as unknown as Json[]).find((u) => u.email === email);
      return get(user, 'vsdcRegistration', 'state') === 'registered';
    }, 'the user\'s registration with the branch', 'session');
    notes.push(`the user is registered with the branch (saveBrancheUser): ${JSON.stringify((users as unknown as Json[]).find((u) => u.email === email)?.vsdcRegistration)}`);
  });

  await item(4, async (notes) => {
    deviceReady();
    const customer = await data('POST', '/api/v1/customers', { body: { name: 'Certification customer', tpin: settings.customerTpin } });
    const done = await until(`/api/v1/customers/${customer.id as number}`, (c) => get(c, 'registration', 'state') === 'registered' && get(c, 'verification', 'state') === 'verified', 'the customer\'s verification and registration');
    notes.push(`customer ${settings.customerTpin} verified as "${String(get(done, 'verification', 'authorityName'))}" (selectCustomer) and registered on the branch (saveBrancheCustomers)`);
  });

  // ---- items ----
  const stamp = Date.now().toString(36).toUpperCase();
  const product = `CERT-${stamp}-P`;
  const part = `CERT-${stamp}-C`;
  await item(7, async (notes) => {
    deviceReady();
    for (const [itemCode, name, price] of [[product, 'Certification maize meal 25kg', 185], [part, 'Certification maize 1kg', 8]] as const) {
      await data('POST', '/api/v1/items', { body: { itemCode, name, itemClsCd: '50221200', itemTypeCode: '2', defaultPrice: price } });
      await until(`/api/v1/items/${itemCode}`, (i) => get(i, 'registration', 'state') === 'registered', `item ${itemCode}'s registration`);
    }
    notes.push(`items ${product} and ${part} registered (saveItem)`);
  });
  await item(8, async (notes) => {
    needs(7);
    await data('POST', `/api/v1/items/${product}/composition`, { status: 200, body: { components: [{ itemCode: part, quantity: 25 }] } });
    await until(`/api/v1/items/${product}`, (i) => get(i, 'composition', 0, 'state') === 'registered', 'the composition');
    notes.push(`${product} is made of 25 × ${part} (saveItemComposition)`);
  });
  await item(9, async (notes) => {
    needs(7);
    const compared = await data('GET', '/api/v1/item-reconciliation');
    const ours = (compared.items as Json[]).filter((i) => i.itemCode === product || i.itemCode === part);
    expect(ours.length === 2 && ours.every((i) => i.state === 'matches'), `the VSDC's items differ from the gateway's: ${JSON.stringify(ours)}`);
    notes.push(`GET /api/v1/item-reconciliation read the branch's items back (selectItems): ${JSON.stringify(compared.summary)}`);
  });

  // ---- imports and purchases ----
  await item(10, async (notes) => {
    needs(7);
    if (settings.simulatorControl) await seed(`/devices/${tpin}/${branch}/imports`, { items: [{ itemNm: 'Imported maize 1kg', qty: 10 }] });
    const waiting = await until('/api/v1/import-items?decision=undecided', (list) => (list as unknown as Json[]).length > 0, 'a customs line waiting for an answer (selectImportItems)');
    const line = (waiting as unknown as Json[])[0]!;
    await data('POST', `/api/v1/import-items/${line.id as number}/approve`, { body: { itemCode: part, remark: 'certification' } });
    await until(`/api/v1/import-items/${line.id as number}`, (i) => i.filing === 'accepted', 'the approval\'s filing (updateImportItems)');
    notes.push(`customs line ${String(line.declarationNo)} #${String(line.itemSeq)} retrieved (selectImportItems) and approved as ${part} (updateImportItems)`);
  });
  let pulledPurchase: Json | undefined;
  await item(12, async (notes) => {
    deviceReady();
    if (settings.simulatorControl) {
      await seed(`/devices/${tpin}/${branch}/purchases`, {
        purchases: [{ spplrTpin: '2000000004', spplrNm: 'Kafue Fisheries Cooperative', itemList: [{ itemNm: 'Certification maize 1kg', qty: 10, prc: 8, splyAmt: 80, totAmt: 80 }] }],
      });
    }
    const waiting = await until('/api/v1/purchases?status=pending', (list) => (list as unknown as Json[]).length > 0, 'a supplier\'s sale waiting for an answer (selectTrnsPurchaseSales)');
    pulledPurchase = (waiting as unknown as Json[])[0]!;
    notes.push(`purchase ${String(pulledPurchase.id)} from ${String(get(pulledPurchase, 'supplier', 'name'))} retrieved (selectTrnsPurchaseSales)`);
  });
  await item(11, async (notes) => {
    needs(7, 12);
    const id = pulledPurchase!.id as number;
    await data('POST', `/api/v1/purchases/${id}/accept`, { body: { lines: [{ line: 1, itemCode: part }], remark: 'certification' } });
    await until(`/api/v1/purchases/${id}`, (p) => get(p, 'filing', 'state') === 'accepted', 'the answer\'s filing (savePurchase)');
    notes.push(`purchase ${id} accepted and filed (savePurchase, regTyCd A, pchsSttsCd 02); its line raised ${part}'s stock`);
  });
  await item(13, async (notes) => {
    needs(7);
    const captured = await data('POST', '/api/v1/purchases', {
      status: 201,
      body: {
        supplier: { name: 'Soweto market trader (unregistered)' },
        supplierInvoiceNo: `CERT-${stamp}`,
        items: [{ name: 'Certification maize 1kg', classificationCode: '50221200', quantity: 5, price: 7.5, itemCode: part }],
      },
    });
    await until(`/api/v1/purchases/${captured.id as number}`, (p) => get(p, 'filing', 'state') === 'accepted', 'the captured purchase\'s filing (savePurchase)');
    const saved = recorder.calls.filter((c) => c.endpoint === 'savePurchase' && get(c.request, 'regTyCd') === 'M' && c.resultCd === '000');
    expect(saved.length > 0, 'no savePurchase with regTyCd M was answered 000');
    notes.push(`purchase ${String(captured.id)} captured by hand from an unregistered supplier, filed with regTyCd M (call #${saved[0]!.seq})`);
  });

  // ---- stock before the sales, so a sale moves stock on hand ----
  let adjustment: Json | undefined;
  await item(25, async (notes) => {
    needs(7);
    adjustment = await data('POST', '/api/v1/stock/adjustments', { status: 201, body: { movementType: '06', items: [{ itemCode: product, quantity: 100 }], remark: 'Opening stock (certification)' } });
    await until(`/api/v1/stock/movements/${adjustment.id as number}`, (m) => get(m, 'chain', 'state') === 'sent', 'the adjustment\'s stock chain');
    notes.push(`opening stock of 100 ${product} (movement type 06) sent as saveStockItems, then saveStockMaster`);
  });

  // ---- documents ----
  const sales: Json[] = [];
  const sell = async (quantity: number) => {
    const sale = await data('POST', '/api/v1/sales', {
      body: { items: [{ name: 'Certification maize meal 25kg', classificationCode: '50221200', itemCode: product, quantity, price: 185 }], customer: { name: 'Certification customer', tpin: settings.customerTpin } },
    });
    return until(`/api/v1/sales/${sale.id as number}`, (s) => s.status === 'uploaded' || s.status === 'failed', `sale ${String(sale.id)}'s upload`);
  };
  await item(14, async (notes) => {
    needs(7);
    const sale = await sell(2);
    expect(sale.status === 'uploaded', `the sale ended ${String(sale.status)}: ${String(sale.resultCode)} ${String(sale.lastError)}`);
    sales.push(sale);
    notes.push(`sale ${String(sale.id)}: invoice ${String(sale.invoiceNo)}, receipt ${String(get(sale, 'fiscal', 'receiptNo'))}, SDC ${String(get(sale, 'fiscal', 'sdcId'))} (saveSales)`);
  });
  await item(15, async (notes) => {
    needs(14);
    for (let i = 0; i < 2; i++) sales.push(await sell(1));
    const numbers = sales.map((s) => Number(s.invoiceNo));
    expect(numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1), `invoice numbers are not consecutive: ${numbers.join(', ')}`);
    const filed = ourCalls().filter((c) => c.endpoint === 'saveSales' && c.resultCd === '000').map((c) => String(get(c.request, 'cisInvcNo')));
    const wanted = numbers.map(String);
    expect(wanted.every((n) => filed.filter((f) => f === n).length === 1), `each invoice number must be filed once: filed ${filed.join(', ')}, wanted ${wanted.join(', ')}`);
    notes.push(`three sales numbered ${numbers.join(', ')}, each filed once with that cisInvcNo`);
  });
  await item(16, async (notes) => {
    needs(14);
    const id = sales[0]!.id as number;
    const changed = await call('PATCH', `/api/v1/sales/${id}`, { body: { invoiceNo: 999 } });
    const deleted = await call('DELETE', `/api/v1/sales/${id}`);
    expect(changed.status >= 400 && changed.status < 500 && deleted.status >= 400 && deleted.status < 500, `PATCH answered ${changed.status}, DELETE ${deleted.status}`);
    const again = await data('GET', `/api/v1/sales/${id}`);
    expect(again.invoiceNo === sales[0]!.invoiceNo && get(again, 'totals', 'total') === get(sales[0], 'totals', 'total'), 'the sale changed');
    const reissue = await call('POST', `/api/v1/sales/${id}/reissue`, { body: {} });
    expect(reissue.status >= 400 && reissue.status < 500, `reissuing an uploaded sale answered ${reissue.status}`);
    notes.push(`PATCH answered ${changed.status}, DELETE ${deleted.status}, reissue ${reissue.status}; the sale is unchanged (no route changes or deletes a document)`);
  });
  let receiptHtml = '';
  await item(17, async (notes) => {
    needs(14);
    const receipt = await call('GET', `/api/v1/sales/${sales[0]!.id as number}/receipt`);
    expect(receipt.status === 200, `the receipt answered ${receipt.status}`);
    receiptHtml = receipt.text;
    const missing = MINIMUM_FEATURES.filter((f) => !f.pattern.test(receipt.text)).map((f) => f.feature);
    expect(missing.length === 0, `the receipt lacks: ${missing.join(', ')}`);
    expect(receipt.text.includes(tpin) && receipt.text.includes(settings.customerTpin), 'the receipt does not print the supplier\'s and the customer\'s TPIN');
    expect(receipt.text.includes(String(get(sales[0], 'fiscal', 'receiptSignature'))), 'the receipt does not print the receipt signature');
    notes.push(`the receipt of sale ${String(sales[0]!.id)} shows: ${MINIMUM_FEATURES.map((f) => f.feature).join(', ')}`);
  });
  await item(20, async (notes) => {
    needs(17);
    expect(!/\bCOPY\b/.test(receiptHtml), 'the first print already says COPY');
    const reprint = await call('GET', `/api/v1/sales/${sales[0]!.id as number}/receipt`);
    expect(reprint.status === 200 && /\bCOPY\b/.test(reprint.text), 'the reprint does not say COPY');
    const pdf = await call('GET', `/api/v1/sales/${sales[0]!.id as number}/receipt`, { accept: 'application/pdf' });
    expect(pdf.status === 200 && pdf.bytes.subarray(0, 4).toString() === '%PDF', `the PDF reprint answered ${pdf.status}`);
    notes.push('the first print is the original; the reprints (HTML and PDF) say COPY, and each is in the audit trail (sale.reprinted)');
  });
  await item(18, async (notes) => {
    needs(14);
    const note = await data('POST', `/api/v1/sales/${sales[1]!.id as number}/credit-note`, { body: { reasonCode: '03', items: [{ line: 1, quantity: 1 }] } });
    const done = await until(`/api/v1/sales/${note.id as number}`, (s) => s.status !== 'pending', 'the credit note\'s upload');
    expect(done.status === 'uploaded', `the credit note ended ${String(done.status)}: ${String(done.resultCode)} ${String(done.lastError)}`);
    const filed = ourCalls().find((c) => c.endpoint === 'saveSales' && get(c.request, 'rcptTyCd') === 'R' && c.resultCd === '000');
    expect(filed, 'no credit note (rcptTyCd R) was answered 000');
    notes.push(`credit note ${String(done.id)} (invoice ${String(done.invoiceNo)}) against sale ${String(sales[1]!.id)}, filed as rcptTyCd R against receipt ${String(get(filed.request, 'orgInvcNo'))} (call #${filed.seq})`);
  });
  await item(19, async (notes) => {
    needs(14);
    const note = await data('POST', `/api/v1/sales/${sales[2]!.id as number}/debit-note`, {
      body: { reasonCode: '03', items: [{ name: 'Delivery', classificationCode: '78101800', quantity: 1, price: 50 }] },
    });
    const done = await until(`/api/v1/sales/${note.id as number}`, (s) => s.status !== 'pending', 'the debit note\'s upload');
    expect(done.status === 'uploaded', `the debit note ended ${String(done.status)}: ${String(done.resultCode)} ${String(done.lastError)}`);
    const filed = ourCalls().find((c) => c.endpoint === 'saveSales' && get(c.request, 'rcptTyCd') === 'D' && c.resultCd === '000');
    expect(filed, 'no debit note (rcptTyCd D) was answered 000');
    notes.push(`debit note ${String(done.id)} (invoice ${String(done.invoiceNo)}) against sale ${String(sales[2]!.id)}, filed as rcptTyCd D (call #${filed.seq})`);
  });
  await item(23, async (notes) => {
    needs(14, 25);
    const sale = await until(`/api/v1/sales/${sales[0]!.id as number}`, (s) => get(s, 'stock', 'state') === 'sent', 'the sale\'s stock chain');
    const level = await data('GET', `/api/v1/stock?itemCode=${product}`);
    notes.push(`sale ${String(sale.id)}'s stock movement (type 11) sent (saveStockItems, saveStockMaster); ${product} on hand: ${JSON.stringify(get(level, 0, 'quantity'))}`);
  });
  await item(24, async (notes) => {
    needs(23);
    const compared = await data('GET', `/api/v1/stock/reconciliation?refresh=true`);
    const ours = ((compared.items ?? []) as Json[]).find((i) => i.itemCode === product);
    expect(ours && ours.vsdcQuantity !== null, `the VSDC's stock does not list ${product}: ${JSON.stringify(compared).slice(0, 300)}`);
    expect(ours.status === 'matches', `the VSDC's stock of ${product} differs from the gateway's: ${JSON.stringify(ours)}`);
    notes.push(`GET /api/v1/stock/reconciliation?refresh=true read the branch's stock back (selectStockItems): ${product} ${String(ours.gatewayQuantity)} at the gateway, ${String(ours.vsdcQuantity)} at the VSDC (${String(ours.status)})`);
  });

  // ---- reports, audit, backup ----
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  let csv = '';
  await item(26, async (notes) => {
    needs(14);
    const exported = await call('GET', `/api/v1/exports/documents?from=${from}&to=${today}&format=csv`);
    expect(exported.status === 200 && exported.text.split('\n').length > 2, `the CSV export answered ${exported.status}`);
    csv = exported.text;
    const xlsx = await call('GET', `/api/v1/exports/documents?from=${from}&to=${today}&format=xlsx`);
    expect(xlsx.status === 200 && xlsx.bytes.subarray(0, 2).toString() === 'PK', `the Excel export answered ${xlsx.status}`);
    const pdf = await call('GET', '/api/v1/reports/daily', { accept: 'application/pdf' });
    expect(pdf.status === 200 && pdf.bytes.subarray(0, 4).toString() === '%PDF', `the PDF report answered ${pdf.status}`);
    const reportCsv = await call('GET', '/api/v1/reports/daily', { accept: 'text/csv' });
    expect(reportCsv.status === 200, `the CSV report answered ${reportCsv.status}`);
    notes.push(`documents exported as CSV (${csv.split('\n').length - 1} rows) and Excel (${xlsx.bytes.length} bytes); the day's X report as PDF (${pdf.bytes.length} bytes) and CSV`);
  });
  await item(27, async (notes) => {
    needs(26);
    const header = csv.split(/\r?\n/)[0]!.split(',');
    const wanted = ['invoiceNo', 'occurredAt', 'customerName', 'customerTpin', 'documentTotal', 'documentVat', 'itemName'];
    const missing = wanted.filter((column) => !header.includes(column));
    expect(missing.length === 0, `the export lacks the columns ${missing.join(', ')}`);
    expect(csv.includes(settings.customerTpin), 'the export does not carry the customer\'s TPIN');
    notes.push(`GET /api/v1/exports/documents: invoice number (invoiceNo), date (occurredAt), customer (customerName), TPIN (customerTpin), value (documentTotal), tax (documentVat), goods or services (itemName, classificationCode), per line`);
  });
  await item(28, async (notes) => {
    needs(14);
    const trail = await data('GET', '/api/v1/audit');
    const actions = new Set(((trail as unknown as Json[]) ?? []).map((r) => String(r.action)));
    const wanted = ['item.created', 'sale.reprinted'];
    const missing = wanted.filter((a) => !actions.has(a));
    expect(missing.length === 0, `the audit trail lacks ${missing.join(', ')}; it has ${[...actions].join(', ')}`);
    const exported = await call('GET', '/api/v1/audit/export');
    expect(exported.status === 200, `the audit export answered ${exported.status}`);
    notes.push(`GET /api/v1/audit lists who did what: ${[...actions].sort().join(', ')}; exported as CSV`);
  });
  await item(21, async (notes) => {
    const backup = await call('POST', '/admin/v1/backup', { auth: 'admin' });
    expect(backup.status === 200 && backup.bytes.length > 0, `the online backup answered ${backup.status}: ${backup.text.slice(0, 200)}`);
    notes.push(`an online copy of the embedded database was taken while the gateway ran (${backup.bytes.length} bytes; \`fiscal-gateway backup --out FILE\`, docs/deployment.md); PostgreSQL: pg_dump`);
  });

  return { results: CHECKLIST_ITEMS.map((i) => results.get(i.no) ?? { no: i.no, ok: false, notes: [], why: 'not run', calls: [], ms: 0 }), device };
}
