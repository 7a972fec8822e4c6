// The checks a real VSDC makes on a saveSales body before filing it, with the real result codes
// and message shapes: 910 (parameters, dates, arithmetic), 913 (code values).
import { isKnownClassification } from './catalogue.ts';
import { isKnownCode } from './code-tables.ts';
import type { DocumentTotals, FiledLine } from './device.ts';
import { CENT, SCALE, fixed4ToNumber, toFixed4, within } from './fixed-point.ts';
import { LEVY_BUCKETS, SIMULATED_TAX_TYPES, TAX_TYPE_BY_CODE } from './tax-rates.ts';

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
const badCode = (field: string, value: unknown): Rejection => reject('913', `Code value error among request parameters: [${field}] ${String(value)}`);

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

const isRejection = (value: unknown): value is Rejection => typeof value === 'object' && value !== null && (value as Rejection).ok === false;

const REQUIRED_HEADER = ['cisInvcNo', 'custNm', 'salesTyCd', 'rcptTyCd', 'pmtTyCd', 'salesSttsCd', 'cfmDt', 'salesDt', 'currencyTyCd', 'regrId', 'regrNm'];
const REQUIRED_LINE = ['itemClsCd', 'itemNm', 'pkgUnitCd', 'qtyUnitCd', 'vatCatCd'];

/** A best-effort summary of any saveSales body, for the arrival log. */
export function summarizeSaleBody(body: Body): { cisInvcNo: string | null; rcptTyCd: string | null; orgInvcNo: number | null; totals: DocumentTotals | null } {
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

function checkHeaderFields(body: Body, now: Date): Rejection | null {
  for (const field of REQUIRED_HEADER) if (isBlank(body[field])) return missing(field);
  if (!Array.isArray(body.itemList) || body.itemList.length === 0) return missing('itemList');

  if (!isKnownCode('14', body.salesTyCd)) return badCode('salesTyCd', body.salesTyCd);
  if (!isKnownCode('37', body.rcptTyCd)) return badCode('rcptTyCd', body.rcptTyCd);
  if (!isKnownCode('07', body.pmtTyCd)) return badCode('pmtTyCd', body.pmtTyCd);
  if (!isKnownCode('11', body.salesSttsCd)) return badCode('salesSttsCd', body.salesSttsCd);
  if (!isKnownCode('33', body.currencyTyCd)) return badCode('currencyTyCd', body.currencyTyCd);
  if (!isBlank(body.saleCtyCd) && !isKnownCode('06', body.saleCtyCd)) return badCode('saleCtyCd', body.saleCtyCd);
  if (!isBlank(body.destnCountryCd) && !isKnownCode('05', body.destnCountryCd)) return badCode('destnCountryCd', body.destnCountryCd);
  if (!isBlank(body.custTpin) && !(typeof body.custTpin === 'string' && /^\d{10}$/.test(body.custTpin))) {
    return reject('910', '[custTpin] must be 10 digits');
  }

  const exchangeRt = toFixed4(body.exchangeRt);
  if (exchangeRt === null || exchangeRt <= 0n) return reject('910', '[exchangeRt] must be a positive number');
  if (body.currencyTyCd !== 'ZMW' && exchangeRt === SCALE) return reject('910', `Exchange rate for ${String(body.currencyTyCd)} Cannot be 1`);

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
    if (!isBlank(body.rfdDt) && isValidDateText(String(body.rfdDt), true) === null) return reject('910', '[rfdDt] must be a valid date (yyyyMMddHHmmss)');
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

interface LineAmounts {
  key: string;
  taxCode: string;
  qty: bigint;
  taxable: bigint;
  vat: bigint;
  total: bigint;
}

function inclusiveVatOk(totAmt: bigint, taxable: bigint, vat: bigint, rate: bigint): boolean {
  // vatTaxblAmt ≈ totAmt / (1 + r)  ⇔  vatTaxblAmt × (100 + r) ≈ totAmt × 100
  return within(taxable * (100n + rate), totAmt * 100n, CENT * (100n + rate)) && within(vat, totAmt - taxable, CENT);
}

function exclusiveVatOk(totAmt: bigint, taxable: bigint, vat: bigint, rate: bigint): boolean {
  // vatTaxblAmt ≈ totAmt and vatAmt ≈ totAmt × r / 100
  return within(taxable, totAmt, CENT) && within(vat * 100n, totAmt * rate, CENT * 100n);
}

/** Which pricing reading a raw line satisfies (both for zero-rated lines, neither when broken). */
function vatReadings(line: Body): { inclusive: boolean; exclusive: boolean } {
  const rate = TAX_TYPE_BY_CODE.get(String(line.vatCatCd))?.ratePercent;
  const [totAmt, taxable, vat] = [toFixed4(line.totAmt), toFixed4(line.vatTaxblAmt), toFixed4(line.vatAmt)];
  if (rate === undefined || totAmt === null || taxable === null || vat === null) return { inclusive: false, exclusive: false };
  return { inclusive: inclusiveVatOk(totAmt, taxable, vat, rate), exclusive: exclusiveVatOk(totAmt, taxable, vat, rate) };
}

/** Per-line arithmetic. `inclusive` picks the reading of vatTaxblAmt/vatAmt (see checkSaveSales). */
function checkLine(line: Body, index: number, inclusive: boolean, hasDestination: boolean): LineAmounts | Rejection {
  const label = (field: string): string => `itemList[${index}].${field}`;
  for (const field of REQUIRED_LINE) if (isBlank(line[field])) return missing(label(field));
  const taxType = TAX_TYPE_BY_CODE.get(String(line.vatCatCd));
  if (!taxType) return badCode(label('vatCatCd'), line.vatCatCd);
  if (!isKnownClassification(line.itemClsCd)) return badCode(label('itemClsCd'), line.itemClsCd);
  if (!isKnownCode('17', line.pkgUnitCd)) return badCode(label('pkgUnitCd'), line.pkgUnitCd);
  if (!isKnownCode('10', line.qtyUnitCd)) return badCode(label('qtyUnitCd'), line.qtyUnitCd);
  if (taxType.code === 'C1' && !hasDestination) return reject('910', '[destnCountryCd] must not be empty for export (C1) items');

  const values: Record<string, bigint> = {};
  for (const field of ['qty', 'prc', 'splyAmt', 'dcAmt', 'vatTaxblAmt', 'vatAmt', 'totAmt']) {
    const value = amount(line, field, label(field));
    if (isRejection(value)) return value;
    values[field] = value;
  }
  const dcRt = line.dcRt === undefined || line.dcRt === null ? 0n : toFixed4(line.dcRt);
  if (dcRt === null) return reject('910', `[${label('dcRt')}] must be a number with at most 4 decimal places`);
  const { qty, prc, splyAmt, dcAmt, vatTaxblAmt, vatAmt, totAmt } = values as Record<'qty' | 'prc' | 'splyAmt' | 'dcAmt' | 'vatTaxblAmt' | 'vatAmt' | 'totAmt', bigint>;
  if (qty <= 0n) return reject('910', `[${label('qty')}] must be greater than 0`);
  if (prc < 0n || splyAmt < 0n || dcAmt < 0n || vatTaxblAmt < 0n || vatAmt < 0n || totAmt < 0n) {
    return reject('910', `[${label('totAmt')}] amounts must not be negative`);
  }

  // qty × prc is at SCALE², so compare against splyAmt scaled up and a tolerance of 0.01 at SCALE².
  if (!within(qty * prc, splyAmt * SCALE, CENT * SCALE)) return wrongAmount(label('splyAmt'));
  if (!within(splyAmt * dcRt, dcAmt * SCALE * 100n, CENT * SCALE * 100n)) return wrongAmount(label('dcAmt'));
  if (!within(totAmt, splyAmt - dcAmt, CENT)) return wrongAmount(label('totAmt'));

  const rate = taxType.ratePercent;
  const vatOk = inclusive ? inclusiveVatOk : exclusiveVatOk;
  // Blame vatAmt only when vatTaxblAmt is right on its own.
  if (!vatOk(totAmt, vatTaxblAmt, vatAmt, rate)) {
    const taxableRight = inclusive ? within(vatTaxblAmt * (100n + rate), totAmt * 100n, CENT * (100n + rate)) : within(vatTaxblAmt, totAmt, CENT);
    return wrongAmount(label(taxableRight ? 'vatAmt' : 'vatTaxblAmt'));
  }

  const key = isBlank(line.itemCd) ? `name:${String(line.itemNm)}` : `code:${String(line.itemCd)}`;
  return { key, taxCode: taxType.code, qty, taxable: vatTaxblAmt, vat: vatAmt, total: totAmt };
}

function headerAmount(body: Body, field: string): bigint | Rejection {
  return amount(body, field);
}

/**
 * Everything but numbering and notes. Prices may be tax-inclusive (vatTaxblAmt + vatAmt = totAmt)
 * or tax-exclusive (vatTaxblAmt = totAmt, VAT on top), one reading for the whole document.
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
  // A document is read as tax-exclusive when some line only makes sense that way.
  const inclusive = !items.some((line) => {
    const reading = vatReadings(line);
    return reading.exclusive && !reading.inclusive;
  });

  const lines: LineAmounts[] = [];
  for (const [index, line] of items.entries()) {
    const checked = checkLine(line, index, inclusive, !isBlank(body.destnCountryCd));
    if (isRejection(checked)) return checked;
    lines.push(checked);
  }

  let totalTaxable = 0n;
  let totalVat = 0n;
  for (const taxType of SIMULATED_TAX_TYPES) {
    const ofType = lines.filter((l) => l.taxCode === taxType.code);
    const taxable = ofType.reduce((sum, l) => sum + l.taxable, 0n);
    const vat = ofType.reduce((sum, l) => sum + l.vat, 0n);
    totalTaxable += taxable;
    totalVat += vat;
    const bucket = taxType.headerBucket;
    const taxblField = `taxblAmt${bucket}`;
    const rateField = `taxRt${bucket}`;
    const taxField = `taxAmt${bucket}`;
    const headerTaxable = headerAmount(body, taxblField);
    if (isRejection(headerTaxable)) return headerTaxable;
    const headerRate = headerAmount(body, rateField);
    if (isRejection(headerRate)) return headerRate;
    const headerVat = headerAmount(body, taxField);
    if (isRejection(headerVat)) return headerVat;
    if (!within(headerTaxable, taxable, CENT)) return wrongAmount(taxblField);
    if (!within(headerVat, vat, CENT)) return wrongAmount(taxField);
    const rateOk = headerRate === taxType.ratePercent * SCALE || (ofType.length === 0 && headerRate === 0n);
    if (!rateOk) return wrongAmount(rateField);
  }
  for (const bucket of LEVY_BUCKETS) {
    for (const field of [`taxblAmt${bucket}`, `taxAmt${bucket}`]) {
      const value = headerAmount(body, field);
      if (isRejection(value)) return value;
      if (value !== 0n) return wrongAmount(field);
    }
  }
  if (!within(header.totTaxblAmt!, totalTaxable, CENT)) return wrongAmount('totTaxblAmt');
  if (!within(header.totTaxAmt!, totalVat, CENT)) return wrongAmount('totTaxAmt');
  if (!within(header.totAmt!, header.totTaxblAmt! + header.totTaxAmt!, CENT)) return wrongAmount('totAmt');

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
    lines: lines.map((l) => ({ key: l.key, qty4: Number(l.qty), amount4: Number(l.total) })),
  };
}
