// The VSDC's stock beside the gateway's (GET /api/v1/stock/reconciliation) against the real
// simulator: after the chains are sent the two agree; a movement only the VSDC has is a
// difference (and a resent sarNo replaces it, never adds to it); movements the VSDC has not got
// yet are `pending`, not a difference; a live read while the VSDC is down is a 503 (an error
// answer a 502); the branch
// rule and credentials refuse what they should.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SaveStockItemsRequest, StockMovement } from '@fiscal-gateway/vsdc-protocol';
import { moduleWorkers } from '../../../src/app/modules.ts';
import { pullDueStockLedgers } from '../../../src/domain/feeds/stock-ledger/service.ts';
import { toLedgerMove as toLedgerMovement } from '../../../src/authorities/zra-vsdc/feeds.ts';
import { lastReqDtOf as ledgerRequestDate } from '../../../src/authorities/zra-vsdc/calls.ts';
import { stockLedgerPullWorker } from '../../../src/domain/feeds/stock-ledger/worker.ts';
import { GATEWAY_REGISTRANT_FIELDS } from '../../../src/authorities/zra-vsdc/registrant.ts';
import { bearer } from '../../helpers/app.ts';
import { tokenWithAbilities } from '../../helpers/credentials.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { directVsdcCall } from '../../authorities/zra/helpers.ts';

const URL = '/api/v1/stock/reconciliation';
const GOODS = 'RECON-GOODS';
const RAW = 'RECON-RAW';
const VSDC_ONLY = 'RECON-VSDC-ONLY';

describe('reading the ledger the VSDC sends', () => {
  test('lastReqDt is one second before the last resultDt; the epoch and non-dates are sent as they are', () => {
    assert.equal(ledgerRequestDate('20260301080000'), '20260301075959');
    assert.equal(ledgerRequestDate('20260101000000'), '20251231235959');
    assert.equal(ledgerRequestDate('20000101000000'), '20000101000000');
    assert.equal(ledgerRequestDate('garbage'), 'garbage');
  });

  test('a movement is keyed by a whole sarNo; each line signed by sarTyCd; unreadable lines dropped', () => {
    const raw = (fields: Record<string, unknown>) =>
      ({
        sarNo: 7,
        sarTyCd: '11',
        itemList: [
          { itemCd: 'A', qty: 2.5 },
          { itemCd: ' ', qty: 1 },
          { itemCd: 'B', qty: 'x' },
          { itemCd: 'C', qty: '3' },
        ],
        ...fields,
      }) as unknown as StockMovement;
    assert.deepEqual(toLedgerMovement(raw({}))!.lines, [
      { seq: 1, itemCode: 'A', quantity: '-2.5000' },
      { seq: 4, itemCode: 'C', quantity: '-3.0000' },
    ]);
    assert.deepEqual(
      toLedgerMovement(raw({ sarTyCd: '06' }))!.lines.map((l) => l.quantity),
      ['2.5000', '3.0000'],
    );
    assert.deepEqual(
      toLedgerMovement(raw({ sarTyCd: '99' }))!.lines.map((l) => l.quantity),
      ['0.0000', '0.0000'],
      'a type that is neither in nor out moves nothing',
    );
    assert.equal(toLedgerMovement(raw({ sarNo: '12' }))!.number, 12);
    for (const sarNo of [null, 1.5, -1, 'x']) assert.equal(toLedgerMovement(raw({ sarNo })), undefined, String(sarNo));
  });
});

interface Compared {
  itemCode: string;
  gatewayQuantity: number;
  vsdcQuantity: number | null;
  difference: number | null;
  unsentMovements: number;
  unsentQuantity: number;
  status: string;
}

describe(`stock reconciliation (${engineName})`, () => {
  let h: Harness;
  const target = () => ({ baseUrl: h.sim.url, tpin: h.merchant.tpin, bhfId: '000' });
  const compare = async (query = '') =>
    expectStatus(await h.get(`${URL}${query}`), 200).data as {
      branch: string;
      pulledAt: string | null;
      lastError: string | null;
      summary: Record<string, number>;
      items: Compared[];
    };
  const itemOf = (items: Compared[], code: string) => items.find((i) => i.itemCode === code)!;
  /** Until the stock chain of a sale (`stock`) or a movement (`chain`) is sent. */
  const sent = (url: string) =>
    eventually(async () => {
      const data = expectStatus(await h.get(url), 200).data;
      return (data.stock ?? data.chain).state === 'sent' ? true : undefined;
    }, `${url}: stock chain sent`);
  /** A movement filed with the VSDC by someone else than the gateway, straight to the simulator's socket. */
  const fileDirectly = async (sarNo: number, sarTyCd: SaveStockItemsRequest['sarTyCd'], itemCd: string, qty: number) => {
    const body: SaveStockItemsRequest = {
      sarNo,
      orgSarNo: 0,
      regTyCd: 'M',
      custTpin: null,
      custNm: null,
      custBhfId: null,
      sarTyCd,
      ocrnDt: '20260301',
      totItemCnt: 1,
      totTaxblAmt: 10 * qty,
      totTaxAmt: 0,
      totAmt: 10 * qty,
      remark: 'Filed by another system',
      ...GATEWAY_REGISTRANT_FIELDS,
      itemList: [
        {
          itemSeq: 1,
          itemCd,
          itemClsCd: CLASS_CODE,
          itemNm: itemCd,
          pkgUnitCd: 'NT',
          pkg: qty,
          qtyUnitCd: 'U',
          qty,
          prc: 10,
          splyAmt: 10 * qty,
          totDcAmt: 0,
          taxblAmt: 10 * qty,
          vatCatCd: 'A',
          vatAmt: 0,
          taxAmt: 0,
          totAmt: 10 * qty,
        },
      ],
    };
    assert.equal((await directVsdcCall((vsdc) => vsdc.saveStockItems(target(), body))).kind, 'ok');
  };

  before(async () => {
    // Every worker but the ledger's own: the tests read the ledger when they choose (refresh, or a pull round).
    h = await startHarness({ workers: false });
    h.startWorkers(moduleWorkers.filter((w) => w !== stockLedgerPullWorker));
    for (const [itemCode, itemTypeCode] of [
      [GOODS, '2'],
      [RAW, '1'],
      [VSDC_ONLY, '2'],
    ]) {
      expectStatus(await h.post('/api/v1/items', { name: itemCode, itemClsCd: CLASS_CODE, itemCode, itemTypeCode, defaultPrice: 10 }), 201);
    }
  });
  after(() => h.close());

  test('before the ledger is read every item is unknown; after sales and an adjustment are sent, the levels match', async () => {
    const opening = expectStatus(
      await h.post('/api/v1/stock/adjustments', {
        movementType: '06',
        items: [
          { itemCode: GOODS, quantity: 100 },
          { itemCode: RAW, quantity: 50 },
        ],
        remark: 'Opening stock',
      }),
      201,
    ).data;
    const urls = [`/api/v1/stock/movements/${opening.id}`];
    for (const quantity of [3, 2]) {
      const sale = expectStatus(
        await h.post('/api/v1/sales', { items: [{ name: GOODS, classificationCode: CLASS_CODE, itemCode: GOODS, quantity, price: 10 }] }),
        201,
      ).data;
      assert.equal(sale.status, 'uploaded');
      urls.push(`/api/v1/sales/${sale.id}`);
    }
    for (const url of urls) await sent(url);

    const unread = await compare();
    assert.equal(unread.pulledAt, null);
    assert.deepEqual(unread.summary, { items: 2, matching: 0, pending: 0, differing: 0 });
    assert.deepEqual(itemOf(unread.items, GOODS), {
      itemCode: GOODS,
      itemName: GOODS,
      gatewayQuantity: 95,
      vsdcQuantity: null,
      difference: null,
      unsentMovements: 0,
      unsentQuantity: 0,
      status: 'unknown',
    } as Compared);

    const read = await compare('?refresh=true');
    assert.equal(read.branch, '000');
    assert.ok(read.pulledAt !== null && !Number.isNaN(Date.parse(read.pulledAt)));
    assert.equal(read.lastError, null);
    assert.deepEqual(read.summary, { items: 2, matching: 2, pending: 0, differing: 0 });
    assert.deepEqual(
      read.items.map((i) => [i.itemCode, i.gatewayQuantity, i.vsdcQuantity, i.difference, i.status]),
      [
        [GOODS, 95, 95, 0, 'matches'],
        [RAW, 50, 50, 0, 'matches'],
      ],
    );

    // The first read asks for everything; the next one from a second before the previous answer's resultDt.
    const reads = h.sim.control.calls(h.merchant.tpin, '000', 'selectStockItems');
    assert.equal(reads.at(-1)!.request.lastReqDt, '20000101000000');
    await compare('?refresh=true');
    const again = h.sim.control.calls(h.merchant.tpin, '000', 'selectStockItems');
    assert.equal(again.at(-1)!.request.lastReqDt, ledgerRequestDate(reads.at(-1)!.resultDt!));
  });

  test('a movement only the VSDC has is a difference, also of an item the gateway never moved; a resent sarNo replaces it', async () => {
    await fileDirectly(1000, '06', GOODS, 5);
    await fileDirectly(1001, '06', VSDC_ONLY, 4);
    // Read by the background pull this time.
    const before = h.sim.control.calls(h.merchant.tpin, '000', 'selectStockItems').at(-1)!;
    await h.ctx.db
      .updateTable('feed_pulls')
      .set({ next_pull_at: new Date(0) })
      .where('feed', '=', 'stock-ledger')
      .execute();
    assert.ok((await pullDueStockLedgers(h.ctx, 3_600_000)) >= 1);
    assert.equal(
      h.sim.control.calls(h.merchant.tpin, '000', 'selectStockItems').at(-1)!.request.lastReqDt,
      ledgerRequestDate(before.resultDt!),
    );
    const read = await compare();
    assert.deepEqual(read.summary, { items: 3, matching: 1, pending: 0, differing: 2 });
    assert.deepEqual(itemOf(read.items, GOODS), {
      itemCode: GOODS,
      itemName: GOODS,
      gatewayQuantity: 95,
      vsdcQuantity: 100,
      difference: -5,
      unsentMovements: 0,
      unsentQuantity: 0,
      status: 'differs',
    } as Compared);
    assert.deepEqual(
      [itemOf(read.items, VSDC_ONLY).gatewayQuantity, itemOf(read.items, VSDC_ONLY).vsdcQuantity, itemOf(read.items, VSDC_ONLY).status],
      [0, 4, 'differs'],
    );
    assert.deepEqual(
      (await compare('?status=differs')).items.map((i) => i.itemCode),
      [GOODS, VSDC_ONLY],
    );

    // The other system files sarNo 1000 again (out, 2): it replaces the first, it does not add to it.
    await fileDirectly(1000, '16', GOODS, 2);
    const replaced = await compare('?refresh=true');
    assert.deepEqual([itemOf(replaced.items, GOODS).vsdcQuantity, itemOf(replaced.items, GOODS).difference], [93, 2]);
    const stored = await h.ctx.db.selectFrom('stock_ledger_movements').select('sar_no').where('sar_no', '=', 1000).execute();
    assert.equal(stored.length, 1);
  });

  test('movements the VSDC has not got are pending, not a difference; a live read while it is down is a 503, refused a 502', async (t) => {
    t.after(() => h.sim.control.clearFaults(h.merchant.tpin, '000'));
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const loss = expectStatus(
      await h.post('/api/v1/stock/adjustments', { movementType: '15', items: [{ itemCode: RAW, quantity: 4 }], remark: 'Breakage' }),
      201,
    ).data;
    assert.equal(loss.chain.state, 'pending');

    const waiting = await compare();
    assert.deepEqual(itemOf(waiting.items, RAW), {
      itemCode: RAW,
      itemName: RAW,
      gatewayQuantity: 46,
      vsdcQuantity: 50,
      difference: -4,
      unsentMovements: 1,
      unsentQuantity: -4,
      status: 'pending',
    } as Compared);
    assert.equal(waiting.summary.pending, 1);

    const refused = await h.get(`${URL}?refresh=true`);
    expectCoded(refused, 503, 'vsdc_unreachable');
    assert.equal(refused.headers['retry-after'], '5');
    const after503 = await compare();
    assert.equal(after503.pulledAt, waiting.pulledAt, 'nothing stored');
    assert.ok(after503.lastError !== null, 'the failed read is said');

    // Back up: the chain goes out after the ledger was read, so it is still pending until the next read.
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    await eventually(
      async () => expectStatus(await h.get(`/api/v1/stock/movements/${loss.id}`), 200).data.chain.state === 'sent',
      'the loss sent',
    );
    assert.equal(itemOf((await compare()).items, RAW).status, 'pending');
    const fresh = await compare('?refresh=true');
    assert.deepEqual(itemOf(fresh.items, RAW), {
      itemCode: RAW,
      itemName: RAW,
      gatewayQuantity: 46,
      vsdcQuantity: 46,
      difference: 0,
      unsentMovements: 0,
      unsentQuantity: 0,
      status: 'matches',
    } as Compared);
    assert.equal(fresh.lastError, null);

    // A VSDC that answers the read with an error: 502, nothing stored, the error said.
    h.sim.control.setFaults(h.merchant.tpin, '000', {
      forcedResult: { code: '910', message: 'Request parameter error', endpoints: ['selectStockItems'] },
    });
    expectCoded(await h.get(`${URL}?refresh=true`), 502, 'vsdc_refused');
    const afterRefusal = await compare();
    assert.equal(afterRefusal.pulledAt, fresh.pulledAt);
    assert.match(afterRefusal.lastError ?? '', /^910 /);
  });

  test('the branch rule, bad queries and wrong credentials are refused; another merchant sees only its own', async () => {
    expectCoded(await h.get(URL, { 'x-branch': '999' }), 422, 'branch_not_found');
    const noBranch = await h.addMerchant();
    expectCoded(await h.as(noBranch).get(URL), 422, 'no_device');
    const notInitialised = await h.addMerchant({ branches: ['000'], initialize: false });
    expectCoded(await h.as(notInitialised).get(URL), 422, 'branch_not_initialized');
    for (const query of ['?status=bogus', '?page=0', '?refresh=maybe']) expectStatus(await h.get(`${URL}${query}`), 422);

    const other = await h.addMerchant({ branches: ['000'] });
    const theirs = expectStatus(await h.as(other).get(`${URL}?refresh=true`), 200).data;
    assert.deepEqual(theirs.summary, { items: 0, matching: 0, pending: 0, differing: 0 });
    assert.deepEqual(theirs.items, []);

    assert.equal((await h.t.inject({ method: 'GET', url: URL })).statusCode, 401);
    assert.equal(
      (await h.t.inject({ method: 'GET', url: URL, headers: bearer(h.merchant.partnerSecret) })).statusCode,
      401,
      'a partner key is not a merchant credential',
    );
    const writeOnly = await tokenWithAbilities(h.ctx, h.merchant.tenantId, ['invoices:write']);
    expectCoded(await h.t.inject({ method: 'GET', url: URL, headers: bearer(writeOnly) }), 403, 'missing_ability');
  });
});
