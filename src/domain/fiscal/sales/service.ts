// The rules of sales: defaults, idempotency, storing a document in its branch's sequence and
// waiting briefly for its filing (the write path, shared with notes.ts). The reads are in
// reads.ts; the field rules in validation.ts; credit and debit notes in notes.ts.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import { isDatabaseUnavailable } from '../../../platform/db/availability.ts';
import { ApiError, FieldErrors } from '../../../platform/errors/errors.ts';
import type { ComputedSale, FilingDetails } from '../../../authorities/port/index.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { branchForWrite, merchantOrigin } from '../../kernel/devices/branch-rule.ts';
import { checkAuthorityFields } from './authority-fields.ts';
import type { Issuer, Party } from '../../kernel/audit/store.ts';
import { idempotencyKeyOf, requestFingerprint } from './idempotency.ts';
import { presentNewLine, presentSale } from './present.ts';
import type { CreateSaleBody } from './schemas.ts';
import type { SaleResource } from './resource-schemas.ts';
import { saleSignals } from '../signals/sale-signals.ts';
import { findByReference, findSale, type SaleRow } from './store.ts';
import { insertDocument, type StoredDocument } from './document-insert.ts';
import { storedOrThrow, storeOptions } from './store-outcome.ts';
import type { NewDocument, NewLine } from './document-columns.ts';
import { devicesOfTenant } from '../../kernel/devices/store.ts';
import { presentRows } from './reads.ts';
import {
  checkClassifications,
  checkLines,
  checkPrincipal,
  compute,
  documentTermsOf,
  lineInput,
  occurredAtOf,
  refuseLevies,
} from './validation.ts';

const WALK_IN_CUSTOMER = 'Walk-in customer';

export interface WriteRequest {
  tenant: TenantAccount;
  /** The credential of the request: stored with the document as its issuer. */
  issuer: Issuer;
  branchHeader: string | undefined;
  idempotencyHeader: string | undefined;
  /** The credential was minted in training mode: the document is a training document, whatever the body says. */
  training?: boolean;
  /** Filed beyond the body's fields (a till's registrant, line units: compat/invoice-body.ts); not part of the idempotency fingerprint. */
  filingDetails?: FilingDetails;
  /**
   * Runs once this request has stored its document (never on a replay), before the wait for its
   * filing: the compat surface keeps the till's body here.
   */
  onStored?: (row: SaleRow) => Promise<void>;
}

/** A write whose credential is a party of the audit trail (not a legacy till): notes and reissues, which it audits. */
export type PartyWriteRequest = WriteRequest & { issuer: Party };

export interface WriteResult {
  sale: SaleResource;
  replayed: boolean;
}

export function toNewLines(computed: ComputedSale, originalLines?: readonly number[]): NewLine[] {
  return computed.lines.map((l, i) => ({
    line: l.seq,
    name: l.name,
    classification_code: l.classificationCode,
    item_code: l.itemCode,
    quantity: l.quantity,
    price: l.price,
    vat_category: l.vatCategory,
    vat_rate: l.rate,
    rrp: l.rrp,
    amount: l.grossAmount,
    discount: l.discountAmount,
    // Only an MTV line files a splyAmt other than its amount.
    supply: l.rrp === null ? null : l.supplyAmount,
    net: l.taxableAmount,
    vat: l.vatAmount,
    total: l.total,
    original_line: originalLines?.[i] ?? null,
  }));
}

/** How often a replay re-reads a pending document it waits for (see settle). */
const REPLAY_POLL_MS = 200;

/**
 * Waits up to SALE_WAIT_MS for the document's outcome. The signal normally carries what the
 * outcome changed (a filer in this process hands over the row; another process's notification
 * carries the fields); a bare signal is only a hint, so the row is re-read after it, and once
 * more at the end. A replay (`poll`) also re-reads the row every REPLAY_POLL_MS: when the
 * first request waits in the process that files the document, no other process is notified.
 */
async function settle(ctx: AppContext, tenantId: number, row: SaleRow, poll = false): Promise<SaleRow> {
  const waitMs = ctx.config.saleWaitMs;
  if (row.status !== 'pending' || waitMs <= 0) return row;
  const signals = saleSignals(ctx);
  const deadline = Date.now() + waitMs;
  let current = row;
  for (;;) {
    const remaining = deadline - Date.now();
    const update = await signals.waitForOutcome(Number(row.id), poll ? Math.min(remaining, REPLAY_POLL_MS) : remaining);
    try {
      current = update ? { ...current, ...update } : ((await findSale(ctx.db, tenantId, Number(row.id))) ?? current);
    } catch (err) {
      // The document is stored: a database gone away since is no reason to answer otherwise. It is `pending`.
      if (isDatabaseUnavailable(err)) return current;
      throw err;
    }
    if (current.status !== 'pending' || Date.now() >= deadline) return current;
  }
}

/** A concurrent request with the same Idempotency-Key stored its document first. */
export class KeyTaken extends Error {}

/** Same key + same request → the original document (after the same wait); else 422. */
async function replay(ctx: AppContext, tenantId: number, existing: SaleRow, fingerprint: string): Promise<WriteResult> {
  if (existing.request_hash !== fingerprint) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request. Use a new key for a new document.',
    );
  }
  const row = await settle(ctx, tenantId, existing, true);
  return { sale: (await presentRows(ctx, [row]))[0]!, replayed: true };
}

export interface Idempotency {
  key: string | null;
  fingerprint: string | null;
}

export function idempotencyOf(req: WriteRequest, operation: string, body: unknown): Idempotency {
  const key = idempotencyKeyOf(req.idempotencyHeader);
  return { key, fingerprint: key === null ? null : requestFingerprint(operation, req.branchHeader, body) };
}

export async function earlierAttempt(ctx: AppContext, tenantId: number, idem: Idempotency): Promise<WriteResult | undefined> {
  if (idem.key === null) return undefined;
  const existing = await findByReference(ctx.db, tenantId, idem.key);
  return existing ? replay(ctx, tenantId, existing, idem.fingerprint!) : undefined;
}

export interface Stored {
  row: SaleRow;
  lines: NewLine[];
  /** Its branch is known down: nobody files it now, so the request does not wait. */
  branchDown: boolean;
}

export function stored(doc: NewDocument, document: StoredDocument): Stored {
  return { row: document.row, lines: doc.lines, branchDown: document.branchDown };
}

/**
 * Stores the document, wakes the filer and waits for the outcome. When the Idempotency-Key's
 * unique constraint says a concurrent request with the same key won, answers with that
 * request's document instead: exactly one document per key, whatever the concurrency.
 */
export async function storeAndSettle(
  ctx: AppContext,
  tenantId: number,
  idem: Idempotency,
  store: () => Promise<Stored>,
  onStored?: WriteRequest['onStored'],
): Promise<WriteResult> {
  let document: Stored;
  try {
    document = await store();
  } catch (err) {
    if (idem.key !== null && (isUniqueViolation(err) || err instanceof KeyTaken)) {
      const existing = await findByReference(ctx.db, tenantId, idem.key);
      if (existing) return replay(ctx, tenantId, existing, idem.fingerprint!);
    }
    throw err;
  }
  const signals = saleSignals(ctx);
  const withdraw = document.branchDown ? undefined : signals.storingRequestWaits(Number(document.row.id));
  try {
    signals.documentQueued(document.row.device_id);
    await onStored?.(document.row);
    // A sale on a branch known to be down is answered `pending` at once: waiting would only make
    // the till wait SALE_WAIT_MS for nothing (the filer does not try before its backoff passes).
    const settled = document.branchDown ? document.row : await settle(ctx, tenantId, document.row);
    return { sale: presentSale(settled, document.lines.map(presentNewLine)), replayed: false };
  } finally {
    withdraw?.();
  }
}

// ---- sales ----

/**
 * A reissue (resolutions.ts): the new document is stored in one transaction with the failed one's
 * resolution, on the failed one's branch.
 */
interface Replacement {
  /** The failed document; part of the Idempotency-Key's fingerprint. */
  saleId: number;
  /** First in the transaction: locks the failed document and checks it may be replaced; its device. */
  lock(trx: Kysely<DB>): Promise<{ deviceId: number; branch: string }>;
  /** After the insert, same transaction: resolves the failed document and links the two; the new row as linked. */
  link(trx: Kysely<DB>, stored: SaleRow): Promise<SaleRow>;
}

export async function createSale(
  ctx: AppContext,
  req: WriteRequest,
  body: CreateSaleBody,
  options: { replaces?: Replacement } = {},
): Promise<WriteResult> {
  const { tenant } = req;
  const replaces = options.replaces;
  const profile = merchantProfile(tenant.authority);
  const errors = new FieldErrors();
  checkAuthorityFields(errors, profile, 'sale', body);
  errors.throwIfAny();
  const idem = idempotencyOf(req, replaces ? `reissue:${replaces.saleId}` : 'sale', body);
  const earlier = await earlierAttempt(ctx, tenant.id, idem);
  if (earlier) return earlier;

  refuseLevies(profile, body.items);
  checkLines(errors, profile, body.items, body.destinationCountryCode);
  const terms = documentTermsOf(errors, profile, body, req.training === true);
  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  errors.throwIfAny();
  const taxInclusive = body.taxInclusive ?? true;
  // The check first: it refreshes the in-memory copy whose published rates `compute` uses.
  await checkClassifications(ctx, profile.authority, body.items, { whenUnavailable: 'accept' });
  const computed = compute(
    ctx,
    errors,
    profile,
    body.items.map((item) => lineInput(profile, item)),
    taxInclusive,
  );
  errors.throwIfAny();
  const principalId = body.principalId == null ? null : await checkPrincipal(ctx, tenant.id, body.principalId);

  const doc: NewDocument = {
    tenantId: tenant.id,
    authority: tenant.authority,
    target: { branchHeader: req.branchHeader },
    tpin: tenant.tpin,
    type: 'sale',
    reference: idem.key,
    requestHash: idem.fingerprint,
    clientInvoiceNo: body.clientInvoiceNo ?? null,
    salesType: terms.salesType,
    customerName: body.customer?.name ?? WALK_IN_CUSTOMER,
    customerTpin: body.customer?.tpin ?? null,
    // Else the registered customer's, when the sale names its TPIN (read in the insert statement).
    customerAddress: body.customer?.address ?? null,
    paymentMethod: body.paymentMethod ?? profile.defaultPaymentMethod,
    taxInclusive,
    destinationCountryCode: body.destinationCountryCode ?? null,
    occurredAt,
    currency: terms.currency,
    exchangeRate: terms.exchangeRate,
    lpoNumber: terms.lpoNumber,
    principalId,
    ...computed.totals,
    originalSaleId: null,
    originalReceiptNo: null,
    originalInvoiceNo: null,
    originalSdcId: null,
    reasonCode: null,
    issuedBy: req.issuer,
    filingDetails: req.filingDetails ?? null,
    lines: toNewLines(computed),
  };
  const asked = { authority: tenant.authority, salesType: terms.salesType, training: req.training };
  if (replaces) {
    return storeAndSettle(
      ctx,
      tenant.id,
      idem,
      () =>
        ctx.db.transaction().execute(async (trx): Promise<Stored> => {
          const failed = await replaces.lock(trx);
          // A same-key request that held the lock before us has committed: answer with its document.
          if (idem.key !== null && (await findByReference(trx, tenant.id, idem.key))) throw new KeyTaken();
          const onBranch: NewDocument = { ...doc, target: { deviceId: failed.deviceId } };
          const document = storedOrThrow(ctx, await insertDocument(ctx, trx, onBranch, storeOptions(ctx, tenant)), failed.branch, asked);
          return stored(onBranch, { ...document, row: await replaces.link(trx, document.row) });
        }),
      req.onStored,
    );
  }
  return storeAndSettle(
    ctx,
    tenant.id,
    idem,
    async () => {
      const options = storeOptions(ctx, tenant);
      let outcome = await insertDocument(ctx, ctx.db, doc, options);
      if (outcome.kind === 'no_device') {
        // No initialised device matched: say why (or, if one was initialised meanwhile, use it).
        const device = branchForWrite(await devicesOfTenant(ctx.db, tenant.id), req.branchHeader, merchantOrigin(tenant));
        outcome = await insertDocument(ctx, ctx.db, { ...doc, target: { deviceId: device.id } }, options);
        return stored(doc, storedOrThrow(ctx, outcome, device.branch, asked));
      }
      return stored(doc, storedOrThrow(ctx, outcome, '', asked));
    },
    req.onStored,
  );
}
