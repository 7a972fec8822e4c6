// Reconciliations of one merchant: start one for a branch and a date range, follow its progress,
// read the documents that need a look (mismatches, documents the VSDC does not know, adopted lost replies).
import { query, type Page } from '../api.ts';
import { badge, dateTime, h, table } from '../dom.ts';
import { errorBox, heading, pager, problemMessage, setParam, type View, type ViewContext } from '../view.ts';

interface Progress {
  total: number;
  checked: number;
  matches: number;
  mismatches: number;
  unknown: number;
  adopted: number;
  notFiled: number;
}

interface Run {
  id: number;
  branch: string;
  from: string;
  to: string;
  status: 'queued' | 'running' | 'completed';
  requestedBy: string;
  progress: Progress;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

interface Result {
  saleId: number;
  invoiceNo: number;
  outcome: string;
  differences: Array<{ field: string; ours: unknown; theirs: unknown }>;
  checkedAt: string;
}

const STATUS_TONES = { queued: 'neutral', running: 'warn', completed: 'ok' } as const;
const OUTCOME_TONES: Record<string, 'ok' | 'warn' | 'danger' | 'neutral'> = {
  match: 'ok',
  adopted: 'warn',
  mismatch: 'danger',
  unknown: 'danger',
  not_filed: 'neutral',
};

const today = () => new Date().toISOString().slice(0, 10);
const shown = (value: unknown) => (value === null || value === undefined ? '—' : String(value));

/** `base(tenant)`: the merchant's reconciliations (partner or operator API). */
export function reconciliationsView(base: (tenant: string) => string): View {
  return async (ctx: ViewContext) => {
    const tenant = ctx.params.get('tenant') ?? '';
    const runId = ctx.params.get('run') ?? undefined;
    const page = Number(ctx.params.get('page') ?? '1');

    const field = (id: string, label: string, attributes: Record<string, string | boolean>) =>
      h('span', { class: 'stack' }, h('label', { for: id }, label), h('input', { id, ...attributes }));
    const form = h(
      'form',
      {
        class: 'toolbar',
        'aria-label': 'Start a reconciliation',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void start(event.target as HTMLFormElement);
        },
      },
      field('recon-tenant', 'Merchant id', { type: 'number', min: '1', required: true, value: tenant }),
      field('recon-branch', 'Branch', { type: 'text', pattern: '[0-9A-Za-z]{2,3}', required: true, value: '000', size: '4' }),
      field('recon-from', 'From', { type: 'date', required: true, value: today() }),
      field('recon-to', 'To', { type: 'date', required: true, value: today() }),
      h('button', { type: 'submit' }, 'Reconcile'),
    );

    async function start(submitted: HTMLFormElement): Promise<void> {
      const value = (id: string) => (submitted.querySelector(`#${id}`) as HTMLInputElement).value;
      const chosen = value('recon-tenant');
      try {
        const created = await ctx.api.postJson<{ data: Run }>(base(chosen), {
          branch: value('recon-branch'),
          from: value('recon-from'),
          to: value('recon-to'),
        });
        ctx.announce(`Reconciliation ${created.data.id} started for branch ${created.data.branch}.`);
        location.hash = `#/reconciliations${query({ tenant: chosen, run: created.data.id })}`;
      } catch (err) {
        ctx.announce(problemMessage(err), 'error');
        replaceNotice(problemMessage(err));
      }
    }
    const notice = h('div', { role: 'alert' });
    const replaceNotice = (message: string) => {
      notice.className = 'notice notice-danger';
      notice.textContent = message;
    };

    const head = heading('Reconciliations', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
    const intro = h(
      'p',
      { class: 'muted' },
      'Compares each document of a branch with what its VSDC holds: receipt number, signature and total. Pending documents the VSDC already holds (a lost reply) become uploaded.',
    );
    if (!tenant) return [head, intro, form, notice, h('p', null, 'Enter a merchant id to see its reconciliations.')];

    let runs: Page<Run>;
    try {
      runs = await ctx.api.get<Page<Run>>(`${base(tenant)}${query({ page })}`);
    } catch (err) {
      return [head, intro, form, notice, errorBox(err)];
    }
    if (runs.data.some((r) => r.status !== 'completed')) ctx.every(3_000, ctx.refresh);
    const rows = runs.data.map((run) => [
      h(
        'a',
        { href: `#/reconciliations${query({ tenant, run: run.id, page })}`, 'aria-current': String(run.id) === runId ? 'true' : null },
        `No. ${run.id}`,
      ),
      `Branch ${run.branch}`,
      `${run.from} to ${run.to}`,
      h(
        'span',
        { class: 'stack' },
        badge(run.status, STATUS_TONES[run.status]),
        run.lastError ? h('small', { class: 'error-text' }, run.lastError) : null,
      ),
      `${run.progress.checked} / ${run.progress.total}`,
      run.progress.matches,
      run.progress.mismatches,
      run.progress.unknown,
      run.progress.adopted,
      dateTime(run.createdAt),
    ]);
    const list = table(
      `Reconciliations of merchant ${tenant}`,
      ['Run', 'Branch', 'Days (UTC)', 'Status', 'Checked', 'Match', 'Mismatch', 'Unknown to the VSDC', 'Adopted', 'Started'],
      rows,
      {
        empty: 'No reconciliations yet.',
      },
    );

    let detail = null;
    if (runId) {
      try {
        const run = await ctx.api.get<{ data: Run & { results: Result[] } }>(`${base(tenant)}/${runId}`);
        const resultRows = run.data.results.map((r) => [
          `No. ${r.invoiceNo}`,
          badge(r.outcome.replace('_', ' '), OUTCOME_TONES[r.outcome] ?? 'neutral'),
          r.differences.length === 0
            ? '—'
            : h(
                'ul',
                null,
                r.differences.map((d) => h('li', null, `${d.field}: ours ${shown(d.ours)}, the VSDC's ${shown(d.theirs)}`)),
              ),
          dateTime(r.checkedAt),
        ]);
        detail = table(`Run ${runId}: documents that need a look`, ['Invoice', 'Outcome', 'Differences', 'Checked'], resultRows, {
          empty: 'Every document checked so far matches.',
        });
      } catch (err) {
        detail = errorBox(err);
      }
    }
    return [head, intro, form, notice, list, pager(runs.meta, (p) => setParam('page', String(p))), detail];
  };
}
