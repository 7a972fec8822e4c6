// The client against the simulator over real sockets: every endpoint, every outcome class and
// every fault switch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createVsdcClient, type DeviceTarget } from '../../../src/authorities/zra-vsdc/client.ts';
import { buildZraSaleBody, toFiscalReceipt } from '../../../src/authorities/zra-vsdc/sales-body.ts';
import { ZRA_VSDC_PROFILE } from '../../../src/authorities/zra-vsdc/adapter.ts';
import { sameTotal } from '../../../src/domain/fiscal/filing/filer.ts';
import { addDevice, freshTpin, sale, startFixedServer, startWorld, type World } from './helpers.ts';
import { eventually } from '../../helpers/poll.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world.close();
});

describe('initialisation', () => {
  test('installs a device once, then answers already_installed', async () => {
    const target: DeviceTarget = { baseUrl: world.sim.url, tpin: freshTpin(), bhfId: '001' };
    const first = await world.client.selectInitInfo(target, { dvcSrlNo: 'SN-INIT-1' });
    assert.equal(first.kind, 'ok');
    if (first.kind !== 'ok') return;
    assert.match(first.data.info.sdcId, /^SDC\d{10}$/);
    assert.match(first.data.info.mrcNo, /^WIS\d{8} +$/, 'mrcNo comes padded, for the gateway to trim');
    assert.equal(first.data.info.lastSaleInvcNo, 0);
    const again = await world.client.selectInitInfo(target, { dvcSrlNo: 'SN-INIT-1' });
    assert.equal(again.kind, 'already_installed');
  });

  test('continues a preset invoice sequence', async () => {
    const tpin = freshTpin();
    world.sim.control.presetDevice(tpin, '000', { lastSaleInvcNo: 1234 });
    const init = await world.client.selectInitInfo({ baseUrl: world.sim.url, tpin, bhfId: '000' }, { dvcSrlNo: `SN-${tpin}` });
    assert.equal(init.kind === 'ok' && init.data.info.lastSaleInvcNo, 1234);
  });
});

describe('code tables and catalogue', () => {
  test('selectCodes returns the tables, and 001 once nothing changed', async () => {
    const codes = await world.client.selectCodes(world.target);
    assert.equal(codes.kind, 'ok');
    if (codes.kind !== 'ok') return;
    const taxTypes = codes.data.clsList.find((c) => c.cdCls === '04');
    assert.deepEqual(
      taxTypes?.dtlList.map((d) => d.cd),
      ['A', 'B', 'C1', 'C2', 'C3', 'D', 'RVAT', 'E', 'F'],
    );
    assert.ok(codes.data.clsList.find((c) => c.cdCls === '07')?.dtlList.some((d) => d.cd === '06'));
    const later = await world.client.selectCodes(world.target, { lastReqDt: codes.resultDt ?? '' });
    assert.equal(later.kind, 'empty');
  });

  test('selectItemsClass returns the catalogue with 50221200', async () => {
    const classes = await world.client.selectItemsClass(world.target);
    assert.equal(classes.kind, 'ok');
    if (classes.kind !== 'ok') return;
    assert.ok(classes.data.itemClsList.length >= 450);
    assert.ok(classes.data.itemClsList.some((c) => c.itemClsCd === '50221200'));
    assert.equal((await world.client.selectItemsClass(world.target, { lastReqDt: '29991231000000' })).kind, 'empty');
  });

  test('the code tables answer before initialisation (health probe)', async () => {
    const fresh: DeviceTarget = { baseUrl: world.sim.url, tpin: freshTpin(), bhfId: '000' };
    assert.equal((await world.client.selectCodes(fresh)).kind, 'ok');
    const sale = await world.client.selectCustomer(fresh, { custmTpin: '2000000001' });
    assert.deepEqual(sale.kind === 'rejected' && sale.code, '901');
  });
});

describe('sales', () => {
  test('files a sale and returns a receipt the gateway can store', async () => {
    const outcome = await world.client.saveSales(world.target, buildZraSaleBody(sale(world.target, 1)));
    assert.equal(outcome.kind, 'ok');
    if (outcome.kind !== 'ok') return;
    const receipt = toFiscalReceipt(outcome.data, outcome.resultDt);
    assert.equal(receipt.sdcId, world.sdcId);
    assert.match(receipt.internalData, /^[A-Z2-7]{26}$/);
    assert.match(receipt.receiptSignature, /^[A-Z2-7]{16}$/);
    assert.equal(receipt.mrcNo, receipt.mrcNo?.trim());
    assert.equal(
      receipt.qrCodeUrl,
      `https://sandboxportal.zra.org.zm/indexInvoiceData?Data=${world.target.tpin}000${receipt.receiptSignature}`,
    );
  });

  test('a repeated cisInvcNo is a duplicate, and selectInvoice returns the filed receipt', async () => {
    const body = buildZraSaleBody(sale(world.target, 2));
    const first = await world.client.saveSales(world.target, body);
    assert.equal(first.kind, 'ok');
    assert.equal((await world.client.saveSales(world.target, body)).kind, 'duplicate');
    const filed = await world.client.selectInvoice(world.target, { cisInvcNo: '2', invcSdcId: world.sdcId });
    assert.equal(filed.kind, 'ok');
    if (filed.kind !== 'ok' || first.kind !== 'ok') return;
    assert.equal(filed.data.rcptNo, first.data.rcptNo);
    assert.equal(filed.data.totAmt, body.totAmt);
  });

  test('selectInvoice of an unknown number is empty', async () => {
    assert.equal((await world.client.selectInvoice(world.target, { cisInvcNo: '999999', invcSdcId: world.sdcId })).kind, 'empty');
  });

  test('wrong arithmetic is rejected with 910 naming the field', async () => {
    const body = buildZraSaleBody(sale(world.target, 3));
    const outcome = await world.client.saveSales(world.target, { ...body, taxAmtA: body.taxAmtA + 0.05 });
    assert.deepEqual(outcome.kind === 'rejected' && [outcome.code, outcome.message], ['910', 'Wrong Amount computation at taxAmtA']);
  });

  test('an unknown classification is rejected with 913', async () => {
    const doc = sale(world.target, 4);
    const outcome = await world.client.saveSales(
      world.target,
      buildZraSaleBody({ ...doc, lines: [{ ...doc.lines[0]!, classificationCode: '99999999' }] }),
    );
    assert.equal(outcome.kind === 'rejected' && outcome.code, '913');
  });

  test('"" in a number field gets a bare HTTP 400, read as a terminal rejection', async () => {
    const body = { ...buildZraSaleBody(sale(world.target, 5)), totAmt: '' } as unknown as ReturnType<typeof buildZraSaleBody>;
    const outcome = await world.client.saveSales(world.target, body);
    assert.equal(outcome.kind === 'rejected' && outcome.code, '400');
  });

  test('credit notes against a filed sale, and 930 against an unknown one', async () => {
    const original = await world.client.saveSales(world.target, buildZraSaleBody(sale(world.target, 6)));
    assert.equal(original.kind, 'ok');
    if (original.kind !== 'ok') return;
    const note = sale(world.target, 7, {
      receiptType: 'R',
      originalReceiptNo: original.data.rcptNo,
      originalSdcId: world.sdcId,
      reasonCode: '01',
    });
    assert.equal((await world.client.saveSales(world.target, buildZraSaleBody(note))).kind, 'ok');
    const orphan = buildZraSaleBody({ ...note, invoiceNo: 8, originalReceiptNo: 987654 });
    const outcome = await world.client.saveSales(world.target, orphan);
    assert.equal(outcome.kind === 'rejected' && outcome.code, '930');
  });
});

describe('customers, items and imports', () => {
  test('selectCustomer knows some TPINs and answers 001 for others', async () => {
    const known = await world.client.selectCustomer(world.target, { custmTpin: '2000000001' });
    assert.equal(known.kind === 'ok' && known.data.custList[0]?.custNm, 'Lusaka Trading Limited');
    assert.equal((await world.client.selectCustomer(world.target, { custmTpin: '2999999999' })).kind, 'empty');
  });

  test('saveBrancheCustomers registers a customer and refuses a bad TPIN', async () => {
    const customer = {
      custNo: 'C-1',
      custTpin: '2000000002',
      custNm: 'Copperbelt Mining Supplies',
      useYn: 'Y' as const,
      regrId: 'gw',
      regrNm: 'gw',
      modrId: 'gw',
      modrNm: 'gw',
    };
    assert.equal((await world.client.saveBrancheCustomers(world.target, customer)).kind, 'ok');
    const bad = await world.client.saveBrancheCustomers(world.target, { ...customer, custTpin: '12' });
    assert.equal(bad.kind === 'rejected' && bad.code, '910');
    assert.equal(world.sim.control.getDevice(world.target.tpin, '000')?.branchCustomers.length, 1);
  });

  test('saveItem and updateItem', async () => {
    const item = {
      itemCd: 'ZM2NTU0000009',
      itemClsCd: '50221200',
      itemTyCd: '2',
      itemNm: 'Breakfast mealie meal 10kg',
      orgnNatCd: 'ZM',
      pkgUnitCd: 'BG',
      qtyUnitCd: 'U',
      vatCatCd: 'A',
      dftPrc: 120,
      useYn: 'Y' as const,
      regrId: 'gw',
      regrNm: 'gw',
      modrId: 'gw',
      modrNm: 'gw',
    };
    assert.equal((await world.client.updateItem(world.target, item)).kind, 'rejected', 'cannot update an unregistered item');
    assert.equal((await world.client.saveItem(world.target, item)).kind, 'ok');
    assert.equal((await world.client.updateItem(world.target, { ...item, dftPrc: 125 })).kind, 'ok');
    const badClass = await world.client.saveItem(world.target, { ...item, itemClsCd: '12345678' });
    assert.equal(badClass.kind === 'rejected' && badClass.code, '913');
  });

  test('imports: none, then fed lines, then approval', async () => {
    assert.equal((await world.client.selectImportItems(world.target)).kind, 'empty');
    const [fed] = world.sim.control.feedImports(world.target.tpin, '000', [{ itemNm: 'Cooking oil 20L', qty: 40 }]);
    const pulled = await world.client.selectImportItems(world.target);
    assert.equal(pulled.kind, 'ok');
    if (pulled.kind !== 'ok' || !fed) return;
    assert.equal(pulled.data.itemList[0]?.itemNm, 'Cooking oil 20L');
    const decision = {
      itemSeq: fed.itemSeq,
      hsCd: fed.hsCd,
      itemClsCd: '50151513',
      itemCd: 'ZM2NTU0000010',
      imptItemSttsCd: '3' as const,
      modrId: 'gw',
      modrNm: 'gw',
    };
    assert.equal(
      (await world.client.updateImportItems(world.target, { taskCd: fed.taskCd, dclDe: fed.dclDe, importItemList: [decision] })).kind,
      'ok',
    );
    assert.equal(world.sim.control.getDevice(world.target.tpin, '000')?.imports[0]?.imptItemSttsCd, '3');
    const unknown = await world.client.updateImportItems(world.target, { taskCd: 'NOPE', dclDe: fed.dclDe, importItemList: [decision] });
    assert.equal(unknown.kind === 'rejected' && unknown.code, '910');
  });
});

describe('fault switches', () => {
  test('a device that is down: socket destroyed, no reply', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { down: true });
    const outcome = await world.client.saveSales(target, buildZraSaleBody(sale(target, 1)));
    assert.deepEqual(outcome.kind === 'unreachable' && outcome.reason, 'connection_reset');
    world.sim.control.clearFaults(target.tpin, target.bhfId);
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 1)))).kind, 'ok');
  });

  test('a stopped server: connection refused, then back on the same port', async () => {
    await world.sim.stopListening();
    try {
      // A pooled keep-alive socket the client has not yet seen closed fails as a reset first.
      const reasons: string[] = [];
      for (let attempt = 0; attempt < 20 && reasons.at(-1) !== 'connection_refused'; attempt += 1) {
        const outcome = await world.client.selectCodes(world.target);
        reasons.push(outcome.kind === 'unreachable' ? outcome.reason : outcome.kind);
      }
      assert.equal(reasons.at(-1), 'connection_refused');
      assert.ok(
        reasons.every((r) => r === 'connection_refused' || r === 'connection_reset'),
        reasons.join(),
      );
    } finally {
      await world.sim.startListening();
    }
    assert.equal((await world.client.selectCodes(world.target)).kind, 'ok');
  });

  test('838 on every call is unreachable, not a rejection', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { forcedResult: '838' });
    for (const outcome of [
      await world.client.saveSales(target, buildZraSaleBody(sale(target, 1))),
      await world.client.selectCodes(target),
    ]) {
      assert.deepEqual(outcome.kind === 'unreachable' && [outcome.reason, outcome.resultCd], ['authority_unreachable', '838']);
    }
    assert.deepEqual(world.sim.control.documents(target.tpin, target.bhfId, { filedOnly: true }), []);
  });

  test('a reply slower than the client timeout is unreachable; the VSDC files it anyway, so the resend meets 924 and selectInvoice adopts it', async () => {
    const { target, sdcId } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { delayMs: 300 });
    const body = buildZraSaleBody(sale(target, 1));
    const outcome = await world.client.saveSales(target, body, { timeoutMs: 50 });
    assert.deepEqual(outcome.kind === 'unreachable' && outcome.reason, 'timeout');
    // Equal delays expire in arrival order: once this later call is answered, the abandoned
    // saveSales has had its turn, and the VSDC filed it although its caller was gone.
    assert.equal((await world.client.selectCodes(target)).kind, 'ok');
    assert.deepEqual(
      world.sim.control.documents(target.tpin, target.bhfId).map((d) => d.cisInvcNo),
      ['1'],
    );
    world.sim.control.setFaults(target.tpin, target.bhfId, { delayMs: 0 });
    assert.equal((await world.client.saveSales(target, body)).kind, 'duplicate');
    const filed = await world.client.selectInvoice(target, { cisInvcNo: body.cisInvcNo, invcSdcId: sdcId });
    assert.ok(
      filed.kind === 'ok' && sameTotal(filed.data.totAmt, body.totAmt, ZRA_VSDC_PROFILE.amountTolerance),
      'the filed invoice is the one sent',
    );
  });

  test('with dropAbandoned, a reply slower than the client timeout files nothing, and the resend is filed afresh', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { delayMs: 300, dropAbandoned: true });
    const body = buildZraSaleBody(sale(target, 1));
    const outcome = await world.client.saveSales(target, body, { timeoutMs: 50 });
    assert.deepEqual(outcome.kind === 'unreachable' && outcome.reason, 'timeout');
    assert.equal((await world.client.selectCodes(target)).kind, 'ok');
    assert.deepEqual(world.sim.control.documents(target.tpin, target.bhfId), []);
    world.sim.control.setFaults(target.tpin, target.bhfId, { delayMs: 0 });
    assert.equal((await world.client.saveSales(target, body)).kind, 'ok', 'filed afresh, not a 924');
  });

  test('a slow reply within the timeout still succeeds', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { delayMs: 50 });
    assert.equal((await world.client.selectCodes(target)).kind, 'ok');
  });

  test('HTML 404 (VSDC app missing) is unreachable', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { html404: true });
    const outcome = await world.client.selectCodes(target);
    assert.deepEqual(outcome.kind === 'unreachable' && [outcome.reason, outcome.httpStatus], ['http_error', 404]);
  });

  test('reply lost after filing: unreachable, then 924 on resend, then selectInvoice adopts it', async () => {
    const { target, sdcId } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { loseReplies: 1 });
    const body = buildZraSaleBody(sale(target, 1));
    const lost = await world.client.saveSales(target, body);
    assert.deepEqual(lost.kind === 'unreachable' && lost.reason, 'connection_reset');
    assert.equal((await world.client.saveSales(target, body)).kind, 'duplicate');
    const filed = await world.client.selectInvoice(target, { cisInvcNo: body.cisInvcNo, invcSdcId: sdcId });
    assert.equal(filed.kind, 'ok');
    if (filed.kind !== 'ok') return;
    assert.ok(sameTotal(filed.data.totAmt, body.totAmt, ZRA_VSDC_PROFILE.amountTolerance));
    const receipt = toFiscalReceipt(filed.data, filed.resultDt);
    const documents = world.sim.control.documents(target.tpin, target.bhfId);
    assert.deepEqual(
      documents.map((d) => [d.cisInvcNo, d.resultCd, d.replyLost]),
      [
        ['1', '000', true],
        ['1', '924', false],
      ],
    );
    assert.equal(receipt.receiptNo, documents[0]?.receipt?.rcptNo);
  });

  test('reject the next N documents with a chosen code', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { reject: { count: 2, code: '999', message: 'There is an unknown error.' } });
    const results = [];
    for (const n of [1, 2, 3]) results.push(await world.client.saveSales(target, buildZraSaleBody(sale(target, n))));
    assert.deepEqual(
      results.map((r) => (r.kind === 'rejected' ? [r.kind, r.code, r.message] : [r.kind])),
      [['rejected', '999', 'There is an unknown error.'], ['rejected', '999', 'There is an unknown error.'], ['ok']],
    );
  });
});

describe('transport edge cases', () => {
  test('a 200 that is not an envelope is unreachable (a proxy or the container answered)', async () => {
    const server = await startFixedServer(200, '<html>It works</html>', 'text/html');
    try {
      const outcome = await world.client.selectCodes({ baseUrl: server.url, tpin: '1000000001', bhfId: '000' });
      assert.deepEqual(outcome.kind === 'unreachable' && outcome.reason, 'not_an_envelope');
    } finally {
      await server.close();
    }
  });

  test('HTTP 503 is unreachable', async () => {
    const server = await startFixedServer(503, 'Service Unavailable', 'text/plain');
    try {
      const outcome = await world.client.saveSales(
        { baseUrl: server.url, tpin: '1000000001', bhfId: '000' },
        buildZraSaleBody(sale(world.target, 1)),
      );
      assert.deepEqual(outcome.kind === 'unreachable' && [outcome.reason, outcome.httpStatus], ['http_error', 503]);
    } finally {
      await server.close();
    }
  });

  test('000 without receipt fields is treated as no answer', async () => {
    const server = await startFixedServer(
      200,
      JSON.stringify({ resultCd: '000', resultMsg: 'It is succeeded', resultDt: '20240101000000', data: null }),
    );
    try {
      const outcome = await world.client.saveSales(
        { baseUrl: server.url, tpin: '1000000001', bhfId: '000' },
        buildZraSaleBody(sale(world.target, 1)),
      );
      assert.deepEqual(outcome.kind === 'unreachable' && outcome.reason, 'bad_success_body');
    } finally {
      await server.close();
    }
  });

  test('a context path in vsdcBaseUrl, with or without a trailing slash', async () => {
    const contextWorld = await startWorld({ contextPath: '/zrasandboxvsdc' });
    try {
      assert.match(contextWorld.sim.url, /\/zrasandboxvsdc$/);
      assert.equal((await contextWorld.client.selectCodes({ ...contextWorld.target, baseUrl: `${contextWorld.sim.url}/` })).kind, 'ok');
      const atRoot = await contextWorld.client.selectCodes({ ...contextWorld.target, baseUrl: contextWorld.sim.origin });
      assert.deepEqual(atRoot.kind === 'unreachable' && atRoot.httpStatus, 404);
    } finally {
      await contextWorld.close();
    }
  });

  test('an invalid base URL is unreachable, not a crash', async () => {
    const outcome = await world.client.selectCodes({ baseUrl: 'not a url', tpin: '1000000001', bhfId: '000' });
    assert.equal(outcome.kind, 'unreachable');
  });

  test('close() releases the pooled connections', async () => {
    // A VSDC that counts the sockets open to it. The idle timeout is far longer than the test, so
    // only close() can end the pooled socket.
    const open = new Set<Socket>();
    let requests = 0;
    const server = createServer((req, res) => {
      requests += 1;
      req.resume();
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ resultCd: '001', resultMsg: 'no data', resultDt: '20240101000000', data: null })),
      );
    });
    server.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const target: DeviceTarget = {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tpin: '1000000001',
      bhfId: '000',
    };
    const client = createVsdcClient({ timeoutMs: 5_000, keepAliveTimeoutMs: 600_000 });
    try {
      assert.equal((await client.selectCodes(target)).kind, 'empty');
      assert.equal(open.size, 1, 'the answered call leaves its socket open in the pool');

      await client.close();
      await eventually(() => open.size === 0, 'the VSDC to see the pooled socket closed', 5_000);
      const after = await client.selectCodes(target);
      assert.deepEqual(after.kind === 'unreachable' && after.reason, 'network_error', 'a call after close() is refused, not sent');
      assert.equal(requests, 1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('cancellation', () => {
  test('a caller-cancelled call is unreachable with reason "aborted"', async () => {
    const { target } = await addDevice(world);
    world.sim.control.setFaults(target.tpin, target.bhfId, { delayMs: 200 });
    const controller = new AbortController();
    const pending = world.client.selectCodes(target, undefined, { signal: controller.signal });
    controller.abort();
    const outcome = await pending;
    assert.deepEqual(outcome.kind === 'unreachable' && outcome.reason, 'aborted');
  });
});
