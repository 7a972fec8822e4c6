// The 80 mm receipt as one self-contained HTML page (inline CSS and QR code), for thermal printers.
import {
  COPY_MARK,
  exchangeLine,
  fiscalBlockLines,
  invoiceNoInHead,
  money,
  originalReceiptNoLabel,
  percent,
  PREVIEW_MARK,
  previewNote,
  priced,
  quantity,
  rateLabel,
} from './format.ts';
import type { Receipt } from './receipt.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = `
@page { size: 80mm auto; margin: 0; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #000; }
.receipt { width: 80mm; padding: 4mm; font: 11px/1.35 "DejaVu Sans Mono", "Courier New", monospace; }
h1 { font-size: 13px; text-align: center; margin: 0 0 1mm; }
.center { text-align: center; }
.title { text-align: center; font-weight: bold; margin: 2mm 0; letter-spacing: 0.05em; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0 2mm; margin: 0; }
dt { font-weight: bold; }
dd { margin: 0; text-align: right; overflow-wrap: anywhere; }
/* A time keeps its zone on its line ("… 03:29:50 CAT"); its label wraps instead. */
dd.time { white-space: nowrap; }
hr { border: 0; border-top: 1px dashed #000; margin: 2mm 0; }
table { width: 100%; border-collapse: collapse; }
th, td { padding: 0.5mm 0; vertical-align: top; }
th { text-align: left; border-bottom: 1px solid #000; }
.num { text-align: right; white-space: nowrap; }
.item-name { overflow-wrap: anywhere; }
.total td { font-weight: bold; font-size: 13px; }
.banner { text-align: center; font-weight: bold; font-size: 13px; border: 2px solid #000; margin: 2mm 0; padding: 1mm; }
.copy { text-align: center; font-weight: bold; font-size: 15px; letter-spacing: 0.3em; border: 2px solid #000; margin: 2mm 0; padding: 1mm 0; }
.preview { text-align: center; font-weight: bold; font-size: 14px; border: 3px double #000; margin: 2mm 0; padding: 1mm 0; }
.receipt { position: relative; z-index: 0; }
.watermark { position: absolute; inset: 0; display: flex; flex-direction: column; justify-content: space-around; align-items: center; overflow: hidden; pointer-events: none; z-index: -1; }
.watermark span { transform: rotate(-35deg); font-size: 34px; font-weight: bold; color: #e4e4e4; letter-spacing: 0.1em; }
.qr { display: block; width: 32mm; height: 32mm; margin: 2mm auto; }
.mono { overflow-wrap: anywhere; }
@media screen { body { background: #eee; } .receipt { margin: 1rem auto; background: #fff; box-shadow: 0 0 4px #999; } }
`;

/** Under the title and at the foot: COPY on a reprint, PREVIEW — NOT A RECEIPT on a preview. */
function markOf(receipt: Receipt, foot: boolean): string {
  if (receipt.mark === 'copy')
    return foot
      ? `<p class="copy">${COPY_MARK}</p>\n`
      : `<p class="copy" role="note" aria-label="Copy: this receipt was printed before">${COPY_MARK}</p>\n`;
  if (receipt.mark === 'preview') {
    return `<p class="preview"${foot ? '' : ' role="note"'}>${PREVIEW_MARK}</p>\n${foot ? '' : `<p class="center preview-note">${escapeHtml(previewNote(receipt.printedBefore))}</p>\n`}`;
  }
  return '';
}

const TITLE_PREFIX = { original: '', copy: `${COPY_MARK} `, preview: `${PREVIEW_MARK}: ` } as const;

function field(label: string, value: string | number | null, kind?: 'time'): string {
  return value === null || value === ''
    ? ''
    : `<dt>${escapeHtml(label)}</dt><dd${kind ? ` class="${kind}"` : ''}>${escapeHtml(String(value))}</dd>`;
}

export async function renderReceiptHtml(receipt: Receipt): Promise<string> {
  // qrcode is loaded with the first receipt, not at every start.
  const QRCode = receipt.qrCodeUrl ? (await import('qrcode')).default : undefined;
  const qr =
    receipt.qrCodeUrl && QRCode
      ? (await QRCode.toString(receipt.qrCodeUrl, { type: 'svg', margin: 0, errorCorrectionLevel: 'M' })).replace(
          '<svg ',
          `<svg class="qr" role="img" aria-label="QR code: ${escapeHtml(receipt.qrCodeUrl)}" `,
        )
      : '';
  const items = receipt.items
    .map(
      (l) => `<tr><td class="item-name" colspan="3">${escapeHtml(l.name)}</td></tr>
<tr><td>${quantity(l.quantity)} × ${money(l.price)}</td><td class="num">${escapeHtml(l.vatCategory)}</td><td class="num">${money(l.amount)}</td></tr>${
        l.discount !== 0
          ? `\n<tr class="discount"><td colspan="2">Discount ${percent(l.discountRate)}</td><td class="num">-${money(l.discount)}</td></tr>`
          : ''
      }
<tr class="excl"><td colspan="2">Excl. VAT</td><td class="num">${money(l.net)}</td></tr>${l.rrp !== null ? `\n<tr class="rrp"><td colspan="3">MTV: RRP ${money(l.rrp)} per unit</td></tr>` : ''}`,
    )
    .join('\n');
  const cur = escapeHtml(receipt.totals.currency);
  const categories = receipt.categories
    .map(
      (c) =>
        `<tr><td>${escapeHtml(c.code)} ${rateLabel(c.rate)}</td><td class="num">${money(c.taxable)}</td><td class="num">${money(c.vat)}</td><td class="num">${money(c.total)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLE_PREFIX[receipt.mark]}${escapeHtml(receipt.title)} ${escapeHtml(receipt.authorityInvoiceNo ?? String(receipt.receiptNo))}</title>
<style>${STYLE}</style>
</head>
<body>
<main class="receipt">
${receipt.mark === 'preview' ? `<div class="watermark" aria-hidden="true">${'<span>PREVIEW</span>'.repeat(6)}</div>\n` : ''}<h1>${escapeHtml(receipt.merchantName)}</h1>
<p class="center supplier">${escapeHtml(receipt.labels.taxpayerId)}: ${escapeHtml(receipt.tpin)}<br>Branch: ${escapeHtml(receipt.branch)}${receipt.branchName ? ` ${escapeHtml(receipt.branchName)}` : ''}${
    receipt.address ? `<br><span class="address">${escapeHtml(receipt.address)}</span>` : ''
  }</p>
${receipt.fiscal ? `<p class="title">${escapeHtml(receipt.title)}</p>` : `<p class="banner" role="note">${escapeHtml(receipt.title)}</p>`}
${markOf(receipt, false)}<dl>
${invoiceNoInHead(receipt) ? field(receipt.labels.invoiceNo, receipt.authorityInvoiceNo) : ''}
${field(receipt.labels.receiptNo, receipt.receiptNo)}
${field('Invoice seq.', receipt.invoiceNo)}
${field('Your ref.', receipt.clientInvoiceNo)}
${field('Invoice type', receipt.invoiceType)}
${field('Date', receipt.printed.occurredAt, 'time')}
${field('Customer', receipt.customer.name)}
${field(`Customer ${receipt.labels.taxpayerId}`, receipt.customer.tpin)}
${field('Customer address', receipt.customer.address)}
${field('LPO No', receipt.lpoNumber)}
${field('Principal', receipt.principalId)}
${field('Payment', receipt.paymentMethod)}
${field('Currency', receipt.totals.currency)}
${receipt.original ? field(receipt.labels.originalInvoiceNo, receipt.original.authorityInvoiceNo) + field(originalReceiptNoLabel(receipt), receipt.original.receiptNo) : ''}
${field('Reason', receipt.reason)}
</dl>
<hr>
<table>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">VAT</th><th scope="col" class="num">Amount ${cur}</th></tr></thead>
<tbody>
${items}
</tbody>
</table>
<hr>
<table>
<caption class="center">Totals per VAT category</caption>
<thead><tr><th scope="col">Cat.</th><th scope="col" class="num">Taxable</th><th scope="col" class="num">VAT</th><th scope="col" class="num">Total</th></tr></thead>
<tbody>
${categories}
</tbody>
</table>
<hr>
<table>
<tbody>
<tr><td>${escapeHtml(receipt.netLabel)}</td><td class="num">${priced(receipt.totals.net, cur)}</td></tr>
<tr><td>Total discount ${percent(receipt.discountRate)}</td><td class="num">${receipt.totals.discount !== 0 ? '-' : ''}${priced(receipt.totals.discount, cur)}</td></tr>
<tr><td>Total VAT</td><td class="num">${priced(receipt.totals.vat, cur)}</td></tr>
<tr class="total"><td>TOTAL incl. VAT</td><td class="num">${priced(receipt.totals.total, cur)}</td></tr>
${
  receipt.exchange
    ? `<tr class="exchange"><td colspan="2">Exchange rate: ${escapeHtml(exchangeLine(receipt.exchange.currency, receipt.exchange.rate, receipt.exchange.home))}</td></tr>
<tr class="exchange"><td>Total in ${escapeHtml(receipt.exchange.home)}</td><td class="num">${priced(receipt.exchange.totalInHome, receipt.exchange.home)}</td></tr>\n`
    : ''
}</tbody>
</table>
<hr>
<p class="center">${escapeHtml(receipt.labels.fiscalBlock)}</p>
<dl>
${fiscalBlockLines(receipt)
  .map(([label, value, kind]) => field(label, value, kind))
  .join('\n')}
</dl>
<p class="mono"><strong>${escapeHtml(receipt.labels.internalData)}:</strong><br>${escapeHtml(receipt.printed.internalData)}</p>
<p class="mono"><strong>${escapeHtml(receipt.labels.signature)}:</strong><br>${escapeHtml(receipt.printed.receiptSignature)}</p>
${qr}
<p class="center">${receipt.fiscal ? receipt.labels.fiscalFooter : escapeHtml(receipt.title)}</p>
${markOf(receipt, true)}</main>
</body>
</html>
`;
}
