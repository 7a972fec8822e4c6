// Issue 45 §3: every document records which credential issued it, in its own insert, and the
// document resource names it (`issuedBy {type, id, name}`) wherever it is presented: the write's
// answer, the reads and lists, the webhook events, the partner console's documents, the export.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dayOf } from '../../../src/platform/lib/time-zones.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectStatus, saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { createTillLogin, getActive, invoiceBody, mintKey, nextNumber, postInvoice, sdcIdOf } from '../compat/helpers.ts';

interface IssuedBy {
  type: string;
  id: number;
  name: string | null;
}
interface Document {
  id: number;
  status: string;
  issuedBy: IssuedBy | null;
}

describe(`who issued a document (${engineName})`, () => {
  let h: Harness;
  let token: { id: number; name: string };
  let partnerKey: { id: number; name: string };

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 2_000 } });
    token = await h.ctx.db
      .selectFrom('tenant_tokens')
      .select(['id', 'name'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const key = await h.ctx.db
      .selectFrom('partner_keys')
      .innerJoin('partners', 'partners.id', 'partner_keys.partner_id')
      .select(['partner_keys.id', 'partner_keys.name', 'partners.name as partner'])
      .where('partner_id', '=', h.merchant.partnerId)
      .orderBy('partner_keys.id')
      .executeTakeFirstOrThrow();
    partnerKey = { id: key.id, name: `${key.name} (${key.partner})` };
  });
  after(() => h.close());

  const read = async (id: number): Promise<Document> => expectStatus(await h.get(`/api/v1/sales/${id}`), 200).data;
  const settled = (id: number) =>
    eventually(async () => {
      const sale = await read(id);
      return sale.status === 'pending' ? undefined : sale;
    }, `document ${id} settled`);
  /** The body of the document's webhook event of `type`, as its deliveries send it. */
  const eventOf = async (type: string, id: number) =>
    eventually(async () => {
      const rows = await h.ctx.db
        .selectFrom('webhook_events')
        .select('body')
        .where('tenant_id', '=', h.merchant.tenantId)
        .where('type', '=', type)
        .execute();
      return rows.map((r) => JSON.parse(r.body) as { data: { invoice: Document } }).find((e) => e.data.invoice.id === id);
    }, `${type} of document ${id}`);

  test('a sale by a tenant token: its answer, its read, the list, its webhook event and the export name the token', async () => {
    const sale: Document = expectStatus(await h.post('/api/v1/sales', saleBody({ clientInvoiceNo: 'issued-by-token' })), 201).data;
    const expected = { type: 'tenant_token', id: token.id, name: token.name };
    assert.deepEqual(sale.issuedBy, expected, 'the answer of the write');
    assert.deepEqual((await read(sale.id)).issuedBy, expected, 'GET /api/v1/sales/{id}');
    const listed = expectStatus(await h.get('/api/v1/sales?reference=issued-by-token'), 200).data as Document[];
    assert.deepEqual(
      listed.map((d) => d.issuedBy),
      [expected],
      'the list',
    );
    assert.equal((await settled(sale.id)).status, 'uploaded');
    assert.deepEqual((await eventOf('invoice.fiscalised', sale.id)).data.invoice.issuedBy, expected, 'the invoice.fiscalised event');

    const { timezone } = await h.ctx.db
      .selectFrom('tenants')
      .select('timezone')
      .where('id', '=', h.merchant.tenantId)
      .executeTakeFirstOrThrow();
    const day = dayOf(new Date(), timezone);
    const csv = (await h.get(`/api/v1/exports/documents?from=${day}&to=${day}&format=csv`)).body.trim().split('\r\n');
    const header = csv[0]!.split(',');
    assert.deepEqual(header.slice(-3), ['issuedByType', 'issuedById', 'issuedByName']);
    const row = csv.find((line) => line.startsWith(`${sale.id},`));
    assert.ok(row?.endsWith(`,tenant_token,${token.id},${token.name}`), row);
  });

  test('a sale, a credit note and a debit note from the console: the signed-in user, by email', async () => {
    const user = await seedSignedInUser(h.ctx, h.merchant.tenantId, 'admin');
    const asUser = (url: string, payload: unknown) =>
      h.t.inject({ method: 'POST', url, headers: user.headers, payload: payload as object });
    const expected = { type: 'user', id: user.userId, name: user.email };
    const sale: Document = expectStatus(await asUser('/api/v1/sales', saleBody()), 201).data;
    assert.deepEqual(sale.issuedBy, expected);
    assert.equal((await settled(sale.id)).status, 'uploaded');
    const credit: Document = expectStatus(await asUser(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' }), 201).data;
    const debit: Document = expectStatus(
      await asUser(`/api/v1/sales/${sale.id}/debit-note`, {
        reasonCode: '03',
        items: [{ name: 'Delivery', classificationCode: CLASS_CODE, quantity: 1, price: 10 }],
      }),
      201,
    ).data;
    assert.deepEqual(credit.issuedBy, expected, 'the credit note');
    assert.deepEqual(debit.issuedBy, expected, 'the debit note');
    // The sale names who issued each of its notes.
    const withNotes = expectStatus(await h.get(`/api/v1/sales/${sale.id}?expand=credits`), 200).data as {
      notes: Array<{ id: number; issuedBy: IssuedBy }>;
    };
    assert.deepEqual(
      withNotes.notes.map((n) => [n.id, n.issuedBy]),
      [
        [credit.id, expected],
        [debit.id, expected],
      ],
    );
  });

  test('a legacy till: by the till login whose key it sent, or by the key the partner minted', async () => {
    const sdcId = await sdcIdOf(h, h.merchant);
    const username = `issuer-till-${process.pid}`;
    const login = await createTillLogin(h, h.merchant, { username, branch: '000' });
    const active = expectStatus(await getActive(h, { Tpin: h.merchant.tpin, Username: username, Password: login.password }), 200) as {
      ApiKey: string;
    };
    const byLogin = nextNumber('ISSUER');
    assert.equal((await postInvoice(h, { key: active.ApiKey, sdcId }, invoiceBody(byLogin))).statusCode, 201);
    const minted = await mintKey(h, h.merchant);
    const byKey = nextNumber('ISSUER');
    assert.equal((await postInvoice(h, { key: minted.key, sdcId }, invoiceBody(byKey))).statusCode, 201);

    const issuerOf = async (reference: string) => {
      const [document] = expectStatus(await h.get(`/api/v1/sales?reference=${reference}`), 200).data as Document[];
      return document!.issuedBy;
    };
    assert.deepEqual(await issuerOf(byLogin), { type: 'till_login', id: login.id, name: username });
    assert.deepEqual(await issuerOf(byKey), { type: 'fiscalisation_key', id: minted.id, name: `pk_…${minted.key.slice(-4)}` });

    // The login logs in again (its previous key is revoked) and is deleted: its invoices still name it.
    expectStatus(await getActive(h, { Tpin: h.merchant.tpin, Username: username, Password: login.password }), 200);
    expectStatus(
      await h.t.inject({
        method: 'DELETE',
        url: `/api/v1/tenants/${h.merchant.tenantId}/till-logins/${login.id}`,
        headers: bearer(h.merchant.partnerSecret),
      }),
      200,
    );
    assert.deepEqual(await issuerOf(byLogin), { type: 'till_login', id: login.id, name: username });
  });

  test("a reissue by the partner: the partner key, in the partner console's documents too", async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Invalid customer TPIN' } });
    const failed: Document = expectStatus(await h.post('/api/v1/sales', saleBody()), 201).data;
    assert.equal((await settled(failed.id)).status, 'failed');
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    const reissue = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${failed.id}/reissue`,
      headers: { ...bearer(h.merchant.partnerSecret), 'idempotency-key': `issuer-reissue-${failed.id}` },
      payload: saleBody(),
    });
    const reissued: Document = expectStatus(reissue, 201).data;
    const expected = { type: 'partner_key', id: partnerKey.id, name: partnerKey.name };
    assert.deepEqual(reissued.issuedBy, expected);
    assert.deepEqual(
      (await read(failed.id)).issuedBy,
      { type: 'tenant_token', id: token.id, name: token.name },
      'the failed sale keeps its own issuer',
    );

    const uploaded = await eventually(async () => {
      const res = await h.t.inject({
        method: 'GET',
        url: `/api/v1/partner/documents?status=uploaded&tenant=${h.merchant.tenantId}`,
        headers: bearer(h.merchant.partnerSecret),
      });
      return (expectStatus(res, 200).data as Document[]).find((d) => d.id === reissued.id);
    }, "the reissue in the partner's documents");
    assert.deepEqual(uploaded.issuedBy, expected);
  });

  test('a revoked token still names the documents it issued; documents stored before issuers were recorded say null', async () => {
    const minted = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${h.merchant.tenantId}/tokens`,
        headers: bearer(h.merchant.partnerSecret),
        payload: { name: 'Till 9 token' },
      }),
      201,
    ).data as { id: number; token: string };
    const sale: Document = expectStatus(
      await h.t.inject({ method: 'POST', url: '/api/v1/sales', headers: bearer(minted.token), payload: saleBody() }),
      201,
    ).data;
    expectStatus(
      await h.t.inject({
        method: 'DELETE',
        url: `/api/v1/tenants/${h.merchant.tenantId}/tokens/${minted.id}`,
        headers: bearer(h.merchant.partnerSecret),
      }),
      200,
    );
    assert.deepEqual((await read(sale.id)).issuedBy, { type: 'tenant_token', id: minted.id, name: 'Till 9 token' });

    // As a row from before migration 0036: neither column.
    await h.ctx.db.updateTable('sales').set({ issued_by_type: null, issued_by_id: null }).where('id', '=', sale.id).execute();
    assert.equal((await read(sale.id)).issuedBy, null);
  });
});
