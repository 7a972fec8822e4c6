// The walk's documents (walk.ts): sales, their numbers, receipts, notes and the stock they move.
import { MINIMUM_FEATURES } from './checklist.ts';
import type { ItemCodes } from './walk-goods.ts';
import { expect, get, type Json, type Walk } from './walk-session.ts';

export async function walkDocuments({ session, settings }: Walk, { product }: ItemCodes): Promise<void> {
  const { tpin } = settings;
  const { call, data, until, ourCalls, item, needs } = session;

  const sales: Json[] = [];
  const sell = async (quantity: number) => {
    const sale = await data('POST', '/api/v1/sales', {
      body: {
        items: [{ name: 'Certification maize meal 25kg', classificationCode: '50221200', itemCode: product, quantity, price: 185 }],
        customer: { name: 'Certification customer', tpin: settings.customerTpin },
      },
    });
    return until(
      `/api/v1/sales/${sale.id as number}`,
      (s) => s.status === 'uploaded' || s.status === 'failed',
      `sale ${String(sale.id)}'s upload`,
    );
  };
  await item(14, async (notes) => {
    needs(7);
    const sale = await sell(2);
    expect(sale.status === 'uploaded', `the sale ended ${String(sale.status)}: ${String(sale.resultCode)} ${String(sale.lastError)}`);
    sales.push(sale);
    notes.push(
      `sale ${String(sale.id)}: invoice ${String(sale.invoiceNo)}, receipt ${String(get(sale, 'fiscal', 'receiptNo'))}, SDC ${String(get(sale, 'fiscal', 'sdcId'))} (saveSales)`,
    );
  });
  await item(15, async (notes) => {
    needs(14);
    for (let i = 0; i < 2; i++) sales.push(await sell(1));
    const numbers = sales.map((s) => Number(s.invoiceNo));
    expect(
      numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1),
      `invoice numbers are not consecutive: ${numbers.join(', ')}`,
    );
    const filed = ourCalls()
      .filter((c) => c.endpoint === 'saveSales' && c.resultCd === '000')
      .map((c) => String(get(c.request, 'cisInvcNo')));
    const wanted = numbers.map(String);
    expect(
      wanted.every((n) => filed.filter((f) => f === n).length === 1),
      `each invoice number must be filed once: filed ${filed.join(', ')}, wanted ${wanted.join(', ')}`,
    );
    notes.push(`three sales numbered ${numbers.join(', ')}, each filed once with that cisInvcNo`);
  });
  await item(16, async (notes) => {
    needs(14);
    const id = sales[0]!.id as number;
    const changed = await call('PATCH', `/api/v1/sales/${id}`, { body: { invoiceNo: 999 } });
    const deleted = await call('DELETE', `/api/v1/sales/${id}`);
    expect(
      changed.status >= 400 && changed.status < 500 && deleted.status >= 400 && deleted.status < 500,
      `PATCH answered ${changed.status}, DELETE ${deleted.status}`,
    );
    const again = await data('GET', `/api/v1/sales/${id}`);
    expect(
      again.invoiceNo === sales[0]!.invoiceNo && get(again, 'totals', 'total') === get(sales[0], 'totals', 'total'),
      'the sale changed',
    );
    const reissue = await call('POST', `/api/v1/sales/${id}/reissue`, { body: {} });
    expect(reissue.status >= 400 && reissue.status < 500, `reissuing an uploaded sale answered ${reissue.status}`);
    notes.push(
      `PATCH answered ${changed.status}, DELETE ${deleted.status}, reissue ${reissue.status}; the sale is unchanged (no route changes or deletes a document)`,
    );
  });
  let receiptHtml = '';
  await item(17, async (notes) => {
    needs(14);
    const receipt = await call('GET', `/api/v1/sales/${sales[0]!.id as number}/receipt`);
    expect(receipt.status === 200, `the receipt answered ${receipt.status}`);
    receiptHtml = receipt.text;
    const missing = MINIMUM_FEATURES.filter((f) => !f.pattern.test(receipt.text)).map((f) => f.feature);
    expect(missing.length === 0, `the receipt lacks: ${missing.join(', ')}`);
    expect(
      receipt.text.includes(tpin) && receipt.text.includes(settings.customerTpin),
      "the receipt does not print the supplier's and the customer's TPIN",
    );
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
    const note = await data('POST', `/api/v1/sales/${sales[1]!.id as number}/credit-note`, {
      body: { reasonCode: '03', items: [{ line: 1, quantity: 1 }] },
    });
    const done = await until(`/api/v1/sales/${note.id as number}`, (s) => s.status !== 'pending', "the credit note's upload");
    expect(
      done.status === 'uploaded',
      `the credit note ended ${String(done.status)}: ${String(done.resultCode)} ${String(done.lastError)}`,
    );
    const filed = ourCalls().find((c) => c.endpoint === 'saveSales' && get(c.request, 'rcptTyCd') === 'R' && c.resultCd === '000');
    expect(filed, 'no credit note (rcptTyCd R) was answered 000');
    notes.push(
      `credit note ${String(done.id)} (invoice ${String(done.invoiceNo)}) against sale ${String(sales[1]!.id)}, filed as rcptTyCd R against receipt ${String(get(filed.request, 'orgInvcNo'))} (call #${filed.seq})`,
    );
  });
  await item(19, async (notes) => {
    needs(14);
    const note = await data('POST', `/api/v1/sales/${sales[2]!.id as number}/debit-note`, {
      body: { reasonCode: '03', items: [{ name: 'Delivery', classificationCode: '78101800', quantity: 1, price: 50 }] },
    });
    const done = await until(`/api/v1/sales/${note.id as number}`, (s) => s.status !== 'pending', "the debit note's upload");
    expect(done.status === 'uploaded', `the debit note ended ${String(done.status)}: ${String(done.resultCode)} ${String(done.lastError)}`);
    const filed = ourCalls().find((c) => c.endpoint === 'saveSales' && get(c.request, 'rcptTyCd') === 'D' && c.resultCd === '000');
    expect(filed, 'no debit note (rcptTyCd D) was answered 000');
    notes.push(
      `debit note ${String(done.id)} (invoice ${String(done.invoiceNo)}) against sale ${String(sales[2]!.id)}, filed as rcptTyCd D (call #${filed.seq})`,
    );
  });
  await item(23, async (notes) => {
    needs(14, 25);
    const sale = await until(
      `/api/v1/sales/${sales[0]!.id as number}`,
      (s) => get(s, 'stock', 'state') === 'sent',
      "the sale's stock chain",
    );
    const level = await data('GET', `/api/v1/stock?itemCode=${product}`);
    notes.push(
      `sale ${String(sale.id)}'s stock movement (type 11) sent (saveStockItems, saveStockMaster); ${product} on hand: ${JSON.stringify(get(level, 0, 'quantity'))}`,
    );
  });
  await item(24, async (notes) => {
    needs(23);
    const compared = await data('GET', `/api/v1/stock/reconciliation?refresh=true`);
    const ours = ((compared.items ?? []) as Json[]).find((i) => i.itemCode === product);
    expect(ours && ours.vsdcQuantity !== null, `the VSDC's stock does not list ${product}: ${JSON.stringify(compared).slice(0, 300)}`);
    expect(ours.status === 'matches', `the VSDC's stock of ${product} differs from the gateway's: ${JSON.stringify(ours)}`);
    notes.push(
      `GET /api/v1/stock/reconciliation?refresh=true read the branch's stock back (selectStockItems): ${product} ${String(ours.gatewayQuantity)} at the gateway, ${String(ours.vsdcQuantity)} at the VSDC (${String(ours.status)})`,
    );
  });
}
