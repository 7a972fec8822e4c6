// ZRA's master-data and registration ports without a network: the bodies they send (the same text,
// key for key, as the gateway sent before the seam), the cursor's one second back, and the lenient
// readings of pulled records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VSDC_EPOCH } from '@fiscal-gateway/vsdc-protocol';
import { ZRA_VSDC_PROFILE, zraVsdcAuthority } from '../../../src/authorities/zra-vsdc/adapter.ts';
import { saveBranchUserBody } from '../../../src/authorities/zra-vsdc/branch-users.ts';
import { lastReqDtOf } from '../../../src/authorities/zra-vsdc/calls.ts';
import { saveCustomerBody } from '../../../src/authorities/zra-vsdc/customers.ts';
import { saveItemBody } from '../../../src/authorities/zra-vsdc/items.ts';
import { branchOf } from '../../../src/authorities/zra-vsdc/register.ts';
import type { VsdcClient } from '../../../src/authorities/zra-vsdc/client.ts';
import type { AuthorityDevice } from '../../../src/authorities/port/index.ts';

const REGISTRANT = '"regrId":"fiscal-gateway","regrNm":"fiscal-gateway","modrId":"fiscal-gateway","modrNm":"fiscal-gateway"';
const DEVICE: AuthorityDevice = { profile: 'zra-vsdc', baseUrl: 'http://vsdc.test', tpin: '1002623668', branch: '000' };

test('the item, customer and branch-user bodies', () => {
  const item = {
    code: 'ZM2NTU0000001',
    classificationCode: '50221200',
    typeCode: '2',
    name: 'Maize meal 25kg',
    originCountryCode: 'ZM',
    packagingUnitCode: 'NT',
    quantityUnitCode: 'U',
    vatCategory: 'A',
    barcode: null,
    defaultPrice: 185,
    active: false,
  };
  assert.equal(
    JSON.stringify(saveItemBody(item)),
    `{"itemCd":"ZM2NTU0000001","itemClsCd":"50221200","itemTyCd":"2","itemNm":"Maize meal 25kg","orgnNatCd":"ZM","pkgUnitCd":"NT","qtyUnitCd":"U","vatCatCd":"A","bcd":null,"dftPrc":185,"useYn":"N",${REGISTRANT}}`,
  );
  assert.equal(
    JSON.stringify(saveCustomerBody({ number: 'C7', tpin: '2000000002', name: 'Acme', address: null, phone: '0977', email: null })),
    `{"custNo":"C7","custTpin":"2000000002","custNm":"Acme","adrs":null,"telNo":"0977","email":null,"useYn":"Y",${REGISTRANT}}`,
  );
  assert.equal(
    JSON.stringify(saveBranchUserBody({ id: 'T3', name: 'till-1', active: true })),
    `{"userId":"T3","userNm":"till-1","adrs":null,"useYn":"Y",${REGISTRANT}}`,
  );
});

test('a composition component and a read since a cursor, as the client receives them', async () => {
  const calls: Array<[string, unknown]> = [];
  const client = new Proxy({} as VsdcClient, {
    get: (_, endpoint: string) => async (_target: unknown, payload: unknown) => {
      calls.push([endpoint, payload]);
      return endpoint.startsWith('select')
        ? { kind: 'empty', resultCd: '001', resultMsg: '', resultDt: '20261206101010' }
        : { kind: 'ok', data: null, resultCd: '000', resultMsg: '', resultDt: null };
    },
  });
  const authority = zraVsdcAuthority(client);
  assert.deepEqual(await authority.items.registerComponent(DEVICE, { itemCode: 'P', componentCode: 'C', quantity: 2.5 }), {
    kind: 'accepted',
    code: '000',
  });
  assert.deepEqual(await authority.catalogue.classifications(DEVICE, '20261206101010'), { kind: 'empty', cursor: '20261206101010' });
  assert.deepEqual(await authority.register.branches(DEVICE, null), { kind: 'empty', cursor: '20261206101010' });
  assert.deepEqual(await authority.items.list(DEVICE), { kind: 'ok', items: [] });
  assert.deepEqual(
    calls.map(([endpoint, payload]) => [endpoint, JSON.stringify(payload)]),
    [
      ['saveItemComposition', '{"itemCd":"P","cpstItemCd":"C","cpstQty":2.5,"regrId":"fiscal-gateway","regrNm":"fiscal-gateway"}'],
      ['selectItemsClass', '{"lastReqDt":"20261206101009"}'],
      ['selectBranches', `{"lastReqDt":"${VSDC_EPOCH}"}`],
      ['selectItems', undefined],
    ],
  );
});

test('the cursor: one second back, the epoch for none, text that is no date as it is', () => {
  assert.equal(lastReqDtOf('20261206000000'), '20261205235959');
  assert.equal(lastReqDtOf(null), VSDC_EPOCH);
  assert.equal(lastReqDtOf(VSDC_EPOCH), VSDC_EPOCH);
  assert.equal(lastReqDtOf('yesterday'), 'yesterday');
});

test('a branch record is kept when its bhfId fits the profile, read leniently', () => {
  const raw = {
    bhfId: ' 001 ',
    bhfNm: 'Kitwe',
    prvncNm: '',
    dstrtNm: null,
    sctrNm: null,
    locDesc: 7,
    hqYn: 'y',
    mgrNm: null,
    mgrTelNo: null,
    mgrEmail: null,
  } as never;
  const branch = branchOf(raw, ZRA_VSDC_PROFILE.branch)!;
  assert.equal(branch.branch, '001');
  assert.equal(branch.province, null);
  assert.equal(branch.location, '7');
  assert.equal(branch.headquarters, true);
  assert.equal(branch.record, raw);
  assert.equal(branchOf({ ...(raw as object), bhfId: '1' } as never, ZRA_VSDC_PROFILE.branch), undefined);
});
