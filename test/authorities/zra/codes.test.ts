import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_TABLES } from '@fiscal-gateway/simulator';
import {
  CREDIT_NOTE_REASON_CODES,
  CREDIT_NOTE_REASON_LABELS,
  DEBIT_NOTE_REASON_CODES,
  DEBIT_NOTE_REASON_LABELS,
  noteReasonLabel,
  PAYMENT_TYPE_CODES,
  PAYMENT_TYPE_LABELS,
  paymentTypeLabel,
} from '../../../src/authorities/zra-vsdc/codes.ts';

const TABLES = [
  { cdCls: '07', name: 'payment types', codes: PAYMENT_TYPE_CODES, labels: PAYMENT_TYPE_LABELS as Record<string, string> },
  {
    cdCls: '32',
    name: 'credit-note reasons',
    codes: CREDIT_NOTE_REASON_CODES,
    labels: CREDIT_NOTE_REASON_LABELS as Record<string, string>,
  },
  { cdCls: '67', name: 'debit-note reasons', codes: DEBIT_NOTE_REASON_CODES, labels: DEBIT_NOTE_REASON_LABELS as Record<string, string> },
];

/** The authority's words, whatever their case and spacing: `DEBIT&CREDIT CARD` is `Debit & credit card`. */
const words = (name: string) => name.toUpperCase().replace(/\s+/g, '');

test("the labels the receipt prints and the console shows are the authority's published code tables", () => {
  for (const table of TABLES) {
    const published = CODE_TABLES.find((c) => c.cdCls === table.cdCls);
    assert.ok(published, `the simulator publishes class ${table.cdCls}`);
    assert.deepEqual(
      published.dtlList.map((d) => d.cd),
      [...table.codes],
      `the codes of the ${table.name}`,
    );
    assert.deepEqual(Object.keys(table.labels), [...table.codes], `a label for each of the ${table.name}`);
    for (const { cd, cdNm } of published.dtlList) assert.equal(words(table.labels[cd]!), words(cdNm), `${table.name} ${cd}`);
  }
  assert.equal(paymentTypeLabel('07'), 'Other');
  assert.equal(paymentTypeLabel('08'), 'Bank transfer');
  assert.equal(paymentTypeLabel('99'), '99', 'a code the table lacks stands for itself');
  assert.equal(noteReasonLabel('credit_note', '03'), '03 Damaged goods');
  assert.equal(noteReasonLabel('debit_note', '02'), '02 Wrong invoice amount');
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

test("the receipt and the console hold no labels of their own: both read the merchant's authority profile (which ZRA's builds from these), the console through GET /api/v1/account/authority", () => {
  // A label written out as a string anywhere else would be a second home that can drift.
  const labels = TABLES.flatMap((t) => Object.values(t.labels)).filter((label) => label.includes(' ') || label.includes('/'));
  const files = [...sourceFiles('console/src'), ...sourceFiles('src/domain')];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const label of labels) {
      const quoted = new RegExp(`['"\`]${label.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"\`]`, 'i');
      assert.ok(!quoted.test(text), `${file} spells the label "${label}" itself`);
    }
  }
  for (const file of sourceFiles('console/src'))
    assert.doesNotMatch(readFileSync(file, 'utf8'), /src\/authorities\//, `${file} imports no authority's code`);
  assert.match(readFileSync('console/src/authority.ts', 'utf8'), /\/api\/v1\/account\/authority/);
  const receipt = readFileSync('src/domain/fiscal/receipts/receipt.ts', 'utf8');
  assert.doesNotMatch(receipt, /zra-vsdc\//);
  assert.match(receipt, /profile\.paymentMethods/);
  assert.match(receipt, /profile\.creditNoteReasons/);
  const adapter = readFileSync('src/authorities/zra-vsdc/adapter.ts', 'utf8');
  assert.match(adapter, /paymentMethods: labelled\(PAYMENT_TYPE_LABELS\)/);
});
