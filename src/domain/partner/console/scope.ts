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

