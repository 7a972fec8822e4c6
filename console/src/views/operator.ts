// The operator's views: partners, merchants with their account states, the audit log.
import { query, type Page } from '../api.ts';
import { badge, dateTime, h, table } from '../dom.ts';
import type { AdminTenant, AuditRecord, Partner } from '../types.ts';
import { errorBox, heading, pager, setParam, type View } from '../view.ts';
import { actionSelect, detailsList } from './audit-common.ts';
import { protocolLabel } from '../authority.ts';

export const partnersView: View = async (ctx) => {
  const head = heading('Partners');
  try {
    const { data } = await ctx.api.get<{ data: Partner[] }>('/admin/v1/partners');
    const rows = data.map((p) => [
      String(p.id),
      p.name,
      badge(p.status, p.status === 'active' ? 'ok' : 'danger'),
      dateTime(p.createdAt),
      h('a', { href: `#/merchants?partner=${p.id}` }, `Merchants of ${p.name}`),
    ]);
    return [head, table('Partners', ['Id', 'Name', 'Status', 'Created', 'Merchants'], rows, { empty: 'No partners yet.' })];
  } catch (err) {
    return [head, errorBox(err)];
  }
};

export const merchantsView: View = async (ctx) => {
  const partner = ctx.params.get('partner') ?? undefined;
  const status = ctx.params.get('status') ?? undefined;
  const page = Number(ctx.params.get('page') ?? '1');
  const select = h(
    'select',
    { id: 'merchant-status', onchange: (e: Event) => setParam('status', (e.target as HTMLSelectElement).value || undefined) },
    [
      ['', 'Any'],
      ['active', 'Active'],
      ['suspended', 'Suspended'],
    ].map(([value, label]) => h('option', { value, selected: (status ?? '') === value }, label)),
  );
  const toolbar = h('div', { class: 'toolbar' }, h('label', { for: 'merchant-status' }, 'Status'), select);
  const titleOf = (partnerName?: string | null) => (partner ? `Merchants of ${partnerName ?? `partner #${partner}`}` : 'Merchants');
  try {
    const result = await ctx.api.get<Page<AdminTenant>>(`/admin/v1/tenants${query({ partner, status, page })}`);
    const head = heading(titleOf(result.data[0]?.partnerName), toolbar);
    const rows = result.data.map((t) => [
      h('span', { class: 'stack' }, h('span', null, t.name), h('small', null, `#${t.id} · ${t.authority.toUpperCase()} ${t.tpin}`)),
      t.partnerName ?? '—',
      t.plan ?? 'default',
      badge(t.subscription, t.subscription === 'active' ? 'ok' : 'danger'),
      badge(t.status, t.status === 'active' ? 'ok' : 'danger'),
      `${t.documentsThisMonth}${t.monthlyQuota === null ? '' : ` / ${t.monthlyQuota}`}`,
      t.rateLimitPerMinute === null ? 'plan' : `${t.rateLimitPerMinute}/min`,
      t.devices.map((d) => `${d.branch} ${protocolLabel(d.protocol).code}${d.initialized ? '' : ' (not initialised)'}`).join(', ') || '—',
      t.pending > 0 ? badge(String(t.pending), 'warn') : '0',
      t.failed > 0 ? badge(String(t.failed), 'danger') : '0',
    ]);
    return [
      head,
      table(
        'Merchants',
        ['Merchant', 'Partner', 'Plan', 'Subscription', 'Account', 'Documents this month', 'Rate limit', 'Branches', 'Pending', 'Failed'],
        rows,
        { empty: 'No merchants match.' },
      ),
      pager(result.meta, (p) => setParam('page', String(p))),
    ];
  } catch (err) {
    return [heading(titleOf(), toolbar), errorBox(err)];
  }
};

const ACTORS: Record<AuditRecord['actorType'], string> = {
  partner_key: 'Partner key',
  till_login: 'Till login',
  admin: 'Operator',
  cli: 'Command line',
};

/** A name with its id underneath, or the id alone when the name is not known (any more). */
function named(name: string | null, id: number | null): HTMLElement | string {
  if (id === null) return '—';
  if (name === null) return `#${id}`;
  return h('span', { class: 'stack' }, h('span', null, name), h('small', { class: 'muted' }, `#${id}`));
}

function actorCell(r: AuditRecord) {
  const label = ACTORS[r.actorType] ?? r.actorType;
  if (r.actorName === null) return r.actorId === null ? label : `${label} #${r.actorId}`;
  return h(
    'span',
    { class: 'stack' },
    h('span', null, `${label} “${r.actorName}”`),
    r.actorId === null ? null : h('small', { class: 'muted' }, `#${r.actorId}`),
  );
}

function targetCell(r: AuditRecord) {
  if (!r.targetType) return '—';
  const kind = r.targetType.replace(/_/g, ' ');
  if (r.targetName === null) return r.targetId === null ? kind : `${kind} #${r.targetId}`;
  return h(
    'span',
    { class: 'stack' },
    h('span', null, r.targetName),
    h('small', { class: 'muted' }, `${kind}${r.targetId === null ? '' : ` #${r.targetId}`}`),
  );
}

export const auditView: View = async (ctx) => {
  const action = ctx.params.get('action') ?? '';
  const page = Number(ctx.params.get('page') ?? '1');
  const select = actionSelect('audit-action', action, { merchantTrail: false, actions: true });
  // Choosing is filtering: the select navigates at once, like the merchants' status filter.
  select.addEventListener('change', () => setParam('action', select.value || undefined));
  const filter = h(
    'div',
    { class: 'toolbar', role: 'search', 'aria-label': 'Filter the audit log' },
    h('label', { for: 'audit-action' }, 'Action'),
    select,
    action ? h('a', { href: '#/audit', class: 'button-link' }, 'Clear') : null,
  );
  const head = heading('Audit log', filter);
  try {
    const result = await ctx.api.get<Page<AuditRecord>>(`/admin/v1/audit${query({ action: action || undefined, page })}`);
    const rows = result.data.map((r) => [
      dateTime(r.createdAt),
      h('span', { class: 'mono nowrap' }, r.action),
      actorCell(r),
      named(r.partnerName, r.partnerId),
      named(r.tenantName, r.tenantId),
      targetCell(r),
      detailsList(r.details),
    ]);
    return [
      head,
      table('Audit log, newest first', ['When', 'Action', 'Actor', 'Partner', 'Merchant', 'Target', 'Details'], rows, {
        empty: 'No audit records match.',
      }),
      pager(result.meta, (p) => setParam('page', String(p))),
    ];
  } catch (err) {
    return [head, errorBox(err)];
  }
};
