import { authorityOfTaxpayerId } from '../../kernel/devices/authorities.ts';
import type { BacklogRow } from './backlog-store.ts';
import type { DocumentRow } from './documents-store.ts';
import type { BranchBacklogResource, DocumentSummaryResource } from './schemas.ts';
import { iso } from '../../../platform/lib/time.ts';
import { authorityInvoiceNo, presentedStatus, presentIssuer, presentResolution } from '../../fiscal/sales/present.ts';

export function presentBacklog(row: BacklogRow, now: Date): BranchBacklogResource {
  const unreachable = row.retry_delay_ms !== null;
  const oldest = row.oldest_pending_at ? new Date(row.oldest_pending_at) : null;
  return {
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    tpin: row.tpin,
    partnerId: row.partner_id,
    branch: row.branch,
    branchName: row.branch_name,
    deviceSerial: row.device_serial,
    initialized: row.initialized,
    sdcId: row.sdc_id,
    pending: Number(row.pending),
    oldestPendingAt: iso(oldest),
    oldestPendingAgeSeconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000)) : null,
    failed: Number(row.failed),
    alarm: row.threshold_sec !== null && row.fired_at ? { thresholdSeconds: row.threshold_sec, firedAt: iso(row.fired_at)! } : null,
    vsdc: {
      state: unreachable ? 'unreachable' : row.last_status ? 'reachable' : 'unknown',
      lastOutcome: row.last_status,
      lastOutcomeAt: iso(row.last_outcome_at),
      lastError: unreachable ? row.last_error : null,
      nextAttemptAt: unreachable ? iso(row.next_attempt_at) : null,
    },
  };
}

export function presentDocument(row: DocumentRow): DocumentSummaryResource {
  const uploaded = row.status === 'uploaded';
  const receiptNo = uploaded && row.receipt_no !== null ? Number(row.receipt_no) : null;
  return {
    id: Number(row.id),
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    tpin: row.tpin,
    branch: row.branch,
    type: row.type,
    invoiceNo: Number(row.invoice_no),
    authorityInvoiceNo: uploaded
      ? authorityInvoiceNo(row.sdc_id, receiptNo, Number(row.invoice_no), authorityOfTaxpayerId(row.tpin))
      : null,
    receiptNo,
    status: presentedStatus(row.status),
    clientInvoiceNo: row.client_invoice_no,
    totals: { net: Number(row.net), vat: Number(row.vat), total: Number(row.total), currency: row.currency },
    resultCode: row.result_code,
    lastError: row.last_error,
    replacesSaleId: row.replaces_sale_id === null ? null : Number(row.replaces_sale_id),
    resolution: presentResolution({
      ...row,
      replaced_by_sale_id: row.replaced_by_sale_id === null ? null : Number(row.replaced_by_sale_id),
    }),
    issuedBy: presentIssuer({ ...row, issued_by_id: row.issued_by_id === null ? null : Number(row.issued_by_id) }),
    occurredAt: iso(row.occurred_at)!,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
