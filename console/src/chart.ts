// Stacked bars of documents per minute (uploaded, pending, failed), drawn as SVG, with a table of
// hourly totals for anyone who cannot see the chart. Times are the viewer's (see time.ts).
import { h, svg, table } from './dom.ts';
import { clockTime, formatDateTime, zoneOf } from './time.ts';
import type { Filings } from './types.ts';

const SERIES = [
  ['uploaded', 'Uploaded'],
  ['pending', 'Pending'],
  ['failed', 'Failed'],
] as const;
const HEIGHT = 160;
const MINUTE_MS = 60_000;
/** Tick spacings to choose from, in minutes: the smallest whose labels fit is used. */
const TICK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720];
/** Space kept free between two axis labels, in CSS pixels. */
const LABEL_GAP_PX = 8;

/** `ms` rounded down to a multiple of `stepMs` of the viewer's wall clock (so ticks fall on :00, :15…). */
function floorToLocal(ms: number, stepMs: number): number {
  const offsetMs = -new Date(ms).getTimezoneOffset() * MINUTE_MS;
  return Math.floor((ms + offsetMs) / stepMs) * stepMs - offsetMs;
}

/**
 * Places the time labels under the plot for its current width: the finest spacing whose labels
 * keep apart, and no label that would stick out of the plot. Measured, not estimated, so a larger
 * font or a narrower phone never makes labels overlap.
 */
function layoutTicks(axis: HTMLElement, from: number, to: number): void {
  const width = axis.clientWidth;
  if (width === 0) return;
  const span = to - from;
  for (const [index, step] of TICK_STEPS.entries()) {
    const stepMs = step * MINUTE_MS;
    const coarsest = index === TICK_STEPS.length - 1;
    if (!coarsest && (width * stepMs) / span < 24) continue; // not even a short label fits
    const labels: HTMLElement[] = [];
    for (let at = floorToLocal(from, stepMs) + stepMs; at < to; at += stepMs) {
      labels.push(h('span', { style: `left: ${((at - from) / span) * 100}%` }, clockTime(new Date(at))));
    }
    axis.replaceChildren(...labels);
    const rects = labels.map((label) => label.getBoundingClientRect());
    if (!coarsest && !rects.every((r, i) => i === 0 || r.left >= rects[i - 1]!.right + LABEL_GAP_PX)) continue;
    // Keep the labels inside the axis and clear of the one kept before.
    const box = axis.getBoundingClientRect();
    let keptRight = -Infinity;
    labels.forEach((label, i) => {
      const r = rects[i]!;
      if (r.left < box.left || r.right > box.right || r.left < keptRight + LABEL_GAP_PX) label.remove();
      else keptRight = r.right;
    });
    return;
  }
}

/** One observer re-lays out every chart's axis when its width changes (rotation, resize). */
const resized = new ResizeObserver((entries) => {
  for (const entry of entries) {
    const axis = entry.target as HTMLElement;
    if (!axis.isConnected) {
      resized.unobserve(axis);
      continue;
    }
    layoutTicks(axis, Number(axis.dataset.from), Number(axis.dataset.to));
  }
});

export function filingsChart(filings: Filings): HTMLElement {
  const from = new Date(filings.from).getTime();
  const to = new Date(filings.to).getTime();
  const minutes = Math.round((to - from) / MINUTE_MS);
  const busiest = filings.buckets.length === 0 ? 0 : Math.max(...filings.buckets.map((b) => b.uploaded + b.pending + b.failed));
  const max = Math.max(1, busiest);
  // A minute is under a pixel wide over 24 h: each bar is a line with a fixed on-screen width. Over
  // an hour a minute is wide enough for a bar of most of it (`bar-wide`: 0.8 of a minute).
  const barClass = minutes <= 60 ? 'bar bar-wide' : 'bar';
  const bars = filings.buckets.flatMap((bucket) => {
    const x = Math.floor((new Date(bucket.at).getTime() - from) / MINUTE_MS) + 0.5;
    let y = HEIGHT;
    return SERIES.filter(([key]) => bucket[key] > 0).map(([key]) => {
      const top = y - Math.max(2, (bucket[key] / max) * (HEIGHT - 4));
      const line = svg('line', { x1: x, x2: x, y1: y, y2: top, class: `${barClass} bar-${key}` });
      y = top;
      return line;
    });
  });
  const zone = zoneOf(new Date(to));
  const axis = h('div', { class: 'chart-ticks', 'aria-hidden': 'true', 'data-from': from, 'data-to': to, 'data-testid': 'chart-ticks' });
  resized.observe(axis);
  const period = `from ${formatDateTime(new Date(from), { seconds: false })} to ${formatDateTime(new Date(to), { seconds: false })}`;
  const description = `Documents per minute ${period}: ${filings.totals.uploaded} uploaded, ${filings.totals.pending} pending, ${filings.totals.failed} failed. The busiest minute had ${busiest}.`;

  const hourly = new Map<number, { uploaded: number; pending: number; failed: number }>();
  for (const bucket of filings.buckets) {
    const hour = floorToLocal(new Date(bucket.at).getTime(), 60 * MINUTE_MS);
    const sum = hourly.get(hour) ?? { uploaded: 0, pending: 0, failed: 0 };
    for (const [key] of SERIES) sum[key] += bucket[key];
    hourly.set(hour, sum);
  }
  const hourlyRows = [...hourly.entries()]
    .sort(([a], [b]) => a - b)
    .map(([hour, sum]) => [
      formatDateTime(new Date(hour), { seconds: false }),
      String(sum.uploaded),
      String(sum.pending),
      String(sum.failed),
    ]);

  return h(
    'figure',
    { class: 'chart' },
    h(
      'div',
      { class: 'chart-plot' },
      svg(
        'svg',
        { viewBox: `0 0 ${minutes} ${HEIGHT}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': description },
        svg('line', { x1: 0, y1: HEIGHT - 0.5, x2: minutes, y2: HEIGHT - 0.5, class: 'axis' }),
        bars,
      ),
      axis,
      h('span', { class: 'chart-max', 'aria-hidden': 'true' }, `${busiest}/min`),
    ),
    h(
      'figcaption',
      null,
      h('p', { class: 'muted chart-period' }, `Times in ${zone} (this browser's time zone), ${period}.`),
      h(
        'ul',
        { class: 'legend' },
        SERIES.map(([key, label]) =>
          h('li', null, h('span', { class: `swatch bar-${key}`, 'aria-hidden': 'true' }), `${label}: ${filings.totals[key]}`),
        ),
      ),
      h('p', { class: 'muted' }, `Busiest minute: ${busiest} documents.`),
    ),
    h(
      'details',
      null,
      h('summary', null, 'Documents per hour (table)'),
      table('Documents per hour', [`Hour (${zone})`, 'Uploaded', 'Pending', 'Failed'], hourlyRows, {
        empty: 'No documents in this window.',
      }),
    ),
  );
}
