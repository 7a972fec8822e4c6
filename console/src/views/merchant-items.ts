// The merchant's items (GET /api/v1/items): each with its registration with the authority and the
// stock it has on hand per branch (GET /api/v1/stock, the page's items in one request). A sale moves
// stock only when a line names one of these items by its code (itemCode) and it is goods the
// authority registered, which is why the view says so. Owners and admins register an item
// (POST /api/v1/items) through an initialised branch.
import { query, type Page } from '../api.ts';
import { badge, h, money, table } from '../dom.ts';
import type { StockLevelResource } from '../../../src/domain/fiscal/stock/schemas.ts';
import type { ItemResource } from '../../../src/domain/merchant/items/schemas.ts';
import { canWrite, errorBox, field, formMessage, heading, pager, setParam, type ViewContext } from '../view.ts';
import { branchesOf, branchLabel, type Branch } from './merchant-common.ts';
import { merchantAuthority, type Authority } from '../authority.ts';

const ITEM_TYPES: Record<string, string> = { '1': 'Raw material (goods)', '2': 'Finished product (goods)', '3': 'Service (no stock)' };
const isGoods = (item: Pick<ItemResource, 'itemTypeCode'>) => item.itemTypeCode !== '3';

const REGISTRATION: Record<ItemResource['registration']['state'], [string, 'ok' | 'warn' | 'danger' | 'neutral']> = {
  draft: ['Draft (not sent)', 'neutral'],
  pending: ['Being registered', 'warn'],
  registered: ['Registered', 'ok'],
  failed: ['Refused', 'danger'],
  amendment_pending: ['Change being sent', 'warn'],
  amendment_failed: ['Change refused', 'danger'],
};

/** Stock a registered goods item can move: the authority registered it once (registeredAt), whatever its amendments. */
const movesStock = (item: ItemResource) => isGoods(item) && item.registration.registeredAt !== null;

/** Every branch's level of the page's goods items, in one request per 20 levels. */
async function levelsOf(ctx: ViewContext, items: ItemResource[]): Promise<Map<string, StockLevelResource[]>> {
  const byItem = new Map<string, StockLevelResource[]>();
  const codes = items.filter(movesStock).map((i) => i.itemCode);
  if (codes.length === 0) return byItem;
  const search = new URLSearchParams(codes.map((code) => ['itemCode', code]));
  for (let page = 1, last = 1; page <= last; page++) {
    search.set('page', String(page));
    const levels = await ctx.api.get<Page<StockLevelResource>>(`/api/v1/stock?${search.toString()}`);
    for (const level of levels.data) byItem.set(level.itemCode, [...(byItem.get(level.itemCode) ?? []), level]);
    last = levels.meta.lastPage;
  }
  return byItem;
}

function stockCell(item: ItemResource, levels: StockLevelResource[] | undefined) {
  if (!isGoods(item)) return h('small', { class: 'muted' }, 'A service: no stock');
  if (!movesStock(item)) return h('small', { class: 'muted' }, 'Moves stock once the authority registers it');
  if (!levels || levels.length === 0) return h('small', { class: 'muted' }, 'None moved yet');
  return h(
    'span',
    { class: 'stack' },
    levels.map((l) =>
      h(
        'span',
        { 'data-testid': `item-stock-${item.itemCode}-${l.branch}` },
        `Branch ${l.branch}: ${l.quantity}${l.quantityUnitCode ? ` ${l.quantityUnitCode}` : ''}`,
      ),
    ),
  );
}

function registrationCell(item: ItemResource) {
  const [label, tone] = REGISTRATION[item.registration.state];
  const why = item.registration.message ?? item.registration.lastError;
  return h(
    'span',
    { class: 'stack' },
    badge(label, tone),
    why ? h('small', { class: tone === 'danger' ? 'error-text' : 'muted' }, why) : null,
  );
}

function registerForm(ctx: ViewContext, branches: Branch[], authority: Authority): HTMLElement {
  const initialised = branches.filter((b) => b.initialized);
  const name = h('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off' }) as HTMLInputElement;
  const classification = h('input', {
    type: 'text',
    required: true,
    maxlength: '20',
    inputmode: 'numeric',
    placeholder: '50221200',
  }) as HTMLInputElement;
  const type = h(
    'select',
    null,
    Object.entries(ITEM_TYPES).map(([code, label]) => h('option', { value: code, selected: code === '2' }, label)),
  ) as HTMLSelectElement;
  const price = h('input', { type: 'number', min: '0', step: 'any', value: '0' }) as HTMLInputElement;
  const vat = h(
    'select',
    null,
    authority.taxCategories.map((c) =>
      h('option', { value: c.code, selected: c.code === authority.defaultTaxCategory }, `${c.code} ${c.name} (${c.rate} %)`),
    ),
  ) as HTMLSelectElement;
  const code = h('input', {
    type: 'text',
    maxlength: '50',
    pattern: '(?![0-9]+$)[A-Za-z0-9._\\-]{1,50}',
    autocomplete: 'off',
  }) as HTMLInputElement;
  const branch = h(
    'select',
    null,
    initialised.map((b) => h('option', { value: b.branch }, branchLabel(b))),
  ) as HTMLSelectElement;
  const message = formMessage('item-message');
  const submit = h(
    'button',
    { type: 'submit', class: 'primary', disabled: initialised.length === 0 },
    'Register the item',
  ) as HTMLButtonElement;
  return h(
    'form',
    {
      class: 'card wide',
      'aria-labelledby': 'register-item-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        message.clear();
        try {
          const body = {
            name: name.value.trim(),
            itemClsCd: classification.value.trim(),
            itemTypeCode: type.value,
            defaultPrice: Number(price.value || '0'),
            vatCategory: vat.value,
            ...(code.value.trim() ? { itemCode: code.value.trim() } : {}),
          };
          const created = await ctx.api.postJson<{ data: ItemResource }>('/api/v1/items', body, { 'x-branch': branch.value });
          ctx.announce(
            `Item ${created.data.itemCode} (${created.data.name}): ${REGISTRATION[created.data.registration.state][0].toLowerCase()}. Name it in a sale line as itemCode ${created.data.itemCode}.`,
          );
          ctx.refresh();
        } catch (err) {
          message.error(err);
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'register-item-title' }, 'Register an item'),
    h(
      'p',
      { class: 'muted' },
      'The gateway registers it with the authority through the branch chosen here; your sales then name it by its item code.',
    ),
    initialised.length === 0
      ? h(
          'p',
          { class: 'notice notice-warn' },
          'An item is registered through an initialised branch: initialise one under ',
          h('a', { href: '#/devices' }, 'Devices'),
          ' first.',
        )
      : null,
    field('item-name', 'Name', name),
    field(
      'item-class',
      'Classification code',
      classification,
      "The authority's code it is taxed under: 8 digits, as on your sales' lines.",
    ),
    h('p', { class: 'muted' }, 'The codes are in ', h('a', { href: '/docs/item-classes.csv.gz' }, "the authority's catalogue (CSV)"), '.'),
    field('item-type', 'Type', type, 'Only goods move stock.'),
    field('item-price', 'Default price', price),
    field('item-vat', 'VAT category', vat, `The default, ${authority.defaultTaxCategory}, is the standard rate.`),
    field(
      'item-code',
      'Item code (optional)',
      code,
      `Letters, digits, . _ -; the gateway makes one (${authority.country}2NTU0000001…) when left empty.`,
    ),
    initialised.length > 1 ? field('item-branch', 'Branch', branch) : null,
    message.element,
    submit,
  );
}

export async function merchantItemsView(ctx: ViewContext) {
  const page = Number(ctx.params.get('page') ?? '1');
  const head = heading('Items', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  let items: Page<ItemResource>;
  let levels: Map<string, StockLevelResource[]>;
  let branches: Branch[];
  let authority: Authority;
  try {
    [items, branches, authority] = await Promise.all([
      ctx.api.get<Page<ItemResource>>(`/api/v1/items${query({ page })}`),
      branchesOf(ctx.api),
      merchantAuthority(ctx.api),
    ]);
    levels = await levelsOf(ctx, items.data);
  } catch (err) {
    return [head, errorBox(err)];
  }
  const rows = items.data.map((item) => [
    h('span', { class: 'stack' }, h('strong', { class: 'mono' }, item.itemCode), h('small', null, item.name)),
    h('span', { class: 'mono' }, item.itemClsCd),
    ITEM_TYPES[item.itemTypeCode] ?? item.itemTypeCode,
    `${money(item.defaultPrice)} (${item.vatCategory})`,
    registrationCell(item),
    item.branch ?? '—',
    stockCell(item, levels.get(item.itemCode)),
  ]);
  return [
    head,
    h(
      'p',
      { class: 'muted', 'data-testid': 'items-moves-stock' },
      'A sale moves stock only when its line names one of these items by its item code (',
      h('code', null, 'itemCode'),
      ") and the item is goods the authority registered. A line with only a name and a classification code is fiscalised, but moves no stock. The levels against the VSDC's are under ",
      h('a', { href: '#/stock' }, 'Stock'),
      '.',
    ),
    table('Items', ['Item code', 'Classification', 'Type', 'Default price (VAT)', 'With the authority', 'Branch', 'On hand'], rows, {
      empty: 'No items yet. Register the goods you sell here, then name them in your sales (itemCode) to keep their stock.',
    }),
    pager(items.meta, (p) => setParam('page', String(p))),
    canWrite(ctx)
      ? registerForm(ctx, branches, authority)
      : h('p', { class: 'muted' }, 'Viewers see the items; an owner or admin registers them.'),
  ];
}
