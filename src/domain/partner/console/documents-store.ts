// Documents across a partner's merchants by status: the failed ones need someone to act.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentStatus, DocumentType, IssuerType, ResolutionKind } from '../../../platform/db/tables/sales.ts';
import { offsetOf, PER_PAGE } from '../../../platform/http/pagination.ts';
import { issuedByName } from '../../fiscal/sales/store.ts';
import { salesScopeConditions, type Scope } from './scope.ts';

export interface DocumentRow {
  id: string;
  tenant_id: number;
  tenant_name: string;
  tpin: string;
  branch: string;
  type: DocumentType;
  invoice_no: string;
  status: DocumentStatus;
  client_invoice_no: string | null;
  receipt_no: number | null;
  sdc_id: string | null;
  net: string;
  vat: string;
  total: string;
  currency: string;
  result_code: string | null;
  last_error: string | null;
  occurred_at: Date;
  created_at: Date;
  updated_at: Date;
  replaces_sale_id: string | null;
  resolution_kind: ResolutionKind | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution_note: string | null;
  replaced_by_sale_id: string | null;
  issued_by_type: IssuerType | null;
  issued_by_id: string | null;
  issued_by_name: string | null;
}

interface DocumentsFilter {
  /** The stored statuses listed (storedStatuses of fiscal/sales): the resource's `failed` is `failed` and `resolved`. */
  statuses: DocumentStatus[];
  branch?: string;
}

function whereOf(scope: Scope, filter: DocumentsFilter) {
  // The statuses as literals (schema-checked enums): under generic plans a parameter would hide
  // them from the planner, which then reads every document instead of sales_pending or sales_failed.
  const statuses =
    filter.statuses.length === 0 ? sql`false` : sql`s.status in (${sql.join(filter.statuses.map((status) => sql.lit(status)))})`;
  return sql`where ${statuses} ${salesScopeConditions(scope)}${filter.branch === undefined ? sql`` : sql` and s.branch = ${filter.branch}`}`;
}

/** Newest first, 20 a page. */
export async function listDocuments(
  db: Kysely<DB>,
  scope: Scope,
  filter: DocumentsFilter & { page: number },
): Promise<{ rows: DocumentRow[]; total: number }> {
  // A partner's failed documents — the partner's default view — are a range of its own list
  // (partner_failed_sales, kept by triggers), not a walk of the fleet's refusals for its 20.
  const fromList = keptFailures(scope, filter) && scope.partnerId !== undefined;
  const rows = await sql<DocumentRow>`
    select s.id, s.tenant_id, t.name as tenant_name, s.tpin, s.branch, s.type, s.invoice_no, s.status, s.client_invoice_no,
      s.receipt_no, s.sdc_id, s.net::text as net, s.vat::text as vat, s.total::text as total, s.currency, s.result_code, s.last_error,
      s.occurred_at, s.created_at, s.updated_at, s.replaces_sale_id, s.resolution_kind, s.resolved_at, s.resolved_by, s.resolution_note,
      s.replaced_by_sale_id, s.issued_by_type, s.issued_by_id, ${issuedByName('s')} as issued_by_name
    ${
      fromList
        ? // The page's ids first: joined before the limit, a generic plan merged the list with
          // sales_pkey, reading the fleet's newest documents down to the partner's.
          sql`from (select f.sale_id from partner_failed_sales f where f.partner_id = ${scope.partnerId}
                  order by f.sale_id desc limit ${sql.lit(PER_PAGE)} offset ${sql.lit(offsetOf(filter.page))}) f
        join sales s on s.id = f.sale_id join tenants t on t.id = s.tenant_id order by f.sale_id desc`
        : sql`from sales s join tenants t on t.id = s.tenant_id ${whereOf(scope, filter)} order by s.id desc
        limit ${sql.lit(PER_PAGE)} offset ${sql.lit(offsetOf(filter.page))}`
    }`.execute(db);
  return { rows: rows.rows, total: await countDocuments(db, scope, filter) };
}

/** A partner's or everyone's failed documents not resolved, on every branch: what the triggers keep (migration 0035). */
function keptFailures(scope: Scope, filter: DocumentsFilter): boolean {
  return filter.statuses.length === 1 && filter.statuses[0] === 'failed' && filter.branch === undefined && scope.tenantId === undefined;
}

/**
 * The documents the page is drawn from. A partner's or everyone's failed ones — the views' default
 * — are counted per partner by the triggers (partner_failed_documents); the rest here, with no
 * join: the partial index alone for the operator, and a merchant lookup per document for a
 * partner, not a read of every merchant of the partner.
 */
async function countDocuments(db: Kysely<DB>, scope: Scope, filter: DocumentsFilter): Promise<number> {
  let counted;
  if (keptFailures(scope, filter)) {
    counted = await sql<{
      n: number;
    }>`select coalesce(sum(documents), 0)::int as n from partner_failed_documents${scope.partnerId === undefined ? sql`` : sql` where partner_id = ${scope.partnerId}`}`.execute(
      db,
    );
  } else {
    counted = await sql<{ n: number }>`select count(*)::int as n from sales s ${whereOf(scope, filter)}`.execute(db);
  }
  return Number(counted.rows[0]?.n ?? 0);
}
