import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { isFree, leased, released } from '../../../platform/workers/lease-sql.ts';
import type { AuthorityCode, AuthorityDevice, ItemClassification } from '../../../authorities/port/index.ts';
import { AUTHORITY_DEVICE_SELECT, authorityDeviceOf } from '../authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

/** An entry of the catalogue as stored. */
export type ItemClassRecord = ItemClassification;

/** Codes a sale line may use: every entry of the authority's catalogue it marks as in use. */
export async function codesInUse(db: Kysely<DB>, authority: string): Promise<string[]> {
  const rows = await db.selectFrom('item_classes').select('code').where('authority', '=', authority).where('in_use', '=', true).execute();
  return rows.map((r) => r.code);
}

/** The authorities with at least one initialised device: those whose catalogue can be synced. */
export async function syncableAuthorities(db: Kysely<DB>): Promise<string[]> {
  const rows = await db
    .selectFrom('devices as d')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .select('t.authority')
    .distinct()
    .where('d.initialized', '=', true)
    .orderBy('t.authority')
    .execute();
  return rows.map((r) => r.authority);
}

/** The authority's initialised devices to ask for its catalogue (the authority's, the same through any). */
export async function syncDevices(db: Kysely<DB>, box: SecretBox, authority: string, limit = 5): Promise<AuthorityDevice[]> {
  const rows = await db
    .selectFrom('devices as d')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .select(AUTHORITY_DEVICE_SELECT)
    .where('t.authority', '=', authority)
    .where('d.initialized', '=', true)
    .orderBy('d.initialized_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => authorityDeviceOf(row, box));
}

/**
 * Claims the right to sync the authority's catalogue for `leaseMs` (one process at a time);
 * returns the `lastReqDt` to ask from, or undefined when another process holds the claim.
 */
export async function claimSync(db: Kysely<DB>, authority: string, leaseMs: number): Promise<SyncClaim | undefined> {
  // The migrations seed a row per authority; one added later gets its row on its first sync.
  await sql`
    insert into catalogue_sync (id, authority)
    select coalesce(max(id), 0) + 1, ${authority} from catalogue_sync
    having not coalesce(bool_or(authority = ${authority}), false)
    on conflict do nothing`.execute(db);
  const row = await db
    .updateTable('catalogue_sync')
    .set({ ...leased('catalogue_sync', { ms: leaseMs }), attempted_at: sql`now()` })
    .where('authority', '=', authority)
    .where(isFree('catalogue_sync'))
    .returning([
      'last_req_dt',
      sql<boolean>`not exists (select 1 from item_classes where authority = ${authority})`.as('empty'),
      'codes_last_req_dt',
      sql<boolean>`not exists (select 1 from authority_codes where authority = ${authority})`.as('codes_empty'),
    ])
    .executeTakeFirst();
  return row
    ? { lastReqDt: row.last_req_dt, empty: row.empty, codesLastReqDt: row.codes_last_req_dt, codesEmpty: row.codes_empty }
    : undefined;
}

interface SyncClaim {
  /** Where the catalogue's sync asks from, and whether it holds nothing yet (then: from the start). */
  lastReqDt: string | null;
  empty: boolean;
  /** The same for the code tables. */
  codesLastReqDt: string | null;
  codesEmpty: boolean;
}

export type AuthorityCodeRecord = AuthorityCode;

/** Upserts the authority's code tables' entries its VSDC sent and moves their `lastReqDt` on. */
export async function saveCodes(db: Kysely<DB>, authority: string, codes: AuthorityCodeRecord[], resultDt: string | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (codes.length > 0) {
      const rows = JSON.stringify(
        codes.map((c) => ({
          class_code: c.classCode,
          class_name: c.className,
          code: c.code,
          name: c.name,
          description: c.description,
          in_use: c.inUse,
          sort_order: c.sortOrder,
          rate: c.rate ?? null,
        })),
      );
      await sql`
        insert into authority_codes (authority, class_code, class_name, code, name, description, in_use, sort_order, rate, synced_at)
        select ${authority}, x.class_code, x.class_name, x.code, x.name, x.description, x.in_use, x.sort_order, x.rate, now()
        from jsonb_to_recordset(${rows}::jsonb) as x(class_code text, class_name text, code text, name text, description text, in_use boolean, sort_order integer, rate numeric)
        on conflict (authority, class_code, code) do update set
          class_name = excluded.class_name, name = excluded.name, description = excluded.description,
          in_use = excluded.in_use, sort_order = excluded.sort_order, rate = excluded.rate, synced_at = excluded.synced_at`.execute(trx);
    }
    if (resultDt) await trx.updateTable('catalogue_sync').set({ codes_last_req_dt: resultDt }).where('authority', '=', authority).execute();
  });
}

/** The authority's code tables, by class and order; of one class when `classCode` is given. */
export async function listCodes(db: Kysely<DB>, authority: string, classCode: string | undefined): Promise<AuthorityCodeRecord[]> {
  let query = db
    .selectFrom('authority_codes')
    .select(['class_code', 'class_name', 'code', 'name', 'description', 'in_use', 'sort_order', 'rate'])
    .where('authority', '=', authority)
    .orderBy('class_code')
    .orderBy(sql`sort_order nulls last`)
    .orderBy('code');
  if (classCode !== undefined) query = query.where('class_code', '=', classCode);
  const rows = await query.execute();
  return rows.map((r) => ({
    classCode: r.class_code,
    className: r.class_name,
    code: r.code,
    name: r.name,
    description: r.description,
    inUse: r.in_use,
    sortOrder: r.sort_order,
    rate: r.rate === null ? null : Number(r.rate),
  }));
}

/** Upserts what the authority's VSDC sent and moves its `lastReqDt` on, in one transaction. */
export async function saveSync(db: Kysely<DB>, authority: string, classes: ItemClassRecord[], resultDt: string | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (classes.length > 0) {
      const rows = JSON.stringify(
        classes.map((c) => ({
          code: c.code,
          name: c.name,
          level: c.level,
          tax_type: c.taxType,
          major_target: c.majorTarget,
          in_use: c.inUse,
        })),
      );
      await sql`
        insert into item_classes (authority, code, name, level, tax_type, major_target, in_use, synced_at)
        select ${authority}, x.code, x.name, x.level, x.tax_type, x.major_target, x.in_use, now()
        from jsonb_to_recordset(${rows}::jsonb) as x(code text, name text, level integer, tax_type text, major_target boolean, in_use boolean)
        on conflict (authority, code) do update set
          name = excluded.name, level = excluded.level, tax_type = excluded.tax_type,
          major_target = excluded.major_target, in_use = excluded.in_use, synced_at = excluded.synced_at`.execute(trx);
    }
    await trx
      .updateTable('catalogue_sync')
      .set({ last_req_dt: resultDt ?? sql`last_req_dt`, synced_at: sql`now()`, last_error: null, ...released('catalogue_sync') })
      .where('authority', '=', authority)
      .execute();
  });
}

export async function recordSyncFailure(db: Kysely<DB>, authority: string, error: string): Promise<void> {
  await db
    .updateTable('catalogue_sync')
    .set({ last_error: error.slice(0, 1000), ...released('catalogue_sync') })
    .where('authority', '=', authority)
    .execute();
}

/** The tax rates the authority's code tables publish (only its tax types carry a `rate`), by tax type code. */
export async function publishedRates(db: Kysely<DB>, authority: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('authority_codes')
    .select(['code', 'rate'])
    .where('authority', '=', authority)
    .where('in_use', '=', true)
    .where('rate', 'is not', null)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.code, Number(r.rate)]));
}
