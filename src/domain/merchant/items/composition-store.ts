// The SQL of item compositions (saveItemComposition): one row per component of a composite
// item, filed through the composite item's branch. Rows are leased like items
// (platform/workers/lease-sql.ts); a component waits, not claimed, until the composite item is
// registered (`registered_at`).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ItemCompositionsTable, ItemRegistrationState } from '../../../platform/db/tables/items.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import { claimDueRows, isFree, leasedSql, released } from '../../../platform/workers/lease-sql.ts';
import { type VsdcSendOutcome, revisionedAnswerColumns } from '../../kernel/authority-rows/answers.ts';
import { authorityDeviceOf, withAuthorityDevice, type AuthorityDeviceColumns } from '../../kernel/authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

export type ComponentRow = Selectable<ItemCompositionsTable> & { component_code: string; component_name: string };

/** The components of these items, each item's in the order the merchant gave them. */
export async function componentsOfItems(db: Kysely<DB>, itemIds: number[]): Promise<Map<number, ComponentRow[]>> {
  const byItem = new Map<number, ComponentRow[]>();
  if (itemIds.length === 0) return byItem;
  const rows = await db
    .selectFrom('item_compositions as c')
    .innerJoin('items as ci', 'ci.id', 'c.component_item_id')
    .selectAll('c')
    .select(['ci.item_code as component_code', 'ci.name as component_name'])
    .where('c.item_id', 'in', itemIds)
    .orderBy('c.item_id')
    .orderBy('c.position')
    .execute();
  for (const row of rows) {
    const id = Number(row.item_id);
    const list = byItem.get(id);
    if (list) list.push(row);
    else byItem.set(id, [row]);
  }
  return byItem;
}

/** What a component must be, read for the codes a request names (the merchant's items only). */
export interface CandidateComponent {
  id: number;
  itemCode: string;
  state: ItemRegistrationState;
  registered: boolean;
  deviceId: number | null;
  branch: string | null;
}

export async function candidateComponents(db: Kysely<DB>, tenantId: number, itemCodes: string[]): Promise<Map<string, CandidateComponent>> {
  if (itemCodes.length === 0) return new Map();
  const rows = await db
    .selectFrom('items as i')
    .leftJoin('devices as d', 'd.id', 'i.device_id')
    .select(['i.id', 'i.item_code', 'i.registration_state', 'i.registered_at', 'i.device_id', 'd.branch'])
    .where('i.tenant_id', '=', tenantId)
    .where('i.item_code', 'in', itemCodes)
    .execute();
  return new Map(
    rows.map((r) => [
      r.item_code,
      {
        id: Number(r.id),
        itemCode: r.item_code,
        state: r.registration_state,
        registered: r.registered_at !== null,
        deviceId: r.device_id,
        branch: r.branch,
      },
    ]),
  );
}

export interface NewComponent {
  componentItemId: number;
  position: number;
  /** Decimal text, up to 4 decimals. */
  quantity: string;
}

/**
 * Replaces the item's composition, inside the caller's transaction: components no longer named
 * go; a component already registered with the same quantity stays registered; every other one
 * is (again) `pending`, due at once. A changed quantity bumps the revision, so an answer about
 * the older quantity, in flight right now, settles nothing. Locks the item's row first, so two
 * replacements of one composition run one after the other.
 */
export async function replaceComposition(trx: Kysely<DB>, tenantId: number, itemId: number, components: NewComponent[]): Promise<void> {
  await trx.selectFrom('items').select('id').where('id', '=', itemId).forUpdate().execute();
  await trx
    .deleteFrom('item_compositions')
    .where('item_id', '=', itemId)
    .where(
      'component_item_id',
      'not in',
      components.map((c) => c.componentItemId),
    )
    .execute();
  const same = sql<boolean>`(item_compositions.quantity = excluded.quantity)`;
  const kept = sql<boolean>`(${same} and item_compositions.state = 'registered')`;
  await sql`
    insert into item_compositions (tenant_id, item_id, component_item_id, position, quantity, state, next_attempt_at)
    select ${tenantId}::integer, ${itemId}::bigint, c.component_item_id, c.position, c.quantity, 'pending', now()
    from unnest(${components.map((c) => c.componentItemId)}::bigint[], ${components.map((c) => c.position)}::int[], ${components.map((c) => c.quantity)}::numeric[])
      as c(component_item_id, position, quantity)
    on conflict (item_id, component_item_id) do update set
      position = excluded.position,
      quantity = excluded.quantity,
      revision = case when ${same} then item_compositions.revision else item_compositions.revision + 1 end,
      state = case when ${kept} then item_compositions.state else 'pending' end,
      result_code = case when ${kept} then item_compositions.result_code else null end,
      result_message = case when ${kept} then item_compositions.result_message else null end,
      registered_at = case when ${kept} then item_compositions.registered_at else null end,
      next_attempt_at = case when ${kept} then null else now() end,
      retry_attempts = case when ${kept} then item_compositions.retry_attempts else 0 end,
      last_unreachable = case when ${kept} then item_compositions.last_unreachable else null end,
      updated_at = now()`.execute(trx);
}

export interface ClaimedComponent {
  id: number;
  revision: number;
  retryAttempts: number;
  itemCode: string;
  componentCode: string;
  quantity: number;
  device: AuthorityDevice;
}

type ClaimRow = Selectable<ItemCompositionsTable> & { item_code: string; component_code: string } & AuthorityDeviceColumns;

function claimedFrom(row: ClaimRow, box: SecretBox): ClaimedComponent {
  return {
    id: Number(row.id),
    revision: row.revision,
    retryAttempts: row.retry_attempts,
    itemCode: row.item_code,
    componentCode: row.component_code,
    quantity: Number(row.quantity),
    device: authorityDeviceOf(row, box),
  };
}

/** `claimed` (a CTE of item_compositions rows) with both item codes and the composite item's branch as `targeted`. */
const targeted = sql`,
  targeted as (
    select claimed.*, i.device_id, i.item_code, ci.item_code as component_code
    from claimed
    join items i on i.id = claimed.item_id
    join items ci on ci.id = claimed.component_item_id
  )
  ${withAuthorityDevice('targeted')}
  order by targeted.position`;

/**
 * Takes the lease of the item's pending components that nobody holds, when the item is
 * registered (its branch's VSDC knows it); none otherwise.
 */
export async function claimItemComponents(db: Kysely<DB>, box: SecretBox, itemId: number, leaseMs: number): Promise<ClaimedComponent[]> {
  const result = await sql<ClaimRow>`
    with claimed as (
      update item_compositions set ${leasedSql('item_compositions', { ms: leaseMs })}
      where item_id = ${itemId} and state = 'pending' and ${isFree('item_compositions')}
        and exists (select 1 from items i where i.id = ${itemId} and i.registered_at is not null and i.device_id is not null)
      returning *
    )
    ${targeted}`.execute(db);
  return result.rows.map((row) => claimedFrom(row, box));
}

/** Leases up to `limit` pending components whose next attempt is due and whose item is registered. */
export async function claimDueComponents(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedComponent[]> {
  const result = await sql<ClaimRow>`
    ${claimDueRows('item_compositions', {
      waiting: sql`r.state = 'pending' and i.registered_at is not null and i.device_id is not null`,
      join: sql`join items i on i.id = r.item_id`,
      leaseMs,
      limit,
    })}
    ${targeted}`.execute(db);
  return result.rows.map((row) => claimedFrom(row, box));
}

/**
 * Records the VSDC's answer about revision `revision` of a component and frees the lease. An
 * answer about an older quantity leaves the component pending, due at once (the current
 * quantity goes next).
 */
export async function recordComponentOutcome(db: Kysely<DB>, id: number, revision: number, outcome: VsdcSendOutcome): Promise<void> {
  await db
    .updateTable('item_compositions')
    .set({ ...revisionedAnswerColumns(revision, outcome), ...released('item_compositions'), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}
