// The principals an RVAT agent (the tenant) sells for: the merchant's master data as the
// authority reports it (selectPrincipals, pulled by authority/principals), one row per tenant and
// principal id. Here, below fiscal, so that the sale path can read a principal (principalOf).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { PrincipalsTable } from '../../../platform/db/tables/principals.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';

export type PrincipalRow = Selectable<PrincipalsTable>;

/** A principal as the gateway keeps it; `principal` is the raw record as received. */
export interface ReceivedPrincipal {
  principal_id: string;
  tpin: string | null;
  name: string | null;
  address: string | null;
  email: string | null;
  tel: string | null;
  account_no: string | null;
  principal: unknown;
}

/** What a sale needs of its principal. */
export interface PrincipalOfSale {
  id: string;
  tpin: string | null;
  name: string | null;
  address: string | null;
}

/**
 * Stores the principals: a new id is added, a changed report replaces the row (and moves
 * `updated_at`), a report identical to the stored one writes nothing. Within one list the last
 * report of an id wins. Returns how many rows were added or changed. Run it in the pull's
 * transaction.
 */
export async function upsertPrincipals(db: Kysely<DB>, tenantId: number, principals: readonly ReceivedPrincipal[]): Promise<number> {
  if (principals.length === 0) return 0;
  const byId = new Map(principals.map((p) => [p.principal_id, p]));
  const written = await db
    .insertInto('principals')
    .values([...byId.values()].map((p) => ({ ...p, principal: JSON.stringify(p.principal), tenant_id: tenantId })))
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'principal_id'])
        .doUpdateSet((eb) => ({
          tpin: eb.ref('excluded.tpin'),
          name: eb.ref('excluded.name'),
          address: eb.ref('excluded.address'),
          email: eb.ref('excluded.email'),
          tel: eb.ref('excluded.tel'),
          account_no: eb.ref('excluded.account_no'),
          principal: eb.ref('excluded.principal'),
          updated_at: sql<Date>`now()`,
        }))
        .where(sql<boolean>`principals.principal is distinct from excluded.principal`),
    )
    .returning('principal_id')
    .execute();
  return written.length;
}

/** The tenant's principals by name (then id), a page at a time. */
export async function listPrincipals(db: Kysely<DB>, tenantId: number, page: number): Promise<{ rows: PrincipalRow[]; total: number }> {
  const query = db.selectFrom('principals').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy(sql`name asc nulls last`)
      .orderBy('principal_id', 'asc')
      .limit(PER_PAGE)
      .offset(offsetOf(page))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/**
 * The tenant's principal with the authority's id `principalId` (an RVAT sale's `principalId`),
 * or undefined when the authority has not reported it to the gateway.
 */
export async function principalOf(db: Kysely<DB>, tenantId: number, principalId: string): Promise<PrincipalOfSale | undefined> {
  const row = await db
    .selectFrom('principals')
    .select(['principal_id', 'tpin', 'name', 'address'])
    .where('tenant_id', '=', tenantId)
    .where('principal_id', '=', principalId.trim())
    .executeTakeFirst();
  return row && { id: row.principal_id, tpin: row.tpin, name: row.name, address: row.address };
}
