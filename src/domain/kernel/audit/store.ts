import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { PREFIXES, masked } from '../../../credentials/secret-format.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { AuditLogTable } from '../../../platform/db/tables/foundation.ts';
import type { AuditAction } from './actions.ts';
import { offsetOf, pageOf, PER_PAGE, type Page } from '../../../platform/http/pagination.ts';

export type Actor =
  | { type: 'partner_key'; keyId: number; partnerId: number }
  | { type: 'admin' }
  | { type: 'cli' }
  | { type: 'till_login'; loginId: number }
  | { type: 'tenant_token'; tokenId: number }
  | { type: 'user'; userId: number }
  | { type: 'anonymous' };

/** Who acts, as the merchant and partner surfaces name it: a tenant token, a user (the console), a partner key. */
export type Party =
  { type: 'tenant_token'; id: number } | { type: 'user'; id: number } | { type: 'partner_key'; id: number; partnerId: number };

/**
 * Who issued a document: a party, or a till on the legacy surface — the till login whose getactive
 * minted its fiscalisation key, else the key itself (one the merchant or its partner minted).
 */
export type Issuer = Party | { type: 'till_login'; id: number } | { type: 'fiscalisation_key'; id: number };

export function actorOfParty(by: Party): Actor {
  if (by.type === 'tenant_token') return { type: 'tenant_token', tokenId: by.id };
  if (by.type === 'user') return { type: 'user', userId: by.id };
  return { type: 'partner_key', keyId: by.id, partnerId: by.partnerId };
}

interface AuditEntry {
  actor: Actor;
  action: AuditAction;
  partnerId?: number | null;
  tenantId?: number | null;
  targetType?: string;
  targetId?: string | number;
  details?: Record<string, unknown>;
}

/** Records who did what, when; call it in the same transaction as the change it describes. */
export async function recordAudit(db: Kysely<DB>, entry: AuditEntry): Promise<void> {
  const actor = entry.actor;
  const actorId =
    actor.type === 'partner_key'
      ? String(actor.keyId)
      : actor.type === 'till_login'
        ? String(actor.loginId)
        : actor.type === 'tenant_token'
          ? String(actor.tokenId)
          : actor.type === 'user'
            ? String(actor.userId)
            : null;
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
  actorType: Actor['type'];
  actorId: string | null;
  /** The partner key's or till login's name; null for the operator and the CLI. */
  actorName: string | null;
  partnerId: number | null;
  partnerName: string | null;
  tenantId: number | null;
  tenantName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  /** What the target is called now (a name, branch and serial, URL or masked key); null once it is gone. */
  targetName: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

interface AuditRow extends Selectable<AuditLogTable> {
  actor_name: string | null;
  partner_name: string | null;
  tenant_name: string | null;
  target_name: string | null;
}

/** `column` as an integer id when it holds one (ids are stored as text), else null. */
const idIn = (column: RawBuilder<unknown>) => sql`case when ${column} ~ '^[0-9]{1,9}$' then ${column}::integer end`;

/**
 * What a credential is called, from its type and integer id (both SQL): a user's email, a tenant
 * token's name, a till login's username, a fiscalisation key masked (`pk_…abcd`), a partner key's
 * name — followed by its partner's with `withPartner`; null for another type or an id that is gone.
 */
function credentialName(type: RawBuilder<unknown>, id: RawBuilder<unknown>, withPartner: boolean): RawBuilder<string | null> {
  // Aliases of their own: `id` names a column of the caller's row, which a shorter alias could shadow.
  const partnerKey = withPartner
    ? sql`(select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = ${id})`
    : sql`(select named_k.name from partner_keys named_k where named_k.id = ${id})`;
  return sql<string | null>`case ${type}
    when 'partner_key' then ${partnerKey}
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = ${id})
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = ${id})
    when 'user' then (select named_u.email from users named_u where named_u.id = ${id})
    when 'fiscalisation_key' then (select ${masked(PREFIXES.fiscalisationKey, '')} || named_f.last4 from api_keys named_f where named_f.id = ${id})
  end`;
}

/** The name of what an audit record's actor is, resolved from its type and id. */
const ACTOR_NAME = credentialName(sql`a.actor_type`, idIn(sql`a.actor_id`), false);

/**
 * Who did something (a document's issuer, a Z report's closer), named as the merchant's audit
 * trail names its actors: the credential's name (a partner key's with its partner's), `operator`
 * for the operator. `type` and `id`: SQL of the party's type and integer id.
 */
export function partyName(type: RawBuilder<unknown>, id: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`case when ${type} = 'admin' then 'operator' else ${credentialName(type, id, true)} end`;
}

/** partyName of a party stored as one text column `type:id` (a Z report's `closed_by`, a resolution's `resolved_by`). */
export function partyNameOf(typeAndId: RawBuilder<unknown>): RawBuilder<string | null> {
  return partyName(sql`split_part(${typeAndId}, ':', 1)`, idIn(sql`split_part(${typeAndId}, ':', 2)`));
}

/** The name of an audit record's target, by target type. */
function targetName(): RawBuilder<unknown> {
  const id = idIn(sql`a.target_id`);
  return sql`case a.target_type
    when 'tenant' then (select x.name from tenants x where x.id = ${id})
    when 'partner' then (select x.name from partners x where x.id = ${id})
    when 'partner_key' then (select x.name from partner_keys x where x.id = ${id})
    when 'tenant_token' then (select x.name from tenant_tokens x where x.id = ${id})
    when 'till_login' then (select x.username from till_logins x where x.id = ${id})
    when 'user' then (select x.email || ' (' || x.role || ')' from users x where x.id = ${id})
    when 'sale' then (select replace(x.type, '_', ' ') || ' ' || x.invoice_no || ' (branch ' || x.branch || ')' from sales x where x.id = ${id})
    when 'device' then (select 'branch ' || x.branch || coalesce(' ' || x.branch_name, '') || ', serial ' || x.device_serial from devices x where x.id = ${id})
    when 'api_key' then (select ${masked(PREFIXES.fiscalisationKey, '')} || x.last4 || coalesce(' (branch ' || d.branch || ')', ' (any branch)')
      from api_keys x left join devices d on d.id = x.device_id where x.id = ${id})
    when 'daily_report' then 'Z report, branch ' || split_part(a.target_id, ':', 1) || ', ' || split_part(a.target_id, ':', 2)
    when 'item' then (select x.name || ' (' || x.item_code || ')' from items x where x.id = ${id})
    when 'purchase' then (select 'purchase ' || coalesce(x.purchase_invoice_no::text, x.id::text) || ' from ' || coalesce(x.supplier_name, x.supplier_tpin, 'a supplier')
      || coalesce(', invoice ' || x.supplier_invoice_no, '') from purchases x where x.id = ${id})
    when 'webhook_endpoint' then (select x.url from webhook_endpoints x where x.id = ${id})
    when 'webhook_delivery' then (select e.type || ' to ' || w.url from webhook_deliveries x
      join webhook_events e on e.id = x.event_id join webhook_endpoints w on w.id = x.endpoint_id where x.id = ${id})
  end`;
}

/** Which audit records a listing covers. `action` ending with a dot is a family (`token.`: every token action); otherwise exact. */
export interface AuditFilter {
  partnerId?: number;
  tenantId?: number;
  action?: string;
  /** Recorded at or after this instant. */
  from?: Date;
  /** Recorded before this instant. */
  before?: Date;
}

function whereOf(filter: AuditFilter, beforeId?: number): RawBuilder<unknown> {
  const action = filter.action;
  return sql`where true
    ${filter.partnerId === undefined ? sql`` : sql` and a.partner_id = ${filter.partnerId}`}
    ${filter.tenantId === undefined ? sql`` : sql` and a.tenant_id = ${filter.tenantId}`}
    ${action === undefined ? sql`` : action.endsWith('.') ? sql` and left(a.action, ${action.length}) = ${action}` : sql` and a.action = ${action}`}
    ${filter.from === undefined ? sql`` : sql` and a.created_at >= ${filter.from.toISOString()}::timestamptz`}
    ${filter.before === undefined ? sql`` : sql` and a.created_at < ${filter.before.toISOString()}::timestamptz`}
    ${beforeId === undefined ? sql`` : sql` and a.id < ${beforeId}`}`;
}

function selectRows(db: Kysely<DB>, where: RawBuilder<unknown>, limit: number, offset: number) {
  return sql<AuditRow>`
      select a.*, p.name as partner_name, t.name as tenant_name, ${ACTOR_NAME} as actor_name, ${targetName()} as target_name
      from audit_log a
      left join partners p on p.id = a.partner_id
      left join tenants t on t.id = a.tenant_id
      ${where}
      order by a.id desc
      limit ${limit} offset ${offset}`.execute(db);
}

function recordOf(r: AuditRow): AuditRecord {
  return {
    id: Number(r.id),
    actorType: r.actor_type as Actor['type'],
    actorId: r.actor_id,
    actorName: r.actor_name,
    partnerId: r.partner_id,
    partnerName: r.partner_name,
    tenantId: r.tenant_id,
    tenantName: r.tenant_name,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    targetName: r.target_name,
    details: r.details,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** Newest first, 20 a page, with the names of the actor, partner, merchant and target. */
export async function listAudit(db: Kysely<DB>, filter: AuditFilter, page: number): Promise<Page<AuditRecord>> {
  const where = whereOf(filter);
  const [rows, count] = await Promise.all([
    selectRows(db, where, PER_PAGE, offsetOf(page)),
    sql<{ n: number }>`select count(*)::int as n from audit_log a ${where}`.execute(db),
  ]);
  return pageOf(rows.rows.map(recordOf), Number(count.rows[0]?.n ?? 0), page);
}

/** Every record of the filter, newest first, `size` at a time (keyset on id): for exports. */
export async function* auditBatches(db: Kysely<DB>, filter: AuditFilter, size: number): AsyncGenerator<AuditRecord[]> {
  let beforeId: number | undefined;
  for (;;) {
    const rows = (await selectRows(db, whereOf(filter, beforeId), size, 0)).rows.map(recordOf);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < size) return;
    beforeId = rows[rows.length - 1]!.id;
  }
}
