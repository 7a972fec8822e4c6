// Stacked bars of documents per minute (uploaded, pending, failed), drawn as SVG, with a table of
// hourly totals for anyone who cannot see the chart.
import { h, svg, table } from './dom.ts';
import type { Filings } from './types.ts';

const SERIES = [
  ['uploaded', 'Uploaded'],
  ['pending', 'Pending'],
  ['failed', 'Failed'],
] as const;
const HEIGHT = 160;

export function filingsChart(filings: Filings): HTMLElement {
  const from = new Date(filings.from).getTime();
  const to = new Date(filings.to).getTime();
  const minutes = Math.round((to - from) / 60_000);
  const max = Math.max(1, ...filings.buckets.map((b) => b.uploaded + b.pending + b.failed));
  // A minute is under a pixel wide over 24 h: each bar is a line with a fixed on-screen width.
  const bars = filings.buckets.flatMap((bucket) => {
    const x = Math.floor((new Date(bucket.at).getTime() - from) / 60_000) + 0.5;
    let y = HEIGHT;
    return SERIES.filter(([key]) => bucket[key] > 0).map(([key]) => {
      const top = y - Math.max(2, (bucket[key] / max) * (HEIGHT - 4));
      const line = svg('line', { x1: x, x2: x, y1: y, y2: top, class: `bar bar-${key}` });
      y = top;
      return line;
    });
  });
  const hours = Math.max(1, Math.round(minutes / 60));
  const tickEvery = hours <= 6 ? 1 : 3;
  const ticks = [];
  for (let i = 0; i <= hours; i += tickEvery) {
    const at = new Date(from + i * 3_600_000);
    ticks.push(h('span', { style: `left: ${(i / hours) * 100}%` }, at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })));
  }
  const description = `Documents per minute from ${new Date(from).toLocaleString()} to ${new Date(to).toLocaleString()}: ${filings.totals.uploaded} uploaded, ${filings.totals.pending} pending, ${filings.totals.failed} failed. The busiest minute had ${max === 1 && filings.buckets.length === 0 ? 0 : max}.`;

  const hourly = new Map<number, { uploaded: number; pending: number; failed: number }>();
  for (const bucket of filings.buckets) {
    const hour = Math.floor(new Date(bucket.at).getTime() / 3_600_000) * 3_600_000;
    const sum = hourly.get(hour) ?? { uploaded: 0, pending: 0, failed: 0 };
    for (const [key] of SERIES) sum[key] += bucket[key];
    hourly.set(hour, sum);
  }
  const hourlyRows = [...hourly.entries()].sort(([a], [b]) => a - b).map(([hour, sum]) => [new Date(hour).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }), String(sum.uploaded), String(sum.pending), String(sum.failed)]);

  return h(
    'figure',
    { class: 'chart' },
    h(
      'div',
      { class: 'chart-plot' },
      svg('svg', { viewBox: `0 0 ${minutes} ${HEIGHT}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': description }, svg('line', { x1: 0, y1: HEIGHT - 0.5, x2: minutes, y2: HEIGHT - 0.5, class: 'axis' }), bars),
      h('div', { class: 'chart-ticks', 'aria-hidden': 'true' }, ticks),
      h('span', { class: 'chart-max', 'aria-hidden': 'true' }, `${filings.buckets.length === 0 ? 0 : max}/min`),
    ),
    h(
      'figcaption',
      null,
      h('ul', { class: 'legend' }, SERIES.map(([key, label]) => h('li', null, h('span', { class: `swatch bar-${key}`, 'aria-hidden': 'true' }), `${label}: ${filings.totals[key]}`))),
      h('p', { class: 'muted' }, `Busiest minute: ${filings.buckets.length === 0 ? 0 : max} documents.`),
    ),
    h('details', null, h('summary', null, 'Documents per hour (table)'), table('Documents per hour', ['Hour', 'Uploaded', 'Pending', 'Failed'], hourlyRows, { empty: 'No documents in this window.' })),
  );
}
