import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { offsetOf, pageOf, type Page } from '../../http/pagination.ts';

export type Actor = { type: 'partner_key'; keyId: number; partnerId: number } | { type: 'admin' } | { type: 'cli' } | { type: 'till_login'; loginId: number };

export interface AuditEntry {
  actor: Actor;
  action: string;
  partnerId?: number | null;
  tenantId?: number | null;
  targetType?: string;
  targetId?: string | number;
  details?: Record<string, unknown>;
}

/** Records who did what, when; call it in the same transaction as the change it describes. */
export async function recordAudit(db: Kysely<DB>, entry: AuditEntry): Promise<void> {
  const actorId = entry.actor.type === 'partner_key' ? String(entry.actor.keyId) : entry.actor.type === 'till_login' ? String(entry.actor.loginId) : null;
  const partnerId = entry.partnerId ?? (entry.actor.type === 'partner_key' ? entry.actor.partnerId : null);
  await db
    .insertInto('audit_log')
    .values({
      actor_type: entry.actor.type,
      actor_id: actorId,
      partner_id: partnerId,
      tenant_id: entry.tenantId ?? null,
      action: entry.action,
      target_type: entry.targetType ?? null,
      target_id: entry.targetId === undefined ? null : String(entry.targetId),
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

export interface AuditRecord {
  id: number;
  actorType: string;
  actorId: string | null;
  partnerId: number | null;
  tenantId: number | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

export async function listAudit(db: Kysely<DB>, filter: { partnerId?: number; tenantId?: number; action?: string }, page: number): Promise<Page<AuditRecord>> {
  let query = db.selectFrom('audit_log');
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.tenantId !== undefined) query = query.where('tenant_id', '=', filter.tenantId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('id', 'desc').limit(20).offset(offsetOf(page)).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return pageOf(
    rows.map((r) => ({
      id: Number(r.id),
      actorType: r.actor_type,
      actorId: r.actor_id,
      partnerId: r.partner_id,
      tenantId: r.tenant_id,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
      createdAt: r.created_at.toISOString(),
    })),
    Number(count.n),
    page,
  );
}
