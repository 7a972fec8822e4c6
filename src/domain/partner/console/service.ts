// The console's read models as pages of resources: each store answers rows, presented here.
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { listBacklog } from './backlog-store.ts';
import { listDocuments } from './documents-store.ts';
import { presentBacklog, presentDocument } from './present.ts';
import type { BranchBacklogResource, DocumentSummaryResource } from './schemas.ts';
import type { Scope } from './scope.ts';

export async function backlogPage(db: Kysely<DB>, scope: Scope, options: { page: number; pendingOnly?: boolean }, now: Date): Promise<Page<BranchBacklogResource>> {
  const { rows, total } = await listBacklog(db, scope, options);
  return pageOf(rows.map((row) => presentBacklog(row, now)), total, options.page);
}

export async function documentsPage(db: Kysely<DB>, scope: Scope, filter: { status: Parameters<typeof listDocuments>[2]['status']; branch?: string; page: number }): Promise<Page<DocumentSummaryResource>> {
  const { rows, total } = await listDocuments(db, scope, filter);
  return pageOf(rows.map(presentDocument), total, filter.page);
}
