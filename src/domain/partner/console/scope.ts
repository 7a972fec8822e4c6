import { sql, type RawBuilder } from 'kysely';

/** Whose data a console read covers: a partner's book (optionally one merchant), or everyone (operator). */
export interface Scope {
  partnerId?: number;
  tenantId?: number;
}

/** `and …` conditions on a query that aliases tenants as `t`. */
export function scopeConditions(scope: Scope): RawBuilder<unknown> {
  const partner = scope.partnerId === undefined ? sql`` : sql` and t.partner_id = ${scope.partnerId}`;
  const tenant = scope.tenantId === undefined ? sql`` : sql` and t.id = ${scope.tenantId}`;
  return sql`${partner}${tenant}`;
}

/**
 * `and …` conditions on sales aliased `s`, for a read that walks sales in an index's order and
 * stops at a page: a merchant by its key; a partner by a lookup of each document's merchant — as a
 * join, a generic plan reads all of a partner's merchants (30,000 of them in a national fleet) to
 * meet the 20 documents a page shows.
 */
export function salesScopeConditions(scope: Scope): RawBuilder<unknown> {
  const tenant = scope.tenantId === undefined ? sql`` : sql` and s.tenant_id = ${scope.tenantId}`;
  const partner = scope.partnerId === undefined ? sql`` : sql` and ${partnerLookup('s', scope.partnerId)}`;
  return sql`${tenant}${partner}`;
}

/** The row aliased `alias` (with a tenant_id) belongs to the partner's merchants: its merchant looked up by key. */
export function partnerLookup(alias: string, partnerId: number): RawBuilder<unknown> {
  return sql`(select p.partner_id from tenants p where p.id = ${sql.ref(`${alias}.tenant_id`)}) = ${partnerId}`;
}
