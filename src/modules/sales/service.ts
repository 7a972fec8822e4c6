// The rules of sales, credit notes and debit notes: validation, defaults, amounts, idempotency,
// storing a document in its branch's sequence and waiting briefly for its filing.
import { Decimal } from 'decimal.js';
import type { AppContext } from '../../context.ts';
import type { TenantAccount } from '../../credentials/lookup.ts';
import { currentMonth } from '../../credentials/standing.ts';
import { isUniqueViolation } from '../../db/database.ts';
import type { DocumentType } from '../../db/tables/sales.ts';
import { ApiError, FieldErrors, NotFoundError, ValidationError } from '../../http/errors.ts';
import { pageOf, type Page } from '../../http/pagination.ts';
import { computeSale, lineSupplyAmount, SaleAmountsError, type ComputedSale, type SaleLineInput, type VatCategoryCode } from '../../vsdc/tax.ts';
import { classificationCatalogue } from '../catalogue/service.ts';
import { branchForWrite, pickBranch } from './branches.ts';
import { allocateCredit, CreditAllocationError, NOTHING_CREDITED, type CreditLine } from './credit-allocation.ts';
import { idempotencyKeyOf, requestFingerprint } from './idempotency.ts';
import { presentLineRow, presentNewLine, presentSale } from './present.ts';
import type { CreateSaleBody, CreditNoteBody, DebitNoteBody, MeResource, SaleResource } from './schemas.ts';
import { FILING_CHANNEL, PROCESS_TAG, saleSignals } from './signals.ts';
import {
  creditedByLine,
  devicesOfTenant,
  findByReference,
  findSale,
  insertDocument,
  linesOf,
  listSales,
  lockSale,
  type InsertOutcome,
  type NewDocument,
  type NewLine,
  type SaleRow,
  type StoredDocument,
} from './store.ts';

export const WALK_IN_CUSTOMER = 'Walk-in customer';
export const DEFAULT_PAYMENT_METHOD = '01';
export const DEFAULT_VAT_CATEGORY: VatCategoryCode = 'A';
/** The authority refuses documents dated more than 180 days back or in the future. */
const MAX_AGE_MS = 180 * 86_400_000;
const MAX_FUTURE_SKEW_MS = 5 * 60_000;
/** Keeps every amount exact to the cent as a JSON number. */
const MAX_DOCUMENT_TOTAL = 1_000_000_000_000;
const FOUR_DECIMALS = /^\d+(\.\d{1,4})?$/;

export interface WriteRequest {
  tenant: TenantAccount;
  branchHeader: string | undefined;
  idempotencyHeader: string | undefined;
}

export interface WriteResult {
  sale: SaleResource;
  replayed: boolean;
}

function addError(errors: FieldErrors, field: string, message: string): void {
  errors.add(field, message);
}

function throwIfAny(errors: FieldErrors): void {
  if (errors.size > 0) throw errors.toError();
}

/** False (with the field's error) when the value has more than 4 decimals. */
function checkDecimals(errors: FieldErrors, field: string, value: number): boolean {
  if (FOUR_DECIMALS.test(String(value))) return true;
  addError(errors, field, `The ${field} field must have at most 4 decimal places.`);
  return false;
}

function occurredAtOf(ctx: AppContext, errors: FieldErrors, text: string | undefined): Date {
  const now = ctx.clock.now();
  if (text === undefined) return now;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) addError(errors, 'occurredAt', 'The occurredAt field must be an ISO 8601 date-time.');
  else if (at.getTime() > now.getTime() + MAX_FUTURE_SKEW_MS) addError(errors, 'occurredAt', 'The occurredAt field must not be in the future.');
  else if (now.getTime() - at.getTime() > MAX_AGE_MS) addError(errors, 'occurredAt', 'The occurredAt field must not be more than 180 days ago: the authority refuses older documents.');
  return at;
}

type BodyLine = CreateSaleBody['items'][number];

/**
 * Field rules of sale lines beyond the schema: decimals, no line that comes to nothing, and the
 * C1 (export) rule.
 */
function checkLines(errors: FieldErrors, items: readonly BodyLine[], destinationCountryCode: string | null | undefined): void {
  items.forEach((item, i) => {
    const decimalsOk = [checkDecimals(errors, `items.${i}.quantity`, item.quantity), checkDecimals(errors, `items.${i}.price`, item.price)].every(Boolean);
    // A priced line filed as 0.00 would be a fiscal line that charges nothing: refuse it.
    if (decimalsOk && item.price > 0 && lineSupplyAmount(item.quantity, item.price) === 0) {
      addError(
        errors,
        `items.${i}.price`,
        `The line comes to ${item.quantity} × ${item.price}, which rounds to 0.00: quantity × price must be at least 0.005 (amounts are rounded to the cent). Send a higher price or quantity, or leave the line out.`,
      );
    }
  });
  const categories = items.map((item) => item.vatCategory ?? DEFAULT_VAT_CATEGORY);
  if (categories.includes('C1')) {
    if (!destinationCountryCode) {
      addError(errors, 'destinationCountryCode', 'The destinationCountryCode field is required when a line is category C1 (export).');
    }
    categories.forEach((category, i) => {
      if (category !== 'C1') addError(errors, `items.${i}.vatCategory`, 'An export (C1) invoice cannot mix other VAT categories: every line must be C1.');
    });
  }
}

function compute(errors: FieldErrors, inputs: SaleLineInput[], taxInclusive: boolean): ComputedSale {
  let computed: ComputedSale;
  try {
    computed = computeSale(inputs, taxInclusive);
  } catch (err) {
    if (err instanceof SaleAmountsError) throw new ValidationError({ items: [err.message] });
    throw err;
  }
  if (computed.totals.total > MAX_DOCUMENT_TOTAL) addError(errors, 'items', `The document total must not exceed ${MAX_DOCUMENT_TOTAL.toLocaleString('en')}.`);
  return computed;
}

async function checkClassifications(ctx: AppContext, items: readonly { classificationCode: string }[]): Promise<void> {
  const unknown = await classificationCatalogue(ctx).unknownCodes(items.map((i) => i.classificationCode));
  if (unknown.length === 0) return;
  const where = items
    .map((item, i) => (unknown.includes(item.classificationCode) ? `items.${i}.classificationCode ${item.classificationCode}` : null))
    .filter((x) => x !== null);
  throw new ApiError(
    422,
    'unknown_classification_code',
    `Not in the authority's classification catalogue: ${where.join(', ')}. Nothing was stored; GET /api/v1/item-classes lists the valid codes.`,
  );
}

function toNewLines(computed: ComputedSale, originalLines?: readonly number[]): NewLine[] {
  return computed.lines.map((l, i) => ({
    line: l.seq,
    name: l.name,
    classification_code: l.classificationCode,
    item_code: l.itemCode,
    quantity: l.quantity,
    price: l.price,
    vat_category: l.vatCategory,
    vat_rate: l.rate,
    amount: l.supplyAmount,
    net: l.taxableAmount,
    vat: l.vatAmount,
    total: new Decimal(l.taxableAmount).plus(l.vatAmount).toNumber(),
    original_line: originalLines?.[i] ?? null,
  }));
}

/**
 * Waits up to SALE_WAIT_MS for the document's outcome. The signal normally carries what the
 * outcome changed (a filer in this process hands over the row; another process's notification
 * carries the fields); a bare signal is only a hint, so the row is re-read after it, and once
 * more at the end.
 */
async function settle(ctx: AppContext, tenantId: number, row: SaleRow): Promise<SaleRow> {
  const waitMs = ctx.config.saleWaitMs;
  if (row.status !== 'pending' || waitMs <= 0) return row;
  const signals = saleSignals(ctx);
  const deadline = Date.now() + waitMs;
  let current = row;
  for (;;) {
    const update = await signals.waitForOutcome(Number(row.id), deadline - Date.now());
    current = update ? { ...current, ...update } : ((await findSale(ctx.db, tenantId, Number(row.id))) ?? current);
    if (current.status !== 'pending' || Date.now() >= deadline) return current;
  }
}

/** A concurrent request with the same Idempotency-Key stored its document first. */
class KeyTaken extends Error {}

/** Same key + same request → the original document (after the same wait); else 422. */
async function replay(ctx: AppContext, tenantId: number, existing: SaleRow, fingerprint: string): Promise<WriteResult> {
  if (existing.request_hash !== fingerprint) {
    throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request. Use a new key for a new document.');
  }
  const row = await settle(ctx, tenantId, existing);
  const lines = await linesOf(ctx.db, [Number(row.id)]);
  return { sale: presentSale(row, (lines.get(Number(row.id)) ?? []).map(presentLineRow)), replayed: true };
}

interface Idempotency {
  key: string | null;
  fingerprint: string | null;
}

function idempotencyOf(req: WriteRequest, operation: string, body: unknown): Idempotency {
  const key = idempotencyKeyOf(req.idempotencyHeader);
  return { key, fingerprint: key === null ? null : requestFingerprint(operation, req.branchHeader, body) };
}

async function earlierAttempt(ctx: AppContext, tenantId: number, idem: Idempotency): Promise<WriteResult | undefined> {
  if (idem.key === null) return undefined;
  const existing = await findByReference(ctx.db, tenantId, idem.key);
  return existing ? replay(ctx, tenantId, existing, idem.fingerprint!) : undefined;
}

interface Stored {
  row: SaleRow;
  lines: NewLine[];
  /** Its branch is known down: nobody files it now, so the request does not wait. */
  branchDown: boolean;
}

function stored(doc: NewDocument, document: StoredDocument): Stored {
  return { row: document.row, lines: doc.lines, branchDown: document.branchDown };
}

/**
 * Stores the document, wakes the filer and waits for the outcome. When the Idempotency-Key's
 * unique constraint says a concurrent request with the same key won, answers with that
 * request's document instead: exactly one document per key, whatever the concurrency.
 */
async function storeAndSettle(ctx: AppContext, tenantId: number, idem: Idempotency, store: () => Promise<Stored>): Promise<WriteResult> {
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
  saleSignals(ctx).documentQueued(document.row.device_id);
  // A sale on a branch known to be down is answered `pending` at once: waiting would only make
  // the till wait SALE_WAIT_MS for nothing (the filer does not try before its backoff passes).
  const settled = document.branchDown ? document.row : await settle(ctx, tenantId, document.row);
  return { sale: presentSale(settled, document.lines.map(presentNewLine)), replayed: false };
}

// ---- sales ----

export async function createSale(ctx: AppContext, req: WriteRequest, body: CreateSaleBody): Promise<WriteResult> {
  const { tenant } = req;
  const idem = idempotencyOf(req, 'sale', body);
  const earlier = await earlierAttempt(ctx, tenant.id, idem);
  if (earlier) return earlier;

  const errors = new FieldErrors();
  checkLines(errors, body.items, body.destinationCountryCode);
  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  throwIfAny(errors);
  const taxInclusive = body.taxInclusive ?? true;
  const computed = compute(errors, body.items.map(lineInput), taxInclusive);
  throwIfAny(errors);
  await checkClassifications(ctx, body.items);

  const doc: NewDocument = {
    tenantId: tenant.id,
    target: { branchHeader: req.branchHeader },
    tpin: tenant.tpin,
    type: 'sale',
    reference: idem.key,
    requestHash: idem.fingerprint,
    clientInvoiceNo: body.clientInvoiceNo ?? null,
    customerName: body.customer?.name ?? WALK_IN_CUSTOMER,
    customerTpin: body.customer?.tpin ?? null,
    paymentMethod: body.paymentMethod ?? DEFAULT_PAYMENT_METHOD,
    taxInclusive,
    destinationCountryCode: body.destinationCountryCode ?? null,
    occurredAt,
    ...computed.totals,
    originalSaleId: null,
    originalReceiptNo: null,
    originalSdcId: null,
    reasonCode: null,
    lines: toNewLines(computed),
  };
  return storeAndSettle(ctx, tenant.id, idem, async () => {
    const options = storeOptions(ctx, tenant);
    let outcome = await insertDocument(ctx.db, doc, options);
    if (outcome.kind === 'no_device') {
      // No initialised device matched: say why (or, if one was initialised meanwhile, use it).
      const device = branchForWrite(await devicesOfTenant(ctx.db, tenant.id), req.branchHeader);
      outcome = await insertDocument(ctx.db, { ...doc, target: { deviceId: device.id } }, options);
      return stored(doc, storedOrThrow(ctx, outcome, device.branch));
    }
    return stored(doc, storedOrThrow(ctx, outcome, ''));
  });
}

function storeOptions(ctx: AppContext, tenant: TenantAccount): Parameters<typeof insertDocument>[2] {
  const month = currentMonth(ctx.clock.now());
  const refuseWhenDown = tenant.offlinePolicy === 'refuse';
  // Embedded: one process, where the in-memory signal is enough.
  return ctx.database.kind === 'postgres' ? { month, refuseWhenDown, notify: { channel: FILING_CHANNEL, origin: PROCESS_TAG } } : { month, refuseWhenDown };
}

/** The stored document, or the error that says why nothing was stored. */
function storedOrThrow(ctx: AppContext, outcome: InsertOutcome, branch: string): StoredDocument {
  switch (outcome.kind) {
    case 'stored':
      return outcome.document;
    case 'branch_down':
      throw vsdcUnavailable(ctx, outcome.branch);
    case 'no_device':
      throw branchNotInitialized(branch);
  }
}

function branchNotInitialized(branch: string): ApiError {
  return new ApiError(422, 'branch_not_initialized', `Branch ${branch} is not initialised with the authority yet, so it cannot fiscalise.`);
}

/** Offline policy `refuse`: the branch's VSDC is known unreachable, so no invoice is issued. */
function vsdcUnavailable(ctx: AppContext, branch: string): ApiError {
  const retryAfter = Math.max(1, Math.ceil(ctx.config.vsdcProbeMs / 1000));
  return new ApiError(
    503,
    'vsdc_unavailable',
    `The VSDC of branch ${branch} cannot be reached, and this merchant issues no invoice while it is offline (offline policy "refuse"). ` +
      `Nothing was stored and no invoice number was used: retry the same request in ${retryAfter} s or later.`,
    { 'retry-after': String(retryAfter) },
  );
}

function lineInput(item: BodyLine): SaleLineInput {
  return {
    name: item.name,
    classificationCode: item.classificationCode,
    itemCode: item.itemCode ?? null,
    quantity: item.quantity,
    price: item.price,
    vatCategory: item.vatCategory ?? DEFAULT_VAT_CATEGORY,
  };
}

// ---- notes ----

/** A note needs a fiscalised sale: its receipt number and SDC id are what the note refers to. */
function checkOriginal(original: SaleRow | undefined, kind: 'credit' | 'debit'): SaleRow {
  if (!original) throw new NotFoundError('Sale not found.');
  if (original.type !== 'sale') {
    throw new ApiError(422, 'not_a_sale', `A ${kind} note can only be issued against a sale, not against a ${original.type.replace('_', ' ')}.`);
  }
  if (original.status !== 'uploaded' || original.receipt_no === null || original.sdc_id === null) {
    throw new ApiError(
      409,
      'sale_not_fiscalised',
      original.status === 'failed'
        ? `Sale ${original.id} was refused by the authority, so there is nothing to ${kind === 'credit' ? 'credit' : 'debit'}.`
        : `Sale ${original.id} is still pending: a ${kind} note needs the authority's receipt. Retry once the sale is uploaded.`,
    );
  }
  return original;
}

function noteDocument(original: SaleRow, type: DocumentType, idem: Idempotency, body: { reasonCode: string; clientInvoiceNo?: string | null }, occurredAt: Date, computed: ComputedSale, lines: NewLine[]): NewDocument {
  return {
    tenantId: original.tenant_id,
    target: { deviceId: original.device_id },
    tpin: original.tpin,
    type,
    reference: idem.key,
    requestHash: idem.fingerprint,
    clientInvoiceNo: body.clientInvoiceNo ?? null,
    customerName: original.customer_name,
    customerTpin: original.customer_tpin,
    paymentMethod: original.payment_method,
    taxInclusive: original.tax_inclusive,
    destinationCountryCode: original.destination_country_code,
    occurredAt,
    ...computed.totals,
    originalSaleId: Number(original.id),
    originalReceiptNo: Number(original.receipt_no),
    originalSdcId: original.sdc_id,
    reasonCode: body.reasonCode,
    lines,
  };
}

/**
 * A credit note takes back all (no `items`) or part of a fiscalised sale. Notes on one sale are
 * counted one after another (the original row is locked), so together they never take back
 * more than the sale held; each line's share is allocated cumulatively (credit-allocation.ts), so
 * the credits of a line add up to exactly its amounts and a cancellation takes exactly the rest.
 */
export async function createCreditNote(ctx: AppContext, req: WriteRequest, saleId: number, body: CreditNoteBody): Promise<WriteResult> {
  const { tenant } = req;
  const idem = idempotencyOf(req, `credit_note:${saleId}`, body);
  const earlier = await earlierAttempt(ctx, tenant.id, idem);
  if (earlier) return earlier;

  const errors = new FieldErrors();
  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  throwIfAny(errors);

  return storeAndSettle(ctx, tenant.id, idem, () =>
    ctx.db.transaction().execute(async (trx): Promise<Stored> => {
      const original = checkOriginal(await lockSale(trx, tenant.id, saleId), 'credit');
      // A same-key request that held the lock before us has committed: answer with its note
      // rather than judge this one against a sale it already credited.
      if (idem.key !== null && (await findByReference(trx, tenant.id, idem.key))) throw new KeyTaken();
      const originalLines = (await linesOf(trx, [saleId])).get(saleId) ?? [];
      const credited = await creditedByLine(trx, saleId);
      const remaining = new Map(
        originalLines.map((l) => [l.line, new Decimal(l.quantity).minus(credited.get(l.line)?.quantity ?? 0)]),
      );

      const wanted: { line: number; quantity: Decimal }[] = [];
      if (!body.items) {
        for (const l of originalLines) {
          const left = remaining.get(l.line)!;
          if (left.gt(0)) wanted.push({ line: l.line, quantity: left });
        }
        if (wanted.length === 0) throw new ApiError(422, 'nothing_left_to_credit', `Sale ${saleId} has already been credited in full.`);
      } else {
        const seen = new Set<number>();
        body.items.forEach((item, i) => {
          const left = remaining.get(item.line);
          if (left === undefined) return addError(errors, `items.${i}.line`, `Sale ${saleId} has no line ${item.line}.`);
          if (seen.has(item.line)) return addError(errors, `items.${i}.line`, `Line ${item.line} is named more than once.`);
          seen.add(item.line);
          if (item.quantity !== undefined) checkDecimals(errors, `items.${i}.quantity`, item.quantity);
          const quantity = item.quantity === undefined ? left : new Decimal(String(item.quantity));
          if (left.lte(0)) return addError(errors, `items.${i}.quantity`, `Line ${item.line} has already been credited in full.`);
          if (quantity.gt(left)) return addError(errors, `items.${i}.quantity`, `The quantity must not exceed what is left to credit on line ${item.line} (${left.toString()}).`);
          wanted.push({ line: item.line, quantity });
        });
        throwIfAny(errors);
      }

      // Each line's share by the cumulative rule of credit-allocation.ts: the credits of a line
      // add up to exactly its amount, net and VAT, and each passes the VSDC's arithmetic.
      const byLine = new Map(originalLines.map((l) => [l.line, l]));
      const inputs: SaleLineInput[] = [];
      wanted.forEach(({ line, quantity }, i) => {
        const o = byLine.get(line)!;
        let share: CreditLine;
        try {
          share = allocateCredit(
            { quantity: o.quantity, price: o.price, amount: o.amount, net: o.net, vat: o.vat, rate: o.vat_rate },
            credited.get(line) ?? NOTHING_CREDITED,
            quantity.toString(),
            original.tax_inclusive,
          );
        } catch (err) {
          if (!(err instanceof CreditAllocationError)) throw err;
          return addError(errors, body.items ? `items.${i}.quantity` : 'items', `Line ${line}: ${err.message}`);
        }
        inputs.push({
          name: o.name,
          classificationCode: o.classification_code,
          itemCode: o.item_code,
          quantity: share.quantity,
          price: share.price,
          vatCategory: o.vat_category as VatCategoryCode,
          allocated: { amount: share.amount, net: share.net, vat: share.vat },
        });
      });
      throwIfAny(errors);
      const computed = compute(errors, inputs, original.tax_inclusive);
      throwIfAny(errors);

      const doc = noteDocument(original, 'credit_note', idem, body, occurredAt, computed, toNewLines(computed, wanted.map((w) => w.line)));
      return stored(doc, storedOrThrow(ctx, await insertDocument(trx, doc, storeOptions(ctx, tenant)), original.branch));
    }),
  );
}

/** A debit note charges more against a fiscalised sale: new lines, priced like the sale. */
export async function createDebitNote(ctx: AppContext, req: WriteRequest, saleId: number, body: DebitNoteBody): Promise<WriteResult> {
  const { tenant } = req;
  const idem = idempotencyOf(req, `debit_note:${saleId}`, body);
  const earlier = await earlierAttempt(ctx, tenant.id, idem);
  if (earlier) return earlier;

  const original = checkOriginal(await findSale(ctx.db, tenant.id, saleId), 'debit');
  const errors = new FieldErrors();
  checkLines(errors, body.items, original.destination_country_code);
  if (original.destination_country_code !== null && !body.items.every((i) => i.vatCategory === 'C1')) {
    addError(errors, 'items', 'A debit note on an export (C1) sale must be C1 on every line.');
  }
  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  throwIfAny(errors);
  const computed = compute(errors, body.items.map(lineInput), original.tax_inclusive);
  throwIfAny(errors);
  await checkClassifications(ctx, body.items);

  const doc = noteDocument(original, 'debit_note', idem, body, occurredAt, computed, toNewLines(computed));
  return storeAndSettle(ctx, tenant.id, idem, async () => {
    return stored(doc, storedOrThrow(ctx, await insertDocument(ctx.db, doc, storeOptions(ctx, tenant)), original.branch));
  });
}

// ---- reads ----

export async function getSale(ctx: AppContext, tenantId: number, saleId: number): Promise<SaleResource> {
  const row = await findSale(ctx.db, tenantId, saleId);
  if (!row) throw new NotFoundError('Sale not found.');
  const lines = await linesOf(ctx.db, [saleId]);
  return presentSale(row, (lines.get(saleId) ?? []).map(presentLineRow));
}

/** Without X-Branch the list covers every branch of the merchant; with it, that branch only. */
export async function listSalesPage(
  ctx: AppContext,
  tenantId: number,
  branchHeader: string | undefined,
  query: { page: number; reference?: string },
): Promise<Page<SaleResource>> {
  let deviceId: number | undefined;
  if (branchHeader !== undefined) deviceId = pickBranch(await devicesOfTenant(ctx.db, tenantId), branchHeader)!.id;
  const { rows, total } = await listSales(
    ctx.db,
    tenantId,
    { ...(deviceId !== undefined ? { deviceId } : {}), ...(query.reference !== undefined ? { reference: query.reference } : {}) },
    query.page,
  );
  const lines = await linesOf(ctx.db, rows.map((r) => Number(r.id)));
  return pageOf(
    rows.map((r) => presentSale(r, (lines.get(Number(r.id)) ?? []).map(presentLineRow))),
    total,
    query.page,
  );
}

export async function describeMe(ctx: AppContext, tenant: TenantAccount, branchHeader: string | undefined): Promise<MeResource> {
  const devices = await devicesOfTenant(ctx.db, tenant.id);
  const current = pickBranch(devices, branchHeader);
  return {
    id: tenant.id,
    name: tenant.name,
    tpin: tenant.tpin,
    plan: tenant.plan,
    subscription: tenant.subscription,
    status: tenant.status,
    monthlyQuota: tenant.monthlyQuota,
    documentsThisMonth: tenant.documentsThisMonth,
    branch: current?.branch ?? null,
    devices: devices.map((d) => ({
      branch: d.branch,
      branchName: d.branchName,
      deviceSerial: d.deviceSerial,
      sdcId: d.sdcId,
      mrcNo: d.mrcNo,
      initialized: d.initialized,
      current: d.id === current?.id,
    })),
  };
}
