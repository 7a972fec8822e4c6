// The KRA adapter over a real socket: the paths, headers and bodies each protocol sends (cmcKey on
// OSCU calls after initialisation, tin/bhfId in VSCU bodies, the API gateway's token), every
// class of answer, and the cmcKey never in a message the gateway keeps.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorityDevice } from '../../../src/authorities/port/device.ts';
import { createKraClient, interpretKraReply, type KraClient } from '../../../src/authorities/kra-etims/client.ts';
import { kraEtimsAuthority } from '../../../src/authorities/kra-etims/adapter.ts';
import { buildKraSaleBody } from '../../../src/authorities/kra-etims/sales-body.ts';
import { KRA_SETTINGS } from '../../../src/authorities/kra-etims/settings.ts';
import type { FiscalAuthority } from '../../../src/authorities/port/index.ts';
import { envelope, kraSale, startFakeKra, type FakeKra } from './helpers.ts';

const CMC_KEY = 'cmc-4f1d8a2b9c7e6d5a';
const SALE_REPLY = {
  curRcptNo: '3',
  totRcptNo: '11',
  intrlData: 'WQ4R2SDFGHJKLZXCVBNMASDFGH',
  rcptSign: 'ABCD1234EFGH5678',
  sdcDateTime: '20261206123007',
};

let fake: FakeKra;
let oscuClient: KraClient;
let vscuClient: KraClient;
let oscu: FiscalAuthority;
let vscu: FiscalAuthority;
let device: AuthorityDevice;
let vscuDevice: AuthorityDevice;
const now = () => new Date('2026-12-06T09:31:00Z');

before(async () => {
  fake = await startFakeKra();
  oscuClient = createKraClient('oscu', { timeoutMs: 2_000 });
  vscuClient = createKraClient('vscu', { timeoutMs: 2_000 });
  oscu = kraEtimsAuthority(oscuClient, now);
  vscu = kraEtimsAuthority(vscuClient, now);
  device = {
    profile: 'kra-oscu',
    baseUrl: `${fake.url}/etims-api/`,
    tpin: 'P051234567X',
    branch: '00',
    sdcId: 'KRACU0100000001',
    mrcNo: 'WIS01000001',
    unitKey: CMC_KEY,
  };
  vscuDevice = { profile: 'kra-vscu', baseUrl: fake.url, tpin: 'P051234567X', branch: '01', sdcId: null, mrcNo: null, unitKey: null };
});
after(async () => {
  await oscuClient.close();
  await vscuClient.close();
  await fake.close();
});
beforeEach(() => {
  fake.calls.length = 0;
});

const lastCall = () => fake.calls[fake.calls.length - 1]!;

describe('initialisation', () => {
  test('OSCU: selectInitOsdcInfo {tin, bhfId, dvcSrlNo} without business headers gives sdcId, mrcNo and the cmcKey', async () => {
    fake.answer(
      'selectInitOsdcInfo',
      envelope('000', {
        info: {
          tin: 'P051234567X',
          taxprNm: 'Duka Ltd',
          bhfId: '00',
          bhfNm: 'Headquarter',
          sdcId: 'KRACU0100000001',
          mrcNo: 'WIS01000001',
          cmcKey: CMC_KEY,
        },
      }),
    );
    const outcome = await oscu.device.initialise({ ...device, unitKey: null }, 'dvcv1130');
    assert.deepEqual(outcome, {
      kind: 'ok',
      device: {
        sdcId: 'KRACU0100000001',
        mrcNo: 'WIS01000001',
        taxpayerName: 'Duka Ltd',
        branchName: 'Headquarter',
        lastSaleInvoiceNo: 0,
        lastPurchaseInvoiceNo: null,
        lastSaleReceiptNo: null,
        lastTrainingInvoiceNo: null,
        lastProformaInvoiceNo: null,
        unitKey: CMC_KEY,
      },
    });
    const call = lastCall();
    assert.equal(call.path, '/etims-api/selectInitOsdcInfo');
    assert.equal(call.body, '{"tin":"P051234567X","bhfId":"00","dvcSrlNo":"dvcv1130"}');
    for (const header of ['tin', 'bhfid', 'cmckey', 'authorization'])
      assert.equal(call.headers[header], undefined, `no ${header} header on init`);
  });

  test("902 is already installed; 901 and 903 are refusals with KRA's words", async () => {
    fake.answer('selectInitOsdcInfo', envelope('902', null, 'This device is installed'));
    assert.deepEqual(await oscu.device.initialise(device, 'dvcv1130'), { kind: 'already_installed', message: 'This device is installed' });
    fake.answer('selectInitOsdcInfo', envelope('901', null, 'It is not valid device'));
    assert.deepEqual(await oscu.device.initialise(device, 'unknown'), { kind: 'rejected', code: '901', message: 'It is not valid device' });
    fake.answer('selectInitOsdcInfo', envelope('903', null, 'Only OSCU device can be verified'));
    assert.equal((await oscu.device.initialise(device, 'vscu-serial')).kind, 'rejected');
  });

  test("VSCU: /initializer/selectInitInfo, the jar's counters continued (sales after lastInvcNo, shared by every kind), numbers as strings", async () => {
    fake.answer(
      'selectInitInfo',
      envelope('000', {
        info: {
          sdcId: 'KRAVSCU01',
          mrcNo: 'MRC9',
          lastInvcNo: '41',
          lastSaleInvcNo: 39,
          lastPchsInvcNo: 2,
          lastSaleRcptNo: '40',
          lastTrainInvcNo: 3,
          lastProfrmInvcNo: '0',
        },
      }),
    );
    const outcome = await vscu.device.initialise(vscuDevice, 'VSCU-1');
    assert.equal(outcome.kind, 'ok');
    if (outcome.kind !== 'ok') return;
    assert.deepEqual(
      [
        outcome.device.lastSaleInvoiceNo,
        outcome.device.lastPurchaseInvoiceNo,
        outcome.device.lastSaleReceiptNo,
        outcome.device.lastTrainingInvoiceNo,
        outcome.device.lastProformaInvoiceNo,
        outcome.device.unitKey,
      ],
      [41, 2, 40, 3, 0, null],
    );
    assert.equal(lastCall().path, '/initializer/selectInitInfo');
  });

  test("verify: a harmless code-table read with the key; a wrong key is KRA's refusal", async () => {
    fake.answer('selectCodeList', envelope('001', null, 'There is no search result'));
    assert.deepEqual(await oscu.device.verify(device), { kind: 'ok' });
    assert.equal(lastCall().headers.cmckey, CMC_KEY);
    assert.match(JSON.parse(lastCall().body).lastReqDt, /^20261206123100$/);
    fake.answer('selectCodeList', envelope('900', null, 'There is no header information'));
    assert.deepEqual(await oscu.device.verify({ ...device, unitKey: 'wrong-key-000' }), {
      kind: 'rejected',
      code: '900',
      message: 'There is no header information',
    });
  });
});

describe('filing', () => {
  test('OSCU: the sale goes to saveTrnsSalesOsdc with tin, bhfId and cmcKey as headers and the body as built', async () => {
    fake.answer('saveTrnsSalesOsdc', envelope('000', SALE_REPLY));
    const outcome = await oscu.filing.file(device, kraSale());
    assert.deepEqual(outcome, {
      kind: 'ok',
      receipt: {
        receiptNo: 3,
        totalReceiptNo: 11,
        internalData: SALE_REPLY.intrlData,
        receiptSignature: SALE_REPLY.rcptSign,
        publishedAt: new Date('2026-12-06T09:30:07Z'),
        sdcId: 'KRACU0100000001',
        mrcNo: 'WIS01000001',
        qrCodeUrl: 'https://etims-sbx.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P051234567X00ABCD1234EFGH5678',
      },
    });
    const call = lastCall();
    assert.equal(call.path, '/etims-api/saveTrnsSalesOsdc');
    assert.deepEqual(
      [call.headers.tin, call.headers.bhfid, call.headers.cmckey, call.headers['content-type']],
      ['P051234567X', '00', CMC_KEY, 'application/json'],
    );
    assert.equal(call.body, JSON.stringify(buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale())));
    assert.equal(call.headers.authorization, undefined);
  });

  test("VSCU: /trnsSales/saveSales, tin and bhfId first in the body, no headers, the jar's reply", async () => {
    fake.answer(
      'saveSales',
      envelope('000', {
        rcptNo: 5,
        totRcptNo: 9,
        intrlData: 'I',
        rcptSign: 'S',
        vsdcRcptPbctDate: '20261206123010',
        sdcId: 'KRAVSCU01',
        mrcNo: 'MRC9',
      }),
    );
    const outcome = await vscu.filing.file(vscuDevice, kraSale({ salesType: 'training' }));
    assert.equal(outcome.kind, 'ok');
    if (outcome.kind !== 'ok') return;
    assert.deepEqual([outcome.receipt.receiptNo, outcome.receipt.sdcId, outcome.receipt.mrcNo], [5, 'KRAVSCU01', 'MRC9']);
    const call = lastCall();
    assert.equal(call.path, '/trnsSales/saveSales');
    assert.ok(call.body.startsWith('{"tin":"P051234567X","bhfId":"01","invcNo":7,'), call.body.slice(0, 60));
    assert.equal(JSON.parse(call.body).salesTyCd, 'T');
    assert.equal(call.headers.cmckey, undefined);
    assert.equal(fake.calls.length, 1, 'one call: the two-call variant is off');
  });

  test('a reused number (994 or 921) is a duplicate; the lookup adopts the receipt KRA holds', async () => {
    for (const code of ['994', '921']) {
      fake.answer('saveTrnsSalesOsdc', envelope(code, null, 'overlapped data'));
      assert.deepEqual(await oscu.filing.file(device, kraSale()), { kind: 'duplicate', code, message: 'overlapped data' });
    }
    fake.answer(
      'selectInvoiceDetails',
      envelope('000', { salesList: [{ invcNo: 7, totAmt: 1.04, receipt: { ...SALE_REPLY, sdcDateTime: '2026-12-06 12:30:07.0' } }] }),
    );
    const found = await oscu.filing.findFiled(device, { invoiceNo: 7, salesType: 'normal' });
    assert.equal(found.kind, 'ok');
    if (found.kind !== 'ok') return;
    assert.deepEqual(
      [found.total, found.receipt.receiptNo, found.receipt.totalReceiptNo, found.receipt.publishedAt.toISOString()],
      [1.04, 3, 11, '2026-12-06T09:30:07.000Z'],
    );
    assert.deepEqual(
      [lastCall().path, lastCall().body, lastCall().headers.cmckey],
      ['/etims-api/selectInvoiceDetails', '{"invcNo":7}', CMC_KEY],
    );
    fake.answer('selectInvoiceDetails', envelope('001', null, 'There is no search result'));
    assert.deepEqual(await oscu.filing.findFiled(device, { invoiceNo: 8, salesType: 'normal' }), { kind: 'empty' });
    fake.answer('selectSales', envelope('001'));
    assert.deepEqual(await vscu.filing.findFiled(vscuDevice, { invoiceNo: 8, salesType: 'normal' }), { kind: 'empty' });
    assert.deepEqual([lastCall().path, lastCall().body], ['/trnsSales/selectSales', '{"tin":"P051234567X","bhfId":"01","invcNo":8}']);
  });

  test('a success without a readable receipt is no answer (filed again later, then looked up)', async () => {
    fake.answer('saveTrnsSalesOsdc', envelope('000', { curRcptNo: 3 }));
    const outcome = await oscu.filing.file(device, kraSale());
    assert.equal(outcome.kind === 'unreachable' && outcome.reason, 'bad_success_body');
  });

  test('the probe answers whatever KRA says, unreachable only without an answer', async () => {
    fake.answer('selectCodeList', envelope('910', null, 'Request parameter error'));
    assert.deepEqual(await oscu.filing.probe(device, now()), { kind: 'answered' });
    const dead = await oscu.filing.probe({ ...device, baseUrl: 'http://127.0.0.1:1' }, now());
    assert.equal(dead.kind, 'unreachable');
  });
});

describe('result codes and answers', () => {
  const classOf = (code: unknown, endpoint: Parameters<typeof interpretKraReply>[0] = 'saveTrnsSalesOsdc', status = 200) =>
    interpretKraReply(
      endpoint,
      status,
      JSON.stringify({ resultCd: code, resultMsg: 'm', resultDt: '20261206123008', data: { curRcptNo: 1 } }),
    ).kind;

  test('each code reads as the table says', () => {
    for (const ok of ['000', '0', '00', '0000', 0]) assert.equal(classOf(ok, 'saveItem'), 'ok', String(ok));
    assert.equal(classOf('001', 'selectCustomer'), 'empty');
    assert.equal(classOf('001', 'saveItem'), 'rejected');
    assert.equal(classOf('902', 'selectInitOsdcInfo'), 'already_installed');
    assert.equal(classOf('902', 'saveItem'), 'rejected');
    assert.equal(classOf('994'), 'duplicate');
    assert.equal(classOf('921'), 'duplicate');
    assert.equal(classOf('994', 'saveItem'), 'rejected');
    for (const later of ['894', '896', '899', '990', '991', '992', '993', '999']) assert.equal(classOf(later), 'unreachable', later);
    for (const refused of ['891', '900', '901', '910', '911', '922', '995', 'E11']) assert.equal(classOf(refused), 'rejected', refused);
  });

  test('HTTP: 5xx and 429 are outages, a bare 400 a refusal, a 200 without an envelope no answer', () => {
    assert.equal(classOf('000', 'saveItem', 503), 'unreachable');
    assert.equal(classOf('000', 'saveItem', 429), 'unreachable');
    assert.deepEqual(interpretKraReply('saveItem', 400, 'Bad Request'), {
      kind: 'rejected',
      code: '400',
      message: 'KRA refused the request body (HTTP 400): Bad Request',
      resultDt: null,
    });
    const html = interpretKraReply('saveItem', 200, '<html>portal</html>');
    assert.equal(html.kind === 'unreachable' && html.reason, 'not_an_envelope');
  });

  test('the cmcKey never reaches a message, even when KRA echoes it', async () => {
    fake.answer('saveItem', envelope('910', null, `Invalid cmcKey ${CMC_KEY} for P051234567X`));
    const refused = await oscu.items.register(device, {
      code: 'KE1NTXU0000001',
      classificationCode: '5059690800',
      typeCode: '2',
      name: 'Soap',
      originCountryCode: 'KE',
      packagingUnitCode: 'NT',
      quantityUnitCode: 'U',
      vatCategory: 'B',
      barcode: null,
      defaultPrice: 100,
      active: true,
    });
    assert.equal(refused.kind, 'rejected');
    assert.ok(
      refused.kind === 'rejected' && !refused.message.includes(CMC_KEY) && refused.message.includes('[redacted]'),
      JSON.stringify(refused),
    );
    fake.answer('saveItem', envelope('999', null, `failure for ${CMC_KEY}`));
    const later = await oscu.items.amend(device, {
      code: 'X',
      classificationCode: '1',
      typeCode: '2',
      name: 'x',
      originCountryCode: 'KE',
      packagingUnitCode: 'NT',
      quantityUnitCode: 'U',
      vatCategory: 'B',
      barcode: null,
      defaultPrice: 1,
      active: true,
    });
    assert.ok(later.kind === 'unreachable' && !later.detail.includes(CMC_KEY), JSON.stringify(later));
    assert.equal(lastCall().path, '/etims-api/saveItem', 'an amendment is saveItem too');
  });
});

describe('the API gateway credential', () => {
  test('a bearer token goes on every call, initialisation too', async () => {
    const withToken = { ...device, apiCredential: { kind: 'bearer' as const, token: 'tok-123456' } };
    await oscu.device.initialise(withToken, 'dvcv1130');
    await oscu.customers.lookUp(withToken, 'A123456789Z');
    assert.deepEqual(
      fake.calls.map((c) => c.headers.authorization),
      ['Bearer tok-123456', 'Bearer tok-123456'],
    );
    assert.deepEqual(JSON.parse(lastCall().body), { custmTin: 'A123456789Z' });
  });

  test('client credentials: a token fetched with Basic auth, kept until it expires, fetched again after a 401', async () => {
    let issued = 0;
    fake.answer('generate', () => ({ json: { access_token: `gava-${++issued}`, expires_in: '3599' } }));
    const credential = {
      kind: 'client' as const,
      clientId: 'consumer',
      clientSecret: 'very-secret',
      tokenUrl: `${fake.url}/v1/token/generate`,
    };
    const withClient = { ...device, apiCredential: credential };
    fake.answer(
      'selectBhfList',
      envelope('000', {
        bhfList: [
          { bhfId: '00', bhfNm: 'HQ', hqYn: 'Y' },
          { bhfId: '001', bhfNm: 'not KRA' },
        ],
      }),
    );
    const first = await oscu.register.branches(withClient, null);
    await oscu.register.branches(withClient, null);
    const tokenCalls = fake.calls.filter((c) => c.path === '/v1/token/generate');
    assert.equal(tokenCalls.length, 1);
    assert.equal(tokenCalls[0]!.method, 'GET');
    assert.equal(tokenCalls[0]!.headers.authorization, `Basic ${Buffer.from('consumer:very-secret').toString('base64')}`);
    assert.deepEqual(
      fake.calls.filter((c) => c.path.endsWith('selectBhfList')).map((c) => c.headers.authorization),
      ['Bearer gava-1', 'Bearer gava-1'],
    );
    assert.ok(first.kind === 'ok' && first.records.length === 1 && first.records[0]!.headquarters);
    fake.answer('selectBhfList', { status: 401, json: { message: 'invalid token' } });
    const refused = await oscu.register.branches(withClient, null);
    assert.equal(refused.kind, 'unreachable');
    fake.answer('selectBhfList', envelope('001'));
    await oscu.register.branches(withClient, null);
    assert.equal(fake.calls.filter((c) => c.path === '/v1/token/generate').length, 2);
    assert.equal(lastCall().headers.authorization, 'Bearer gava-2');
  });

  test('a refused client credential is a refusal that names no secret', async () => {
    fake.answer('generate', { status: 401, json: { error: 'invalid_client' } });
    const withClient = {
      ...device,
      apiCredential: {
        kind: 'client' as const,
        clientId: 'other',
        clientSecret: 'very-secret-2',
        tokenUrl: `${fake.url}/v1/token/generate`,
      },
    };
    const outcome = await oscu.catalogue.codes(withClient, null);
    assert.equal(outcome.kind, 'rejected');
    assert.ok(outcome.kind === 'rejected' && !outcome.message.includes('very-secret-2'));
  });
});
