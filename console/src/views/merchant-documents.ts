// The merchant's documents: search by reference, filter by status, type, branch and dates
// (the merchant's days), newest first; each opens its own page.
import { query, type Page } from '../api.ts';
import { dateTime, h, money, table } from '../dom.ts';
import { shownZoneName } from '../time.ts';
import type { Sale } from '../types.ts';
import { errorBox, heading, pager, type ViewContext } from '../view.ts';
import { branchLabel, branchesOf, isStatusFilter, STATUS_FILTERS, statusBadge, TYPE_LABELS, type StatusFilter } from './merchant-common.ts';
import { firstStepsEmpty } from './merchant-first-steps.ts';
import { receiptLink } from './receipt-actions.ts';

const FILTERS = ['reference', 'status', 'type', 'branch', 'from', 'to'] as const;

export async function merchantDocumentsView(ctx: ViewContext) {
  const value = (name: string) => ctx.params.get(name) ?? '';
  const page = Number(ctx.params.get('page') ?? '1');
  const branches = await branchesOf(ctx.api);

  const reference = h('input', {
    type: 'search',
    name: 'reference',
    value: value('reference'),
    placeholder: 'Your invoice no. or Idempotency-Key',
    autocomplete: 'off',
  }) as HTMLInputElement;
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'Any status'),
    (Object.keys(STATUS_FILTERS) as StatusFilter[]).map((s) =>
      h('option', { value: s, selected: value('status') === s }, STATUS_FILTERS[s].label),
    ),
  ) as HTMLSelectElement;
  const type = h(
    'select',
    { name: 'type' },
    h('option', { value: '' }, 'Any type'),
    (Object.keys(TYPE_LABELS) as Sale['type'][]).map((t) => h('option', { value: t, selected: value('type') === t }, TYPE_LABELS[t])),
  ) as HTMLSelectElement;
  const branch = h(
    'select',
    { name: 'branch' },
    h('option', { value: '' }, 'All branches'),
    branches.map((b) => h('option', { value: b.branch, selected: value('branch') === b.branch }, branchLabel(b))),
  ) as HTMLSelectElement;
  const from = h('input', { type: 'date', name: 'from', value: value('from') }) as HTMLInputElement;
  const to = h('input', { type: 'date', name: 'to', value: value('to') }) as HTMLInputElement;
  const controls: Record<(typeof FILTERS)[number], HTMLInputElement | HTMLSelectElement> = { reference, status, type, branch, from, to };
  const labelled = (id: string, label: string, control: HTMLElement) => {
    control.id = id;
    return h('div', { class: 'field' }, h('label', { for: id }, label), control);
  };
  const form = h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Find documents',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const params = new URLSearchParams();
        for (const name of FILTERS) if (controls[name].value.trim()) params.set(name, controls[name].value.trim());
        const next = params.toString();
        location.hash = next ? `#/documents?${next}` : '#/documents';
      },
    },
    labelled('filter-reference', 'Reference', reference),
    labelled('filter-status', 'Status', status),
    labelled('filter-type', 'Type', type),
    labelled('filter-branch', 'Branch', branch),
    labelled('filter-from', 'From', from),
    labelled('filter-to', 'To', to),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Search'),
      h('a', { href: '#/documents', class: 'button-link' }, 'Clear'),
    ),
  );
  const head = heading('Documents', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  const filters: Record<string, string | number | boolean | undefined> = { page };
  for (const name of FILTERS) filters[name] = value(name) || undefined;
  const statusFilter = value('status');
  if (isStatusFilter(statusFilter)) Object.assign(filters, { resolved: undefined }, STATUS_FILTERS[statusFilter].query);
  let result: Page<Sale>;
  try {
    result = await ctx.api.get<Page<Sale>>(`/api/v1/sales${query(filters)}`);
  } catch (err) {
    return [head, form, errorBox(err)];
  }
  const rows = result.data.map((doc) => [
    h(
      'span',
      { class: 'stack' },
      h('a', { href: `#/document?id=${doc.id}`, 'data-testid': `document-${doc.id}` }, `No. ${doc.invoiceNo}`),
      h('small', null, TYPE_LABELS[doc.type]),
    ),
    doc.authorityInvoiceNo ? h('span', { class: 'mono' }, doc.authorityInvoiceNo) : h('small', { class: 'muted' }, 'Not fiscalised'),
    doc.clientInvoiceNo ?? '—',
    doc.branch,
    dateTime(doc.occurredAt),
    doc.customer.name || '—',
    money(doc.totals.total, doc.totals.currency),
    statusBadge(doc.status, doc.resolution !== null),
    receiptLink(doc, { preview: true, label: 'Preview' }),
  ]);
  const filtered = FILTERS.some((name) => value(name));
  return [
    head,
    form,
    h(
      'p',
      { class: 'muted', role: 'status' },
      `${result.meta.total} document${result.meta.total === 1 ? '' : 's'}${filtered ? ' match' : ''}. Days and times are your merchant's, in ${shownZoneName()}.`,
    ),
    rows.length === 0 && !filtered
      ? firstStepsEmpty(ctx, 'No documents yet.')
      : table(
          'Documents',
          ['Invoice', 'Authority invoice no.', 'Reference', 'Branch', 'Date', 'Customer', 'Total', 'Status', 'Receipt'],
          rows,
          { empty: 'No document matches.' },
        ),
    pager(result.meta, (p) => {
      const params = new URLSearchParams(ctx.params);
      params.set('page', String(p));
      location.hash = `#/documents?${params.toString()}`;
    }),
  ];
}
