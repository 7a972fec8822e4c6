import type { AppContext } from '../../../src/domain/kernel/context.ts';
import { ALARM_EVENT_TYPES, INVOICE_EVENT_TYPES } from '../../../src/domain/kernel/outbox/events.ts';
import type { TestApp } from '../../helpers/app.ts';
import { registerEndpoint, type Receiver } from '../webhooks/helpers.ts';

export interface AlarmEvent {
  id: string;
  event: string;
  created: string;
  data: {
    branch: { tenantId: number; tenantName: string; tpin: string; branch: string; sdcId: string | null };
    backlog: Record<string, unknown>;
  };
}

/** An endpoint of the partner subscribed, through the API, to the invoice and the branch events. */
export async function subscribeToAlarms(
  t: TestApp,
  _ctx: AppContext,
  partnerSecret: string,
  receiver: Receiver,
): Promise<{ id: number; secret: string }> {
  const { endpoint, secret } = await registerEndpoint(t, partnerSecret, {
    url: `${receiver.url}/alarms`,
    events: [...INVOICE_EVENT_TYPES, ...ALARM_EVENT_TYPES],
  });
  return { id: endpoint.id, secret };
}

/** Branch events the receiver got, oldest first. */
export function alarmsReceived(receiver: Receiver): AlarmEvent[] {
  return receiver.requests.map((r) => JSON.parse(r.body) as AlarmEvent).filter((e) => e.event.startsWith('branch.'));
}

/** Branch events stored for a tenant (delivered or not), oldest first. */
export async function alarmsStored(ctx: AppContext, tenantId: number): Promise<AlarmEvent[]> {
  const rows = await ctx.db
    .selectFrom('webhook_events')
    .select('body')
    .where('tenant_id', '=', tenantId)
    .where('type', 'like', 'branch.%')
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.body) as AlarmEvent);
}
