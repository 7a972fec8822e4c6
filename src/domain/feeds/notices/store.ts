import { sql, type Kysely, type Selectable } from 'kysely';
import type { Notifier } from '../../../platform/db/notifier.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { AuthorityNoticesTable } from '../../../platform/db/tables/authority.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import { enqueueEvent, NOTICE_EVENT } from '../../kernel/outbox/events.ts';

export type NoticeRow = Selectable<AuthorityNoticesTable>;

// ---- notices ----

/** A notice as the gateway keeps it; `notice` is the raw JSON as received. */
export type ReceivedNotice = Omit<NoticeRow, 'id' | 'tenant_id' | 'received_at' | 'notice'> & { notice: unknown };

/** The tenant's partner and names, for the event's `data.tenant`. */
interface EventTenant {
  id: number;
  name: string;
  tpin: string;
  partner_id: number | null;
}

/**
 * Stores the notices not held yet (by `notice_no`), with an `authority.notice` event for each new
 * one, in the pull's transaction. Returns how many were new.
 */
export async function storeNotices(
  trx: Kysely<DB>,
  notifier: Notifier,
  tenantId: number,
  notices: ReceivedNotice[],
  eventData: (row: NoticeRow, tenant: EventTenant) => Record<string, unknown>,
): Promise<number> {
  if (notices.length === 0) return 0;
  const added = await trx
    .insertInto('authority_notices')
    .values(notices.map((n) => ({ ...n, notice: JSON.stringify(n.notice), tenant_id: tenantId })))
    .onConflict((oc) => oc.columns(['tenant_id', 'notice_no']).doNothing())
    .returningAll()
    .execute();
  if (added.length > 0) {
    const tenant = await trx
      .selectFrom('tenants')
      .select(['id', 'name', 'tpin', 'partner_id'])
      .where('id', '=', tenantId)
      .executeTakeFirstOrThrow();
    for (const row of added.sort((a, b) => a.notice_no - b.notice_no)) {
      await enqueueEvent(
        trx,
        { type: NOTICE_EVENT, partnerId: tenant.partner_id, tenantId: tenant.id, data: eventData(row, tenant) },
        notifier,
      );
    }
  }
  return added.length;
}

export async function listNotices(db: Kysely<DB>, tenantId: number, page: number): Promise<{ rows: NoticeRow[]; total: number }> {
  const query = db.selectFrom('authority_notices').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy(sql`registered_at desc nulls last`)
      .orderBy('notice_no', 'desc')
      .limit(PER_PAGE)
      .offset(offsetOf(page))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
