// The console's read models as pages of resources: each store answers rows, presented here.
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { SaleStatus } from '../../../platform/db/tables/sales.ts';
import { storedStatuses } from '../../fiscal/sales/store.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { listBacklog } from './backlog-store.ts';
import { listDocuments } from './documents-store.ts';
import { presentBacklog, presentDocument } from './present.ts';
import type { BranchBacklogResource, DocumentSummaryResource } from './schemas.ts';
import type { Scope } from './scope.ts';

export async function backlogPage(
  db: Kysely<DB>,
  scope: Scope,
  options: { page: number; pendingOnly?: boolean },
  now: Date,
): Promise<Page<BranchBacklogResource>> {
  const { rows, total } = await listBacklog(db, scope, options);
  return pageOf(
    rows.map((row) => presentBacklog(row, now)),
    total,
    options.page,
  );
}

/**
 * `status` defaults to `failed` and `resolved` to `false`: the refused documents still to deal with,
 * the views' default (counted by the triggers of 0035).
 */
export async function documentsPage(
  db: Kysely<DB>,
  scope: Scope,
  filter: { status?: SaleStatus | undefined; resolved?: boolean | undefined; branch?: string | undefined; page: number },
): Promise<Page<DocumentSummaryResource>> {
  const statuses = storedStatuses({ status: filter.status ?? 'failed', resolved: filter.resolved ?? false })!;
  const { rows, total } = await listDocuments(db, scope, {
    statuses,
    page: filter.page,
    ...(filter.branch ? { branch: filter.branch } : {}),
  });
  return pageOf(rows.map(presentDocument), total, filter.page);
}
