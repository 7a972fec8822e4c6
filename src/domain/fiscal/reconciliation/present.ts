import type { Static } from 'typebox';
import type { Difference, Reconciliation, ReconciliationResult } from './schemas.ts';
import type { ResultRow, RunRow } from './store.ts';
import { iso } from '../../../platform/lib/time.ts';

export type ReconciliationResource = Static<typeof Reconciliation>;
export type ResultResource = Static<typeof ReconciliationResult>;
export type DifferenceResource = Static<typeof Difference>;

export function presentRun(row: RunRow): ReconciliationResource {
  return {
    id: Number(row.id),
    tenantId: row.tenant_id,
    branch: row.branch,
    from: row.date_from,
    to: row.date_to,
    status: row.status,
    requestedBy: row.requested_by,
    pendingAfterSeconds: row.pending_after_sec,
    progress: {
      total: row.total,
      checked: row.checked,
      matches: row.matches,
      mismatches: row.mismatches,
      unknown: row.unknown,
      adopted: row.adopted,
      notFiled: row.not_filed,
    },
    lastError: row.last_error,
    createdAt: iso(row.created_at),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

export function presentResult(row: ResultRow): ResultResource {
  return {
    saleId: Number(row.sale_id),
    invoiceNo: Number(row.invoice_no),
    outcome: row.outcome!,
    differences: row.differences === null ? [] : (JSON.parse(row.differences) as DifferenceResource[]),
    checkedAt: iso(row.checked_at)!,
  };
}
