// One merchant at a time: its branches as the authority knows them (which have a device here)
// and the notices the authority published to it, newest first. Partners pick the merchant; a
// merchant's own console shows its own (GET /api/v1/me, GET /api/v1/notices).
import { query, type Page } from '../api.ts';
import { badge, dateTime, h, table, type Child } from '../dom.ts';
import type { AuthorityBranch, Notice } from '../types.ts';
import { errorBox, heading, pager, setParam, type ViewContext } from '../view.ts';
import { protocolLabel } from '../authority.ts';

interface MerchantSummary {
  id: number;
  name: string;
  tpin: string;
  /** On a partner's merchants (the tenant resource); the merchant's own summary (GET /api/v1/me) has neither. */
  authority?: string;
  devices?: Array<{ branch: string; protocol: string }>;
  authorityBranches: AuthorityBranch[];
}

/** The registered device's cell: `registered`, with its protocol when the summary has it. */
function deviceCell(merchant: MerchantSummary, branch: AuthorityBranch) {
  if (!branch.registeredDevice) return h('small', { class: 'muted' }, 'No device registered');
  const protocol = merchant.devices?.find((d) => d.branch === branch.branch)?.protocol;
  return h(
    'span',
    { class: 'stack' },
    badge('registered', 'ok'),
    protocol ? h('small', { class: 'mono' }, protocolLabel(protocol).code) : null,
  );
}

/** Pages of the partner's merchants read for the picker; a book larger than this shows the first ones. */
const MAX_MERCHANT_PAGES = 5;

async function merchantsOf(ctx: ViewContext): Promise<MerchantSummary[]> {
  const merchants: MerchantSummary[] = [];
  for (let page = 1; page <= MAX_MERCHANT_PAGES; page++) {
    const result = await ctx.api.get<Page<MerchantSummary>>(`/api/v1/tenants${query({ page })}`);
    merchants.push(...result.data);
    if (page >= result.meta.lastPage) break;
  }
  return merchants;
}

function branchesTable(merchant: MerchantSummary): HTMLElement {
  const rows = merchant.authorityBranches.map((b) => [
    b.branch,
    b.name ?? '—',
    [b.location, b.district, b.province].filter(Boolean).join(', ') || '—',
    b.headquarters ? badge('headquarters', 'neutral') : '—',
    b.status === null ? '—' : b.status === '01' ? badge('active', 'ok') : badge(`status ${b.status}`, 'warn'),
    deviceCell(merchant, b),
  ]);
  return table(`Branches of ${merchant.name} at the authority`, ['Branch', 'Name', 'Location', 'Headquarters', 'Status', 'Device'], rows, {
    empty: "None known yet: the authority's branches are learnt when the merchant's first device is initialised.",
  });
}

function noticeCell(notice: Notice) {
  return h(
    'span',
    { class: 'stack' },
    h('strong', null, notice.title ?? `Notice ${notice.noticeNo}`),
    notice.content ? h('span', null, notice.content) : null,
    notice.detailUrl ? h('a', { href: notice.detailUrl, target: '_blank', rel: 'noopener noreferrer' }, 'The whole notice') : null,
  );
}

function authoritySections(merchant: MerchantSummary, notices: Page<Notice>): Child[] {
  const rows = notices.data.map((n) => [String(n.noticeNo), dateTime(n.registeredAt), noticeCell(n), n.registeredBy ?? '—']);
  return [
    h('h2', null, 'Branches at the authority'),
    branchesTable(merchant),
    h('h2', null, 'Notices'),
    h('p', { class: 'muted' }, 'Pulled from the authority hourly; newest first.'),
    table(`Notices to ${merchant.name}`, ['No.', 'Published', 'Notice', 'From'], rows, { empty: 'No notices from the authority.' }),
    pager(notices.meta, (p) => setParam('page', String(p))),
  ];
}

/** The merchant's own console: its branches at the authority and its notices. */
export async function merchantAuthorityView(ctx: ViewContext) {
  const page = Number(ctx.params.get('page') ?? '1');
  const head = heading('Authority', h('div', { class: 'toolbar' }, h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh')));
  try {
    const [me, notices] = await Promise.all([
      ctx.api.get<{ data: MerchantSummary }>('/api/v1/me'),
      ctx.api.get<Page<Notice>>(`/api/v1/notices${query({ page })}`),
    ]);
    return [head, ...authoritySections(me.data, notices)];
  } catch (err) {
    return [head, errorBox(err)];
  }
}

export async function noticesView(ctx: ViewContext) {
  const page = Number(ctx.params.get('page') ?? '1');
  let merchants: MerchantSummary[];
  try {
    merchants = await merchantsOf(ctx);
  } catch (err) {
    return [heading('Authority'), errorBox(err)];
  }
  const chosen = merchants.find((m) => String(m.id) === ctx.params.get('tenant')) ?? merchants[0];
  const picker = h(
    'select',
    {
      id: 'merchant-filter',
      onchange: (e: Event) => (location.hash = `#/authority${query({ tenant: (e.target as HTMLSelectElement).value })}`),
    },
    merchants.map((m) =>
      h(
        'option',
        { value: String(m.id), selected: m === chosen },
        `${m.name} (${m.authority ? `${m.authority.toUpperCase()} ` : ''}${m.tpin})`,
      ),
    ),
  );
  const head = heading(
    'Authority',
    h(
      'div',
      { class: 'toolbar' },
      h('label', { for: 'merchant-filter' }, 'Merchant'),
      picker,
      h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'),
    ),
  );
  if (!chosen) return [head, h('p', { class: 'empty' }, 'No merchants yet.')];

  let notices: Page<Notice>;
  try {
    notices = await ctx.api.get<Page<Notice>>(`/api/v1/tenants/${chosen.id}/notices${query({ page })}`);
  } catch (err) {
    return [head, errorBox(err)];
  }
  return [head, ...authoritySections(chosen, notices)];
}
