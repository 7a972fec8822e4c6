// Files one branch's pending documents with its VSDC: one at a time, in invoice order, under the
// branch's lease. No database transaction is ever open across a VSDC call.
import type { AppContext } from '../../context.ts';
import type { DeviceTarget } from '../../vsdc/client.ts';
import { buildSaveSalesBody, reconcileDuplicate, SaleDocumentError, toFiscalReceipt, type FiscalReceipt, type SaleDocument } from '../../vsdc/sales-body.ts';
import type { VatCategoryCode } from '../../vsdc/tax.ts';
import type { PaymentTypeCode } from '../../vsdc/sales-body.ts';
import { enqueueEvent } from '../webhooks/events.ts';
import { presentLineRow, presentSale } from '../sales/present.ts';
import { OUTCOME_CHANNEL, saleSignals, signalPayload } from '../sales/signals.ts';
import {
  claimBranch,
  deferBranch,
  nextBatchOrRelease,
  recordFailed,
  recordUploaded,
  releaseBranch,
  renewLease,
  type BranchTarget,
  type PendingDocument,
} from './store.ts';

/** The longest wait between retries of an unreachable VSDC (FILING_RETRY_MS doubles up to it). */
export const MAX_RETRY_DELAY_MS = 300_000;
const BATCH_SIZE = 25;

export type DrainResult =
  /** Another process holds the branch, or its backoff has not passed. */
  | { kind: 'not_claimed' }
  /** Nothing left to file (or the filer is stopping). */
  | { kind: 'done' }
  /** The VSDC did not answer: the branch is retried after `retryInMs`. */
  | { kind: 'deferred'; retryInMs: number }
  /** The lease was lost (this process stalled past it); whoever holds it carries on. */
  | { kind: 'lease_lost' };

type FileResult = { kind: 'recorded'; leaseHeld: boolean } | { kind: 'unreachable'; reason: string } | { kind: 'stopped' };

const RECEIPT_TYPE = { sale: 'S', credit_note: 'R', debit_note: 'D' } as const;

function saleDocument({ row, lines }: PendingDocument): SaleDocument {
  return {
    tpin: row.tpin,
    bhfId: row.branch,
    invoiceNo: Number(row.invoice_no),
    receiptType: RECEIPT_TYPE[row.type],
    originalReceiptNo: row.original_receipt_no === null ? null : Number(row.original_receipt_no),
    originalSdcId: row.original_sdc_id,
    customer: { tpin: row.customer_tpin, name: row.customer_name },
    paymentMethod: row.payment_method as PaymentTypeCode,
    occurredAt: new Date(row.occurred_at),
    taxInclusive: row.tax_inclusive,
    destinationCountryCode: row.destination_country_code,
    reasonCode: row.reason_code,
    currency: 'ZMW',
    lines: lines.map((l) => ({
      name: l.name,
      classificationCode: l.classification_code,
      itemCode: l.item_code,
      quantity: l.quantity,
      price: l.price,
      vatCategory: l.vat_category as VatCategoryCode,
    })),
  };
}

export class BranchFiler {
  constructor(
    private readonly ctx: AppContext,
    /** Who holds a lease: unique per filer instance. */
    private readonly owner: string,
    /** Set when the worker stops: no further document is started. */
    private readonly stop: AbortSignal,
    /** Set when the stop's grace period ends: in-flight VSDC calls are cut. */
    private readonly signal: AbortSignal,
  ) {}

  /** Lease covers one VSDC call plus the database work around it; renewed at every outcome. */
  get leaseMs(): number {
    return this.ctx.config.vsdcTimeoutMs + 5_000;
  }

  /** Files the branch's pending documents until none is left, the VSDC stops answering, or stop. */
  async drain(deviceId: number): Promise<DrainResult> {
    const claim = await claimBranch(this.ctx.db, deviceId, this.owner, this.leaseMs, BATCH_SIZE);
    if (!claim) return { kind: 'not_claimed' };
    const { target } = claim;
    let retryDelayMs = claim.retryDelayMs;
    try {
      // Claimed with nothing to do (woken by a document already filed): this also releases.
      let batch = claim.batch.length > 0 ? claim.batch : await nextBatchOrRelease(this.ctx.db, deviceId, this.owner, BATCH_SIZE);
      while (batch.length > 0) {
        for (const doc of batch) {
          if (this.stop.aborted) {
            await releaseBranch(this.ctx.db, deviceId, this.owner);
            return { kind: 'done' };
          }
          const result = await this.file(target, doc);
          if (result.kind === 'stopped') {
            await releaseBranch(this.ctx.db, deviceId, this.owner);
            return { kind: 'done' };
          }
          if (result.kind === 'unreachable') {
            const delay = retryDelayMs ?? this.ctx.config.filingRetryMs;
            await deferBranch(this.ctx.db, deviceId, this.owner, delay, Math.min(delay * 2, MAX_RETRY_DELAY_MS), result.reason);
            return { kind: 'deferred', retryInMs: delay };
          }
          if (!result.leaseHeld) return { kind: 'lease_lost' };
          retryDelayMs = null;
        }
        batch = await nextBatchOrRelease(this.ctx.db, deviceId, this.owner, BATCH_SIZE);
      }
      return { kind: 'done' };
    } catch (err) {
      // A database failure mid-drain: give the branch back after the first backoff step.
      const delay = this.ctx.config.filingRetryMs;
      await deferBranch(this.ctx.db, deviceId, this.owner, delay, retryDelayMs ?? delay, `filer error: ${(err as Error).message}`).catch(() => {});
      throw err;
    }
  }

  private target(target: BranchTarget, doc: PendingDocument): DeviceTarget {
    return { baseUrl: target.baseUrl, tpin: doc.row.tpin, bhfId: target.branch };
  }

  /** One document: send it, read the answer, record the outcome (with its event). */
  private async file(target: BranchTarget, doc: PendingDocument): Promise<FileResult> {
    let body;
    try {
      body = buildSaveSalesBody(saleDocument(doc));
    } catch (err) {
      if (err instanceof SaleDocumentError) return this.fail(target, doc, null, `The gateway could not build this document: ${err.message}`);
      throw err;
    }
    const vsdcTarget = this.target(target, doc);
    const outcome = await this.ctx.vsdc.saveSales(vsdcTarget, body, { signal: this.signal });
    switch (outcome.kind) {
      case 'ok':
        return this.upload(target, doc, toFiscalReceipt(outcome.data, outcome.resultDt, this.ctx.clock.now()));
      case 'rejected':
        return this.fail(target, doc, outcome.code, outcome.message || `The authority refused the document (result code ${outcome.code}).`);
      case 'unreachable':
        return outcome.reason === 'aborted' && this.signal.aborted ? { kind: 'stopped' } : { kind: 'unreachable', reason: `${outcome.reason}: ${outcome.detail}` };
      case 'duplicate':
        return this.reconcile(target, doc, vsdcTarget);
    }
  }

  /**
   * 924: the VSDC already holds this invoice number, usually because the reply to an earlier
   * attempt was lost. Adopt the filed receipt if its total matches; else an operator must look.
   */
  private async reconcile(target: BranchTarget, doc: PendingDocument, vsdcTarget: DeviceTarget): Promise<FileResult> {
    const invoiceNo = String(doc.row.invoice_no);
    if (target.sdcId === null) return this.fail(target, doc, '924', `Invoice number ${invoiceNo} is already filed (924) and the branch has no SDC id to look it up with.`);
    if (!(await renewLease(this.ctx.db, target.deviceId, this.owner, this.leaseMs))) return { kind: 'recorded', leaseHeld: false };
    const found = await this.ctx.vsdc.selectInvoice(vsdcTarget, { cisInvcNo: invoiceNo, invcSdcId: target.sdcId }, { signal: this.signal });
    switch (found.kind) {
      case 'ok': {
        const decision = reconcileDuplicate(found.data, Number(doc.row.total), found.resultDt);
        return decision.adopt ? this.upload(target, doc, decision.receipt) : this.fail(target, doc, '924', decision.lastError);
      }
      case 'empty':
        return this.fail(target, doc, '924', `The VSDC says invoice number ${invoiceNo} is already filed (924) but selectInvoice finds no such invoice.`);
      case 'rejected':
        return this.fail(target, doc, '924', `Invoice number ${invoiceNo} is already filed (924); looking it up failed: ${found.code} ${found.message}`);
      case 'unreachable':
        return found.reason === 'aborted' && this.signal.aborted ? { kind: 'stopped' } : { kind: 'unreachable', reason: `${found.reason}: ${found.detail}` };
    }
  }

  private outcomeOptions(saleId: number) {
    const notify = this.ctx.database.kind === 'postgres' ? { notify: { channel: OUTCOME_CHANNEL, payload: signalPayload(saleId) } } : {};
    return { owner: this.owner, leaseMs: this.leaseMs, ...notify };
  }

  private upload(target: BranchTarget, doc: PendingDocument, receipt: FiscalReceipt): Promise<FileResult> {
    const full = { ...receipt, sdcId: receipt.sdcId ?? target.sdcId, mrcNo: receipt.mrcNo ?? target.mrcNo };
    return this.record(target, doc, 'invoice.fiscalised', (trx, saleId) => recordUploaded(trx, saleId, target.deviceId, full, this.outcomeOptions(saleId)));
  }

  private fail(target: BranchTarget, doc: PendingDocument, resultCode: string | null, lastError: string): Promise<FileResult> {
    return this.record(target, doc, 'invoice.failed', (trx, saleId) => recordFailed(trx, saleId, target.deviceId, resultCode, lastError, this.outcomeOptions(saleId)));
  }

  /** The outcome and its webhook event commit together, or not at all. */
  private async record(
    target: BranchTarget,
    doc: PendingDocument,
    event: 'invoice.fiscalised' | 'invoice.failed',
    write: (trx: AppContext['db'], saleId: number) => ReturnType<typeof recordUploaded>,
  ): Promise<FileResult> {
    const saleId = Number(doc.row.id);
    const recorded = await this.ctx.db.transaction().execute(async (trx) => {
      const row = await write(trx, saleId);
      if (!row) return undefined;
      const { lease_held: leaseHeld, ...sale } = row;
      const invoice = presentSale(sale, doc.lines.map(presentLineRow));
      await enqueueEvent(trx, { type: event, partnerId: target.partnerId, tenantId: target.tenantId, data: { invoice }, created: this.ctx.clock.now() }, this.ctx.database.notifier);
      return { leaseHeld };
    });
    saleSignals(this.ctx).outcomeRecorded(saleId);
    return { kind: 'recorded', leaseHeld: recorded?.leaseHeld ?? (await renewLease(this.ctx.db, target.deviceId, this.owner, this.leaseMs)) };
  }
}
