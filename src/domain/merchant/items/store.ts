import { sql, type Kysely, type Selectable, type UpdateObject, type Updateable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ItemRegistrationState, ItemsTable, ItemSource } from '../../../platform/db/tables/items.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import { claimDueRows, isFree, leased, leasedSql, released } from '../../../platform/workers/lease-sql.ts';
import { ANSWERED_COLUMNS, type VsdcSendOutcome, unansweredColumns } from '../../kernel/authority-rows/answers.ts';
import {
  AUTHORITY_DEVICE_SELECT,
  authorityDeviceOf,
  withAuthorityDevice,
  type AuthorityDeviceColumns,
} from '../../kernel/authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

export type ItemRow = Selectable<ItemsTable> & { branch: string | null };

const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function itemsWithBranch(db: Kysely<DB>) {
  return db.selectFrom('items as i').leftJoin('devices as d', 'd.id', 'i.device_id').selectAll('i').select('d.branch');
}

/** Reserves `count` consecutive sequence numbers of the tenant's generated item codes. */
export async function reserveItemCodeSequence(db: Kysely<DB>, tenantId: number, count: number): Promise<number[]> {
  const row = await db
    .insertInto('item_code_counters')
    .values({ tenant_id: tenantId, last_seq: count })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last_seq: sql<number>`item_code_counters.last_seq + ${count}` }))
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const last = Number(row.last_seq);
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}

export interface NewItem {
  tenantId: number;
  deviceId: number | null;
  itemCode: string;
  name: string;
  normalizedName: string;
  itemClassCode: string;
  itemTypeCode: string;
  originCountryCode: string;
  packagingUnitCode: string;
  quantityUnitCode: string;
  vatCategory: string;
  defaultPrice: number | string;
  barcode: string | null;
  active: boolean;
  source: ItemSource;
  state: Extract<ItemRegistrationState, 'draft' | 'pending'>;
}

function itemValues(item: NewItem, leaseMs: number) {
  const waiting = item.state === 'pending';
  return {
    tenant_id: item.tenantId,
    device_id: item.deviceId,
    item_code: item.itemCode,
    name: item.name,
    normalized_name: item.normalizedName,
    item_class_code: item.itemClassCode,
    item_type_code: item.itemTypeCode,
    origin_country_code: item.originCountryCode,
    packaging_unit_code: item.packagingUnitCode,
    quantity_unit_code: item.quantityUnitCode,
    vat_category: item.vatCategory,
    default_price: item.defaultPrice,
    barcode: item.barcode,
    active: item.active,
    source: item.source,
    registration_state: item.state,
    next_attempt_at: waiting ? sql<Date>`now()` : null,
    // The creating request talks to the VSDC first; the worker only steps in if it never finishes.
    ...(waiting ? leased('items', { ms: leaseMs }) : released('items')),
  };
}

/** Undefined when the tenant already has an item with this code (or, for a draft, this name). */
export async function insertItem(db: Kysely<DB>, item: NewItem, leaseMs: number): Promise<number | undefined> {
  const row = await db
    .insertInto('items')
    .values(itemValues(item, leaseMs))
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** Inserts drafts, skipping any whose code or name clashes; returns the ones inserted. */
export async function insertDrafts(db: Kysely<DB>, drafts: NewItem[]): Promise<ItemRow[]> {
  if (drafts.length === 0) return [];
  const rows = await db
    .insertInto('items')
    .values(drafts.map((d) => itemValues(d, 0)))
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .execute();
  return rows.map((r) => ({ ...r, branch: null }));
}

/** Which of these normalised names the tenant already has an item for, in any state. */
export async function knownNormalizedNames(db: Kysely<DB>, tenantId: number, names: string[]): Promise<Set<string>> {
  return new Set(
    (
      await knownNormalizedNamesOfTenants(
        db,
        names.map((name) => ({ tenantId, name })),
      )
    ).map((known) => known.name),
  );
}

/** Of these (merchant, normalised name) pairs, the ones the merchant already has an item for, in any state: one statement. */
export async function knownNormalizedNamesOfTenants(
  db: Kysely<DB>,
  wanted: Array<{ tenantId: number; name: string }>,
): Promise<Array<{ tenantId: number; name: string }>> {
  if (wanted.length === 0) return [];
  const known = await sql<{ tenant_id: number; normalized_name: string }>`
    select i.tenant_id, i.normalized_name from items i
    join unnest(${wanted.map((w) => w.tenantId)}::int[], ${wanted.map((w) => w.name)}::text[]) as w(tenant_id, name)
      on i.tenant_id = w.tenant_id and i.normalized_name = w.name`.execute(db);
  return known.rows.map((r) => ({ tenantId: r.tenant_id, name: r.normalized_name }));
}

export async function findItemById(db: Kysely<DB>, tenantId: number, id: number): Promise<ItemRow | undefined> {
  return itemsWithBranch(db).where('i.tenant_id', '=', tenantId).where('i.id', '=', id).executeTakeFirst();
}

export async function findItemByCode(db: Kysely<DB>, tenantId: number, itemCode: string): Promise<ItemRow | undefined> {
  return itemsWithBranch(db).where('i.tenant_id', '=', tenantId).where('i.item_code', '=', itemCode).executeTakeFirst();
}

interface ItemFilter {
  /** Undefined: every state except `draft`. */
  state?: ItemRegistrationState | undefined;
  name?: string | undefined;
  itemClassCode?: string | undefined;
}

export async function listItems(
  db: Kysely<DB>,
  tenantId: number,
  filter: ItemFilter,
  page: number,
): Promise<{ rows: ItemRow[]; total: number }> {
  let query = itemsWithBranch(db).where('i.tenant_id', '=', tenantId);
  query =
    filter.state === undefined
      ? query.where('i.registration_state', '<>', 'draft')
      : query.where('i.registration_state', '=', filter.state);
  if (filter.name !== undefined) query = query.where('i.name', 'ilike', containing(filter.name));
  if (filter.itemClassCode !== undefined) query = query.where('i.item_class_code', '=', filter.itemClassCode);
  const [rows, count] = await Promise.all([
    query.orderBy('i.id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export type ItemChanges = Pick<
  Updateable<ItemsTable>,
  | 'name'
  | 'normalized_name'
  | 'item_class_code'
  | 'item_type_code'
  | 'origin_country_code'
  | 'packaging_unit_code'
  | 'quantity_unit_code'
  | 'vat_category'
  | 'default_price'
  | 'barcode'
  | 'active'
>;

/**
 * Applies an amendment and moves the registration on: a draft stays a draft; an item the
 * authority never accepted goes (back) to `pending`, one it accepted to `amendment_pending`.
 * The revision bump tells an answer about the previous data from one about this data.
 */
export async function amendItem(db: Kysely<DB>, tenantId: number, id: number, changes: ItemChanges): Promise<boolean> {
  const result = await db
    .updateTable('items')
    .set({
      ...changes,
      revision: sql<number>`revision + 1`,
      registration_state: sql<ItemRegistrationState>`case
        when registration_state = 'draft' then 'draft'
        when registered_at is null then 'pending'
        else 'amendment_pending' end`,
      result_code: sql<string | null>`case when registration_state = 'draft' then result_code else null end`,
      result_message: sql<string | null>`case when registration_state = 'draft' then result_message else null end`,
      next_attempt_at: sql<Date | null>`case when registration_state = 'draft' then null else now() end`,
      ...ANSWERED_COLUMNS,
      updated_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Moves a draft to `pending` on `deviceId`'s branch; false when it is not (or no longer) a draft. */
export async function releaseDraft(db: Kysely<DB>, tenantId: number, id: number, deviceId: number): Promise<boolean> {
  const result = await db
    .updateTable('items')
    .set({ registration_state: 'pending', device_id: deviceId, next_attempt_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('registration_state', '=', 'draft')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface ClaimedItem {
  id: number;
  revision: number;
  state: 'pending' | 'amendment_pending';
  retryAttempts: number;
  itemCode: string;
  name: string;
  itemClassCode: string;
  itemTypeCode: string;
  originCountryCode: string;
  packagingUnitCode: string;
  quantityUnitCode: string;
  vatCategory: string;
  defaultPrice: number;
  barcode: string | null;
  active: boolean;
  device: AuthorityDevice;
}

type ClaimRow = Selectable<ItemsTable> & AuthorityDeviceColumns;

function claimedFrom(row: ClaimRow, box: SecretBox): ClaimedItem {
  return {
    id: Number(row.id),
    revision: row.revision,
    state: row.registration_state as ClaimedItem['state'],
    retryAttempts: row.retry_attempts,
    itemCode: row.item_code,
    name: row.name,
    itemClassCode: row.item_class_code,
    itemTypeCode: row.item_type_code,
    originCountryCode: row.origin_country_code,
    packagingUnitCode: row.packaging_unit_code,
    quantityUnitCode: row.quantity_unit_code,
    vatCategory: row.vat_category,
    defaultPrice: Number(row.default_price),
    barcode: row.barcode,
    active: row.active,
    device: authorityDeviceOf(row, box),
  };
}

/** A waiting item whose lease the caller already holds (it just inserted it). */
export async function leasedItem(db: Kysely<DB>, box: SecretBox, id: number): Promise<ClaimedItem | undefined> {
  const result = await sql<ClaimRow>`
    with leased as (select * from items where id = ${id} and registration_state in ('pending', 'amendment_pending'))
    ${withAuthorityDevice('leased')}`.execute(db);
  const row = result.rows[0];
  return row ? claimedFrom(row, box) : undefined;
}

/** Takes the lease of one waiting item, unless someone else is sending it right now. */
export async function claimItem(db: Kysely<DB>, box: SecretBox, id: number, leaseMs: number): Promise<ClaimedItem | undefined> {
  const result = await sql<ClaimRow>`
    with claimed as (
      update items set ${leasedSql('items', { ms: leaseMs })}
      where id = ${id} and registration_state in ('pending', 'amendment_pending')
        and ${isFree('items')}
      returning *
    )
    ${withAuthorityDevice('claimed')}`.execute(db);
  const row = result.rows[0];
  return row ? claimedFrom(row, box) : undefined;
}

/** Leases up to `limit` waiting items whose next attempt is due. */
export async function claimDueItems(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedItem[]> {
  const result = await sql<ClaimRow>`
    ${claimDueRows('items', { waiting: sql`registration_state in ('pending', 'amendment_pending')`, leaseMs, limit })}
    ${withAuthorityDevice('claimed')}`.execute(db);
  return result.rows.map((row) => claimedFrom(row, box));
}

/**
 * Records the VSDC's answer about revision `revision` and frees the lease. An answer about data
 * that has since been amended settles nothing but what it proves: an acceptance still means the
 * authority knows the item (so the newer data goes as an amendment), a refusal is moot.
 */
export async function recordSendOutcome(db: Kysely<DB>, id: number, revision: number, outcome: VsdcSendOutcome): Promise<void> {
  const current = sql<boolean>`revision = ${revision}`;
  let changes: UpdateObject<DB, 'items'>;
  switch (outcome.kind) {
    case 'accepted':
      changes = {
        registration_state: sql<ItemRegistrationState>`case when ${current} then 'registered' else 'amendment_pending' end`,
        registered_at: sql<Date>`coalesce(registered_at, now())`,
        result_code: outcome.code,
        result_message: null,
        next_attempt_at: sql<Date | null>`case when ${current} then null else now() end`,
        ...ANSWERED_COLUMNS,
      };
      break;
    case 'refused':
      changes = {
        registration_state: sql<ItemRegistrationState>`case when not ${current} then registration_state
          when registration_state = 'pending' then 'failed' else 'amendment_failed' end`,
        result_code: sql<string | null>`case when ${current} then ${outcome.code} else result_code end`,
        result_message: sql<string | null>`case when ${current} then ${outcome.message} else result_message end`,
        next_attempt_at: sql<Date | null>`case when ${current} then null else now() end`,
        ...ANSWERED_COLUMNS,
      };
      break;
    case 'unreachable':
      changes = unansweredColumns(outcome);
      break;
  }
  await db
    .updateTable('items')
    .set({ ...changes, ...released('items'), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('registration_state', 'in', ['pending', 'amendment_pending'])
    .execute();
}

/** The items the authority has accepted through one branch (registered, or amended since). */
export async function itemsKnownToAuthority(db: Kysely<DB>, tenantId: number, deviceId: number): Promise<Array<Selectable<ItemsTable>>> {
  return db
    .selectFrom('items')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', deviceId)
    .where('registration_state', 'in', ['registered', 'amendment_pending', 'amendment_failed'])
    .orderBy('item_code')
    .execute();
}

/** A branch's device, as its authority's adapter reaches it. */
export async function branchDevice(db: Kysely<DB>, box: SecretBox, deviceId: number): Promise<AuthorityDevice> {
  const row = await db
    .selectFrom('devices as d')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .select(AUTHORITY_DEVICE_SELECT)
    .where('d.id', '=', deviceId)
    .executeTakeFirstOrThrow();
  return authorityDeviceOf(row, box);
}
