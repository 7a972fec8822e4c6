// Documents by status: failed ones with the authority's code and reason; uploaded ones printable.
import { query, type Page } from '../api.ts';
import { badge, dateTime, h, money, table } from '../dom.ts';
import type { DocumentSummary } from '../types.ts';
import { errorBox, heading, pager, setParam, type View, type ViewContext } from '../view.ts';
import { PRINT_HINT, receiptPdf } from './receipt-actions.ts';
import { issuerText } from './issued-by.ts';

/** The view's filter: the API's statuses, a refused document split by whether it was dealt with (`resolved`). */
const STATUSES = [
  ['failed', 'Failed, to deal with (refused by the authority)', { status: 'failed', resolved: false }],
  ['pending', 'Pending (waiting to be filed)', { status: 'pending' }],
  ['uploaded', 'Uploaded (fiscalised)', { status: 'uploaded' }],
  ['resolved', 'Failed, resolved (reissued or marked resolved)', { status: 'failed', resolved: true }],
] as const;

const TONES = { failed: 'danger', pending: 'warn', uploaded: 'ok' } as const;
const statusBadge = (doc: DocumentSummary) =>
  doc.status === 'failed' && doc.resolution ? badge('failed · resolved', 'neutral') : badge(doc.status, TONES[doc.status]);

/** The receipt route of a merchant's document: the secret travels in a header, never in a URL. */
const receiptPath = (doc: DocumentSummary, saleId = doc.id) => `/api/v1/tenants/${doc.tenantId}/sales/${saleId}/receipt`;

/** A preview (a new tab, counted nowhere) and a print (saved as receipt-….pdf, counted: later prints say COPY). */
function receiptCell(doc: DocumentSummary, ctx: ViewContext, printable: boolean) {
  if (doc.status !== 'uploaded') return h('small', { class: 'muted' }, 'Not printable: only uploaded documents are fiscal receipts.');
  if (!printable) return '—';
  const what = `invoice ${doc.invoiceNo}`;
  const preview: HTMLButtonElement = h(
    'button',
    { type: 'button', class: 'link-button', onclick: () => void receiptPdf(ctx, ctx.api, receiptPath(doc), preview, what, true) },
    `Preview receipt of invoice ${doc.invoiceNo}`,
  );
  const print: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'link-button',
      title: PRINT_HINT,
      onclick: () => void receiptPdf(ctx, ctx.api, receiptPath(doc), print, what, false),
    },
    `Print receipt of invoice ${doc.invoiceNo} (PDF)`,
  );
  return h('span', { class: 'stack' }, preview, print);
}

/** How a refused document was resolved (or which one a reissue replaces), with a link to the replacement's receipt. */
function resolutionCell(doc: DocumentSummary, ctx: ViewContext, printable: boolean) {
  const resolution = doc.resolution;
  if (!resolution) return doc.replacesSaleId === null ? '—' : h('small', null, `Reissue of document ${doc.replacesSaleId}`);
  const replacement = resolution.replacedBySaleId;
  let link: HTMLElement | null = null;
  if (replacement !== null && printable) {
    const button: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: 'link-button',
        title: PRINT_HINT,
        onclick: () =>
          void receiptPdf(
            ctx,
            ctx.api,
            receiptPath(doc, replacement),
            button,
            `document ${replacement}, the reissue of invoice ${doc.invoiceNo}`,
            false,
          ),
      },
      `Print receipt of the replacement, document ${replacement} (PDF)`,
    );
    link = button;
  }
  return h(
    'span',
    { class: 'stack resolution' },
    h('span', null, resolution.kind === 'reissued' ? `Reissued as document ${replacement ?? '?'}` : 'Marked resolved'),
    h('small', null, 'By ', `${resolution.by.type.replace('_', ' ')} ${resolution.by.id ?? ''}`.trim(), ', ', dateTime(resolution.at)),
    resolution.note ? h('small', null, `Note: ${resolution.note}`) : null,
    link,
  );
}

export function documentsView(base: string, options: { printable: boolean }): View {
  return async (ctx: ViewContext) => {
    const chosen = STATUSES.find(([value]) => value === ctx.params.get('status')) ?? STATUSES[0];
    const status = chosen[0];
    const tenant = ctx.params.get('tenant') ?? undefined;
    const branch = ctx.params.get('branch') ?? undefined;
    const page = Number(ctx.params.get('page') ?? '1');
    const select = h(
      'select',
      { id: 'status-filter', onchange: (e: Event) => setParam('status', (e.target as HTMLSelectElement).value) },
      STATUSES.map(([value, label]) => h('option', { value, selected: value === status }, label)),
    );
    const filters = h(
      'div',
      { class: 'toolbar' },
      h('label', { for: 'status-filter' }, 'Status'),
      select,
      tenant || branch
        ? h(
            'button',
            { type: 'button', onclick: () => (location.hash = `${location.hash.split('?')[0]}?status=${status}`) },
            `Clear merchant filter (${tenant ?? ''}${branch ? ` / ${branch}` : ''})`,
          )
        : null,
      h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'),
    );
    const head = heading('Documents', filters);
    let result: Page<DocumentSummary>;
    try {
      result = await ctx.api.get<Page<DocumentSummary>>(`${base}${query({ ...chosen[2], tenant, branch, page })}`);
    } catch (err) {
      return [head, errorBox(err)];
    }
    const rows = result.data.map((doc) => [
      h('span', { class: 'stack' }, h('span', null, `No. ${doc.invoiceNo}`), h('small', null, doc.type.replace('_', ' '))),
      doc.authorityInvoiceNo ? h('span', { class: 'mono' }, doc.authorityInvoiceNo) : h('small', { class: 'muted' }, 'Not fiscalised'),
      doc.clientInvoiceNo ?? '—',
      h('span', { class: 'stack' }, h('span', null, doc.tenantName), h('small', null, `Branch ${doc.branch}`)),
      h('span', { class: 'stack' }, dateTime(doc.createdAt), h('small', null, `By ${issuerText(doc.issuedBy)}`)),
      money(doc.totals.total, doc.totals.currency),
      statusBadge(doc),
      doc.resultCode ?? '—',
      doc.lastError ? h('span', { class: 'error-text' }, doc.lastError) : '—',
      resolutionCell(doc, ctx, options.printable),
      receiptCell(doc, ctx, options.printable),
    ]);
    return [
      head,
      status === 'failed'
        ? h(
            'p',
            { class: 'muted' },
            'The authority refused these documents: each needs the merchant to act. Reissue a sale with corrected lines or customer (POST /api/v1/sales/{id}/reissue), or mark a document resolved with a note when nothing must be filed (POST /api/v1/sales/{id}/resolve). The result code and reason come from the authority.',
          )
        : status === 'resolved'
          ? h(
              'p',
              { class: 'muted' },
              'Refused documents the merchant has dealt with: reissued as a new document, or marked resolved with a note. Their lines and totals are as they were refused.',
            )
          : null,
      status === 'uploaded' && options.printable ? h('p', { class: 'muted' }, PRINT_HINT) : null,
      table(
        `Documents, ${chosen[1]}`,
        [
          'Invoice',
          'Authority invoice no.',
          'Client reference',
          'Merchant',
          'Stored',
          'Total',
          'Status',
          'Result code',
          'Last error',
          'Resolution',
          'Receipt',
        ],
        rows,
        {
          empty:
            status === 'resolved'
              ? 'No resolved documents.'
              : status === 'failed'
                ? 'No refused document waits to be dealt with.'
                : `No ${status} documents.`,
        },
      ),
      pager(result.meta, (p) => setParam('page', String(p))),
    ];
  };
}
