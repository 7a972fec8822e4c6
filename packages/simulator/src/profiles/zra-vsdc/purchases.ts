// Purchases: the sales other taxpayers filed with this one as the buyer
// (`selectTrnsPurchaseSales`, fed by sellers on the simulator or seeded through the control API,
// kept exactly as given), and the buyer's answer to them or its own purchases (`savePurchase`).
import {
  formatVsdcDate,
  formatVsdcDateTime,
  type PurchaseSale,
  type PurchaseSaleLine,
  type SavePurchaseRequest,
} from '@fiscal-gateway/vsdc-protocol';
import { isKnownClassification } from './catalogue.js';
import { isKnownCode } from './code-tables.js';
import type { Device, DeviceRecord, IssuedReceipt, PurchaseRecord } from './device.js';
import { fixed4ToNumber, toFixed4 } from './fixed-point.js';
import {
  badCode,
  checkAmount,
  checkDate,
  invalid,
  missingField,
  mustNotBeNull,
  ok,
  selectChanged,
  type Body,
  type EndpointContext,
  type EnvelopeReply,
  type Reply,
} from './replies.js';
import type { SimulatorState } from './state.js';
import { KNOWN_TAXPAYERS } from './taxpayers.js';

export function selectTrnsPurchaseSales(body: Body, { device }: EndpointContext): Reply {
  return selectChanged(body, device.record.purchases, (p) => p.sale, 'saleList');
}

const TRIO_BUCKETS = ['A', 'B', 'C1', 'C2', 'C3', 'D', 'Rvat', 'E', 'F', 'Ipl1', 'Ipl2', 'Tl', 'Ecm', 'Exeeg', 'Tot'];
const HEADER_REQUIRED = [
  'invcNo',
  'spplrNm',
  'regTyCd',
  'pchsTyCd',
  'rcptTyCd',
  'pmtTyCd',
  'pchsSttsCd',
  'cfmDt',
  'pchsDt',
  'totItemCnt',
  'totTaxblAmt',
  'totTaxAmt',
  'totAmt',
  'regrId',
  'regrNm',
];
const LINE_REQUIRED = ['itemSeq', 'itemNm', 'qty', 'prc', 'splyAmt', 'totAmt'];
const LINE_AMOUNTS = ['qty', 'prc', 'splyAmt', 'dcRt', 'dcAmt', 'taxblAmt', 'vatAmt', 'iplAmt', 'tlAmt', 'exciseTxAmt', 'taxAmt', 'totAmt'];

const present = (value: unknown): boolean => value !== undefined && value !== null;

function checkHeader(body: Body): EnvelopeReply | null {
  const missing = missingField(body, HEADER_REQUIRED);
  if (missing) return missing;
  if (!Array.isArray(body.itemList) || body.itemList.length === 0) return mustNotBeNull('itemList');
  if (body.regTyCd !== 'A' && body.regTyCd !== 'M') return badCode('regTyCd', body.regTyCd);
  if (!isKnownCode('14', body.pchsTyCd)) return badCode('pchsTyCd', body.pchsTyCd);
  if (!isKnownCode('38', body.rcptTyCd)) return badCode('rcptTyCd', body.rcptTyCd);
  if (!isKnownCode('07', body.pmtTyCd)) return badCode('pmtTyCd', body.pmtTyCd);
  if (!isKnownCode('34', body.pchsSttsCd)) return badCode('pchsSttsCd', body.pchsSttsCd);
  if (present(body.spplrTpin) && !(typeof body.spplrTpin === 'string' && /^\d{10}$/.test(body.spplrTpin)))
    return invalid('[spplrTpin] must be 10 digits');
  if (body.regTyCd === 'A') {
    const link = missingField(body, ['spplrTpin', 'spplrInvcNo']);
    if (link) return link;
  }
  if (!(typeof body.invcNo === 'number' && Number.isSafeInteger(body.invcNo) && body.invcNo > 0))
    return invalid('[invcNo] must be a whole number greater than 0');
  const dateProblem =
    checkDate(body.cfmDt, 'cfmDt', true) ??
    checkDate(body.pchsDt, 'pchsDt', false) ??
    (['wrhsDt', 'cnclReqDt', 'cnclDt', 'rfdDt'] as const)
      .map((f) => (present(body[f]) ? checkDate(body[f], f, true) : null))
      .find((p) => p !== null) ??
    null;
  if (dateProblem) return dateProblem;
  const amountFields = ['totTaxblAmt', 'totTaxAmt', 'totAmt', ...TRIO_BUCKETS.flatMap((b) => [`taxblAmt${b}`, `taxRt${b}`, `taxAmt${b}`])];
  for (const field of amountFields) {
    const problem = present(body[field]) ? checkAmount(body[field], field) : null;
    if (problem) return problem;
  }
  if (body.totItemCnt !== body.itemList.length)
    return invalid(`[totItemCnt] ${String(body.totItemCnt)} does not match the ${body.itemList.length} items`);
  return null;
}

function checkLine(line: Body, index: number): EnvelopeReply | null {
  const label = (field: string): string => `itemList[${index}].${field}`;
  const missing = missingField(line, LINE_REQUIRED, label);
  if (missing) return missing;
  for (const field of LINE_AMOUNTS) {
    const problem = present(line[field]) ? checkAmount(line[field], label(field)) : null;
    if (problem) return problem;
  }
  if ((toFixed4(line.qty) ?? 0n) <= 0n) return invalid(`[${label('qty')}] must be greater than 0`);
  if (present(line.itemClsCd) && !isKnownClassification(line.itemClsCd)) return badCode(label('itemClsCd'), line.itemClsCd);
  if (present(line.vatCatCd) && !isKnownCode('04', line.vatCatCd)) return badCode(label('vatCatCd'), line.vatCatCd);
  if (present(line.pkgUnitCd) && !isKnownCode('17', line.pkgUnitCd)) return badCode(label('pkgUnitCd'), line.pkgUnitCd);
  if (present(line.qtyUnitCd) && !isKnownCode('10', line.qtyUnitCd)) return badCode(label('qtyUnitCd'), line.qtyUnitCd);
  return null;
}

/** The pulled sale a `regTyCd` `A` answer is about: same supplier, same supplier invoice number. */
function pulledSale(record: DeviceRecord, body: Body): PurchaseRecord | undefined {
  return record.purchases.find(
    (p) =>
      p.sale.spplrTpin === body.spplrTpin &&
      String(p.sale.spplrInvcNo) === String(body.spplrInvcNo) &&
      (!present(body.spplrBhfId) || p.sale.spplrBhfId === body.spplrBhfId),
  );
}

/**
 * Records the buyer's purchase; a resend with the same `invcNo` replaces it (a retry after a lost
 * reply stays harmless). Totals are not recomputed: the buyer may echo what the supplier filed.
 */
export function savePurchase(body: Body, { device, state, now }: EndpointContext): Reply {
  const problem = checkHeader(body) ?? (body.itemList as Body[]).map((line, i) => checkLine(line, i)).find((p) => p !== null) ?? null;
  if (problem) return problem;
  const record = device.record;
  const pulled = body.regTyCd === 'A' ? pulledSale(record, body) : undefined;
  if (body.regTyCd === 'A' && !pulled) {
    return invalid(
      `[spplrInvcNo] ${String(body.spplrInvcNo)} of supplier ${String(body.spplrTpin)} is not among this taxpayer's purchases`,
    );
  }
  const { tpin: _tpin, bhfId: _bhfId, ...purchase } = body as unknown as SavePurchaseRequest & { tpin: string; bhfId: string };
  const saved = { ...purchase, receivedAt: now.toISOString() };
  const at = record.savedPurchases.findIndex((p) => p.invcNo === purchase.invcNo);
  if (at >= 0) record.savedPurchases[at] = saved;
  else record.savedPurchases.push(saved);
  if (pulled) pulled.answer = { invcNo: purchase.invcNo, pchsSttsCd: purchase.pchsSttsCd };
  if (purchase.invcNo > record.lastPchsInvcNo) record.lastPchsInvcNo = purchase.invcNo;
  state.changed();
  return ok();
}

/**
 * A sale filed on the simulator with another taxpayer's TPIN as the customer appears in that
 * taxpayer's purchases, on its headquarters device (`000`) if the simulator knows it.
 */
export function offerToBuyer(state: SimulatorState, seller: Device, body: Body, receipt: IssuedReceipt, now: Date): void {
  const buyerTpin = body.custTpin;
  if (typeof buyerTpin !== 'string' || !/^\d{10}$/.test(buyerTpin) || buyerTpin === '1000000000' || buyerTpin === seller.record.tpin)
    return;
  const buyer = state.findDevice(buyerTpin, '000');
  if (!buyer) return;
  const lines = Array.isArray(body.itemList) ? (body.itemList as Body[]) : [];
  const sale: PurchaseSale = {
    spplrTpin: seller.record.tpin,
    spplrNm: seller.record.taxprNm,
    spplrBhfId: seller.record.bhfId,
    spplrInvcNo: receipt.rcptNo,
    spplrSdcId: receipt.sdcId,
    rcptTyCd: String(body.rcptTyCd),
    pmtTyCd: typeof body.pmtTyCd === 'string' ? body.pmtTyCd : null,
    cfmDt: String(body.cfmDt),
    salesDt: String(body.salesDt),
    stockRlsDt: typeof body.stockRlsDt === 'string' ? body.stockRlsDt : null,
    totItemCnt: lines.length,
    totTaxblAmt: body.totTaxblAmt as number,
    totTaxAmt: body.totTaxAmt as number,
    totAmt: body.totAmt as number,
    remark: typeof body.remark === 'string' ? body.remark : null,
    itemList: lines.map((line) => ({ ...(line as PurchaseSaleLine) })),
  };
  buyer.record.purchases.push({ sale, changedAt: formatVsdcDateTime(now), answer: null });
}

function defaultLine(index: number): PurchaseSaleLine {
  return {
    itemSeq: index + 1,
    itemCd: `ZM2NTU${String(9000 + index).padStart(7, '0')}`,
    itemClsCd: '50151513',
    itemNm: 'Cooking oil 5L',
    bcd: null,
    pkgUnitCd: 'NT',
    pkg: 10,
    qtyUnitCd: 'U',
    qty: 10,
    prc: 116,
    splyAmt: 1160,
    dcRt: 0,
    dcAmt: 0,
    vatCatCd: 'A',
    iplCatCd: null,
    tlCatCd: null,
    exciseTxCatCd: null,
    vatTaxblAmt: 1000,
    vatAmt: 160,
    totAmt: 1160,
  };
}

const sum = (lines: readonly PurchaseSaleLine[], field: 'vatTaxblAmt' | 'vatAmt' | 'totAmt'): number =>
  fixed4ToNumber(lines.reduce((total, line) => total + (toFixed4(line[field]) ?? 0n), 0n));

/**
 * Seeded purchases, kept exactly as given (inconsistent dates or totals included, as real pulled
 * data can be); omitted fields get a plausible sale by a known taxpayer, totals summed from lines.
 */
export function seedPurchases(record: DeviceRecord, given: readonly Partial<PurchaseSale>[], now: Date): PurchaseRecord[] {
  const changedAt = formatVsdcDateTime(now);
  const supplier = KNOWN_TAXPAYERS[0]!;
  const added = given.map((sale, index): PurchaseRecord => {
    const lines = Array.isArray(sale.itemList) ? sale.itemList.map((line, i) => ({ ...defaultLine(i), ...line })) : [defaultLine(0)];
    const full: PurchaseSale = {
      spplrTpin: supplier.tpin,
      spplrNm: supplier.name,
      spplrBhfId: '000',
      spplrInvcNo: 1000 + record.purchases.length + index + 1,
      spplrSdcId: 'SDC0010009001',
      rcptTyCd: 'S',
      pmtTyCd: '01',
      cfmDt: changedAt,
      salesDt: formatVsdcDate(now),
      stockRlsDt: null,
      totItemCnt: lines.length,
      totTaxblAmt: sum(lines, 'vatTaxblAmt'),
      totTaxAmt: sum(lines, 'vatAmt'),
      totAmt: sum(lines, 'totAmt'),
      remark: null,
      ...sale,
      itemList: lines,
    };
    return { sale: full, changedAt, answer: null };
  });
  record.purchases.push(...added);
  return added;
}
