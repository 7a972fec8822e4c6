// The branch's chain queue: the lease and backoff on its stock_branches row, its unsent
// movements in sarNo order, and each step of a movement's chain as the authority answers it.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { AuthorityDevice, StockMovement } from '../../../authorities/port/index.ts';
import { fromNow, heldBy, isDue, isFree, leasedSql, released } from '../../../platform/workers/lease-sql.ts';
import { authorityDeviceOf, withAuthorityDevice } from '../../kernel/authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

export interface ClaimedChainBranch {
  deviceId: number;
  tenantId: number;
  retryDelayMs: number | null;
  device: AuthorityDevice;
}

/** Leases up to `limit` branches with unsent movements that nobody holds and whose backoff has passed. */
export async function claimChainBranches(
  db: Kysely<DB>,
  box: SecretBox,
  owner: string,
  leaseMs: number,
  limit: number,
): Promise<ClaimedChainBranch[]> {
  const result = await sql<
    { device_id: number; tenant_id: number; retry_delay_ms: number | null } & Parameters<typeof authorityDeviceOf>[0]
  >`
    with due as (
      select b.device_id from stock_branches b
      where exists (select 1 from stock_movements m where m.device_id = b.device_id and m.state in ('pending', 'items_sent'))
        and ${isFree('stock_branches', 'b')} and ${isDue('stock_branches', 'b')}
      order by b.next_attempt_at
      limit ${limit}
      for update of b skip locked
    ),
    claimed as (
      update stock_branches b set ${leasedSql('stock_branches', { holder: owner, ms: leaseMs })}
      from due where b.device_id = due.device_id
      returning b.device_id, b.tenant_id, b.retry_delay_ms
    )
    ${withAuthorityDevice('claimed')}`.execute(db);
  return result.rows.map((r) => ({
    deviceId: Number(r.device_id),
    tenantId: r.tenant_id,
    retryDelayMs: r.retry_delay_ms,
    device: authorityDeviceOf(r, box),
  }));
}

/** A movement not yet through its chain, and how far it got. */
export interface UnsentMovement {
  id: number;
  state: 'pending' | 'items_sent';
  movement: StockMovement;
}

/** The branch's first unsent movement with its lines and their items. */
export async function nextUnsent(db: Kysely<DB>, deviceId: number): Promise<UnsentMovement | undefined> {
  const movement = await db
    .selectFrom('stock_movements')
    .selectAll()
    .where('device_id', '=', deviceId)
    .where('state', 'in', ['pending', 'items_sent'])
    .orderBy('sar_no')
    .limit(1)
    .executeTakeFirst();
  if (!movement) return undefined;
  const lines = await db
    .selectFrom('stock_movement_lines as l')
    .leftJoin('items as i', (join) => join.on('i.tenant_id', '=', movement.tenant_id).onRef('i.item_code', '=', 'l.item_code'))
    .select([
      'l.seq',
      'l.item_code',
      sql<string>`l.quantity::text`.as('quantity'),
      sql<string>`l.unit_price::text`.as('unit_price'),
      sql<string>`l.taxable::text`.as('taxable'),
      sql<string>`l.tax::text`.as('tax'),
      sql<string>`l.total::text`.as('total'),
      sql<string>`l.remaining::text`.as('remaining'),
      'i.item_class_code',
      'i.name',
      'i.barcode',
      'i.packaging_unit_code',
      'i.quantity_unit_code',
      'i.vat_category',
    ])
    .where('l.movement_id', '=', movement.id)
    .orderBy('l.seq')
    .execute();
  return {
    id: Number(movement.id),
    state: movement.state as UnsentMovement['state'],
    movement: {
      number: movement.sar_no,
      type: movement.sar_type_code,
      source: movement.source_kind,
      counterparty: { tpin: movement.counterparty_tpin, name: movement.counterparty_name, branch: movement.counterparty_branch },
      remark: movement.remark,
      occurredAt: movement.created_at,
      totals: { taxable: String(movement.total_taxable), tax: String(movement.total_tax), total: String(movement.total_amount) },
      lines: lines.map((l) => ({
        seq: l.seq,
        itemCode: l.item_code,
        quantity: l.quantity,
        unitPrice: l.unit_price,
        taxable: l.taxable,
        tax: l.tax,
        total: l.total,
        remaining: l.remaining,
        classificationCode: l.item_class_code,
        name: l.name,
        barcode: l.barcode,
        packagingUnitCode: l.packaging_unit_code,
        quantityUnitCode: l.quantity_unit_code,
        vatCategory: l.vat_category,
      })),
    },
  };
}

/** What one chain call's answer does to the movement. */
export type ChainStep = { kind: 'items_sent' } | { kind: 'sent'; code: string } | { kind: 'failed'; code: string; message: string };

/**
 * Records a step of the movement's chain while `owner` holds the branch (false when it lost the
 * lease: nothing written), and clears the branch's backoff (the authority answered) and extends its lease.
 */
export async function recordChainStep(
  db: Kysely<DB>,
  deviceId: number,
  movementId: number,
  owner: string,
  leaseMs: number,
  step: ChainStep,
): Promise<boolean> {
  const changes =
    step.kind === 'items_sent'
      ? sql`state = 'items_sent'`
      : step.kind === 'sent'
        ? sql`state = 'sent', sent_at = now(), result_code = ${step.code}, result_message = null`
        : sql`state = 'failed', result_code = ${step.code}, result_message = ${step.message.slice(0, 2000)}`;
  const result = await sql<{ held: boolean }>`
    with lease as (
      update stock_branches set ${leasedSql('stock_branches', { ms: leaseMs })}, retry_delay_ms = null, last_error = null, updated_at = now()
      where device_id = ${deviceId} and ${heldBy('stock_branches', owner)}
      returning device_id
    ),
    movement as (
      update stock_movements set ${changes}, updated_at = now()
      where id = ${movementId} and state in ('pending', 'items_sent') and exists (select 1 from lease)
      returning id
    )
    select exists (select 1 from lease) as held`.execute(db);
  return Boolean(result.rows[0]?.held);
}

/** Nothing left to send (or stopping): give the branch back. */
export async function releaseChainBranch(db: Kysely<DB>, deviceId: number, owner: string): Promise<void> {
  await db
    .updateTable('stock_branches')
    .set({ ...released('stock_branches'), updated_at: sql<Date>`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('stock_branches', owner))
    .execute();
}

/** The authority did not answer: give the branch back until `delayMs` from now, with the backoff grown. */
export async function deferChainBranch(db: Kysely<DB>, deviceId: number, owner: string, delayMs: number, error: string): Promise<void> {
  await db
    .updateTable('stock_branches')
    .set({
      ...released('stock_branches'),
      next_attempt_at: fromNow(delayMs),
      retry_delay_ms: delayMs,
      last_error: error.slice(0, 1000),
      updated_at: sql<Date>`now()`,
    })
    .where('device_id', '=', deviceId)
    .where(heldBy('stock_branches', owner))
    .execute();
}

/** Embedded database: one process, so a lease found at start-up was left by a crash. */
export async function clearChainLeases(db: Kysely<DB>): Promise<void> {
  await db.updateTable('stock_branches').set(released('stock_branches')).where('lease_owner', 'is not', null).execute();
}
