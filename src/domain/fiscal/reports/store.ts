// All SQL of daily reports and exports. A day's figures are aggregates computed by the database;
// an export reads documents page by page (keyset on occurred_at, id), never a whole range at once.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentStatus, DocumentType } from '../../../platform/db/tables/sales.ts';
import { issuedByName } from '../sales/store.ts';
import { partyNameOf } from '../../kernel/audit/store.ts';

/** One aggregate row: amounts are the database's exact decimal text. */
export interface AggregateRow {
  type: DocumentType;
  count: number;
  taxable: string;
  vat: string;
  total: string;
  discount: string;
}

export interface DayScope {
  tenantId: number;
  deviceId: number;
  from: Date;
  to: Date;
}

/** The day's documents of the branch, of every kind. */
const dayDocuments = (s: DayScope) =>
  sql`s.tenant_id = ${s.tenantId} and s.device_id = ${s.deviceId} and s.occurred_at >= ${s.from} and s.occurred_at < ${s.to}`;
/** The day's fiscal documents: training and proforma documents are never fiscal sales (shown apart: nonFiscalOfDay). */
const dayConditions = (s: DayScope) => sql`${dayDocuments(s)} and s.sales_type = 'normal'`;

/**
 * An amount of the document's currency in the authority's (ZMW for ZRA, KES for KRA), to the
 * cent: each document's (or line's) equivalent is rounded once, and reports add those up (in the
 * authority's currency the amount itself).
 */
const inHome = (amount: string) => sql.raw(`round(${amount} * s.exchange_rate, 2)`);

/** Every fiscal document of the day by type and status, with its lines' discounts, in the authority's currency. */
export async function documentsByTypeAndStatus(db: Kysely<DB>, scope: DayScope): Promise<Array<AggregateRow & { status: DocumentStatus }>> {
  const result = await sql<AggregateRow & { status: DocumentStatus }>`
    select s.type, s.status, count(*)::int as count, sum(${inHome('s.net')})::text as taxable, sum(${inHome('s.vat')})::text as vat,
      sum(${inHome('s.total')})::text as total, coalesce(sum(${inHome('d.discount')}), 0)::text as discount
    from sales s
    left join lateral (select sum(l.discount) as discount from sale_lines l where l.sale_id = s.id) d on true
    where ${dayConditions(scope)}
    group by s.type, s.status
    order by s.type, s.status`.execute(db);
  return result.rows;
}

/** Uploaded documents' lines per VAT category and rate, by document type. */
export async function vatCategoriesOfDay(
  db: Kysely<DB>,
  scope: DayScope,
): Promise<Array<AggregateRow & { category: string; rate: string }>> {
  const result = await sql<AggregateRow & { category: string; rate: string }>`
    select s.type, l.vat_category as category, l.vat_rate::text as rate, count(distinct s.id)::int as count,
      sum(${inHome('l.net')})::text as taxable, sum(${inHome('l.vat')})::text as vat, sum(${inHome('l.total')})::text as total,
      sum(${inHome('l.discount')})::text as discount
    from sales s join sale_lines l on l.sale_id = s.id
    where ${dayConditions(scope)} and s.status = 'uploaded'
    group by s.type, l.vat_category, l.vat_rate
    order by l.vat_category, l.vat_rate, s.type`.execute(db);
  return result.rows;
}

/** Uploaded documents per payment method, by document type. */
export async function paymentMethodsOfDay(db: Kysely<DB>, scope: DayScope): Promise<Array<AggregateRow & { method: string }>> {
  const result = await sql<AggregateRow & { method: string }>`
    select s.type, s.payment_method as method, count(*)::int as count, sum(${inHome('s.net')})::text as taxable, sum(${inHome('s.vat')})::text as vat,
      sum(${inHome('s.total')})::text as total, coalesce(sum(${inHome('d.discount')}), 0)::text as discount
    from sales s
    left join lateral (select sum(l.discount) as discount from sale_lines l where l.sale_id = s.id) d on true
    where ${dayConditions(scope)} and s.status = 'uploaded'
    group by s.type, s.payment_method
    order by s.payment_method, s.type`.execute(db);
  return result.rows;
}

/** The day's training and proforma documents (never fiscal), by kind and type, in the authority's currency. */
export async function nonFiscalOfDay(
  db: Kysely<DB>,
  scope: DayScope,
): Promise<Array<AggregateRow & { sales_type: 'training' | 'proforma' }>> {
  const result = await sql<AggregateRow & { sales_type: 'training' | 'proforma' }>`
    select s.sales_type, s.type, count(*)::int as count, sum(${inHome('s.net')})::text as taxable, sum(${inHome('s.vat')})::text as vat,
      sum(${inHome('s.total')})::text as total, '0' as discount
    from sales s
    where ${dayDocuments(scope)} and s.sales_type <> 'normal'
    group by s.sales_type, s.type
    order by s.sales_type, s.type`.execute(db);
  return result.rows;
}

/** A closed day of a branch, as its Z report counted it: the day and its UTC instants [from, to). */
export interface CountedDay {
  day: string;
  from: Date;
  to: Date;
}

/**
 * The branch's fiscal documents of each day as they are now, every status, by type: beside what
 * each day's Z counted, what was stored after it (service.ts). One statement for all the days.
 */
export async function documentsOfDaysByType(
  db: Kysely<DB>,
  tenantId: number,
  deviceId: number,
  days: readonly CountedDay[],
): Promise<Array<AggregateRow & { day: string }>> {
  if (days.length === 0) return [];
  const ranges = sql.join(days.map((d) => sql`(${d.day}::text, ${d.from}::timestamptz, ${d.to}::timestamptz)`));
  const result = await sql<AggregateRow & { day: string }>`
    select r.day, s.type, count(*)::int as count, sum(${inHome('s.net')})::text as taxable, sum(${inHome('s.vat')})::text as vat,
      sum(${inHome('s.total')})::text as total, coalesce(sum(${inHome('d.discount')}), 0)::text as discount
    from (values ${ranges}) as r(day, starts, ends)
    join sales s on s.tenant_id = ${tenantId} and s.device_id = ${deviceId} and s.occurred_at >= r.starts and s.occurred_at < r.ends and s.sales_type = 'normal'
    left join lateral (select sum(l.discount) as discount from sale_lines l where l.sale_id = s.id) d on true
    group by r.day, s.type
    order by r.day, s.type`.execute(db);
  return result.rows;
}

interface DayNumbers {
  first_invoice_no: number | null;
  last_invoice_no: number | null;
  first_receipt_no: number | null;
  last_receipt_no: number | null;
}

export async function numbersOfDay(db: Kysely<DB>, scope: DayScope): Promise<DayNumbers> {
  const result = await sql<DayNumbers>`
    select min(s.invoice_no) as first_invoice_no, max(s.invoice_no) as last_invoice_no,
      min(s.receipt_no) filter (where s.status = 'uploaded') as first_receipt_no,
      max(s.receipt_no) filter (where s.status = 'uploaded') as last_receipt_no
    from sales s where ${dayConditions(scope)}`.execute(db);
  const row = result.rows[0];
  const n = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    first_invoice_no: n(row?.first_invoice_no),
    last_invoice_no: n(row?.last_invoice_no),
    first_receipt_no: n(row?.first_receipt_no),
    last_receipt_no: n(row?.last_receipt_no),
  };
}

export interface StoredZ {
  report: string;
  /** Who closed the day, named as the audit trail names people (kernel/audit partyName). */
  closer_name: string | null;
}

/** The stored Z's columns, with the name of who closed it. */
const STORED_Z = ['report', partyNameOf(sql.ref('daily_reports.closed_by')).as('closer_name')] as const;

export async function findZReport(db: Kysely<DB>, deviceId: number, day: string): Promise<StoredZ | undefined> {
  return db.selectFrom('daily_reports').select(STORED_Z).where('device_id', '=', deviceId).where('day', '=', day).executeTakeFirst();
}

/** One page of a branch's Z reports, the latest day first (the primary key's order), and how many it has. */
export async function zReportsOfBranch(
  db: Kysely<DB>,
  deviceId: number,
  limit: number,
  offset: number,
): Promise<{ reports: StoredZ[]; total: number }> {
  const [reports, counted] = await Promise.all([
    db
      .selectFrom('daily_reports')
      .select(STORED_Z)
      .where('device_id', '=', deviceId)
      .orderBy('day', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('daily_reports')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('device_id', '=', deviceId)
      .executeTakeFirstOrThrow(),
  ]);
  return { reports, total: Number(counted.total) };
}

/** Stores the Z report unless the day was closed already; true when this call stored it. */
export async function insertZReport(
  db: Kysely<DB>,
  values: { deviceId: number; tenantId: number; branch: string; day: string; report: string; closedAt: Date; closedBy: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('daily_reports')
    .values({
      device_id: values.deviceId,
      tenant_id: values.tenantId,
      branch: values.branch,
      day: values.day,
      report: values.report,
      closed_at: values.closedAt,
      closed_by: values.closedBy,
    })
    .onConflict((oc) => oc.columns(['device_id', 'day']).doNothing())
    .returning('day')
    .executeTakeFirst();
  return inserted !== undefined;
}

export interface ExportScope {
  tenantId: number;
  deviceId?: number;
  from: Date;
  to: Date;
}

/** Where the previous page ended: the last document's occurred_at (as exact text) and id. */
export interface ExportCursor {
  occurredAt: string;
  id: string;
}

/** One line of one document (a row of the export). */
export interface ExportRow {
  id: string;
  cursor_at: string;
  type: DocumentType;
  status: DocumentStatus;
  branch: string;
  invoice_no: string;
  receipt_no: string | null;
  sdc_id: string | null;
  client_invoice_no: string | null;
  occurred_at: Date;
  customer_name: string;
  customer_tpin: string | null;
  payment_method: string;
  tax_inclusive: boolean;
  currency: string;
  doc_taxable: string;
  doc_vat: string;
  doc_total: string;
  original_sale_id: string | null;
  reason_code: string | null;
  result_code: string | null;
  line: number | null;
  name: string | null;
  classification_code: string | null;
  item_code: string | null;
  quantity: string | null;
  price: string | null;
  vat_category: string | null;
  vat_rate: string | null;
  amount: string | null;
  discount: string | null;
  taxable: string | null;
  vat: string | null;
  total: string | null;
  sales_type: string;
  exchange_rate: string;
  doc_total_home: string;
  lpo_number: string | null;
  issued_by_type: string | null;
  issued_by_id: string | null;
  issued_by_name: string | null;
}

/** The next `limit` documents after `cursor`, with their lines, in (occurred_at, id, line) order. */
export async function exportPage(
  db: Kysely<DB>,
  scope: ExportScope,
  cursor: ExportCursor | undefined,
  limit: number,
): Promise<ExportRow[]> {
  const after = cursor === undefined ? sql`` : sql`and (s.occurred_at, s.id) > (${cursor.occurredAt}::timestamptz, ${cursor.id}::bigint)`;
  const branch = scope.deviceId === undefined ? sql`` : sql`and s.device_id = ${scope.deviceId}`;
  const result = await sql<ExportRow>`
    with page as (
      select s.* from sales s
      where s.tenant_id = ${scope.tenantId} ${branch} and s.occurred_at >= ${scope.from} and s.occurred_at < ${scope.to} ${after}
      order by s.occurred_at, s.id
      limit ${limit}
    )
    select p.id::text as id, p.occurred_at::text as cursor_at, p.type, p.status, p.branch, p.invoice_no::text as invoice_no,
      p.receipt_no::text as receipt_no, p.sdc_id, p.client_invoice_no, p.occurred_at, p.customer_name, p.customer_tpin, p.payment_method,
      p.tax_inclusive, p.currency, p.net::text as doc_taxable, p.vat::text as doc_vat, p.total::text as doc_total,
      p.original_sale_id::text as original_sale_id, p.reason_code, p.result_code,
      l.line, l.name, l.classification_code, l.item_code, l.quantity::text as quantity, l.price::text as price, l.vat_category,
      l.vat_rate::text as vat_rate, l.amount::text as amount, l.discount::text as discount, l.net::text as taxable, l.vat::text as vat,
      l.total::text as total, p.sales_type, p.exchange_rate::text as exchange_rate,
      round(p.total * p.exchange_rate, 2)::text as doc_total_home, p.lpo_number,
      p.issued_by_type, p.issued_by_id::text as issued_by_id, ${issuedByName('p')} as issued_by_name
    from page p left join sale_lines l on l.sale_id = p.id
    order by p.occurred_at, p.id, l.line`.execute(db);
  return result.rows;
}
