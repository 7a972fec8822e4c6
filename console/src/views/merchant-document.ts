// One document: what was sold, its totals, the authority's fiscal block, how a refusal was dealt
// with; its receipt; a credit note from a sale; a reissue or resolution of a refused one.
import { ApiProblem } from '../api.ts';
import { h, merchantDateTime, money, table, type Child } from '../dom.ts';
import type { Sale } from '../types.ts';
import {
  codeLabel,
  documentNumber,
  htmlPattern,
  invoiceTypeWords,
  merchantAuthority,
  noteReasonLabel,
  receiptTitle,
  type Authority,
} from '../authority.ts';
import { canWrite, errorBox, field, formMessage, heading, whyFilingIsStopped, type ViewContext } from '../view.ts';
import { statusBadge, TYPE_LABELS } from './merchant-common.ts';
import { PRINT_HINT, receiptLink, receiptPdf } from './receipt-actions.ts';
import { issuerText } from './issued-by.ts';

function facts(pairs: Array<[string, Child]>): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs.map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))),
  );
}

const idempotencyKey = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`);

function filingStopped(ctx: ViewContext): string | null {
  if (!canWrite(ctx)) return 'Viewers read; an owner or admin issues notes and resolves documents.';
  const stopped = whyFilingIsStopped(ctx.account);
  if (stopped) return `Filing is stopped. ${stopped}`;
  return null;
}

/** A sale as the merchant knows it: its number, and the authority's invoice number once fiscalised. */
function saleName(sale: { invoiceNo: number; authorityInvoiceNo: string | null }): string {
  return `Sale No. ${sale.invoiceNo}${sale.authorityInvoiceNo ? ` (${sale.authorityInvoiceNo})` : ''}`;
}

const quantityText = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 4 });
const cents = (n: number) => Math.round(n * 100);

/**
 * What crediting `quantity` of a line gives back, by its share of the line's total: credits
 * reaching x of the line have taken round2(total × x / quantity) of it. The note's own amounts
 * follow the same cumulative rule on the gross, net and VAT (docs/sales.md#credit-notes).
 */
function creditedTotal(line: Sale['items'][number], credited: number, quantity: number): number {
  const upTo = (x: number) => (x >= line.quantity ? cents(line.total) : Math.round((cents(line.total) * x) / line.quantity));
  return (upTo(credited + quantity) - upTo(credited)) / 100;
}

function creditNoteForm(ctx: ViewContext, sale: Sale, authority: Authority): HTMLElement {
  const blocked = filingStopped(ctx);
  const currency = sale.totals.currency;
  const rows = sale.items.map((line) => {
    const remaining = line.remainingQuantity ?? line.quantity;
    const credited = line.creditedQuantity ?? line.quantity - remaining;
    const done = remaining <= 0;
    const take = h('input', { type: 'checkbox', id: `credit-line-${line.line}`, disabled: done }) as HTMLInputElement;
    const quantity = h('input', {
      type: 'number',
      id: `credit-qty-${line.line}`,
      min: '0',
      max: String(remaining),
      step: 'any',
      inputmode: 'decimal',
      placeholder: quantityText(remaining),
      disabled: done,
      'aria-label': `Quantity to credit of line ${line.line}`,
      'aria-describedby': `credit-left-${line.line}`,
    }) as HTMLInputElement;
    // Ticking a line offers all that is left of it; typing a quantity ticks it.
    take.addEventListener('change', () => {
      if (take.checked && quantity.value === '') quantity.value = String(remaining);
      confirmBox.replaceChildren();
    });
    quantity.addEventListener('input', () => {
      take.checked = Number(quantity.value) > 0;
      confirmBox.replaceChildren();
    });
    const left = done
      ? 'credited in full'
      : `sold ${quantityText(line.quantity)} × ${money(line.price)}${credited > 0 ? `, ${quantityText(credited)} already credited` : ''}, ${quantityText(remaining)} left to credit`;
    return { line, take, quantity, remaining, credited, left };
  });
  const open = rows.filter((r) => r.remaining > 0);
  // No reason chosen for the merchant: it is filed with the authority.
  const reason = h(
    'select',
    null,
    h('option', { value: '', selected: true }, 'Choose a reason'),
    authority.creditNoteReasons.map(({ code, label }) => h('option', { value: code }, `${code} ${label}`)),
  ) as HTMLSelectElement;
  const reference = h('input', { type: 'text', maxlength: '100', autocomplete: 'off' }) as HTMLInputElement;
  const message = formMessage('credit-message');
  const confirmBox = h('div', { class: 'confirm', 'aria-live': 'polite' });
  const submit = h(
    'button',
    { type: 'submit', class: 'primary', disabled: blocked !== null || open.length === 0 },
    'Issue the credit note',
  ) as HTMLButtonElement;
  const key = idempotencyKey(); // one note per form, however often it is sent

  const issue = async (items: { line: number; quantity: number }[], yes: HTMLButtonElement) => {
    yes.disabled = true;
    submit.disabled = true;
    try {
      // Every line that still has something left, all of it: a cancellation (no items), which
      // the gateway files as exactly the rest.
      const all = open.every((r) => items.some((i) => i.line === r.line.line && i.quantity === r.remaining));
      const body = {
        reasonCode: reason.value,
        ...(all ? {} : { items }),
        ...(reference.value.trim() ? { clientInvoiceNo: reference.value.trim() } : {}),
      };
      const note = await ctx.api.postJson<{ data: Sale }>(`/api/v1/sales/${sale.id}/credit-note`, body, { 'idempotency-key': key });
      ctx.announce(`Credit note No. ${note.data.invoiceNo} of ${saleName(sale)} issued (${note.data.status}).`);
      location.hash = `#/document?id=${note.data.id}`;
    } catch (err) {
      confirmBox.replaceChildren();
      message.error(err instanceof ApiProblem && err.field ? `${err.message}` : err);
      submit.disabled = false;
    }
  };

  return h(
    'form',
    {
      class: 'card wide',
      'aria-labelledby': 'credit-title',
      // The form's own messages say what to send (the browser's would say "Value must be less than or equal to 4").
      novalidate: true,
      // A message answered a submit: what the person changes since makes it stale.
      oninput: () => message.clear(),
      onchange: () => message.clear(),
      onsubmit: (e: Event) => {
        e.preventDefault();
        message.clear();
        const chosen = rows.filter((r) => r.take.checked);
        if (chosen.length === 0) {
          message.error('Tick the lines to credit and say how much of each.');
          return;
        }
        const wrong = chosen.find((r) => !(Number(r.quantity.value) > 0) || Number(r.quantity.value) > r.remaining);
        if (wrong) {
          message.error(`Line ${wrong.line.line}: credit more than 0 and at most ${quantityText(wrong.remaining)}, what is left of it.`);
          wrong.quantity.focus();
          return;
        }
        if (reason.value === '') {
          message.error('Choose the reason for the credit note: it is filed with the authority.');
          reason.focus();
          return;
        }
        const items = chosen.map((r) => ({ line: r.line.line, quantity: Number(r.quantity.value) }));
        const total = chosen.reduce((sum, r) => sum + creditedTotal(r.line, r.credited, Number(r.quantity.value)), 0);
        const question = `Credit ${money(total, currency)} of ${saleName(sale)} (${items.length} ${items.length === 1 ? 'line' : 'lines'}, reason ${noteReasonLabel(authority, 'credit_note', reason.value)})? The note is filed with the authority and cannot be undone.`;
        const yes: HTMLButtonElement = h(
          'button',
          { type: 'button', class: 'danger primary-danger', onclick: () => void issue(items, yes) },
          'Yes, issue the credit note',
        );
        const no = h(
          'button',
          {
            type: 'button',
            onclick: () => {
              confirmBox.replaceChildren();
              submit.focus();
            },
          },
          'Cancel',
        );
        confirmBox.replaceChildren(
          h('span', { class: 'confirm-question', role: 'alert', 'data-testid': 'credit-confirm' }, question),
          yes,
          no,
        );
        yes.focus();
      },
    },
    h('h2', { id: 'credit-title' }, 'Issue a credit note'),
    h(
      'p',
      { class: 'muted' },
      'Refund or cancel all or part of this sale: tick the lines to take back and say how much of each. Nothing is ticked until you choose; you confirm the total before the note is issued.',
    ),
    blocked ? h('p', { class: 'notice notice-warn' }, blocked) : null,
    open.length === 0 ? h('p', { class: 'notice' }, 'Every line of this sale has been credited in full: nothing is left to credit.') : null,
    h(
      'fieldset',
      { class: 'credit-lines' },
      h('legend', null, 'Lines'),
      rows.map((r) =>
        h(
          'div',
          { class: 'credit-line' },
          h('label', { class: 'checkbox', for: `credit-line-${r.line.line}` }, r.take, ` ${r.line.line}. ${r.line.name}`),
          h('span', { class: 'qty' }, r.quantity, h('small', { class: 'muted', id: `credit-left-${r.line.line}` }, ` ${r.left}`)),
        ),
      ),
    ),
    field('credit-reason', 'Reason', reason),
    field('credit-reference', 'Your reference (optional)', reference),
    message.element,
    submit,
    confirmBox,
  );
}

/** The credit and debit notes issued against a sale, with links to them. */
function notesOfSale(
  sale: Sale,
  dateTime: (iso: string | null) => ReturnType<typeof merchantDateTime>,
  authority: Authority,
): HTMLElement[] {
  const notes = sale.notes ?? [];
  return [
    h('h2', { id: 'notes-title' }, 'Credit and debit notes'),
    notes.length === 0
      ? h('p', { class: 'muted' }, 'None: nothing of this sale has been credited or debited.')
      : table(
          'Credit and debit notes',
          ['Note', 'Authority invoice no.', 'Date', 'Reason', 'Total', 'Status', 'Issued by'],
          notes.map((n) => [
            h('a', { href: `#/document?id=${n.id}` }, `${TYPE_LABELS[n.type]} No. ${n.invoiceNo}`),
            n.authorityInvoiceNo ? h('span', { class: 'mono' }, n.authorityInvoiceNo) : h('small', { class: 'muted' }, 'Not fiscalised'),
            dateTime(n.occurredAt),
            n.reasonCode ? noteReasonLabel(authority, n.type, n.reasonCode) : '—',
            money(n.total, sale.totals.currency),
            statusBadge(n.status, n.resolved),
            issuerText(n.issuedBy),
          ]),
        ),
  ];
}

function resolveForms(ctx: ViewContext, sale: Sale, authority: Authority): HTMLElement {
  const blocked = filingStopped(ctx);
  const note = h('textarea', { rows: 2, maxlength: '500', required: true }) as HTMLTextAreaElement;
  const message = formMessage('resolve-message');
  const resolve = h('button', { type: 'submit', disabled: blocked !== null }, 'Mark resolved') as HTMLButtonElement;
  const customerName = h('input', { type: 'text', maxlength: '60', value: sale.customer.name }) as HTMLInputElement;
  const taxpayerId = authority.taxpayerId;
  const customerTpin = h('input', {
    type: 'text',
    pattern: htmlPattern(taxpayerId.pattern),
    maxlength: String(taxpayerId.example.length),
    value: sale.customer.tpin ?? '',
  }) as HTMLInputElement;
  // Each line's fields the authority checks and a refusal most often names: classification, VAT
  // category, quantity and price. Everything else is reissued as it was.
  const lineInputs = sale.items.map((l) => ({
    line: l,
    classification: h('input', { type: 'text', maxlength: '20', required: true, value: l.classificationCode }) as HTMLInputElement,
    vatCategory: h(
      'select',
      null,
      authority.taxCategories.map(({ code }) => h('option', { value: code, selected: code === l.vatCategory }, code)),
    ) as HTMLSelectElement,
    quantity: h('input', { type: 'number', min: '0.001', step: 'any', required: true, value: String(l.quantity) }) as HTMLInputElement,
    price: h('input', { type: 'number', min: '0', step: 'any', required: true, value: String(l.price) }) as HTMLInputElement,
  }));
  const reissueMessage = formMessage('reissue-message');
  const reissue = h(
    'button',
    { type: 'submit', class: 'primary', disabled: blocked !== null || sale.type !== 'sale' },
    'Reissue as a new sale',
  ) as HTMLButtonElement;
  const key = idempotencyKey();
  return h(
    'section',
    { class: 'card wide', 'aria-labelledby': 'resolve-title' },
    h('h2', { id: 'resolve-title' }, 'Deal with the refusal'),
    blocked ? h('p', { class: 'notice notice-warn' }, blocked) : null,
    sale.type === 'sale'
      ? h(
          'form',
          {
            onsubmit: async (e: Event) => {
              e.preventDefault();
              reissue.disabled = true;
              try {
                const customer = {
                  ...(customerName.value.trim() ? { name: customerName.value.trim() } : {}),
                  tpin: customerTpin.value.trim() || null,
                };
                const items = lineInputs.map(({ line: l, classification, vatCategory, quantity, price }) => ({
                  name: l.name,
                  classificationCode: classification.value.trim(),
                  ...(l.itemCode ? { itemCode: l.itemCode } : {}),
                  quantity: Number(quantity.value),
                  price: Number(price.value),
                  vatCategory: vatCategory.value,
                  ...(l.discount > 0 ? { discount: l.discount } : {}),
                  ...(l.rrp !== null && authority.taxCategories.find((c) => c.code === vatCategory.value)?.requires === 'rrp'
                    ? { rrp: l.rrp }
                    : {}),
                }));
                const body = {
                  items,
                  customer,
                  paymentMethod: sale.paymentMethod,
                  taxInclusive: sale.taxInclusive,
                  destinationCountryCode: sale.destinationCountryCode,
                  note: 'Reissued from the console',
                };
                const created = await ctx.api.postJson<{ data: Sale }>(`/api/v1/sales/${sale.id}/reissue`, body, {
                  'idempotency-key': key,
                });
                location.hash = `#/document?id=${created.data.id}`;
              } catch (err) {
                reissueMessage.error(err);
                reissue.disabled = false;
              }
            },
          },
          h('h3', null, 'Reissue with corrections'),
          h(
            'p',
            { class: 'muted' },
            'A new sale with the next invoice number of the branch, its lines and customer as corrected here; this one becomes resolved.',
          ),
          field('reissue-name', 'Customer name', customerName),
          field('reissue-tpin', `Customer ${taxpayerId.label}`, customerTpin, `${taxpayerId.words}, or empty for none.`),
          lineInputs.map(({ line, classification, vatCategory, quantity, price }) =>
            h(
              'fieldset',
              { class: 'reissue-line' },
              h('legend', null, `Line ${line.line}: ${line.name}`),
              field(`reissue-class-${line.line}`, 'Classification code', classification),
              field(`reissue-vat-${line.line}`, 'VAT category', vatCategory),
              field(`reissue-quantity-${line.line}`, 'Quantity', quantity),
              field(`reissue-price-${line.line}`, 'Price', price),
            ),
          ),
          reissueMessage.element,
          reissue,
        )
      : null,
    h(
      'form',
      {
        onsubmit: async (e: Event) => {
          e.preventDefault();
          resolve.disabled = true;
          try {
            await ctx.api.postJson(`/api/v1/sales/${sale.id}/resolve`, { note: note.value.trim() });
            ctx.refresh();
          } catch (err) {
            message.error(err);
            resolve.disabled = false;
          }
        },
      },
      h('h3', null, 'Or mark it resolved'),
      h('p', { class: 'muted' }, 'When nothing has to be filed (the customer left, it was a test, it was rung up again).'),
      field('resolve-note', 'Note', note),
      message.element,
      resolve,
    ),
  );
}

export async function merchantDocumentView(ctx: ViewContext) {
  const id = Number(ctx.params.get('id'));
  const back = h('a', { href: '#/documents', class: 'button-link' }, 'All documents');
  if (!Number.isInteger(id) || id < 1) return [heading('Document', back), errorBox(new ApiProblem(404, undefined, 'No such document.'))];
  let sale: Sale;
  let timeZone: string;
  let authority: Authority;
  try {
    const [document, me, ofMerchant] = await Promise.all([
      ctx.api.get<{ data: Sale }>(`/api/v1/sales/${id}?expand=credits`),
      ctx.api.get<{ data: { timezone: string } }>('/api/v1/me'),
      merchantAuthority(ctx.api),
    ]);
    sale = document.data;
    timeZone = me.data.timezone;
    authority = ofMerchant;
  } catch (err) {
    return [heading('Document', back), errorBox(err)];
  }
  // The document's times as its receipt prints them: in the merchant's zone, with the zone.
  const dateTime = (iso: string | null) => merchantDateTime(iso, timeZone);
  const currency = sale.totals.currency;
  const fiscalKind = sale.salesType === 'normal';
  const printable = sale.status === 'uploaded';
  const what = `${TYPE_LABELS[sale.type].toLowerCase()} No. ${sale.invoiceNo}`;
  const pdf: HTMLButtonElement = h(
    'button',
    { type: 'button', onclick: () => void receiptPdf(ctx, ctx.api, `/api/v1/sales/${sale.id}/receipt`, pdf, what, false) },
    'Print receipt (PDF)',
  );
  const actions = h(
    'div',
    { class: 'toolbar' },
    printable ? receiptLink(sale, { preview: true }) : null,
    receiptLink(sale),
    printable ? pdf : null,
    back,
  );
  const lines = table(
    'Lines',
    ['Line', 'Item', 'Quantity', 'Price', 'VAT', 'Discount', 'Net', 'VAT amount', 'Total'],
    sale.items.map((l) => [
      String(l.line),
      h(
        'span',
        { class: 'stack' },
        h('span', null, l.name),
        h(
          'small',
          { class: 'muted' },
          `Class ${l.classificationCode}${l.itemCode ? ` · item ${l.itemCode}` : ''}${l.originalLine ? ` · credits line ${l.originalLine}` : ''}`,
        ),
      ),
      String(l.quantity),
      money(l.price),
      `${l.vatCategory} (${l.vatRate} %)`,
      l.discount ? money(l.discount) : '—',
      money(l.net),
      money(l.vat),
      money(l.total),
    ]),
  );
  const fiscal = sale.fiscal;
  const labels = authority.receiptLabels;
  // Only a document of an authority that counts all its receipts has it (KRA's totRcptNo).
  const totalReceiptNo = (fiscal as { totalReceiptNo?: number | null }).totalReceiptNo;
  return [
    heading(
      fiscalKind
        ? `${TYPE_LABELS[sale.type]} No. ${sale.invoiceNo}`
        : `${invoiceTypeWords(sale.salesType, sale.type)} No. ${documentNumber(sale.salesType, sale.invoiceNo)}`,
      actions,
    ),
    fiscalKind
      ? null
      : h(
          'div',
          { class: 'notice notice-warn', role: 'note' },
          `${receiptTitle(authority, sale.salesType, sale.type)}: filed with the authority as a ${sale.salesType} document, never counted as a sale.`,
        ),
    printable ? h('p', { class: 'muted', id: 'print-hint' }, PRINT_HINT) : null,
    h(
      'p',
      null,
      statusBadge(sale.status, sale.resolution !== null),
      ' ',
      sale.authorityInvoiceNo
        ? h('span', { class: 'mono' }, sale.authorityInvoiceNo)
        : h('small', { class: 'muted' }, 'Not fiscalised yet'),
    ),
    sale.status === 'failed' && !sale.resolution
      ? h(
          'div',
          { class: 'notice notice-danger', role: 'alert' },
          `The authority refused it (code ${sale.resultCode ?? '?'}): ${sale.lastError ?? 'no reason given'}.`,
        )
      : null,
    sale.status === 'pending'
      ? h(
          'div',
          { class: 'notice notice-warn' },
          "Stored with its invoice number and waiting for the branch's VSDC; it is filed in order when the VSDC answers.",
        )
      : null,
    facts([
      ['Invoice type', invoiceTypeWords(sale.salesType, sale.type)],
      ['Branch', sale.branch],
      ['Date', dateTime(sale.occurredAt)],
      ['Your reference', sale.clientInvoiceNo ?? '—'],
      ['Idempotency-Key', sale.reference ?? '—'],
      [
        'Customer',
        sale.customer.tpin ? `${sale.customer.name} (${authority.taxpayerId.label} ${sale.customer.tpin})` : sale.customer.name || '—',
      ],
      ...(sale.customer.address ? ([['Customer address', sale.customer.address]] as Array<[string, Child]>) : []),
      ...(sale.lpoNumber ? ([['LPO number', sale.lpoNumber]] as Array<[string, Child]>) : []),
      ...(sale.principalId ? ([['Principal', sale.principalId]] as Array<[string, Child]>) : []),
      ['Payment', codeLabel(authority.paymentMethods, sale.paymentMethod)],
      ['Prices', sale.taxInclusive ? 'Include VAT' : 'Exclude VAT'],
      ['Stored', dateTime(sale.createdAt)],
      ['Issued by', h('span', { 'data-testid': 'issued-by' }, issuerText(sale.issuedBy))],
      ...(sale.originalSaleId
        ? ([
            [
              'Corrects',
              h(
                'a',
                { href: `#/document?id=${sale.originalSaleId}` },
                sale.originalSale ? saleName(sale.originalSale) : `the sale (document ${sale.originalSaleId})`,
              ),
            ],
          ] as Array<[string, Child]>)
        : []),
      ...(sale.reasonCode && sale.type !== 'sale'
        ? ([['Reason', noteReasonLabel(authority, sale.type, sale.reasonCode)]] as Array<[string, Child]>)
        : []),
      ...(sale.replacesSaleId
        ? ([['Replaces', h('a', { href: `#/document?id=${sale.replacesSaleId}` }, `Refused document ${sale.replacesSaleId}`)]] as Array<
            [string, Child]
          >)
        : []),
    ]),
    h('h2', null, 'Lines'),
    lines,
    h('h2', null, 'Totals'),
    facts([
      ['Net (taxable)', money(sale.totals.net, currency)],
      ['VAT', money(sale.totals.vat, currency)],
      ...(sale.totals.discount ? ([['Discount', money(sale.totals.discount, currency)]] as Array<[string, Child]>) : []),
      ['Total', h('strong', null, money(sale.totals.total, currency))],
      ...(currency === authority.currency
        ? []
        : ([
            ['Exchange rate', `1 ${currency} = ${sale.exchangeRate.toFixed(4)} ${authority.currency}`],
            [`Total in ${authority.currency}`, money(sale.totalInKwacha, authority.currency)],
          ] as Array<[string, Child]>)),
    ]),
    h('h2', null, 'Fiscal information'),
    fiscal.publishedAt
      ? facts([
          ['Published', dateTime(fiscal.publishedAt)],
          [labels.receiptNo, String(fiscal.receiptNo ?? '—')],
          ...(totalReceiptNo === undefined || totalReceiptNo === null
            ? []
            : ([[labels.totalReceiptNo, String(totalReceiptNo)]] as Array<[string, Child]>)),
          [labels.unitId, fiscal.sdcId ?? '—'],
          [labels.unitNumber, fiscal.mrcNo ?? '—'],
          [labels.internalData, h('span', { class: 'mono' }, fiscal.internalData ?? '—')],
          [labels.signature, h('span', { class: 'mono' }, fiscal.receiptSignature ?? '—')],
          [
            'Verification',
            fiscal.qrCodeUrl
              ? h('a', { href: fiscal.qrCodeUrl, rel: 'noopener noreferrer', target: '_blank', class: 'mono' }, fiscal.qrCodeUrl)
              : '—',
          ],
        ])
      : h('p', { class: 'muted' }, 'None yet: the authority fills it when it accepts the document.'),
    h('h2', null, 'History'),
    facts([
      ['Stored', dateTime(sale.createdAt)],
      ...(fiscal.publishedAt ? ([['Fiscalised', dateTime(fiscal.publishedAt)]] as Array<[string, Child]>) : []),
      ...(sale.status === 'failed'
        ? ([['Refused', `${sale.resultCode ?? ''} ${sale.lastError ?? ''}`.trim() || '—']] as Array<[string, Child]>)
        : []),
      ...(sale.resolution
        ? ([
            [
              'Resolved',
              h(
                'span',
                { class: 'stack' },
                h(
                  'span',
                  null,
                  sale.resolution.kind === 'reissued' ? 'Reissued as ' : 'Marked resolved',
                  sale.resolution.replacedBySaleId
                    ? h('a', { href: `#/document?id=${sale.resolution.replacedBySaleId}` }, `document ${sale.resolution.replacedBySaleId}`)
                    : null,
                ),
                h('small', null, dateTime(sale.resolution.at), sale.resolution.note ? ` · ${sale.resolution.note}` : ''),
              ),
            ],
          ] as Array<[string, Child]>)
        : []),
      ['Last change', dateTime(sale.fiscalisedAt)],
    ]),
    sale.type === 'sale' && sale.salesType !== 'proforma' ? notesOfSale(sale, dateTime, authority) : null,
    sale.type === 'sale' && sale.salesType !== 'proforma' && sale.status === 'uploaded' && canWrite(ctx)
      ? creditNoteForm(ctx, sale, authority)
      : null,
    sale.status === 'failed' && !sale.resolution && canWrite(ctx) ? resolveForms(ctx, sale, authority) : null,
  ];
}
