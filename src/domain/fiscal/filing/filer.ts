// Files one branch's pending documents with its VSDC: one at a time, in invoice order, under the
// branch's lease. No database transaction is ever open across a VSDC call.
import { classificationCatalogue } from '../../kernel/catalogue/service.ts';
import type { AppContext } from '../../kernel/context.ts';
import { nextBackoffMs } from '../../../platform/workers/backoff.ts';
import { Money } from '../../../authorities/port/amounts.ts';
import { FiscalDocumentError } from '../../../authorities/port/filing.ts';
import type { AuthorityDevice, FilingDetails, FiscalDocument, FiscalReceipt } from '../../../authorities/port/index.ts';
import type { InvoiceEventType } from '../../kernel/outbox/events.ts';
import { recordDocumentOutcome } from './outcome.ts';
import {
  claimBranches,
  deferBranch,
  nextBatchOrRelease,
  releaseBranch,
  renewLease,
  type BranchTarget,
  type ClaimedBranch,
} from './queue.ts';
import { failedFields, uploadedFields, type OutcomeFields } from './outcome-store.ts';
import type { PendingDocument } from './pending-documents.ts';

/**
 * A branch's documents read ahead of filing, at the claim and then by the outcome of the last one
 * in hand (in the same statement either way). Small, because thousands of branches may be in
 * flight at once and each holds its read-ahead in memory; the VSDC call is the slow part anyway.
 */
const FETCH_SIZE = 5;
/** Documents a turn files before it gives its branch back, when other branches wait. */
const TURN_SIZE = 25;

type DrainResult =
  /** Another process holds the branch, or its backoff has not passed. */
  | { kind: 'not_claimed' }
  /** Nothing left to file (or the filer is stopping). */
  | { kind: 'done' }
  /** The stop's grace ended during a VSDC call: the document stays pending, the branch is given back. */
  | { kind: 'cut' }
  /** The VSDC did not answer: the branch is retried after `retryInMs`. */
  | { kind: 'deferred'; retryInMs: number }
  /** The lease was lost (this process stalled past it); whoever holds it carries on. */
  | { kind: 'lease_lost' }
  /** Documents remain, but other branches waited for a turn: the branch was given back. */
  | { kind: 'yielded' };

type FileResult =
  /** `next`: for the last document in hand, the branch's following ones (empty: branch given back). */
  { kind: 'recorded'; leaseHeld: boolean; next?: PendingDocument[] } | { kind: 'unreachable'; reason: string } | { kind: 'stopped' };

/** Two totals the authority holds for equal: they differ by at most its tolerance (exact decimals). */
export function sameTotal(filed: number | string, document: number | string, tolerance: number): boolean {
  return new Money(filed).minus(new Money(document)).abs().lte(tolerance);
}

/** The document as its stored row and lines say (what a retry files, whoever files it). */
export function fiscalDocument({ row, lines }: PendingDocument): FiscalDocument {
  return {
    type: row.type,
    invoiceNo: Number(row.invoice_no),
    salesType: row.sales_type,
    original:
      row.type === 'sale'
        ? null
        : {
            invoiceNo: row.original_invoice_no === null ? null : Number(row.original_invoice_no),
            receiptNo: row.original_receipt_no === null ? null : Number(row.original_receipt_no),
            sdcId: row.original_sdc_id,
          },
    customer: { tpin: row.customer_tpin, name: row.customer_name },
    paymentMethod: row.payment_method,
    occurredAt: new Date(row.occurred_at),
    taxInclusive: row.tax_inclusive,
    destinationCountryCode: row.destination_country_code,
    reasonCode: row.reason_code,
    currency: row.currency,
    exchangeRate: Number(row.exchange_rate),
    lpoNumber: row.lpo_number,
    principalId: row.principal_id,
    remark: null,
    reference: row.client_invoice_no ?? row.reference,
    details: row.filing_details === null ? null : (JSON.parse(row.filing_details) as FilingDetails),
    lines: lines.map((l) => ({
      name: l.name,
      classificationCode: l.classification_code,
      itemCode: l.item_code,
      quantity: l.quantity,
      price: l.price,
      vatCategory: l.vat_category,
      discount: l.discount,
      rrp: l.rrp,
      rate: Number(l.vat_rate),
      // A credit line files the share of the original line it was allocated when stored.
      allocated: row.type === 'credit_note' ? { amount: l.amount, discount: l.discount, supply: l.supply, net: l.net, vat: l.vat } : null,
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
    /** A branch that was in backoff filed a document: its VSDC address answers again. */
    private readonly onRecovered: (target: BranchTarget) => void = () => {},
  ) {}

  /** Lease covers one VSDC call plus the database work around it; renewed at every outcome. */
  get leaseMs(): number {
    return this.ctx.config.vsdcTimeoutMs + 5_000;
  }

  /** Takes the branches that are free (one statement for all of them); the others are left out. */
  claim(deviceIds: readonly number[]): Promise<Map<number, ClaimedBranch>> {
    return claimBranches(this.ctx.db, this.ctx.secretBox, deviceIds, this.owner, this.leaseMs, FETCH_SIZE);
  }

  /**
   * Files a claimed branch's pending documents until none is left, the VSDC stops answering, or
   * stop; without a claim (another process holds the branch, or its backoff has not passed) it
   * does nothing. Once a turn has filed TURN_SIZE documents, it gives the branch back
   * between batches when `othersWaiting` says other branches wait for a turn, so one long
   * backlog cannot keep them waiting.
   */
  async drain(deviceId: number, claim: ClaimedBranch | undefined, othersWaiting: () => boolean = () => false): Promise<DrainResult> {
    if (!claim) return { kind: 'not_claimed' };
    const { target } = claim;
    let retryDelayMs = claim.retryDelayMs;
    let filedThisTurn = 0;
    try {
      // Claimed with nothing to do (woken by a document already filed): this also releases.
      let batch = claim.batch.length > 0 ? claim.batch : await nextBatchOrRelease(this.ctx.db, deviceId, this.owner, FETCH_SIZE);
      while (batch.length > 0) {
        let next: PendingDocument[] | undefined;
        for (const [i, doc] of batch.entries()) {
          if (this.stop.aborted) {
            await releaseBranch(this.ctx.db, deviceId, this.owner);
            return { kind: 'done' };
          }
          const result = await this.file(target, doc, i === batch.length - 1);
          if (result.kind === 'stopped') {
            await releaseBranch(this.ctx.db, deviceId, this.owner);
            return { kind: 'cut' };
          }
          if (result.kind === 'unreachable') {
            const delay = retryDelayMs ?? this.ctx.config.filingRetryMs;
            await deferBranch(this.ctx.db, deviceId, this.owner, delay, nextBackoffMs(delay), result.reason);
            return { kind: 'deferred', retryInMs: delay };
          }
          if (!result.leaseHeld) return { kind: 'lease_lost' };
          if (retryDelayMs !== null) this.onRecovered(target);
          retryDelayMs = null;
          filedThisTurn++;
          next = result.next;
        }
        // The last outcome statement read what follows (and gave the branch back if nothing does).
        batch = next ?? (await nextBatchOrRelease(this.ctx.db, deviceId, this.owner, FETCH_SIZE));
        if (batch.length > 0 && filedThisTurn >= TURN_SIZE && othersWaiting()) {
          await releaseBranch(this.ctx.db, deviceId, this.owner);
          return { kind: 'yielded' };
        }
      }
      return { kind: 'done' };
    } catch (err) {
      // A database failure mid-drain: give the branch back after the first backoff step.
      const delay = this.ctx.config.filingRetryMs;
      await deferBranch(this.ctx.db, deviceId, this.owner, delay, retryDelayMs ?? delay, `filer error: ${(err as Error).message}`).catch(
        () => {},
      );
      throw err;
    }
  }

  private device(target: BranchTarget, doc: PendingDocument): AuthorityDevice {
    return {
      profile: target.profile,
      baseUrl: target.baseUrl,
      tpin: doc.row.tpin,
      branch: target.branch,
      sdcId: target.sdcId,
      mrcNo: target.mrcNo,
      ...target.secrets,
    };
  }

  /** One document: send it, read the answer, record the outcome (with its event). `last`: the last one in hand. */
  private async file(target: BranchTarget, doc: PendingDocument, last: boolean): Promise<FileResult> {
    const authority = this.ctx.authorities.of(target.profile);
    const refused = await this.unknownClassifications(authority.profile.authority, doc);
    if (refused) return this.fail(target, doc, last, null, refused);
    const device = this.device(target, doc);
    const document = fiscalDocument(doc);
    let outcome;
    try {
      outcome = await authority.filing.file(device, document, { signal: this.signal });
    } catch (err) {
      if (err instanceof FiscalDocumentError)
        return this.fail(target, doc, last, null, `The gateway could not build this document: ${err.message}`);
      throw err;
    }
    switch (outcome.kind) {
      case 'ok':
        return this.upload(target, doc, last, outcome.receipt);
      case 'rejected':
        return this.fail(
          target,
          doc,
          last,
          outcome.code,
          outcome.message || `The authority refused the document (result code ${outcome.code}).`,
        );
      case 'unreachable':
        return outcome.reason === 'aborted' && this.signal.aborted
          ? { kind: 'stopped' }
          : { kind: 'unreachable', reason: `${outcome.reason}: ${outcome.detail}` };
      case 'duplicate':
        return this.reconcile(target, doc, last, device, document, outcome.code);
    }
  }

  /**
   * A document stored while the classification catalogue could not be fetched (a new gateway in
   * an outage) was accepted without its codes checked: they are checked here, before it is filed,
   * and a code the catalogue lacks fails it as the VSDC's 913 would. A catalogue still never
   * fetched checks nothing (the VSDC judges).
   */
  private async unknownClassifications(authority: string, doc: PendingDocument): Promise<string | null> {
    const unknown = await classificationCatalogue(this.ctx).uncheckedOrUnknown(
      authority,
      doc.lines.map((line) => line.classification_code),
      { fill: 'never' },
    );
    if (!unknown?.length) return null;
    const where = doc.lines
      .filter((line) => unknown.includes(line.classification_code))
      .map((line) => `line ${line.line} classificationCode ${line.classification_code}`);
    return `Not in the authority's classification catalogue: ${[...new Set(where)].join(', ')} (checked before filing: the document was stored while the catalogue could not be fetched). Reissue it with valid codes; GET /api/v1/item-classes lists them.`;
  }

  /**
   * The authority already holds this invoice number (ZRA's 924), usually because the reply to an
   * earlier attempt was lost. Adopt the filed receipt if its total matches; else an operator must look.
   */
  private async reconcile(
    target: BranchTarget,
    doc: PendingDocument,
    last: boolean,
    device: AuthorityDevice,
    document: FiscalDocument,
    code: string,
  ): Promise<FileResult> {
    const invoice = `Invoice number ${document.invoiceNo}${document.salesType === 'normal' ? '' : ` (${document.salesType})`}`;
    if (target.sdcId === null)
      return this.fail(target, doc, last, code, `${invoice} is already filed (${code}) and the branch has no SDC id to look it up with.`);
    if (!(await renewLease(this.ctx.db, target.deviceId, this.owner, this.leaseMs))) return { kind: 'recorded', leaseHeld: false };
    const authority = this.ctx.authorities.of(target.profile);
    const found = await authority.filing.findFiled(device, document, { signal: this.signal });
    switch (found.kind) {
      case 'ok': {
        if (!sameTotal(found.total, Number(doc.row.total), authority.profile.amountTolerance)) {
          return this.fail(
            target,
            doc,
            last,
            code,
            `invoice number already filed with a different total (the authority's ${found.total}, document ${Number(doc.row.total)})`,
          );
        }
        return this.upload(target, doc, last, found.receipt);
      }
      case 'unreadable':
        return this.fail(
          target,
          doc,
          last,
          code,
          `The authority reported the invoice as filed but its record is unreadable: ${found.problem}`,
        );
      case 'empty':
        return this.fail(
          target,
          doc,
          last,
          code,
          `The authority says ${invoice.toLowerCase()} is already filed (${code}) but finds no such invoice.`,
        );
      case 'rejected':
        return this.fail(
          target,
          doc,
          last,
          code,
          `${invoice} is already filed (${code}); looking it up failed: ${found.code} ${found.message}`,
        );
      case 'unreachable':
        return found.reason === 'aborted' && this.signal.aborted
          ? { kind: 'stopped' }
          : { kind: 'unreachable', reason: `${found.reason}: ${found.detail}` };
    }
  }

  private upload(target: BranchTarget, doc: PendingDocument, last: boolean, receipt: FiscalReceipt): Promise<FileResult> {
    const full = { ...receipt, sdcId: receipt.sdcId ?? target.sdcId, mrcNo: receipt.mrcNo ?? target.mrcNo };
    return this.record(target, doc, last, 'invoice.fiscalised', uploadedFields(full));
  }

  private fail(
    target: BranchTarget,
    doc: PendingDocument,
    last: boolean,
    resultCode: string | null,
    lastError: string,
  ): Promise<FileResult> {
    return this.record(target, doc, last, 'invoice.failed', failedFields(resultCode, lastError));
  }

  /**
   * The outcome under the branch's filing lease (filing/outcome.ts); for the last document in
   * hand it also reads the branch's next ones.
   */
  private async record(
    target: BranchTarget,
    doc: PendingDocument,
    last: boolean,
    type: InvoiceEventType,
    fields: OutcomeFields,
  ): Promise<FileResult> {
    const recorded = await recordDocumentOutcome(this.ctx, {
      row: doc.row,
      lines: doc.lines,
      type,
      fields,
      partnerId: target.partnerId,
      lease: { owner: this.owner, leaseMs: this.leaseMs },
      ...(last ? { next: { batchSize: FETCH_SIZE } } : {}),
    });
    return { kind: 'recorded', leaseHeld: recorded.leaseHeld, ...(last ? { next: recorded.next } : {}) };
  }
}
