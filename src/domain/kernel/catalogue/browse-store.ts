// Reading the classification catalogue for merchants: paged search and the bulk export.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ItemClassesTable } from '../../../platform/db/tables/sales.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';

export type ItemClassRow = Omit<Selectable<ItemClassesTable>, 'authority'>;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const COLUMNS = ['code', 'name', 'level', 'tax_type', 'major_target', 'in_use', 'synced_at'] as const;

export async function searchItemClasses(
  db: Kysely<DB>,
  authority: string,
  filter: { codePrefix?: string | undefined; name?: string | undefined },
  page: number,
): Promise<{ rows: ItemClassRow[]; total: number }> {
  let query = db.selectFrom('item_classes').where('authority', '=', authority);
  if (filter.codePrefix !== undefined) query = query.where('code', 'like', `${escapeLike(filter.codePrefix)}%`);
  if (filter.name !== undefined) query = query.where('name', 'ilike', `%${escapeLike(filter.name)}%`);
  const [rows, count] = await Promise.all([
    query.select(COLUMNS).orderBy('code').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function allItemClasses(db: Kysely<DB>, authority: string): Promise<ItemClassRow[]> {
  return db.selectFrom('item_classes').select(COLUMNS).where('authority', '=', authority).orderBy('code').execute();
}

/** Changes whenever a sync stores anything: how many entries, and when the newest was stored. */
export async function catalogueVersion(db: Kysely<DB>, authority: string): Promise<{ entries: number; lastStoredAt: Date | null }> {
  const row = await db
    .selectFrom('item_classes')
    .where('authority', '=', authority)
    .select([sql<number>`count(*)::int`.as('entries'), sql<Date | null>`max(synced_at)`.as('last_stored_at')])
    .executeTakeFirstOrThrow();
  return { entries: Number(row.entries), lastStoredAt: row.last_stored_at === null ? null : new Date(row.last_stored_at) };
}
