// The checks a real VSDC makes on a saveSales body before filing it, with the real result codes
// and message shapes: 910 (parameters, dates, arithmetic), 913 (code values).
import { isKnownClassification } from './catalogue.js';
import { isKnownCode } from './code-tables.js';
import type { DocumentTotals, FiledLine } from './device.js';
import { CENT, SCALE, fixed4ToNumber, toFixed4, within } from './fixed-point.js';
import {
  LEVY_BY_CODE,
  LEVY_FIELDS,
  SIMULATED_LEVIES,
  SIMULATED_TAX_TYPES,
  TAX_TYPE_BY_CODE,
  UNUSED_BUCKETS,
  type SimulatedLevy,
  type SimulatedTaxType,
} from './tax-rates.js';

export interface Rejection {
  ok: false;
  code: string;
  message: string;
}

export interface CheckedSale {
  ok: true;
  cisInvcNo: string;
  rcptTyCd: 'S' | 'R' | 'D';
  orgInvcNo: number;
  orgSdcId: string | null;
  salesDt: string;
  cfmDt: string;
  totals: DocumentTotals;
  total4: bigint;
  lines: FiledLine[];
}

type Body = Record<string, unknown>;

const MAX_SALES_AGE_DAYS = 180;
const DAY_MS = 86_400_000;

function reject(code: string, message: string): Rejection {
  return { ok: false, code, message };
}

const missing = (field: string): Rejection => reject('910', `Validation error for fields: ['${field}': must not be null]`);
const wrongAmount = (field: string): Rejection => reject('910', `Wrong Amount computation at ${field}`);
const badCode = (field: string, value: unknown): Rejection =>
  reject('913', `Code value error among request parameters: [${field}] ${String(value)}`);

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function isValidDateText(text: string, withTime: boolean): Date | null {
  if (!(withTime ? /^\d{14}$/ : /^\d{8}$/).test(text)) return null;
  const parts = [0, 4, 6, 8, 10, 12].map((at, i) => Number(text.slice(at, at + (i === 0 ? 4 : 2))));
  const [y, mo, d, h, mi, s] = withTime ? parts : [...parts.slice(0, 3), 0, 0, 0];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, s));
  const roundTrips =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo! - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s;
  return roundTrips ? date : null;
}

/** Reads an amount field (4 decimals max); a Rejection when it is missing or too precise. */
function amount(body: Body, field: string, label = field): bigint | Rejection {
  const value = body[field];
  if (value === undefined || value === null) return missing(label);
  const fixed = toFixed4(value);
  if (fixed === null) return reject('910', `[${label}] must be a number with at most 4 decimal places`);
  return fixed;
}

const isRejection = (value: unknown): value is Rejection =>
  typeof value === 'object' && value !== null && (value as Rejection).ok === false;

const REQUIRED_HEADER = [
  'cisInvcNo',
  'custNm',
  'salesTyCd',
  'rcptTyCd',
  'pmtTyCd',
  'salesSttsCd',
  'cfmDt',
  'salesDt',
  'currencyTyCd',
  'regrId',
  'regrNm',
];
const REQUIRED_LINE = ['itemClsCd', 'itemNm', 'pkgUnitCd', 'qtyUnitCd'];

/** A best-effort summary of any saveSales body, for the arrival log. */
export function summarizeSaleBody(body: Body): {
  cisInvcNo: string | null;
  rcptTyCd: string | null;
  orgInvcNo: number | null;
  totals: DocumentTotals | null;
} {
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  const taxable = num(body.totTaxblAmt);
  const tax = num(body.totTaxAmt);
  const total = num(body.totAmt);
  return {
    cisInvcNo: typeof body.cisInvcNo === 'string' || typeof body.cisInvcNo === 'number' ? String(body.cisInvcNo) : null,
    rcptTyCd: typeof body.rcptTyCd === 'string' ? body.rcptTyCd : null,
    orgInvcNo: num(body.orgInvcNo),
    totals: taxable !== null && tax !== null && total !== null ? { taxable, tax, total } : null,
  };
}

/** `cisInvcNo` as the VSDC keys it, or null when absent. */
export function invoiceNumberOf(body: Body): string | null {
  const value = body.cisInvcNo;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** The salesTyCd × rcptTyCd pairs the VSDC accepts (else 834): a proforma is never credited or debited. */
const SALES_RECEIPT_PAIRS: ReadonlySet<string> = new Set(['NS', 'NR', 'ND', 'TS', 'TR', 'TD', 'CS', 'CR', 'CD', 'PS']);

function checkHeaderFields(body: Body, now: Date): Rejection | null {
  for (const field of REQUIRED_HEADER) if (isBlank(body[field])) return missing(field);
  if (!Array.isArray(body.itemList) || body.itemList.length === 0) return missing('itemList');

  if (!isKnownCode('14', body.salesTyCd)) return badCode('salesTyCd', body.salesTyCd);
  if (!isKnownCode('37', body.rcptTyCd)) return badCode('rcptTyCd', body.rcptTyCd);
  if (!isKnownCode('07', body.pmtTyCd)) return badCode('pmtTyCd', body.pmtTyCd);
  if (!isKnownCode('11', body.salesSttsCd)) return badCode('salesSttsCd', body.salesSttsCd);
  if (!SALES_RECEIPT_PAIRS.has(`${String(body.salesTyCd)}${String(body.rcptTyCd)}`)) {
    return reject('834', 'SalesType and ReceiptType must be NS-NR-ND-TS-TR-TD-CS-CR-CD-PS');
  }
  if (!isKnownCode('33', body.currencyTyCd)) return badCode('currencyTyCd', body.currencyTyCd);
  if (!isBlank(body.saleCtyCd) && !isKnownCode('06', body.saleCtyCd)) return badCode('saleCtyCd', body.saleCtyCd);
  if (!isBlank(body.destnCountryCd) && !isKnownCode('05', body.destnCountryCd)) return badCode('destnCountryCd', body.destnCountryCd);
  if (!isBlank(body.custTpin) && !(typeof body.custTpin === 'string' && /^\d{10}$/.test(body.custTpin))) {
    return reject('910', '[custTpin] must be 10 digits');
  }

  const exchangeRt = toFixed4(body.exchangeRt);
  if (exchangeRt === null || exchangeRt <= 0n) return reject('910', '[exchangeRt] must be a positive number');
  if (body.currencyTyCd !== 'ZMW' && exchangeRt === SCALE)
    return reject('910', `Exchange rate for ${String(body.currencyTyCd)} Cannot be 1`);

  if (isValidDateText(String(body.cfmDt), true) === null) return reject('910', '[cfmDt] must be a valid date (yyyyMMddHHmmss)');
  const salesDate = isValidDateText(String(body.salesDt), false);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const ageDays = salesDate === null ? -1 : (today - salesDate.getTime()) / DAY_MS;
  if (ageDays < 0 || ageDays > MAX_SALES_AGE_DAYS) {
    return reject('910', '[salesDt] must be a valid date and should not exceeding 180 days behind or future dates.');
  }

  if (body.rcptTyCd === 'R') {
    if (isBlank(body.rfdRsnCd)) return missing('rfdRsnCd');
    if (!isKnownCode('32', body.rfdRsnCd)) return badCode('rfdRsnCd', body.rfdRsnCd);
    if (!isBlank(body.rfdDt) && isValidDateText(String(body.rfdDt), true) === null)
      return reject('910', '[rfdDt] must be a valid date (yyyyMMddHHmmss)');
  }
  if (body.rcptTyCd === 'D') {
    if (isBlank(body.dbtRsnCd)) return missing('dbtRsnCd');
    if (!isKnownCode('67', body.dbtRsnCd)) return badCode('dbtRsnCd', body.dbtRsnCd);
  }
  if (body.rcptTyCd !== 'S') {
    if (typeof body.orgInvcNo !== 'number' || body.orgInvcNo <= 0) return missing('orgInvcNo');
    if (isBlank(body.orgSdcId)) return missing('orgSdcId');
  }
  return null;
}

/** 0.01 in SCALE² units (the unit of qty × prc). */
const CENT2 = CENT * SCALE;
/** 100 % at the rates' scale (percent × SCALE). */
const HUNDRED_PERCENT = 100n * SCALE;

/** A line's amounts in SCALE² units, so qty × prc needs no rounding. */
interface ParsedLine {
  index: number;
  key: string;
  /** Null on a levy-only line (`vatCatCd: null`). */
  taxType: SimulatedTaxType | null;
  qty: bigint;
  /** What VAT is computed on: totAmt, or on an MTV line qty × RRP when that is higher. */
  vatBase2: bigint;
  totAmt: bigint;
  taxable: bigint;
  vat: bigint;
  levies: { levy: SimulatedLevy; taxable: bigint; amount: bigint }[];
}

const toScale2 = (amount4: bigint): bigint => amount4 * SCALE;

/** Tax-inclusive: taxable ≈ base / (1 + r) and tax = base − taxable, each within a cent. */
function inclusiveOk(base2: bigint, taxable2: bigint, tax2: bigint, rate4: bigint): boolean {
  return (
    within(taxable2 * (HUNDRED_PERCENT + rate4), base2 * HUNDRED_PERCENT, CENT2 * (HUNDRED_PERCENT + rate4)) &&
    within(tax2, base2 - taxable2, CENT2)
  );
}

/** Tax-exclusive: taxable ≈ base and tax ≈ base × r, each within a cent. */
function exclusiveOk(base2: bigint, taxable2: bigint, tax2: bigint, rate4: bigint): boolean {
  return within(taxable2, base2, CENT2) && within(tax2 * HUNDRED_PERCENT, base2 * rate4, CENT2 * HUNDRED_PERCENT);
}

/**
 * `dcAmt ≈ base × dcRt / 100`: within a cent, plus what a rate rounded to 4 decimals cannot say
 * (half its last place, times the base).
 */
function discountRateOk(base2: bigint, dcRt4: bigint, dcAmt4: bigint): boolean {
  return within(base2 * dcRt4, toScale2(dcAmt4) * HUNDRED_PERCENT, CENT2 * HUNDRED_PERCENT + base2 / 2n + 1n);
}

/** An optional amount (absent or null: 0), at most 4 decimals. */
function optionalAmount(body: Body, field: string, label: string): bigint | Rejection {
  const value = body[field];
  if (value === undefined || value === null) return 0n;
  const fixed = toFixed4(value);
  if (fixed === null) return reject('910', `[${label}] must be a number with at most 4 decimal places`);
  return fixed;
}

/**
 * Per-line checks that do not depend on the document's pricing reading: codes, quantity × price,
 * the discount, MTV's RRP, levies. A line carries a VAT category, a levy category
 * (`iplCatCd`, `tlCatCd`, `exciseTxCatCd`) with `vatCatCd: null`, or both.
 */
function parseLine(line: Body, index: number, hasDestination: boolean): ParsedLine | Rejection {
  const label = (field: string): string => `itemList[${index}].${field}`;
  for (const field of REQUIRED_LINE) if (isBlank(line[field])) return missing(label(field));
  const levies: ParsedLine['levies'] = [];
  for (const field of LEVY_FIELDS) {
    const code = line[field.category];
    if (isBlank(code)) continue;
    const levy = LEVY_BY_CODE.get(String(code));
    if (!levy || levy.field !== field) return badCode(label(field.category), code);
    levies.push({ levy, taxable: 0n, amount: 0n });
  }
  let taxType: SimulatedTaxType | null = null;
  if (isBlank(line.vatCatCd)) {
    if (levies.length === 0) return missing(label('vatCatCd'));
  } else {
    taxType = TAX_TYPE_BY_CODE.get(String(line.vatCatCd)) ?? null;
    if (!taxType) return badCode(label('vatCatCd'), line.vatCatCd);
  }
  if (!isKnownClassification(line.itemClsCd)) return badCode(label('itemClsCd'), line.itemClsCd);
  if (!isKnownCode('17', line.pkgUnitCd)) return badCode(label('pkgUnitCd'), line.pkgUnitCd);
  if (!isKnownCode('10', line.qtyUnitCd)) return badCode(label('qtyUnitCd'), line.qtyUnitCd);
  if (taxType?.code === 'C1' && !hasDestination) return reject('910', '[destnCountryCd] must not be empty for export (C1) items');
  const mtv = taxType?.code === 'B';

  const values: Record<string, bigint> = {};
  for (const field of ['qty', 'prc', 'splyAmt', 'dcAmt', 'totAmt']) {
    const value = amount(line, field, label(field));
    if (isRejection(value)) return value;
    values[field] = value;
  }
  for (const field of ['vatTaxblAmt', 'vatAmt']) {
    // A levy-only line may leave its VAT amounts out.
    const value = taxType ? amount(line, field, label(field)) : optionalAmount(line, field, label(field));
    if (isRejection(value)) return value;
    values[field] = value;
  }
  const dcRt = optionalAmount(line, 'dcRt', label('dcRt'));
  if (isRejection(dcRt)) return dcRt;
  let rrp = 0n;
  if (mtv) {
    // MTV: VAT is computed on the recommended retail price when the item sells below it.
    const value = amount(line, 'rrp', label('rrp'));
    if (isRejection(value)) return value;
    rrp = value;
  }
  const { qty, prc, splyAmt, dcAmt, vatTaxblAmt, vatAmt, totAmt } = values as Record<
    'qty' | 'prc' | 'splyAmt' | 'dcAmt' | 'vatTaxblAmt' | 'vatAmt' | 'totAmt',
    bigint
  >;
  if (qty <= 0n) return reject('910', `[${label('qty')}] must be greater than 0`);
  if (prc < 0n || splyAmt < 0n || dcAmt < 0n || dcRt < 0n || rrp < 0n || vatTaxblAmt < 0n || vatAmt < 0n || totAmt < 0n) {
    return reject('910', `[${label('totAmt')}] amounts must not be negative`);
  }

  // qty × prc is at SCALE², so splyAmt and the rest are scaled up to compare.
  const gross2 = qty * prc;
  const supply2 = mtv && rrp > prc ? qty * rrp : gross2;
  if (!within(supply2, toScale2(splyAmt), CENT2)) return wrongAmount(label('splyAmt'));
  // The discount rate is of the line's gross: splyAmt, or qty × prc on an MTV line.
  if (!discountRateOk(mtv ? gross2 : toScale2(splyAmt), dcRt, dcAmt)) return wrongAmount(label('dcAmt'));
  const totAmtOk = mtv ? within(toScale2(totAmt + dcAmt), gross2, CENT2) : within(totAmt, splyAmt - dcAmt, CENT);
  if (!totAmtOk) return wrongAmount(label('totAmt'));
  if (!taxType && (vatTaxblAmt !== 0n || vatAmt !== 0n)) return wrongAmount(label(vatTaxblAmt !== 0n ? 'vatTaxblAmt' : 'vatAmt'));

  for (const field of LEVY_FIELDS) {
    const taxable = optionalAmount(line, field.taxable, label(field.taxable));
    if (isRejection(taxable)) return taxable;
    const levyAmount = optionalAmount(line, field.amount, label(field.amount));
    if (isRejection(levyAmount)) return levyAmount;
    if (taxable < 0n || levyAmount < 0n) return reject('910', `[${label(field.amount)}] amounts must not be negative`);
    const levied = levies.find((l) => l.levy.field === field);
    if (!levied) {
      if (taxable !== 0n) return wrongAmount(label(field.taxable));
      if (levyAmount !== 0n) return wrongAmount(label(field.amount));
      continue;
    }
    // The levy's base is at most what the line costs; the levy is its rate of that base.
    if (taxable > totAmt + CENT) return wrongAmount(label(field.taxable));
    if (!within(toScale2(levyAmount) * HUNDRED_PERCENT, toScale2(taxable) * levied.levy.rate4, CENT2 * HUNDRED_PERCENT)) {
      return wrongAmount(label(field.amount));
    }
    levied.taxable = taxable;
    levied.amount = levyAmount;
  }

  const key = isBlank(line.itemCd) ? `name:${String(line.itemNm)}` : `code:${String(line.itemCd)}`;
  const vatBase2 = mtv && qty * rrp > toScale2(totAmt) ? qty * rrp : toScale2(totAmt);
  return { index, key, taxType, qty, vatBase2, totAmt, taxable: vatTaxblAmt, vat: vatAmt, levies };
}

/** Which pricing reading a line's VAT satisfies (both for zero-rated lines, neither when broken). */
function vatReadings(line: ParsedLine): { inclusive: boolean; exclusive: boolean } {
  if (!line.taxType) return { inclusive: true, exclusive: true };
  const [taxable2, vat2] = [toScale2(line.taxable), toScale2(line.vat)];
  return {
    inclusive: inclusiveOk(line.vatBase2, taxable2, vat2, line.taxType.rate4),
    exclusive: exclusiveOk(line.vatBase2, taxable2, vat2, line.taxType.rate4),
  };
}

/** The VAT of a line under the document's reading; blames vatAmt only when vatTaxblAmt is right on its own. */
function checkLineVat(line: ParsedLine, inclusive: boolean): Rejection | null {
  const taxType = line.taxType;
  if (!taxType) return null;
  const reading = vatReadings(line);
  if (inclusive ? reading.inclusive : reading.exclusive) return null;
  const taxable2 = toScale2(line.taxable);
  const taxableRight = inclusive
    ? within(taxable2 * (HUNDRED_PERCENT + taxType.rate4), line.vatBase2 * HUNDRED_PERCENT, CENT2 * (HUNDRED_PERCENT + taxType.rate4))
    : within(taxable2, line.vatBase2, CENT2);
  return wrongAmount(`itemList[${line.index}].${taxableRight ? 'vatAmt' : 'vatTaxblAmt'}`);
}

function headerAmount(body: Body, field: string): bigint | Rejection {
  return amount(body, field);
}

/** One header trio against the lines: amounts within a cent, the rate as published (or 0 when unused). */
function checkBucket(body: Body, type: SimulatedTaxType, used: boolean, taxable: bigint, tax: bigint): Rejection | null {
  const bucket = type.headerBucket;
  for (const [field, expected] of [
    [`taxblAmt${bucket}`, taxable],
    [`taxAmt${bucket}`, tax],
  ] as const) {
    const value = headerAmount(body, field);
    if (isRejection(value)) return value;
    if (!within(value, expected, CENT)) return wrongAmount(field);
  }
  const rate = headerAmount(body, `taxRt${bucket}`);
  if (isRejection(rate)) return rate;
  if (!(rate === type.rate4 || (!used && rate === 0n))) return wrongAmount(`taxRt${bucket}`);
  return null;
}

/**
 * Everything but numbering and notes. Prices may be tax-inclusive (vatTaxblAmt + vatAmt = the
 * VAT base) or tax-exclusive (vatTaxblAmt = the base, VAT on top), one reading for the whole
 * document. The header's totAmt is what the customer pays: Σ line totAmt (inclusive) or
 * Σ (totAmt + vatAmt + levies) (exclusive), less `cashDcAmt`; on an MTV line sold below its RRP
 * it is therefore less than totTaxblAmt + totTaxAmt.
 */
export function checkSaveSales(body: Body, now: Date): CheckedSale | Rejection {
  const headerProblem = checkHeaderFields(body, now);
  if (headerProblem) return headerProblem;
  const items = body.itemList as Body[];

  const totItemCnt = body.totItemCnt;
  if (typeof totItemCnt !== 'number') return missing('totItemCnt');
  if (totItemCnt !== items.length) return reject('910', `[totItemCnt] ${totItemCnt} does not match the ${items.length} items`);

  const header: Record<string, bigint> = {};
  for (const field of ['totTaxblAmt', 'totTaxAmt', 'totAmt']) {
    const value = headerAmount(body, field);
    if (isRejection(value)) return value;
    header[field] = value;
  }
  const hasDestination = !isBlank(body.destnCountryCd);
  const lines: ParsedLine[] = [];
  for (const [index, line] of items.entries()) {
    const parsed = parseLine(line, index, hasDestination);
    if (isRejection(parsed)) return parsed;
    lines.push(parsed);
  }
  // A document is read as tax-exclusive when some line only makes sense that way.
  const inclusive = !lines.some((line) => {
    const reading = vatReadings(line);
    return reading.exclusive && !reading.inclusive;
  });
  for (const line of lines) {
    const problem = checkLineVat(line, inclusive);
    if (problem) return problem;
  }

  let totalTaxable = 0n;
  let totalTax = 0n;
  const zeroRated = { taxable: 0n, tax: 0n };
  for (const taxType of SIMULATED_TAX_TYPES) {
    const ofType = lines.filter((l) => l.taxType === taxType);
    const taxable = ofType.reduce((sum, l) => sum + l.taxable, 0n);
    const vat = ofType.reduce((sum, l) => sum + l.vat, 0n);
    totalTaxable += taxable;
    totalTax += vat;
    if (taxType.code.startsWith('C')) {
      zeroRated.taxable += taxable;
      zeroRated.tax += vat;
    }
    const problem = checkBucket(body, taxType, ofType.length > 0, taxable, vat);
    if (problem) return problem;
  }
  for (const levy of SIMULATED_LEVIES) {
    const ofLevy = lines.flatMap((l) => l.levies.filter((x) => x.levy === levy));
    const taxable = ofLevy.reduce((sum, l) => sum + l.taxable, 0n);
    const tax = ofLevy.reduce((sum, l) => sum + l.amount, 0n);
    totalTaxable += taxable;
    totalTax += tax;
    const problem = checkBucket(body, levy, ofLevy.length > 0, taxable, tax);
    if (problem) return problem;
  }
  for (const bucket of UNUSED_BUCKETS) {
    for (const field of [`taxblAmt${bucket}`, `taxAmt${bucket}`]) {
      const value = headerAmount(body, field);
      if (isRejection(value)) return value;
      if (value !== 0n) return wrongAmount(field);
    }
  }
  // Some integrators also send a `C` bucket beside C1–C3: 0, or the sum of C1–C3.
  for (const [field, sum] of [
    ['taxblAmtC', zeroRated.taxable],
    ['taxAmtC', zeroRated.tax],
  ] as const) {
    const value = optionalAmount(body, field, field);
    if (isRejection(value)) return value;
    if (!(within(value, 0n, CENT) || within(value, sum, CENT))) return wrongAmount(field);
  }
  if (!within(header.totTaxblAmt!, totalTaxable, CENT)) return wrongAmount('totTaxblAmt');
  if (!within(header.totTaxAmt!, totalTax, CENT)) return wrongAmount('totTaxAmt');

  const payableAs = (asInclusive: boolean): bigint =>
    lines.reduce((sum, l) => sum + l.totAmt + (asInclusive ? 0n : l.vat + l.levies.reduce((s2, x) => s2 + x.amount, 0n)), 0n);
  const cashDcAmt = optionalAmount(body, 'cashDcAmt', 'cashDcAmt');
  if (isRejection(cashDcAmt)) return cashDcAmt;
  // Lines of a few ngwee fit both readings within rounding (VAT of 0.01 is within a cent of
  // nothing): then the header's totAmt says which one the document meant.
  const ambiguous = inclusive && lines.every((line) => vatReadings(line).exclusive);
  const payable = ambiguous && !within(header.totAmt!, payableAs(true) - cashDcAmt, CENT) ? payableAs(false) : payableAs(inclusive);
  const cashDcRt = optionalAmount(body, 'cashDcRt', 'cashDcRt');
  if (isRejection(cashDcRt)) return cashDcRt;
  if (cashDcAmt < 0n || cashDcRt < 0n || cashDcAmt > payable) return wrongAmount('cashDcAmt');
  if (cashDcRt !== 0n && !discountRateOk(toScale2(payable), cashDcRt, cashDcAmt)) return wrongAmount('cashDcAmt');
  if (!within(header.totAmt!, payable - cashDcAmt, CENT)) return wrongAmount('totAmt');

  return {
    ok: true,
    cisInvcNo: invoiceNumberOf(body) as string,
    rcptTyCd: body.rcptTyCd as 'S' | 'R' | 'D',
    orgInvcNo: typeof body.orgInvcNo === 'number' ? body.orgInvcNo : 0,
    orgSdcId: typeof body.orgSdcId === 'string' ? body.orgSdcId : null,
    salesDt: String(body.salesDt),
    cfmDt: String(body.cfmDt),
    totals: { taxable: fixed4ToNumber(header.totTaxblAmt!), tax: fixed4ToNumber(header.totTaxAmt!), total: fixed4ToNumber(header.totAmt!) },
    total4: header.totAmt!,
    lines: lines.map((l) => ({ key: l.key, qty4: Number(l.qty), amount4: Number(l.totAmt) })),
  };
}
