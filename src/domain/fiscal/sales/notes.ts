// Credit and debit notes against a fiscalised sale: the original's checks, the credited
// quantities (allocated by credit-allocation.ts) and the note's document, stored with its audit
// record (`sale.credited` / `sale.debited`) and settled through the sales write path (service.ts).
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { actorOfParty, recordAudit } from '../../kernel/audit/store.ts';
import type { DocumentType } from '../../../platform/db/tables/sales.ts';
import { ApiError, FieldErrors, NotFoundError } from '../../../platform/errors/errors.ts';
import type { AuthorityProfile, ComputedSale, SaleLineInput } from '../../../authorities/port/index.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { checkAuthorityFields } from './authority-fields.ts';
import { authorityOfTaxpayerId } from '../../kernel/devices/authorities.ts';
import { allocateCredit, CreditAllocationError, NOTHING_CREDITED, type CreditLine } from './credit-allocation.ts';
import type { CreditNoteBody, DebitNoteBody } from './schemas.ts';
import type { SaleResource } from './resource-schemas.ts';
import { authorityInvoiceNo, presentedStatus, presentIssuer } from './present.ts';
import { iso } from '../../../platform/lib/time.ts';
import {
  earlierAttempt,
  idempotencyOf,
  KeyTaken,
  storeAndSettle,
  stored,
  toNewLines,
  type Idempotency,
  type PartyWriteRequest,
  type Stored,
  type WriteResult,
} from './service.ts';
import { getSale } from './reads.ts';
import { creditedByLine, findByReference, findSale, linesOf, lockSale, notesOfSale, type SaleRow } from './store.ts';
import { insertDocument } from './document-insert.ts';
import { storedOrThrow, storeOptions } from './store-outcome.ts';
import type { NewDocument, NewLine } from './document-columns.ts';
import { checkClassifications, checkDecimals, checkLines, compute, lineInput, occurredAtOf, refuseLevies } from './validation.ts';

/**
 * The authority's rules for a credit note (its profile's creditNoteRules), checked before anything
 * is stored or numbered. A note always names its sale's customer (it takes the original's), so
 * `sameCustomerAsOriginal` holds by construction.
 */
async function checkCreditNoteRules(trx: Kysely<DB>, profile: AuthorityProfile, original: SaleRow, occurredAt: Date): Promise<void> {
  const { maxAgeDays, maxPerOriginal } = profile.creditNoteRules;
  if (maxAgeDays !== null && occurredAt.getTime() - original.occurred_at.getTime() > maxAgeDays * 86_400_000) {
    throw new ApiError(
      'credit_note_rule',
      `${profile.name} takes a credit note only within ${maxAgeDays} days of its sale; sale ${original.id} is of ${original.occurred_at.toISOString().slice(0, 10)}. Nothing was stored.`,
    );
  }
  if (maxPerOriginal !== null) {
    const notes = (await notesOfSale(trx, original.tenant_id, Number(original.id))).filter(
      (n) => n.type === 'credit_note' && n.status !== 'failed' && n.status !== 'resolved',
    );
    if (notes.length >= maxPerOriginal) {
      throw new ApiError(
        'credit_note_rule',
        `${profile.name} takes at most ${maxPerOriginal} credit note${maxPerOriginal === 1 ? '' : 's'} per sale; sale ${original.id} has ${notes.length}. Nothing was stored.`,
      );
    }
  }
}

/** A note needs a fiscalised sale: its receipt number and SDC id are what the note refers to. */
function checkOriginal(original: SaleRow | undefined, kind: 'credit' | 'debit', training: boolean | undefined): SaleRow {
  if (!original) throw new NotFoundError('Sale not found.');
  if (original.type !== 'sale') {
    throw new ApiError('not_a_sale', `A ${kind} note can only be issued against a sale, not against a ${original.type.replace('_', ' ')}.`);
  }
  if (original.sales_type === 'proforma') {
    throw new ApiError(
      'not_a_sale',
      `Sale ${original.id} is a proforma (a quote), not a sale: nothing was sold, so there is nothing to ${kind}. ` +
        'Issue the sale itself (salesType normal) when the customer buys.',
    );
  }
  if (training === true && original.sales_type !== 'training') {
    throw new ApiError(
      'not_a_sale',
      `This credential was minted in training mode and issues training documents only, but sale ${original.id} is a ${original.sales_type} sale: ` +
        `issue its ${kind} note with a credential that is not in training mode.`,
    );
  }
  if (original.status !== 'uploaded' || original.receipt_no === null || original.sdc_id === null) {
    throw new ApiError(
      'sale_not_fiscalised',
      original.status === 'failed'
        ? `Sale ${original.id} was refused by the authority, so there is nothing to ${kind === 'credit' ? 'credit' : 'debit'}.`
        : `Sale ${original.id} is still pending: a ${kind} note needs the authority's receipt. Retry once the sale is uploaded.`,
    );
  }
  return original;
}

function noteDocument(
  req: PartyWriteRequest,
  original: SaleRow,
  type: DocumentType,
  idem: Idempotency,
  body: { reasonCode: string; clientInvoiceNo?: string | null },
  occurredAt: Date,
  computed: ComputedSale,
  lines: NewLine[],
): NewDocument {
  return {
    tenantId: original.tenant_id,
    authority: req.tenant.authority,
    target: { deviceId: original.device_id },
    tpin: original.tpin,
    type,
    reference: idem.key,
    requestHash: idem.fingerprint,
    clientInvoiceNo: body.clientInvoiceNo ?? null,
    // A note is of its sale's kind (a training sale is credited in training, TR) and currency.
    salesType: original.sales_type,
    customerName: original.customer_name,
    customerTpin: original.customer_tpin,
    customerAddress: original.customer_address,
    paymentMethod: original.payment_method,
    taxInclusive: original.tax_inclusive,
    destinationCountryCode: original.destination_country_code,
    occurredAt,
    currency: original.currency,
    exchangeRate: Number(original.exchange_rate),
    lpoNumber: original.lpo_number,
    principalId: original.principal_id,
    ...computed.totals,
    originalSaleId: Number(original.id),
    originalReceiptNo: Number(original.receipt_no),
    originalInvoiceNo: Number(original.invoice_no),
    originalSdcId: original.sdc_id,
    reasonCode: body.reasonCode,
    issuedBy: req.issuer,
    lines,
  };
}

/**
 * Stores the note and, in the same transaction, its record in the merchant's audit trail:
 * `sale.credited` or `sale.debited`, on the original sale, by the note's issuer, naming the note.
 * Notes are rare beside sales, so this audit row costs the sale path nothing.
 */
async function storeNote(ctx: AppContext, trx: Kysely<DB>, req: PartyWriteRequest, original: SaleRow, doc: NewDocument): Promise<Stored> {
  const document = storedOrThrow(ctx, await insertDocument(ctx, trx, doc, storeOptions(ctx, req.tenant)), original.branch, {
    authority: req.tenant.authority,
    salesType: doc.salesType,
    training: req.training,
  });
  const note = document.row;
  await recordAudit(trx, {
    actor: actorOfParty(req.issuer),
    action: doc.type === 'credit_note' ? 'sale.credited' : 'sale.debited',
    tenantId: req.tenant.id,
    partnerId: req.tenant.partnerId,
    targetType: 'sale',
    targetId: Number(original.id),
    details: {
      invoiceNo: Number(original.invoice_no),
      authorityInvoiceNo: authorityInvoiceNo(
        original.sdc_id,
        original.receipt_no === null ? null : Number(original.receipt_no),
        Number(original.invoice_no),
        req.tenant.authority,
      ),
      branch: original.branch,
      noteId: Number(note.id),
      noteInvoiceNo: Number(note.invoice_no),
      reasonCode: doc.reasonCode,
      total: doc.total,
      currency: doc.currency,
    },
  });
  return stored(doc, document);
}

/**
 * A credit note takes back all (no `items`) or part of a fiscalised sale. Notes on one sale are
 * counted one after another (the original row is locked), so together they never take back
 * more than the sale held; each line's share is allocated cumulatively (credit-allocation.ts), so
 * the credits of a line add up to exactly its amounts and a cancellation takes exactly the rest.
 */
export async function createCreditNote(
  ctx: AppContext,
  req: PartyWriteRequest,
  saleId: number,
  body: CreditNoteBody,
): Promise<WriteResult> {
  const { tenant } = req;
  const profile = merchantProfile(tenant.authority);
  const errors = new FieldErrors();
  checkAuthorityFields(errors, profile, 'credit_note', body);
  errors.throwIfAny();
  const idem = idempotencyOf(req, `credit_note:${saleId}`, body);
  const earlier = await earlierAttempt(ctx, tenant.id, idem);
  if (earlier) return earlier;

  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  errors.throwIfAny();

  return storeAndSettle(ctx, tenant.id, idem, () =>
    ctx.db.transaction().execute(async (trx): Promise<Stored> => {
      const original = checkOriginal(await lockSale(trx, tenant.id, saleId), 'credit', req.training);
      await checkCreditNoteRules(trx, profile, original, occurredAt);
      // A same-key request that held the lock before us has committed: answer with its note
      // rather than judge this one against a sale it already credited.
      if (idem.key !== null && (await findByReference(trx, tenant.id, idem.key))) throw new KeyTaken();
      const originalLines = (await linesOf(trx, [saleId])).get(saleId) ?? [];
      const credited = await creditedByLine(trx, saleId);
      const remaining = new Map(originalLines.map((l) => [l.line, new Decimal(l.quantity).minus(credited.get(l.line)?.quantity ?? 0)]));

      const wanted: { line: number; quantity: Decimal }[] = [];
      if (!body.items) {
        for (const l of originalLines) {
          const left = remaining.get(l.line)!;
          if (left.gt(0)) wanted.push({ line: l.line, quantity: left });
        }
        if (wanted.length === 0) throw new ApiError('nothing_left_to_credit', `Sale ${saleId} has already been credited in full.`);
      } else {
        const seen = new Set<number>();
        body.items.forEach((item, i) => {
          const left = remaining.get(item.line);
          if (left === undefined) return errors.add(`items.${i}.line`, `Sale ${saleId} has no line ${item.line}.`);
          if (seen.has(item.line)) return errors.add(`items.${i}.line`, `Line ${item.line} is named more than once.`);
          seen.add(item.line);
          if (item.quantity !== undefined) checkDecimals(errors, `items.${i}.quantity`, item.quantity);
          const quantity = item.quantity === undefined ? left : new Decimal(String(item.quantity));
          if (left.lte(0)) return errors.add(`items.${i}.quantity`, `Line ${item.line} has already been credited in full.`);
          if (quantity.gt(left))
            return errors.add(
              `items.${i}.quantity`,
              `The quantity must not exceed what is left to credit on line ${item.line} (${left.toString()}).`,
            );
          wanted.push({ line: item.line, quantity });
        });
        errors.throwIfAny();
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
            {
              quantity: o.quantity,
              price: o.price,
              amount: o.amount,
              discount: o.discount,
              rrp: o.rrp,
              supply: o.supply,
              net: o.net,
              vat: o.vat,
              rate: o.vat_rate,
            },
            credited.get(line) ?? NOTHING_CREDITED,
            quantity.toString(),
            original.tax_inclusive,
            profile.amountTolerance,
          );
        } catch (err) {
          if (!(err instanceof CreditAllocationError)) throw err;
          return errors.add(body.items ? `items.${i}.quantity` : 'items', `Line ${line}: ${err.message}`);
        }
        inputs.push({
          name: o.name,
          classificationCode: o.classification_code,
          itemCode: o.item_code,
          quantity: share.quantity,
          price: share.price,
          vatCategory: o.vat_category,
          rrp: o.rrp,
          allocated: { amount: share.amount, discount: share.discount, supply: share.supply, net: share.net, vat: share.vat },
        });
      });
      errors.throwIfAny();
      const computed = compute(ctx, errors, profile, inputs, original.tax_inclusive);
      errors.throwIfAny();

      const doc = noteDocument(
        req,
        original,
        'credit_note',
        idem,
        body,
        occurredAt,
        computed,
        toNewLines(
          computed,
          wanted.map((w) => w.line),
        ),
      );
      return storeNote(ctx, trx, req, original, doc);
    }),
  );
}

/** A debit note charges more against a fiscalised sale: new lines, priced like the sale. */
export async function createDebitNote(ctx: AppContext, req: PartyWriteRequest, saleId: number, body: DebitNoteBody): Promise<WriteResult> {
  const { tenant } = req;
  const profile = merchantProfile(tenant.authority);
  const errors = new FieldErrors();
  checkAuthorityFields(errors, profile, 'debit_note', body);
  errors.throwIfAny();
  const idem = idempotencyOf(req, `debit_note:${saleId}`, body);
  const earlier = await earlierAttempt(ctx, tenant.id, idem);
  if (earlier) return earlier;

  const original = checkOriginal(await findSale(ctx.db, tenant.id, saleId), 'debit', req.training);
  refuseLevies(profile, body.items);
  checkLines(errors, profile, body.items, original.destination_country_code);
  const exportCategory = profile.taxCategories.find((c) => c.requires === 'export')?.code;
  if (
    original.destination_country_code !== null &&
    exportCategory !== undefined &&
    !body.items.every((i) => i.vatCategory === exportCategory)
  ) {
    errors.add('items', `A debit note on an export (${exportCategory}) sale must be ${exportCategory} on every line.`);
  }
  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  errors.throwIfAny();
  await checkClassifications(ctx, profile.authority, body.items, { whenUnavailable: 'accept' });
  const computed = compute(
    ctx,
    errors,
    profile,
    body.items.map((item) => lineInput(profile, item)),
    original.tax_inclusive,
  );
  errors.throwIfAny();

  const doc = noteDocument(req, original, 'debit_note', idem, body, occurredAt, computed, toNewLines(computed));
  return storeAndSettle(ctx, tenant.id, idem, () => ctx.db.transaction().execute((trx) => storeNote(ctx, trx, req, original, doc)));
}

/**
 * One document as GET /api/v1/sales/{sale} answers it: a sale with what is left to credit per
 * line and the notes issued against it; a note with the sale it corrects, by its numbers.
 */
export async function getSaleWithNotes(ctx: AppContext, tenantId: number, saleId: number): Promise<SaleResource> {
  const sale = await getSale(ctx, tenantId, saleId);
  if (sale.type !== 'sale') {
    if (sale.originalSaleId === null) return sale;
    const original = await findSale(ctx.db, tenantId, sale.originalSaleId);
    if (!original) return sale;
    const receiptNo = original.status === 'uploaded' && original.receipt_no !== null ? Number(original.receipt_no) : null;
    return {
      ...sale,
      originalSale: {
        id: Number(original.id),
        invoiceNo: Number(original.invoice_no),
        authorityInvoiceNo:
          original.status === 'uploaded'
            ? authorityInvoiceNo(original.sdc_id, receiptNo, Number(original.invoice_no), authorityOfTaxpayerId(original.tpin))
            : null,
        receiptNo,
      },
    };
  }
  const [credited, notes] = await Promise.all([creditedByLine(ctx.db, saleId), notesOfSale(ctx.db, tenantId, saleId)]);
  return {
    ...sale,
    items: sale.items.map((line) => {
      const taken = new Decimal(credited.get(line.line)?.quantity ?? 0);
      return { ...line, creditedQuantity: taken.toNumber(), remainingQuantity: new Decimal(String(line.quantity)).minus(taken).toNumber() };
    }),
    notes: notes.map((n) => {
      const uploaded = n.status === 'uploaded';
      return {
        id: Number(n.id),
        type: n.type === 'debit_note' ? 'debit_note' : 'credit_note',
        invoiceNo: Number(n.invoice_no),
        authorityInvoiceNo: uploaded
          ? authorityInvoiceNo(
              n.sdc_id,
              n.receipt_no === null ? null : Number(n.receipt_no),
              Number(n.invoice_no),
              authorityOfTaxpayerId(sale.tpin),
            )
          : null,
        status: presentedStatus(n.status),
        resolved: n.status === 'resolved',
        reasonCode: n.reason_code,
        total: Number(n.total),
        occurredAt: iso(n.occurred_at),
        issuedBy: presentIssuer(n),
      };
    }),
  };
}
