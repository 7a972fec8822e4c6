// Daily reports of one merchant's branch: the day's X report (or the stored Z of a closed day),
// "Close the day" (the Z, asked twice: it cannot be undone), the branch's earlier Z reports, and
// the PDF and CSV of the report shown. The merchant's, the partner's and the operator's consoles
// share it; each passes where its reports live (docs/reports.md).
import { ApiProblem, query, type Api, type Page } from '../api.ts';
import { badge, h, merchantDateTime, money, table, type Child } from '../dom.ts';
import { dayOf } from '../../../src/platform/lib/time-zones.ts';
import { codeLabel } from '../authority.ts';
import { confirmAction, errorBox, field, formMessage, heading, pager, setParam, type View, type ViewContext } from '../view.ts';
import { branchesOf, branchLabel, type Branch } from './merchant-common.ts';

interface Figures {
  count: number;
  taxable: number;
  vat: number;
  total: number;
  discount: number;
}

interface ByType {
  sales: Figures;
  creditNotes: Figures;
  debitNotes: Figures;
  net: Figures;
}

type DocumentType = 'sale' | 'credit_note' | 'debit_note';

interface DailyReport {
  type: 'X' | 'Z';
  date: string;
  timezone: string;
  merchant: { id: number; name: string; tpin: string };
  branch: string;
  branchName: string | null;
  currency: string;
  generatedAt: string;
  closedAt: string | null;
  closedBy: string | null;
  /** Who closed it, as the audit trail names people (a user's email). */
  closedByName: string | null;
  counts: { documents: number; uploaded: number; pending: number; failed: number; resolved: number };
  documents: Array<Figures & { type: DocumentType; status: string }>;
  fiscal: ByType;
  vatCategories: Array<ByType & { category: string; rate: number }>;
  paymentMethods: Array<ByType & { method: string }>;
  nonFiscal?: Array<{ salesType: 'training' | 'proforma'; type: DocumentType; count: number; taxable: number; vat: number; total: number }>;
  numbers: { firstInvoiceNo: number | null; lastInvoiceNo: number | null; firstReceiptNo: number | null; lastReceiptNo: number | null };
  /** A Z: the day's documents stored after it was taken (in no figure of it). */
  storedAfterClose: ByType | null;
  /** The merchant's authority's words for its codes (absent from an older gateway's reports). */
  authority?: { authority: string; taxpayerId: string; paymentMethods: Array<{ code: string; label: string }> };
}

interface ClosedDay {
  date: string;
  branch: string;
  timezone: string;
  closedAt: string;
  closedBy: string;
  closedByName: string | null;
  counts: DailyReport['counts'];
  net: Figures;
  storedAfterClose: Figures;
}

export interface ReportsOptions {
  /** Multi-tenant consoles (partner, operator) name the merchant by its id. */
  tenant?: boolean;
  /** The merchant's branches for a picker; without it (or when they cannot be read) the branch is typed. */
  branches?: (api: Api, tenant: string) => Promise<Branch[] | undefined>;
  /** Whether "Close the day" is offered (the operator only reads; a merchant's viewer reads). */
  close?: (ctx: ViewContext) => boolean;
}

/** The signed-in merchant's branches (GET /api/v1/me). */
export const merchantBranches = (api: Api) => branchesOf(api);

/** A partner's merchant's branches (GET /api/v1/tenants/{id}); undefined when they cannot be read. */
export async function partnerBranches(api: Api, tenant: string): Promise<Branch[] | undefined> {
  try {
    return (await api.get<{ data: { devices: Branch[] } }>(`/api/v1/tenants/${encodeURIComponent(tenant)}`)).data.devices;
  } catch {
    return undefined;
  }
}

const TYPE_NAMES: Record<DocumentType, string> = { sale: 'Sales', credit_note: 'Credit notes', debit_note: 'Debit notes' };
const FIGURE_HEADERS = ['Documents', 'Taxable', 'VAT', 'Total', 'Discount'];
const figureCells = (f: Figures): Child[] => [f.count, money(f.taxable), money(f.vat), money(f.total), money(f.discount)];
const numberRange = (first: number | null, last: number | null) =>
  first === null ? 'none' : first === last ? String(first) : `${first} to ${last}`;
const documentsCount = (n: number) => `${n} document${n === 1 ? '' : 's'}`;

/**
 * What a Z says of its day's documents stored after it: plainly, how many and their net total, or
 * that there are none. `documentsLink`: the merchant's console links its documents of that day.
 */
function afterCloseNotice(report: DailyReport, documentsLink: boolean): HTMLElement {
  const after = report.storedAfterClose?.net;
  if (!after || after.count === 0) {
    return h(
      'p',
      { class: 'muted', 'data-testid': 'after-close' },
      'This day is closed: its Z report never changes. No document of this day was stored after the close.',
    );
  }
  return h(
    'div',
    { class: 'notice notice-warn', role: 'note', 'data-testid': 'after-close' },
    `${documentsCount(after.count)} of this day ${after.count === 1 ? 'was' : 'were'} stored after the close (net total ${money(after.total)} ${report.currency}, VAT ${money(after.vat)}): ` +
      `${after.count === 1 ? 'it is' : 'they are'} in no daily report. This Z never changes; find ${after.count === 1 ? 'it' : 'them'} in `,
    documentsLink
      ? h('a', { href: `#/documents${query({ from: report.date, to: report.date, branch: report.branch })}` }, 'Documents')
      : "the merchant's documents",
    ' and in the exports.',
  );
}

function facts(pairs: Array<[string, Child]>): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs.map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))),
  );
}

/** Rows of a split by type: the net (what the day adds up to), then each type unless it is sales alone. */
function byTypeRows(label: string, f: ByType): Child[][] {
  const parts = (
    [
      ['sales', f.sales],
      ['credit notes', f.creditNotes],
      ['debit notes', f.debitNotes],
    ] as const
  ).filter(([, part]) => part.count > 0);
  return [
    [label, ...figureCells(f.net)],
    ...(parts.length > 1 || (parts[0] && parts[0][0] !== 'sales')
      ? parts.map(([name, part]) => [`${label}: ${name}`, ...figureCells(part)])
      : []),
  ];
}

/** The report's figures as the PDF prints them, as tables. */
function reportFigures(report: DailyReport): Child[] {
  const fiscal = table(
    `Fiscalised (uploaded) documents, ${report.currency}`,
    ['', ...FIGURE_HEADERS],
    [
      ['Sales', ...figureCells(report.fiscal.sales)],
      ['Credit notes', ...figureCells(report.fiscal.creditNotes)],
      ['Debit notes', ...figureCells(report.fiscal.debitNotes)],
      [h('strong', null, 'Net (sales + debit notes − credit notes)'), ...figureCells(report.fiscal.net)],
    ],
  );
  const vat = table(
    'Per VAT category (uploaded)',
    ['Category', ...FIGURE_HEADERS],
    report.vatCategories.flatMap((c) => byTypeRows(`${c.category} ${c.rate} %`, c)),
    { empty: 'No uploaded document yet.' },
  );
  const payments = table(
    'Per payment method (uploaded)',
    ['Method', ...FIGURE_HEADERS],
    report.paymentMethods.flatMap((p) => byTypeRows(codeLabel(report.authority?.paymentMethods ?? null, p.method), p)),
    { empty: 'No uploaded document yet.' },
  );
  const documents = table(
    'Every document of the day by type and status',
    ['Type and status', ...FIGURE_HEADERS],
    report.documents.map((d) => [`${TYPE_NAMES[d.type]}, ${d.status}`, ...figureCells(d)]),
    { empty: 'No document this day.' },
  );
  const nonFiscal = report.nonFiscal?.length
    ? [
        h('h3', null, 'Training and proforma (never fiscal, in no figure above)'),
        table(
          'Training and proforma documents',
          ['Kind', 'Documents', 'Taxable', 'VAT', 'Total'],
          report.nonFiscal.map((n) => [
            `${n.salesType === 'training' ? 'Training' : 'Proforma'} ${TYPE_NAMES[n.type].toLowerCase()}`,
            n.count,
            money(n.taxable),
            money(n.vat),
            money(n.total),
          ]),
        ),
      ]
    : null;
  return [
    h('h3', null, `Fiscalised (uploaded) documents, ${report.currency}`),
    fiscal,
    h('h3', null, 'Per VAT category'),
    vat,
    h('h3', null, 'Per payment method'),
    payments,
    h('h3', null, 'Every document by type and status'),
    documents,
    nonFiscal,
  ];
}

/** Downloads the report shown in one of the formats the report route offers, under its own name. */
async function download(
  ctx: ViewContext,
  url: string,
  report: DailyReport,
  format: 'pdf' | 'csv',
  button: HTMLButtonElement,
  message: ReturnType<typeof formMessage>,
): Promise<void> {
  button.disabled = true;
  message.clear();
  try {
    const blob = await ctx.api.blob(url, format === 'pdf' ? 'application/pdf' : 'text/csv');
    const href = URL.createObjectURL(blob);
    const name = `${report.type}-report-${report.merchant.tpin}-${report.branch}-${report.date}.${format}`;
    const link = h('a', { href, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(href), 60_000);
    ctx.announce(`${name} downloaded.`);
  } catch (err) {
    message.error(err);
  } finally {
    button.disabled = false;
  }
}

/** `base(tenant)`: where the merchant's reports live (`…/reports`: `/daily`, `/daily/close`, `/z`). */
export function reportsView(base: (tenant: string) => string, options: ReportsOptions = {}): View {
  /** What the last close said, shown once on the view it re-renders. */
  let closedNotice: string | undefined;

  return async (ctx: ViewContext) => {
    const tenant = options.tenant ? (ctx.params.get('tenant') ?? '') : '';
    const page = Number(ctx.params.get('page') ?? '1');
    const date = ctx.params.get('date') ?? '';
    const notice = closedNotice;
    closedNotice = undefined;
    const head = heading('Reports', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
    const intro = h(
      'p',
      { class: 'muted' },
      "A branch's day: the X report while the day is open (figures as of now), the Z report once it is closed (taken once, never changed). Days are the merchant's, in its time zone.",
    );

    const branches = tenant || !options.tenant ? await options.branches?.(ctx.api, tenant) : undefined;
    const preferred = branches?.find((b) => b.branch === '000' || b.branch === '00') ?? branches?.[0];
    const branch = ctx.params.get('branch') ?? preferred?.branch ?? '';

    const tenantInput = h('input', { type: 'number', min: '1', required: true, value: tenant }) as HTMLInputElement;
    const branchInput = (
      branches && branches.length > 0
        ? h(
            'select',
            null,
            branches.map((b) => h('option', { value: b.branch, selected: b.branch === branch }, branchLabel(b))),
          )
        : h('input', { type: 'text', pattern: '[0-9]{2,3}', size: '4', value: branch, placeholder: '000' })
    ) as HTMLInputElement | HTMLSelectElement;
    const dateInput = h('input', { type: 'date', value: date }) as HTMLInputElement;
    const show = () => {
      // Another merchant's branches are its own: its report starts at its default branch.
      const sameMerchant = !options.tenant || tenantInput.value === tenant;
      location.hash = `#/reports${query({ tenant: options.tenant ? tenantInput.value : undefined, branch: sameMerchant ? branchInput.value || undefined : undefined, date: dateInput.value || undefined })}`;
    };
    const form = h(
      'form',
      {
        class: 'filters',
        'aria-label': 'Which report',
        onsubmit: (event: Event) => {
          event.preventDefault();
          show();
        },
      },
      options.tenant ? field('reports-tenant', 'Merchant id', tenantInput) : null,
      // One branch needs no picker: the report says which it is.
      branches && branches.length === 1
        ? null
        : field('reports-branch', 'Branch', branchInput, branches ? undefined : 'Three digits; empty: 000, else the only branch'),
      field('reports-date', 'Day', dateInput),
      h('div', { class: 'filter-actions' }, h('button', { type: 'submit' }, 'Show')),
    );
    dateInput.addEventListener('change', show);
    if (branchInput instanceof HTMLSelectElement) branchInput.addEventListener('change', show);

    if (options.tenant && !tenant) return [head, intro, form, h('p', null, 'Enter a merchant id to read its reports.')];

    const reportUrl = `${base(tenant)}/daily${query({ date: date || undefined, branch: branch || undefined })}`;
    let report: DailyReport;
    try {
      report = (await ctx.api.get<{ data: DailyReport }>(reportUrl)).data;
    } catch (err) {
      if (err instanceof ApiProblem && err.code === 'branch_required' && !branch) {
        const noBranch = branches?.length === 0 && !options.tenant;
        return [
          head,
          intro,
          form,
          errorBox(err),
          noBranch
            ? h('p', null, 'Reports are per branch: ', h('a', { href: '#/devices' }, 'register and initialise one under Devices'), '.')
            : h('p', null, 'Choose a branch above.'),
        ];
      }
      return [head, intro, form, errorBox(err)];
    }
    // The day and branch the gateway chose when none was asked for.
    dateInput.value = report.date;
    dateInput.max = dayOf(new Date(), report.timezone);
    branchInput.value = report.branch;
    const at = (iso: string) => merchantDateTime(iso, report.timezone);
    const shownUrl = `${base(tenant)}/daily${query({ date: report.date, branch: report.branch })}`;

    const downloadMessage = formMessage('download-message');
    const pdf: HTMLButtonElement = h(
      'button',
      { type: 'button', onclick: () => void download(ctx, shownUrl, report, 'pdf', pdf, downloadMessage) },
      'Download PDF',
    );
    const csv: HTMLButtonElement = h(
      'button',
      { type: 'button', onclick: () => void download(ctx, shownUrl, report, 'csv', csv, downloadMessage) },
      'Download CSV',
    );

    let closing: Child = null;
    if (report.type === 'X') {
      if (options.close?.(ctx)) {
        const message = formMessage('close-message');
        const pending =
          report.counts.pending > 0
            ? ` ${report.counts.pending} document(s) still pending are counted as pending and never added to its totals.`
            : '';
        // Closing today before the shop shuts: what is sold later today is in no daily report.
        const today =
          report.date === dayOf(new Date(), report.timezone)
            ? ' It is today: sales of today issued after the close will be in no daily report (the Z will say how many there were and their total; they stay in Documents and the exports).'
            : '';
        closing = h(
          'div',
          { class: 'toolbar' },
          confirmAction(
            'Close the day',
            `Close ${report.date} for branch ${report.branch}? Its Z report is taken now and this cannot be undone: the day's report never changes again.${pending}${today}`,
            'Yes, close the day',
            async () => {
              try {
                const closed = await ctx.api.postJson<{ data: DailyReport }>(`${base(tenant)}/daily/close`, {
                  date: report.date,
                  branch: report.branch,
                });
                closedNotice = `Day ${closed.data.date} of branch ${closed.data.branch} closed: this is its Z report.`;
                ctx.announce(closedNotice);
                // Stay on this day (not "today", which may have turned meanwhile).
                if (date) ctx.refresh();
                else setParam('date', closed.data.date);
              } catch (err) {
                message.error(err);
              }
            },
          ),
          message.element,
        );
      } else {
        closing = h(
          'p',
          { class: 'muted' },
          options.tenant ? 'The merchant or its partner closes the day.' : 'Viewers read reports; an owner or admin closes the day.',
        );
      }
    }

    const title = `${report.type} report, ${report.date}, branch ${report.branchName ? `${report.branch} ${report.branchName}` : report.branch}`;
    const card = h(
      'section',
      { class: 'card wide', 'aria-labelledby': 'report-title', 'data-testid': 'daily-report' },
      h('h2', { id: 'report-title' }, title, ' ', report.type === 'Z' ? badge('closed', 'neutral') : badge('open', 'ok')),
      facts([
        ['Merchant', `${report.merchant.name} (${report.authority?.taxpayerId ?? 'TPIN'} ${report.merchant.tpin})`],
        ['Day', `${report.date} in ${report.timezone}`],
        report.type === 'Z'
          ? ['Closed', h('span', { 'data-testid': 'closed-by' }, at(report.closedAt!), ` by ${report.closedByName ?? report.closedBy}`)]
          : ['Figures as of', at(report.generatedAt)],
        [
          'Documents',
          `${report.counts.documents}: ${report.counts.uploaded} uploaded, ${report.counts.pending} pending, ${report.counts.failed} failed, ${report.counts.resolved} resolved`,
        ],
        ['Invoice numbers', numberRange(report.numbers.firstInvoiceNo, report.numbers.lastInvoiceNo)],
        ['Receipt numbers', numberRange(report.numbers.firstReceiptNo, report.numbers.lastReceiptNo)],
      ]),
      report.type === 'Z'
        ? afterCloseNotice(report, !options.tenant)
        : h(
            'p',
            { class: 'muted' },
            'The day is open: these figures change until it is closed. Pending and failed documents are counted but are not in the fiscal totals.',
          ),
      h('div', { class: 'toolbar' }, pdf, csv, downloadMessage.element),
      closing,
      reportFigures(report),
    );

    let earlier: Child;
    try {
      const days = await ctx.api.get<Page<ClosedDay>>(`${base(tenant)}/z${query({ branch: report.branch, page })}`);
      const rows = days.data.map((d) => [
        h(
          'a',
          {
            href: `#/reports${query({ tenant: tenant || undefined, branch: d.branch, date: d.date, page })}`,
            'aria-current': d.date === report.date && report.type === 'Z' ? 'true' : null,
          },
          d.date,
        ),
        merchantDateTime(d.closedAt, d.timezone),
        d.closedByName ?? d.closedBy,
        `${d.counts.documents}${d.counts.pending > 0 ? ` (${d.counts.pending} pending)` : ''}${d.storedAfterClose.count > 0 ? `, ${d.storedAfterClose.count} stored after the close` : ''}`,
        money(d.net.total),
        money(d.net.vat),
      ]);
      earlier = [
        table(
          `Closed days of branch ${report.branch}`,
          ['Day', 'Closed', 'By', 'Documents', `Net total (${report.currency})`, 'Net VAT'],
          rows,
          { empty: 'No day of this branch is closed yet.' },
        ),
        pager(days.meta, (p) => setParam('page', String(p))),
      ];
    } catch (err) {
      earlier = errorBox(err);
    }

    return [
      head,
      intro,
      form,
      // Seen here; heard through the live region (announce), once.
      notice ? h('div', { class: 'notice notice-ok' }, notice) : null,
      card,
      h('h2', null, 'Earlier Z reports'),
      h('p', { class: 'muted' }, 'Closed days of this branch, the latest first. Open one to read or download its Z report.'),
      earlier,
    ];
  };
}
