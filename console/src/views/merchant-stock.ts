// Stock: the branch's items compared with the VSDC (GET /api/v1/stock/reconciliation): the
// gateway's level beside the sum of the VSDC's ledger of movements, the difference, when the
// ledger was read; "Check now" reads it again from the VSDC (?refresh=true).
import { query } from '../api.ts';
import { badge, dateTime, h, table } from '../dom.ts';
import type { StockComparisonResource, StockReconciliationResource } from '../../../src/domain/feeds/stock-ledger/schemas.ts';
import { errorBox, heading, pager, setParam, type ViewContext } from '../view.ts';
import { branchesOf, branchLabel } from './merchant-common.ts';

const STATUS: Record<StockComparisonResource['status'], [string, 'ok' | 'warn' | 'danger' | 'neutral']> = {
  matches: ['Matches', 'ok'],
  pending: ['Pending (not yet with the VSDC)', 'warn'],
  differs: ['Differs', 'danger'],
  unknown: ['Not read yet', 'neutral'],
};

const quantity = (value: number | null) => (value === null ? '—' : String(value));

/**
 * Why nothing moved: only a line naming a registered goods item moves stock, and a
 * shop that sold goods by name alone sees an empty page. `items`: how many items it has.
 */
function nothingMoved(branch: string, items: number | undefined): HTMLElement {
  return h(
    'div',
    { class: 'empty', 'data-testid': 'stock-empty' },
    h('p', null, h('strong', null, `No stock moved at branch ${branch} yet.`)),
    h(
      'p',
      null,
      'A sale moves stock only when its line names a registered goods item by its item code (',
      h('code', null, 'itemCode'),
      '); a line with only a name and a classification code is fiscalised but moves nothing. ',
      items === 0
        ? 'You have no items registered yet.'
        : items === undefined
          ? ''
          : `None of your sales at this branch named one of your ${items} item${items === 1 ? '' : 's'} yet.`,
    ),
    h('p', null, h('a', { href: '#/items', class: 'button-link' }, items === 0 ? 'Register your goods under Items' : 'See your items')),
  );
}

export async function merchantStockView(ctx: ViewContext) {
  const branches = (await branchesOf(ctx.api)).filter((b) => b.initialized);
  const chosen = ctx.params.get('branch') ?? '';
  const page = Number(ctx.params.get('page') ?? '1');
  const status = ctx.params.get('status') ?? '';
  const picker = h(
    'select',
    { id: 'stock-branch', onchange: (e: Event) => setParam('branch', (e.target as HTMLSelectElement).value) },
    h('option', { value: '' }, 'Default branch'),
    branches.map((b) => h('option', { value: b.branch, selected: b.branch === chosen }, branchLabel(b))),
  );
  const only = h(
    'select',
    { id: 'stock-status', onchange: (e: Event) => setParam('status', (e.target as HTMLSelectElement).value) },
    h('option', { value: '' }, 'Every item'),
    (['differs', 'pending', 'matches'] as const).map((s) => h('option', { value: s, selected: s === status }, STATUS[s][0])),
  );
  const message = h('p', { class: 'form-message', 'aria-live': 'polite' });
  const load = (refresh: boolean) =>
    ctx.api.send<StockReconciliationResource>(
      'GET',
      `/api/v1/stock/reconciliation${query({ page, status: status || undefined, refresh: refresh || undefined })}`,
      chosen ? { headers: { 'x-branch': chosen } } : {},
    );
  const check = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      'data-testid': 'stock-check-now',
      onclick: async () => {
        check.disabled = true;
        message.textContent = 'Reading the VSDC…';
        try {
          await load(true);
          ctx.announce("The VSDC's stock was read again.");
          ctx.refresh();
        } catch (err) {
          message.replaceChildren(errorBox(err));
          check.disabled = false;
        }
      },
    },
    'Check now',
  );
  const controls = h(
    'div',
    { class: 'filters' },
    h('div', { class: 'field' }, h('label', { for: 'stock-branch' }, 'Branch'), picker),
    h('div', { class: 'field' }, h('label', { for: 'stock-status' }, 'Show'), only),
  );
  const head = heading('Stock');
  let result: StockReconciliationResource;
  try {
    result = await load(false);
  } catch (err) {
    return [head, controls, errorBox(err)];
  }
  const { data } = result;
  // Only when nothing moved: how many items the merchant has says why (none at all, or none named).
  const itemCount =
    data.summary.items === 0 && !status
      ? await ctx.api.get<{ meta: { total: number } }>('/api/v1/items').then(
          (r) => r.meta.total,
          () => undefined,
        )
      : undefined;
  const rows = data.items.map((i) => [
    h(
      'span',
      { class: 'stack' },
      h('strong', { class: 'mono' }, i.itemCode),
      i.itemName ? h('small', { class: 'muted' }, i.itemName) : null,
    ),
    quantity(i.gatewayQuantity),
    quantity(i.vsdcQuantity),
    h('span', { 'data-testid': `stock-difference-${i.itemCode}` }, quantity(i.difference)),
    i.unsentMovements === 0 ? '—' : `${i.unsentMovements} (${i.unsentQuantity > 0 ? '+' : ''}${i.unsentQuantity})`,
    badge(STATUS[i.status][0], STATUS[i.status][1]),
  ]);
  return [
    head,
    controls,
    h(
      'section',
      { 'aria-labelledby': 'stock-compared' },
      h('h2', { id: 'stock-compared' }, 'Compared with the VSDC'),
      h(
        'p',
        { role: 'status' },
        `Branch ${data.branch}: ${data.summary.matching} of ${data.summary.items} item${data.summary.items === 1 ? '' : 's'} match, ${data.summary.pending} pending, ${data.summary.differing} differ. The VSDC's ledger was read `,
        data.pulledAt ? dateTime(data.pulledAt) : 'never',
        '.',
      ),
      data.lastError ? h('p', { class: 'notice notice-warn' }, `The last read failed: ${data.lastError}`) : null,
      h('div', { class: 'filter-actions' }, check, message),
      rows.length === 0 && !status
        ? nothingMoved(data.branch, itemCount)
        : table('Stock compared with the VSDC', ['Item', 'Gateway', 'VSDC', 'Difference', 'Not yet with the VSDC', 'Status'], rows, {
            empty: 'No item with this status.',
          }),
      pager(result.meta, (p) => setParam('page', String(p))),
      h(
        'p',
        { class: 'muted' },
        'The VSDC\'s level is what its ledger of movements adds up to. "Pending": your movements not yet with the VSDC explain the difference; they are sent on their own. A difference that stays is a refused movement (Stock movements that failed) or one filed by another system.',
      ),
    ),
  ];
}
