// The two families of names of POST /zm/api/Invoice, without a server: the body schema holds
// exactly the spellings the name tables accept, and reading a body by name.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FieldErrors } from '../../../src/platform/errors/errors.ts';
import { INVOICE_FIELDS, LINE_FIELDS, readInvoice, spellings, type FieldSpec } from '../../../src/domain/fiscal/compat/field-names.ts';
import { TillInvoiceBody, TillInvoiceLine } from '../../../src/domain/fiscal/compat/schemas.ts';

const allSpellings = (fields: Record<string, FieldSpec>) => Object.values(fields).flatMap(spellings).sort();

describe("compat: the names of a till's invoice body", () => {
  test('the body schema has a property for every accepted spelling and no other', () => {
    assert.deepEqual(Object.keys(TillInvoiceBody.properties).sort(), allSpellings(INVOICE_FIELDS));
    assert.deepEqual(Object.keys(TillInvoiceLine.properties).sort(), allSpellings(LINE_FIELDS));
    // One name in two casings is one spelling: ours.
    assert.ok(Object.hasOwn(TillInvoiceBody.properties, 'CustomerTPIN'));
    assert.ok(!Object.hasOwn(TillInvoiceBody.properties, 'CustomerTpin'));
  });

  test('a body is read by name in any casing; unknown keys are left out; the family follows the number and the lines', () => {
    const errors = new FieldErrors();
    const read = readInvoice(
      { INVOICENUMBER: 'A-1', customertpin: '', Items: [{ itemdesc: 'x', Quantity: 1, Colour: 'red' }], TillModel: 'XR' },
      errors,
    );
    assert.equal(errors.size, 0);
    assert.equal(read.family, 'product');
    assert.deepEqual(read.normalised, { InvoiceNumber: 'A-1', CustomerTPIN: '', Items: [{ ItemDesc: 'x', Quantity: 1 }] });
    assert.equal(read.invoice.sentKeys.get('InvoiceNumber'), 'INVOICENUMBER');
    assert.equal(read.lines[0]?.sentFields.get('name'), 'itemdesc');

    assert.equal(readInvoice({ clientinvoicenumber: 'A-1', items: [] }, new FieldErrors()).family, 'gateway');
    assert.equal(readInvoice({ ClientInvoiceNumber: 'A-1', invoiceItems: [] }, new FieldErrors()).family, 'product');
  });

  test('a field given three times names all three keys', () => {
    const errors = new FieldErrors();
    readInvoice({ InvoiceNumber: '1', invoicenumber: '1', ClientInvoiceNumber: '1' }, errors);
    const refusal = errors.toError().errors;
    assert.deepEqual(Object.keys(refusal).sort(), ['ClientInvoiceNumber', 'InvoiceNumber', 'invoicenumber']);
    assert.match(
      refusal.InvoiceNumber![0]!,
      /^The InvoiceNumber, invoicenumber and ClientInvoiceNumber fields all give the till's invoice number/,
    );
  });
});
