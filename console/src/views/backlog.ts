// Per-branch backlog: what waits to be filed, for how long, and how each branch's VSDC is doing.
import { query, type Page } from '../api.ts';
import { badge, dateTime, duration, h, table } from '../dom.ts';
import { formatTime } from '../time.ts';
import type { BranchBacklog } from '../types.ts';
import { errorBox, heading, pager, setParam, type View, type ViewContext } from '../view.ts';

const REFRESH_MS = 5_000;
/** The authority's offline deadline: documents should be filed within 24 h. */
const DEADLINE_SEC = 86_400;

function ageTone(seconds: number | null): 'ok' | 'warn' | 'danger' | 'neutral' {
  if (seconds === null) return 'ok';
  if (seconds >= DEADLINE_SEC / 2) return 'danger';
  if (seconds >= 3_600) return 'warn';
  return 'neutral';
}

function vsdcCell(row: BranchBacklog) {
  const { vsdc } = row;
  if (!row.initialized) return badge('Not initialised', 'neutral');
  const state =
    vsdc.state === 'unreachable'
      ? badge('Unreachable', 'danger')
      : vsdc.state === 'reachable'
        ? badge('Reachable', 'ok')
        : badge('No filing yet', 'neutral');
  return h(
    'div',
    { class: 'stack' },
    state,
    vsdc.lastOutcome
      ? h('small', null, `Last ${vsdc.lastOutcome === 'uploaded' ? 'upload' : 'refusal'}: `, dateTime(vsdc.lastOutcomeAt))
      : null,
    vsdc.lastError ? h('small', { class: 'error-text' }, vsdc.lastError) : null,
    vsdc.nextAttemptAt ? h('small', null, 'Retry at ', dateTime(vsdc.nextAttemptAt)) : null,
  );
}

export function backlogView(base: string, documentsRoute: string): View {
  return async (ctx: ViewContext) => {
    ctx.every(REFRESH_MS, ctx.refresh);
    const page = Number(ctx.params.get('page') ?? '1');
    const pendingOnly = ctx.params.get('pendingOnly') === 'true';
    const filter = h(
      'label',
      { class: 'checkbox' },
      h('input', {
        type: 'checkbox',
        checked: pendingOnly,
        onchange: (e: Event) => setParam('pendingOnly', (e.target as HTMLInputElement).checked ? 'true' : undefined),
      }),
      ' Only branches with a backlog',
    );
    const head = heading(
      'Backlog per branch',
      h('div', { class: 'toolbar' }, filter, h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh')),
    );
    let result: Page<BranchBacklog>;
    try {
      result = await ctx.api.get<Page<BranchBacklog>>(`${base}${query({ page, pendingOnly: pendingOnly || undefined })}`);
    } catch (err) {
      return [head, errorBox(err)];
    }
    const waiting = result.data.filter((b) => b.pending > 0);
    const summary = h(
      'p',
      { class: 'summary' },
      waiting.length === 0
        ? 'No branch on this page has documents waiting.'
        : `${waiting.length} branch${waiting.length === 1 ? ' has' : 'es have'} documents waiting to be filed.`,
      h('span', { class: 'muted' }, ` Updated ${formatTime(new Date())}; refreshes every ${REFRESH_MS / 1000} s.`),
    );
    const rows = result.data.map((row) => [
      h('span', { class: 'stack' }, h('span', null, row.tenantName), h('small', null, `TPIN ${row.tpin}`)),
      h('span', { class: 'stack' }, h('span', null, row.branch), row.branchName ? h('small', null, row.branchName) : null),
      h(
        'span',
        { class: row.pending > 0 ? 'count count-pending' : 'count', 'data-testid': `pending-${row.tenantId}-${row.branch}` },
        String(row.pending),
      ),
      row.pending > 0
        ? h(
            'span',
            { class: 'stack' },
            badge(duration(row.oldestPendingAgeSeconds), ageTone(row.oldestPendingAgeSeconds)),
            h('small', null, 'since ', dateTime(row.oldestPendingAt)),
          )
        : '—',
      row.failed > 0
        ? h('a', { href: `${documentsRoute}?status=failed&tenant=${row.tenantId}&branch=${row.branch}` }, `${row.failed} failed`)
        : '0',
      vsdcCell(row),
      row.alarm ? badge(`Alarm: over ${duration(row.alarm.thresholdSeconds)}`, 'danger') : '—',
    ]);
    return [
      head,
      summary,
      h(
        'p',
        { class: 'muted' },
        'Pending documents are stored with their invoice numbers and filed in order when the VSDC answers. The authority expects them filed within 24 hours.',
      ),
      table('Backlog per branch', ['Merchant', 'Branch', 'Pending', 'Oldest pending', 'Failed', 'VSDC', 'Alarm'], rows, {
        empty: 'No branches yet: register and initialise a device first.',
      }),
      pager(result.meta, (p) => setParam('page', String(p))),
    ];
  };
}
