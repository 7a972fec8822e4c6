// Stock: movements (`saveStockItems`, read back as a ledger with `selectStockItems`) and the
// absolute remaining quantity per item (`saveStockMaster`, which cannot be read back through the
// protocol: the control API shows it).
import { formatVsdcDateTime, type SaveStockItemsRequest } from '@fiscal-gateway/vsdc-protocol';
import { isKnownClassification } from './catalogue.js';
import { isKnownCode } from './code-tables.js';
import { toFixed4 } from './fixed-point.js';
import { registeredItem, unknownItem } from './items.js';
import {
  badCode,
  checkAmount,
  checkDate,
  envelope,
  invalid,
  listEntryMissing,
  missingField,
  mustNotBeNull,
  ok,
  selectChanged,
  withoutChangedAt,
  type Body,
  type EndpointContext,
  type EnvelopeReply,
  type Reply,
} from './replies.js';

const present = (value: unknown): boolean => value !== undefined && value !== null;

const HEADER_REQUIRED = ['sarNo', 'regTyCd', 'sarTyCd', 'ocrnDt', 'totItemCnt', 'totTaxblAmt', 'totTaxAmt', 'totAmt', 'regrId', 'regrNm'];
const LINE_REQUIRED = [
  'itemSeq',
  'itemCd',
  'itemClsCd',
  'itemNm',
  'pkgUnitCd',
  'qtyUnitCd',
  'qty',
  'prc',
  'splyAmt',
  'totDcAmt',
  'taxblAmt',
  'vatCatCd',
  'totAmt',
];
const LINE_AMOUNTS = [
  'pkg',
  'qty',
  'prc',
  'splyAmt',
  'totDcAmt',
  'taxblAmt',
  'vatAmt',
  'iplAmt',
  'tlAmt',
  'exciseTxAmt',
  'taxAmt',
  'totAmt',
];

const wholeNumber = (value: unknown, min: number): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

function checkMovementHeader(body: Body): EnvelopeReply | null {
  const missing = missingField(body, HEADER_REQUIRED);
  if (missing) return missing;
  if (!Array.isArray(body.itemList) || body.itemList.length === 0) return mustNotBeNull('itemList');
  if (!wholeNumber(body.sarNo, 1)) return invalid('[sarNo] must be a whole number greater than 0');
  if (present(body.orgSarNo) && !wholeNumber(body.orgSarNo, 0)) return invalid('[orgSarNo] must be a whole number');
  if (body.regTyCd !== 'A' && body.regTyCd !== 'M') return badCode('regTyCd', body.regTyCd);
  if (!isKnownCode('12', body.sarTyCd)) return badCode('sarTyCd', body.sarTyCd);
  if (present(body.custTpin) && !(typeof body.custTpin === 'string' && /^\d{10}$/.test(body.custTpin)))
    return invalid('[custTpin] must be 10 digits');
  const problem =
    checkDate(body.ocrnDt, 'ocrnDt', false) ??
    ['totTaxblAmt', 'totTaxAmt', 'totAmt'].map((f) => checkAmount(body[f], f)).find((p) => p !== null) ??
    null;
  if (problem) return problem;
  if (body.totItemCnt !== body.itemList.length)
    return invalid(`[totItemCnt] ${String(body.totItemCnt)} does not match the ${body.itemList.length} items`);
  return null;
}

function checkMovementLine(line: Body, index: number, ctx: EndpointContext): EnvelopeReply | null {
  const label = (field: string): string => `itemList[${index}].${field}`;
  const missing = listEntryMissing(line, 'itemList', LINE_REQUIRED);
  if (missing) return missing;
  for (const field of LINE_AMOUNTS) {
    const problem = present(line[field]) ? checkAmount(line[field], label(field)) : null;
    if (problem) return problem;
  }
  if ((toFixed4(line.qty) ?? 0n) <= 0n) return invalid(`[${label('qty')}] must be greater than 0`);
  if (!isKnownClassification(line.itemClsCd)) return badCode(label('itemClsCd'), line.itemClsCd);
  if (!isKnownCode('17', line.pkgUnitCd)) return badCode(label('pkgUnitCd'), line.pkgUnitCd);
  if (!isKnownCode('10', line.qtyUnitCd)) return badCode(label('qtyUnitCd'), line.qtyUnitCd);
  if (!isKnownCode('04', line.vatCatCd)) return badCode(label('vatCatCd'), line.vatCatCd);
  if (present(line.itemExprDt)) {
    const problem = checkDate(line.itemExprDt, label('itemExprDt'), false);
    if (problem) return problem;
  }
  return registeredItem(ctx.device.record, line.itemCd) ? null : unknownItem(label('itemCd'), line.itemCd);
}

/** Records one movement; a resend with the same `sarNo` replaces it (a retry after a lost reply stays harmless). */
export function saveStockItems(body: Body, ctx: EndpointContext): Reply {
  const problem =
    checkMovementHeader(body) ??
    (body.itemList as Body[]).map((line, i) => checkMovementLine(line, i, ctx)).find((p) => p !== null) ??
    null;
  if (problem) return problem;
  const { tpin: _tpin, bhfId: _bhfId, ...movement } = body as unknown as SaveStockItemsRequest & { tpin: string; bhfId: string };
  const stored = { ...movement, changedAt: formatVsdcDateTime(ctx.now) };
  const ledger = ctx.device.record.stockMovements;
  const at = ledger.findIndex((m) => m.sarNo === movement.sarNo);
  if (at >= 0) ledger[at] = stored;
  else ledger.push(stored);
  ctx.state.changed();
  return ok();
}

/** The movement ledger since `lastReqDt`. */
export function selectStockItems(body: Body, { device }: EndpointContext): Reply {
  return selectChanged(body, device.record.stockMovements, withoutChangedAt, 'stockList');
}

/** Absolute remaining quantities; the same `itemCd` twice in one call is the real VSDC's bare `999`. */
export function saveStockMaster(body: Body, ctx: EndpointContext): Reply {
  const entries = body.stockItemList;
  if (!Array.isArray(entries) || entries.length === 0) return mustNotBeNull('stockItemList');
  const seen = new Set<string>();
  let repeated = false;
  for (const [index, entry] of (entries as Body[]).entries()) {
    const missing = listEntryMissing(entry, 'stockItemList', ['itemCd', 'rsdQty']);
    if (missing) return missing;
    const amount = checkAmount(entry.rsdQty, `stockItemList[${index}].rsdQty`);
    if (amount) return amount;
    if (seen.has(String(entry.itemCd))) repeated = true;
    seen.add(String(entry.itemCd));
  }
  if (repeated) return envelope('999');
  for (const [index, entry] of (entries as Body[]).entries()) {
    if (!registeredItem(ctx.device.record, entry.itemCd)) return unknownItem(`stockItemList[${index}].itemCd`, entry.itemCd);
  }
  const changedAt = formatVsdcDateTime(ctx.now);
  for (const entry of entries as Body[])
    ctx.device.record.stockLevels[String(entry.itemCd)] = { rsdQty: entry.rsdQty as number, changedAt };
  ctx.state.changed();
  return ok();
}
