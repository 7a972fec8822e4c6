// Webhook endpoints with their success rate, recent deliveries and a resend button.
import { ApiProblem, query, type Page } from '../api.ts';
import { badge, dateTime, h, percent, replaceChildren, table } from '../dom.ts';
import type { Delivery, EndpointStats } from '../types.ts';
import { errorBox, heading, problemMessage, type View, type ViewContext } from '../view.ts';

const DELIVERY_TONES = { delivered: 'ok', pending: 'warn', failed: 'danger' } as const;

function rateTone(rate: number | null): 'ok' | 'warn' | 'danger' | 'neutral' {
  if (rate === null) return 'neutral';
  if (rate >= 0.99) return 'ok';
  return rate >= 0.9 ? 'warn' : 'danger';
}

async function resend(ctx: ViewContext, delivery: Delivery, reload: () => Promise<void>, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  try {
    await ctx.api.post(`/api/v1/webhooks/deliveries/${delivery.id}/resend`);
    ctx.announce(`Delivery ${delivery.id} queued for redelivery.`);
  } catch (err) {
    ctx.announce(err instanceof ApiProblem && err.code === 'endpoint_disabled' ? err.message : problemMessage(err), 'error');
  }
  await reload();
}

/** When a delivery will be tried again: only a pending one will be; a failed one waits for a resend. */
function nextRetryCell(delivery: Delivery) {
  if (delivery.status === 'pending' && delivery.nextRetryAt) {
    const due = new Date(delivery.nextRetryAt).getTime() <= Date.now();
    return h(
      'span',
      { class: 'stack', 'data-testid': `delivery-next-retry-${delivery.id}` },
      dateTime(delivery.nextRetryAt),
      due ? h('small', null, 'due now') : null,
    );
  }
  if (delivery.status === 'failed') return h('small', { class: 'muted' }, 'No more attempts: resend it to try again');
  return '—';
}

function deliveriesPanel(ctx: ViewContext, endpoint: EndpointStats): HTMLElement {
  const panel = h('section', { class: 'deliveries', 'aria-labelledby': `deliveries-${endpoint.endpointId}` });
  const load = async () => {
    try {
      const page = await ctx.api.get<Page<Delivery>>(`/api/v1/webhooks/${endpoint.endpointId}/deliveries${query({ page: 1 })}`);
      const rows = page.data.map((d) => {
        const button: HTMLButtonElement = h(
          'button',
          { type: 'button', onclick: () => void resend(ctx, d, load, button), 'aria-label': `Resend delivery ${d.id}` },
          'Resend',
        );
        return [
          String(d.id),
          h('span', { class: 'stack' }, h('span', null, d.eventType), h('small', { class: 'mono' }, d.eventId)),
          h('span', { 'data-testid': `delivery-status-${d.id}` }, badge(d.status, DELIVERY_TONES[d.status])),
          String(d.attempts),
          d.responseStatus === null ? '—' : String(d.responseStatus),
          d.error ? h('span', { class: 'error-text' }, d.error) : '—',
          dateTime(d.lastAttemptAt),
          nextRetryCell(d),
          button,
        ];
      });
      replaceChildren(
        panel,
        h('h3', { id: `deliveries-${endpoint.endpointId}` }, `Recent deliveries to ${endpoint.url}`),
        table(
          `Recent deliveries to ${endpoint.url}`,
          ['Delivery', 'Event', 'Status', 'Attempts', 'HTTP', 'Error', 'Last attempt', 'Next attempt', 'Action'],
          rows,
          { empty: 'No deliveries yet.' },
        ),
      );
    } catch (err) {
      replaceChildren(panel, errorBox(err));
    }
  };
  void load();
  return panel;
}

export const webhooksView: View = async (ctx) => {
  const head = heading('Webhooks', h('div', { class: 'toolbar' }, h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh')));
  let stats: EndpointStats[];
  try {
    stats = (await ctx.api.get<{ data: EndpointStats[] }>('/api/v1/partner/webhook-stats?window=24h')).data;
  } catch (err) {
    return [head, errorBox(err)];
  }
  const open = ctx.params.get('endpoint');
  const rows = stats.map((e) => [
    h('span', { class: 'stack' }, h('span', { class: 'mono' }, e.url), e.description ? h('small', null, e.description) : null),
    badge(e.status, e.status === 'enabled' ? 'ok' : 'danger'),
    badge(percent(e.successRate), rateTone(e.successRate)),
    String(e.delivered),
    String(e.failed),
    String(e.pending),
    dateTime(e.lastFailureAt),
    h(
      'a',
      { href: `#/webhooks?endpoint=${e.endpointId}`, 'aria-current': String(open) === String(e.endpointId) ? 'true' : null },
      'Deliveries',
    ),
  ]);
  const selected = stats.find((e) => String(e.endpointId) === open);
  return [
    head,
    h(
      'p',
      { class: 'muted' },
      'Success rate over the last 24 hours: delivered ÷ (delivered + failed). Each delivery is tried 6 times over about 9 hours before it fails.',
    ),
    table(
      'Webhook endpoints',
      ['Endpoint', 'Status', 'Success rate (24 h)', 'Delivered', 'Failed', 'Pending', 'Last failure', 'Log'],
      rows,
      { empty: 'No webhook endpoints registered (POST /api/v1/webhooks).' },
    ),
    selected ? deliveriesPanel(ctx, selected) : null,
  ];
};
