// Documents by status: failed ones with the authority's code and reason; uploaded ones printable.
import { ApiProblem, query, type Api, type Page } from '../api.ts';
import { badge, dateTime, h, money, table } from '../dom.ts';
import type { DocumentSummary } from '../types.ts';
import { errorBox, heading, pager, problemMessage, setParam, type View, type ViewContext } from '../view.ts';

const STATUSES = [
  ['failed', 'Failed (refused by the authority)'],
  ['pending', 'Pending (waiting to be filed)'],
  ['uploaded', 'Uploaded (fiscalised)'],
] as const;

const TONES = { failed: 'danger', pending: 'warn', uploaded: 'ok' } as const;

/** Opens the receipt in a new tab from a blob: the secret travels in a header, never in a URL. */
async function openReceipt(api: Api, doc: DocumentSummary, ctx: ViewContext, button: HTMLButtonElement): Promise<void> {
  const opened = window.open('', '_blank');
  button.disabled = true;
  try {
    const blob = await api.blob(`/api/v1/tenants/${doc.tenantId}/sales/${doc.id}/receipt`, 'application/pdf');
    const url = URL.createObjectURL(blob);
    if (opened) opened.location.href = url;
    else window.location.assign(url);
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    ctx.announce(`Receipt of invoice ${doc.invoiceNo} opened in a new tab.`);
  } catch (err) {
    opened?.close();
    ctx.announce(err instanceof ApiProblem ? err.message : problemMessage(err));
  } finally {
    button.disabled = false;
  }
}

function receiptCell(doc: DocumentSummary, ctx: ViewContext, printable: boolean) {
  if (doc.status !== 'uploaded') return h('small', { class: 'muted' }, 'Not printable: only uploaded documents are fiscal receipts.');
  if (!printable) return '—';
  const button: HTMLButtonElement = h('button', { type: 'button', class: 'link-button', onclick: () => void openReceipt(ctx.api, doc, ctx, button) }, `Receipt (PDF) for invoice ${doc.invoiceNo}`);
  return button;
}

export function documentsView(base: string, options: { printable: boolean }): View {
  return async (ctx: ViewContext) => {
    const status = (ctx.params.get('status') ?? 'failed') as DocumentSummary['status'];
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
      tenant || branch ? h('button', { type: 'button', onclick: () => (location.hash = `${location.hash.split('?')[0]}?status=${status}`) }, `Clear merchant filter (${tenant ?? ''}${branch ? ` / ${branch}` : ''})`) : null,
      h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'),
    );
    const head = heading('Documents', filters);
    let result: Page<DocumentSummary>;
    try {
      result = await ctx.api.get<Page<DocumentSummary>>(`${base}${query({ status, tenant, branch, page })}`);
    } catch (err) {
      return [head, errorBox(err)];
    }
    const rows = result.data.map((doc) => [
      h('span', { class: 'stack' }, h('span', null, `No. ${doc.invoiceNo}`), h('small', null, doc.type.replace('_', ' '))),
      doc.authorityInvoiceNo ? h('span', { class: 'mono' }, doc.authorityInvoiceNo) : h('small', { class: 'muted' }, 'Not fiscalised'),
      doc.clientInvoiceNo ?? '—',
      h('span', { class: 'stack' }, h('span', null, doc.tenantName), h('small', null, `Branch ${doc.branch}`)),
      dateTime(doc.createdAt),
      money(doc.totals.total, doc.totals.currency),
      badge(doc.status, TONES[doc.status]),
      doc.resultCode ?? '—',
      doc.lastError ? h('span', { class: 'error-text' }, doc.lastError) : '—',
      receiptCell(doc, ctx, options.printable),
    ]);
    return [
      head,
      status === 'failed'
        ? h('p', { class: 'muted' }, 'The authority refused these documents: each needs someone to correct and re-issue it. The result code and reason come from the authority.')
        : null,
      table(`Documents, ${status}`, ['Invoice', 'Authority invoice no.', 'Client reference', 'Merchant', 'Stored', 'Total', 'Status', 'Result code', 'Last error', 'Receipt'], rows, { empty: `No ${status} documents.` }),
      pager(result.meta, (p) => setParam('page', String(p))),
    ];
  };
}
