// Registered items read back (`selectItems`, `selectItem`), item compositions, and the
// manufacturers' recommended retail prices for MTV items (`saveRrpItems`, `selectRrpItems`).
import { formatVsdcDateTime, type ItemRecord, type SaveItemCompositionRequest } from '@fiscal-gateway/vsdc-protocol';
import { isKnownClassification } from './catalogue.js';
import { isKnownCode } from './code-tables.js';
import type { DeviceRecord, StoredItem } from './device.js';
import { toFixed4 } from './fixed-point.js';
import {
  badCode,
  checkAmount,
  checkYesNo,
  empty,
  invalid,
  missingField,
  mustNotBeNull,
  ok,
  selectChanged,
  text,
  withoutChangedAt,
  type Body,
  type EndpointContext,
  type EnvelopeReply,
  type Reply,
} from './replies.js';
import type { RrpRecord } from './state.js';

export function registeredItem(record: DeviceRecord, itemCd: unknown): StoredItem | undefined {
  return typeof itemCd === 'string' ? record.items.find((item) => item.itemCd === itemCd) : undefined;
}

/** 910 for an item code this device never registered with `saveItem`. */
export function unknownItem(field: string, itemCd: unknown): EnvelopeReply {
  return invalid(`[${field}] ${String(itemCd)} is not a registered item`);
}

function presentItem(item: StoredItem): ItemRecord {
  const { changedAt: _changedAt, regrId: _regrId, regrNm: _regrNm, modrId: _modrId, modrNm: _modrNm, ...rest } = item;
  return rest;
}

export function selectItems(body: Body, { device }: EndpointContext): Reply {
  return selectChanged(body, device.record.items, presentItem, 'itemList');
}

export function selectItem(body: Body, { device }: EndpointContext): Reply {
  if (text(body.itemCd) === null) return mustNotBeNull('itemCd');
  const item = registeredItem(device.record, body.itemCd);
  return item ? ok({ itemInfo: presentItem(item) }) : empty();
}

/** A positive amount with at most 4 decimals, else a 910 naming the field. */
function checkPositive(value: unknown, field: string): EnvelopeReply | null {
  const problem = checkAmount(value, field);
  if (problem) return problem;
  return (toFixed4(value) ?? 0n) > 0n ? null : invalid(`[${field}] must be greater than 0`);
}

/** `cpstQty` of `cpstItemCd` go into one `itemCd`; both must be registered. Replaces the same pair. */
export function saveItemComposition(body: Body, { device, state, now }: EndpointContext): Reply {
  const problem =
    missingField(body, ['itemCd', 'cpstItemCd', 'cpstQty', 'regrId', 'regrNm']) ??
    (registeredItem(device.record, body.itemCd) ? null : unknownItem('itemCd', body.itemCd)) ??
    (registeredItem(device.record, body.cpstItemCd) ? null : unknownItem('cpstItemCd', body.cpstItemCd)) ??
    checkPositive(body.cpstQty, 'cpstQty');
  if (problem) return problem;
  const { itemCd, cpstItemCd, cpstQty, regrId, regrNm } = body as unknown as SaveItemCompositionRequest;
  const list = device.record.compositions;
  const stored = { itemCd, cpstItemCd, cpstQty, regrId, regrNm, changedAt: formatVsdcDateTime(now) };
  const at = list.findIndex((c) => c.itemCd === itemCd && c.cpstItemCd === cpstItemCd);
  if (at >= 0) list[at] = stored;
  else list.push(stored);
  state.changed();
  return ok();
}

const RRP_REQUIRED = ['itemCd', 'itemClsCd', 'itemTyCd', 'itemNm', 'orgnNatCd', 'pkgUnitCd', 'qtyUnitCd', 'rrp', 'useYn'];

function checkRrpItem(item: Body, index: number): EnvelopeReply | null {
  const label = (field: string): string => `itemList[${index}].${field}`;
  const missing = missingField(item, RRP_REQUIRED, label);
  if (missing) return missing;
  if (!isKnownClassification(item.itemClsCd)) return badCode(label('itemClsCd'), item.itemClsCd);
  if (!isKnownCode('24', item.itemTyCd)) return badCode(label('itemTyCd'), item.itemTyCd);
  if (!isKnownCode('05', item.orgnNatCd)) return badCode(label('orgnNatCd'), item.orgnNatCd);
  if (!isKnownCode('17', item.pkgUnitCd)) return badCode(label('pkgUnitCd'), item.pkgUnitCd);
  if (!isKnownCode('10', item.qtyUnitCd)) return badCode(label('qtyUnitCd'), item.qtyUnitCd);
  return checkPositive(item.rrp, label('rrp')) ?? checkYesNo(item.useYn, label('useYn'));
}

/** The calling taxpayer, as a manufacturer, publishes RRPs to every taxpayer's feed. */
export function saveRrpItems(body: Body, { device, state, now }: EndpointContext): Reply {
  const items = body.itemList;
  if (!Array.isArray(items) || items.length === 0) return mustNotBeNull('itemList');
  for (const [index, item] of (items as Body[]).entries()) {
    const problem = checkRrpItem(item, index);
    if (problem) return problem;
  }
  const changedAt = formatVsdcDateTime(now);
  upsertRrpItems(
    state.rrpItems,
    (items as Body[]).map((item) => ({
      manufacturerTpin: device.record.tpin,
      manufacturerName: device.record.taxprNm,
      itemCd: String(item.itemCd),
      itemClsCd: String(item.itemClsCd),
      itemTyCd: String(item.itemTyCd),
      itemNm: String(item.itemNm),
      itemDesc: typeof item.itemDesc === 'string' ? item.itemDesc : null,
      orgnNatCd: String(item.orgnNatCd),
      pkgUnitCd: String(item.pkgUnitCd),
      qtyUnitCd: String(item.qtyUnitCd),
      rrp: item.rrp as number,
      useYn: item.useYn as 'Y' | 'N',
      changedAt,
    })),
  );
  state.changed();
  return ok();
}

export function upsertRrpItems(feed: RrpRecord[], entries: readonly RrpRecord[]): void {
  for (const entry of entries) {
    const at = feed.findIndex((r) => r.manufacturerTpin === entry.manufacturerTpin && r.itemCd === entry.itemCd);
    if (at >= 0) feed[at] = entry;
    else feed.push(entry);
  }
}

/** The RRP feed: every manufacturer's prices changed since `lastReqDt`. */
export function selectRrpItems(body: Body, { state }: EndpointContext): Reply {
  return selectChanged(body, state.rrpItems, withoutChangedAt, 'itemList');
}
