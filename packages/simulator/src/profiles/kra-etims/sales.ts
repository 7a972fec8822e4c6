// The sale endpoint's checks and filing, shared by OSCU (saveTrnsSalesOsdc) and VSCU
// (trnsSales/saveSales): the body's shape (910 naming the field), the invoice number's
// uniqueness per branch (one sequence across kinds), the arithmetic, the credit-note rules, then the receipt.
import { createHash } from 'node:crypto';
import { checkKraSaleArithmetic, kraNumber } from './arithmetic.js';
import { isKraCode, kenyaDateTime, parseKraDate, RESULT_MESSAGES, TAX_LETTERS } from './codes.js';
import type { KraDevice, KraFiledDocument, KraSettings } from './device.js';

export type SaleOutcome = { kind: 'filed'; doc: KraFiledDocument } | { kind: 'refused'; code: string; message: string };

type Body = Record<string, unknown>;

const refuse = (code: string, message = RESULT_MESSAGES[code] ?? 'Error'): SaleOutcome => ({ kind: 'refused', code, message });
const param = (field: string, what: string): SaleOutcome => refuse('910', `Request parameter error: [${field}] ${what}`);

/** A whole number ≥ min, as a JSON number or a digit string; else null. */
export function kraInteger(value: unknown, min: number): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= min ? n : null;
}

const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const SIX_MONTHS_DAYS = 183;

const LINE_AMOUNTS = ['qty', 'prc', 'splyAmt', 'dcAmt', 'taxblAmt', 'taxAmt', 'totAmt'] as const;
const LINE_TEXTS = ['itemClsCd', 'itemNm', 'pkgUnitCd', 'qtyUnitCd'] as const;
const HEADER_AMOUNTS = [...TAX_LETTERS.flatMap((l) => [`taxblAmt${l}`, `taxRt${l}`, `taxAmt${l}`]), 'totTaxblAmt', 'totTaxAmt', 'totAmt'];

/** The first shape problem of a sale body, as a 910 naming the field. */
function checkShape(body: Body, salesTypes: readonly string[]): SaleOutcome | null {
  if (kraInteger(body.invcNo, 1) === null) return param('invcNo', 'must be a whole number ≥ 1 (a number or a digit string)');
  if (kraInteger(body.orgInvcNo, 0) === null) return param('orgInvcNo', 'must be a whole number ≥ 0 (0 on a sale)');
  if (body.rcptTyCd !== 'S' && body.rcptTyCd !== 'R')
    return param('rcptTyCd', `must be S (sale) or R (credit note) (code class 37), not ${JSON.stringify(body.rcptTyCd ?? null)}`);
  const salesTyCd = blank(body.salesTyCd) ? 'N' : body.salesTyCd;
  if (typeof salesTyCd !== 'string' || !salesTypes.includes(salesTyCd))
    return param('salesTyCd', `must be one of ${salesTypes.join(', ')}`);
  if (!isKraCode('11', body.salesSttsCd)) return param('salesSttsCd', 'must be a sale status of code class 11 (02: approved)');
  if (!blank(body.pmtTyCd) && !isKraCode('07', body.pmtTyCd)) return param('pmtTyCd', 'must be a payment type of code class 07 (01–07)');
  if (!blank(body.custTin) && !(typeof body.custTin === 'string' && /^[A-Z0-9]{11}$/.test(body.custTin)))
    return param('custTin', 'must be an 11-character KRA PIN');
  if (parseKraDate(body.cfmDt, true) === null) return param('cfmDt', 'must be a date and time YYYYMMDDHHmmss');
  if (parseKraDate(body.salesDt, false) === null) return param('salesDt', 'must be a date YYYYMMDD');
  if (body.rcptTyCd === 'R' && !isKraCode('32', body.rfdRsnCd))
    return param('rfdRsnCd', 'must be a refund reason of code class 32 (01–13) on a credit note');
  for (const field of HEADER_AMOUNTS) if (kraNumber(body[field]) === null) return param(field, 'must be a number');
  const items = body.itemList;
  if (!Array.isArray(items) || items.length === 0) return param('itemList', 'must be a non-empty list');
  if (kraInteger(body.totItemCnt, 1) !== items.length)
    return param('totItemCnt', `must equal the number of itemList entries (${items.length})`);
  for (const [i, raw] of items.entries()) {
    const at = (f: string): string => `itemList[${i}].${f}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return param(`itemList[${i}]`, 'must be an object');
    const line = raw as Body;
    if (kraInteger(line.itemSeq, 1) === null) return param(at('itemSeq'), 'must be a whole number ≥ 1');
    for (const f of LINE_TEXTS) if (blank(line[f])) return param(at(f), 'must not be empty');
    if (!isKraCode('04', line.taxTyCd)) return param(at('taxTyCd'), 'must be a tax type of code class 04 (A–E)');
    for (const f of LINE_AMOUNTS) {
      const n = kraNumber(line[f]);
      if (n === null) return param(at(f), 'must be a number');
      if (n < 0) return param(at(f), 'must not be negative (credit notes carry positive amounts)');
    }
    if (!blank(line.dcRt) && kraNumber(line.dcRt) === null) return param(at('dcRt'), 'must be a number');
    if ((kraNumber(line.qty) ?? 0) === 0) return param(at('qty'), 'must be greater than 0');
  }
  if ((kraNumber(body.totAmt) ?? 0) < 0) return param('totAmt', 'must not be negative');
  return null;
}

const KIND_WORDS: Record<string, string> = { N: 'normal', T: 'training', P: 'proforma' };

/**
 * The credit-note rules (settings) against the original sale. A note is of its sale's kind (the
 * jar's receipt types: NR on NS, TR on TS); a proforma has none (there is no PR).
 */
function checkCreditNote(body: Body, original: KraFiledDocument | undefined, settings: KraSettings): SaleOutcome | null {
  const orgInvcNo = kraInteger(body.orgInvcNo, 0);
  if (!original || original.rcptTyCd !== 'S') return param('orgInvcNo', `${orgInvcNo} is no sale filed by this branch`);
  const saleKind = original.salesTyCd ?? 'N';
  const noteKind = blank(body.salesTyCd) ? 'N' : String(body.salesTyCd);
  if (saleKind === 'P') return param('orgInvcNo', `${orgInvcNo} is a proforma sale: it takes no credit note`);
  if (noteKind !== saleKind)
    return param(
      'salesTyCd',
      `must be ${saleKind}: the credit note of a ${KIND_WORDS[saleKind]} sale (${orgInvcNo}) is ${KIND_WORDS[saleKind]} too`,
    );
  if (settings.creditNoteCap !== null && original.creditNotes.length >= settings.creditNoteCap) {
    return param('orgInvcNo', `sale ${orgInvcNo} already has ${original.creditNotes.length} credit note(s), the most allowed`);
  }
  const totAmt = kraNumber(body.totAmt)!;
  if (settings.creditNoteRemaining && totAmt > original.totAmt - original.credited + 0.005) {
    return param('totAmt', `${totAmt} exceeds what remains of sale ${orgInvcNo} (${(original.totAmt - original.credited).toFixed(2)})`);
  }
  if (settings.creditNoteSamePin && (blank(body.custTin) ? null : body.custTin) !== original.custTin)
    return param('custTin', `must be the original sale's customer PIN`);
  if (settings.creditNoteSixMonths) {
    const days = (parseKraDate(body.salesDt, false)!.getTime() - parseKraDate(original.salesDt, false)!.getTime()) / 86_400_000;
    if (days < 0) return param('salesDt', 'may not be earlier than the original sale');
    if (days > SIX_MONTHS_DAYS) return param('salesDt', 'is more than six months after the original sale');
  }
  return null;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function code32(seed: string, length: number): string {
  const bytes = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < length; i += 1) out += BASE32[bytes[i % bytes.length]! % 32];
  return out;
}

/** Checks a sale body and, when it passes, files it on the device with its receipt. */
export function fileSale(device: KraDevice, body: Body, settings: KraSettings, now: Date, salesTypes: readonly string[]): SaleOutcome {
  const shape = checkShape(body, salesTypes);
  if (shape) return shape;
  const invcNo = kraInteger(body.invcNo, 1)!;
  if (device.filedByInvcNo.has(invcNo)) return refuse(settings.duplicateCode);
  if (settings.arithmetic) {
    const wrong = checkKraSaleArithmetic(body, { line: settings.lineTolerance, headerPerLine: settings.headerTolerancePerLine });
    if (wrong) return refuse('910', wrong.message);
  }
  const rcptTyCd = body.rcptTyCd as 'S' | 'R';
  const orgInvcNo = kraInteger(body.orgInvcNo, 0)!;
  const original = device.filedByInvcNo.get(orgInvcNo);
  if (rcptTyCd === 'R') {
    const note = checkCreditNote(body, original, settings);
    if (note) return note;
  }
  const record = device.record;
  const salesTyCd = blank(body.salesTyCd) ? null : (body.salesTyCd as string);
  const counter = `${salesTyCd ?? 'N'}${rcptTyCd}`;
  const curRcptNo = (record.rcptNoByType[counter] ?? 0) + 1;
  record.rcptNoByType[counter] = curRcptNo;
  record.totRcptNo += 1;
  const totAmt = kraNumber(body.totAmt)!;
  const seed = `${record.tpin}|${record.bhfId}|${record.sdcId}|${invcNo}|${record.totRcptNo}|${totAmt}`;
  const doc: KraFiledDocument = {
    invcNo,
    rcptTyCd,
    salesTyCd,
    orgInvcNo,
    custTin: blank(body.custTin) ? null : (body.custTin as string),
    salesDt: body.salesDt as string,
    totAmt,
    receipt: {
      curRcptNo,
      totRcptNo: record.totRcptNo,
      intrlData: code32(`i${seed}`, 26),
      rcptSign: code32(`s${seed}`, 16),
      sdcDateTime: kenyaDateTime(now),
    },
    body: structuredClone(body),
    creditNotes: [],
    credited: 0,
  };
  if (rcptTyCd === 'R' && original) {
    original.creditNotes.push(invcNo);
    original.credited = Math.round((original.credited + totAmt) * 100) / 100;
  }
  record.filed.push(doc);
  record.lastInvcNo = Math.max(record.lastInvcNo, invcNo);
  device.filedByInvcNo.set(invcNo, doc);
  return { kind: 'filed', doc };
}
