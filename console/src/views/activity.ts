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

export function activityView(base: string): View {
  return async (ctx: ViewContext) => {
    ctx.every(30_000, ctx.refresh);
    const window = ctx.params.get('window') ?? '24h';
    const select = h(
      'select',
      { id: 'window-filter', onchange: (e: Event) => setParam('window', (e.target as HTMLSelectElement).value) },
      WINDOWS.map(([value, label]) => h('option', { value, selected: value === window }, label)),
    );
    const head = heading('Filings per minute', h('div', { class: 'toolbar' }, h('label', { for: 'window-filter' }, 'Window'), select, h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh')));
    try {
      const { data } = await ctx.api.get<{ data: Filings }>(`${base}${query({ window })}`);
      return [head, h('p', { class: 'muted' }, 'Documents by the minute they were stored, coloured by their status now.'), filingsChart(data)];
    } catch (err) {
      return [head, errorBox(err)];
    }
  };
}
