import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLASSIFICATION_CATALOGUE, CLASSIFICATION_CODES, CODE_TABLES, isKnownClassification } from '@fiscal-gateway/simulator';
import { VAT_CATEGORIES } from '../../src/authorities/zra-vsdc/tax.ts';
import { PAYMENT_TYPE_CODES } from '../../src/authorities/zra-vsdc/codes.ts';

test('the classification catalogue: about 500 unique 8-digit codes including 50221200', () => {
  assert.ok(CLASSIFICATION_CATALOGUE.length >= 450 && CLASSIFICATION_CATALOGUE.length <= 600, String(CLASSIFICATION_CATALOGUE.length));
  assert.equal(new Set(CLASSIFICATION_CODES).size, CLASSIFICATION_CODES.length);
  for (const entry of CLASSIFICATION_CATALOGUE) {
    assert.match(entry.itemClsCd, /^\d{8}$/);
    assert.ok(entry.itemClsNm.length > 0);
    assert.equal(entry.useYn, 'Y');
  }
  assert.ok(isKnownClassification('50221200'));
  assert.ok(!isKnownClassification('5022120'));
});

test('the simulator publishes the same tax types and payment types the client uses', () => {
  const taxTypes = CODE_TABLES.find((c) => c.cdCls === '04')!.dtlList.map((d) => [d.cd, Number(d.userDfnCd1)]);
  assert.deepEqual(
    taxTypes,
    VAT_CATEGORIES.map((c) => [c.code, c.rate]),
  );
  assert.deepEqual(
    CODE_TABLES.find((c) => c.cdCls === '07')!.dtlList.map((d) => d.cd),
    [...PAYMENT_TYPE_CODES],
  );
  assert.ok(CODE_TABLES.find((c) => c.cdCls === '05')!.dtlList.some((d) => d.cd === 'ZM' && d.cdNm === 'Zambia'));
});
