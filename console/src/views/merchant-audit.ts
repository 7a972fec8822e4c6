// The merchant's audit trail (GET /api/v1/audit): who did what to the account, newest first,
// filtered by action (one, or a family ending with a dot) and the merchant's days; the same
// filter downloads as CSV straight from the API (GET /api/v1/audit/export, streamed).
import { query, type Page } from '../api.ts';
import { dateTime, h, table } from '../dom.ts';
import { errorBox, heading, pager, type ViewContext } from '../view.ts';
import { actionSelect, detailsList } from './audit-common.ts';

interface AuditEntry {
  id: number;
  action: string;
  actor: { type: string; id: string | null; name: string | null };
  target: { type: string; id: string; name: string | null } | null;
  details: Record<string, unknown>;
  at: string;
}

const FILTERS = ['action', 'from', 'to'] as const;

const ACTOR_LABELS: Record<string, string> = {
  user: 'User',
  tenant_token: 'Token',
  till_login: 'Till login',
  partner_key: 'Partner key',
  admin: 'Operator',
  cli: 'Command line',
  anonymous: 'Anonymous',
};

function actorCell(e: AuditEntry) {
  const label = ACTOR_LABELS[e.actor.type] ?? e.actor.type;
  return h(
    'span',
    { class: 'stack' },
    h('strong', null, e.actor.name ?? (e.actor.id ? `${label} ${e.actor.id}` : label)),
    h('small', { class: 'muted' }, e.actor.id ? `${label} #${e.actor.id}` : label),
  );
}

function targetCell(e: AuditEntry) {
  if (!e.target) return '—';
  return h(
    'span',
    { class: 'stack' },
    e.target.name ?? `${e.target.type} ${e.target.id}`,
    h('small', { class: 'muted' }, `${e.target.type} #${e.target.id}`),
  );
}

export async function merchantAuditView(ctx: ViewContext) {
  const value = (name: string) => ctx.params.get(name) ?? '';
  const page = Number(ctx.params.get('page') ?? '1');
  // The families of a merchant's trail; any action can be typed in the URL (`#/audit?action=token.revoked`).
  const action = actionSelect('audit-action', value('action'), { merchantTrail: true, actions: false });
  const from = h('input', { type: 'date', name: 'from', value: value('from') }) as HTMLInputElement;
  const to = h('input', { type: 'date', name: 'to', value: value('to') }) as HTMLInputElement;
  const controls: Record<(typeof FILTERS)[number], HTMLInputElement | HTMLSelectElement> = { action, from, to };
  const labelled = (id: string, label: string, control: HTMLElement) => {
    control.id = id;
    return h('div', { class: 'field' }, h('label', { for: id }, label), control);
  };
  const filters: Record<string, string | undefined> = {};
  for (const name of FILTERS) filters[name] = value(name) || undefined;
  const download = h(
    'a',
    { class: 'button-link', href: `/api/v1/audit/export${query(filters)}`, download: 'audit.csv', 'data-testid': 'audit-export' },
    'Download CSV',
  );
  const form = h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Filter the audit trail',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const params = new URLSearchParams();
        for (const name of FILTERS) if (controls[name].value.trim()) params.set(name, controls[name].value.trim());
        const next = params.toString();
        location.hash = next ? `#/audit?${next}` : '#/audit';
      },
    },
    labelled('audit-action', 'Action', action),
    labelled('audit-from', 'From', from),
    labelled('audit-to', 'To', to),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Filter'),
      h('a', { href: '#/audit', class: 'button-link' }, 'Clear'),
      download,
    ),
  );
  const head = heading('Audit trail', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  let result: Page<AuditEntry>;
  try {
    result = await ctx.api.get<Page<AuditEntry>>(`/api/v1/audit${query({ page, ...filters })}`);
  } catch (err) {
    return [head, form, errorBox(err)];
  }
  const rows = result.data.map((e) => [
    dateTime(e.at),
    h('span', { class: 'mono nowrap', 'data-testid': `audit-${e.id}` }, e.action),
    actorCell(e),
    targetCell(e),
    detailsList(e.details),
  ]);
  const filtered = FILTERS.some((name) => value(name));
  return [
    head,
    form,
    h(
      'p',
      { class: 'muted', role: 'status' },
      `${result.meta.total} record${result.meta.total === 1 ? '' : 's'}${filtered ? ' match' : ''}, newest first. Dates are the days of your merchant. Credit and debit notes are here (action Documents); every document, with who issued it, is in Documents.`,
    ),
    table('Audit trail', ['When', 'Action', 'Who', 'On what', 'Details'], rows, {
      empty: filtered ? 'No record matches.' : 'Nothing recorded yet.',
    }),
    pager(result.meta, (p) => {
      const params = new URLSearchParams(ctx.params);
      params.set('page', String(p));
      location.hash = `#/audit?${params.toString()}`;
    }),
  ];
}
