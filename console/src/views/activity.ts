import { query } from '../api.ts';
import { filingsChart } from '../chart.ts';
import { h } from '../dom.ts';
import type { Filings } from '../types.ts';
import { errorBox, heading, setParam, type View, type ViewContext } from '../view.ts';

const WINDOWS = [
  ['1h', 'Last hour'],
  ['6h', 'Last 6 hours'],
  ['24h', 'Last 24 hours'],
] as const;

/** The view opens on the last hour: what is happening now; longer windows are a choice away. */
const DEFAULT_WINDOW = '1h';

export function activityView(base: string): View {
  return async (ctx: ViewContext) => {
    ctx.every(30_000, ctx.refresh);
    const window = ctx.params.get('window') ?? DEFAULT_WINDOW;
    const select = h(
      'select',
      { id: 'window-filter', onchange: (e: Event) => setParam('window', (e.target as HTMLSelectElement).value) },
      WINDOWS.map(([value, label]) => h('option', { value, selected: value === window }, label)),
    );
    const head = heading(
      'Filings per minute',
      h(
        'div',
        { class: 'toolbar' },
        h('label', { for: 'window-filter' }, 'Window'),
        select,
        h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'),
      ),
    );
    try {
      const { data } = await ctx.api.get<{ data: Filings }>(`${base}${query({ window })}`);
      const label = WINDOWS.find(([value]) => value === window)?.[1].toLowerCase() ?? window;
      return [
        head,
        h('p', { class: 'muted' }, 'Documents by the minute they were stored, coloured by their status now.'),
        data.buckets.length === 0 ? h('p', { class: 'empty' }, `No documents in the ${label}. Choose a longer window above.`) : null,
        filingsChart(data),
      ];
    } catch (err) {
      return [head, errorBox(err)];
    }
  };
}
