// The KRA endpoints both profiles answer alike, by their OSCU names (the VSCU maps its paths to
// them): code tables, classification, customers, branches, notices, items, imports, purchases
// and stock. Init and the sale are the profiles' own (oscu.ts, vscu.ts).
import { kraNumber } from './arithmetic.js';
import { CODE_TABLES_PUBLISHED_AT, kenyaDateTime, KRA_CODE_TABLES, KRA_ITEM_CLASSES } from './codes.js';
import type { KraRecord } from './device.js';
import {
  blank,
  checkDate,
  codes,
  empty,
  envelope,
  lastRequestDate,
  numbers,
  ok,
  param,
  required,
  selectChanged,
  stripCredentials,
  type Body,
  type KraContext,
  type KraEnvelope,
} from './replies.js';
import { kraInteger } from './sales.js';

export const SHARED_OPERATIONS = [
  'selectCodeList',
  'selectItemClsList',
  'selectCustomer',
  'selectBhfList',
  'selectNoticeList',
  'saveBhfCustomer',
  'saveBhfUser',
  'saveBhfInsurance',
  'saveItem',
  'selectItemList',
  'saveItemComposition',
  'selectImportItemList',
  'updateImportItem',
  'selectTrnsPurchaseSalesList',
  'insertTrnsPurchase',
  'insertStockIO',
  'saveStockMaster',
  'selectStockMoveList',
] as const;

export type SharedOperation = (typeof SHARED_OPERATIONS)[number];

const REGISTRANT = ['regrId', 'regrNm'];

function since(body: Body, publishedAt: string, data: () => unknown): KraEnvelope {
  const from = lastRequestDate(body);
  if (typeof from !== 'string') return from;
  return from > publishedAt ? empty() : ok(data());
}

/** Replaces the entry with the same key (or adds it), stamped now. */
function upsert(list: KraRecord[], key: (e: Body) => string, entry: Body, ctx: KraContext): void {
  const record: KraRecord = { ...stripCredentials(entry), changedAt: kenyaDateTime(ctx.now) };
  const at = list.findIndex((e) => key(e) === key(entry));
  if (at >= 0) list[at] = record;
  else list.push(record);
  ctx.state.changed();
}

function itemList(body: Body): KraEnvelope | null {
  const items = body.itemList;
  if (!Array.isArray(items) || items.length === 0) return param('itemList', 'must be a non-empty list');
  if (kraInteger(body.totItemCnt, 1) !== items.length)
    return param('totItemCnt', `must equal the number of itemList entries (${items.length})`);
  for (const [i, line] of (items as Body[]).entries()) {
    if (typeof line !== 'object' || line === null) return param(`itemList[${i}]`, 'must be an object');
    const at = `itemList[${i}].`;
    const wrong =
      required(line, ['itemSeq', 'itemNm'], at) ??
      numbers(line, ['qty', 'prc', 'splyAmt', 'taxblAmt', 'taxAmt', 'totAmt'], at) ??
      codes(line, [['taxTyCd', '04']], at);
    if (wrong) return wrong;
  }
  return null;
}

export function handleShared(op: SharedOperation, body: Body, ctx: KraContext): KraEnvelope {
  const record = ctx.device.record;
  switch (op) {
    case 'selectCodeList':
      return since(body, CODE_TABLES_PUBLISHED_AT, () => ({ clsList: KRA_CODE_TABLES }));
    case 'selectItemClsList':
      return since(body, CODE_TABLES_PUBLISHED_AT, () => ({ itemClsList: KRA_ITEM_CLASSES }));
    case 'selectCustomer': {
      const missing = required(body, ['custmTin']);
      if (missing) return missing;
      const taxpayer = ctx.state.taxpayers.get(String(body.custmTin));
      if (!taxpayer) return empty();
      return ok({
        custList: [
          {
            tin: taxpayer.tpin,
            taxprNm: taxpayer.name,
            taxprSttsCd: 'A',
            prvncNm: 'NAIROBI CITY',
            dstrtNm: 'NAIROBI',
            sctrNm: 'CBD',
            locDesc: taxpayer.address,
          },
        ],
      });
    }
    case 'selectBhfList': {
      const from = lastRequestDate(body);
      if (typeof from !== 'string') return from;
      const branches = [...ctx.state.devices.values()]
        .map((d) => d.record)
        .filter((r) => r.tpin === record.tpin && r.installed && (r.installedAt ?? '') >= from)
        .map((r) => ({
          tin: r.tpin,
          bhfId: r.bhfId,
          bhfNm: r.bhfNm,
          bhfSttsCd: '01',
          prvncNm: 'NAIROBI CITY',
          dstrtNm: 'NAIROBI',
          sctrNm: 'CBD',
          locDesc: null,
          mgrNm: null,
          mgrTelNo: null,
          mgrEmail: null,
          hqYn: r.bhfId === '00' ? 'Y' : 'N',
        }));
      return branches.length === 0 ? empty() : ok({ bhfList: branches });
    }
    case 'selectNoticeList':
      return selectChanged(body, record.notices, 'noticeList');
    case 'saveBhfCustomer': {
      const wrong = required(body, ['custNo', 'custTin', 'custNm', 'useYn', ...REGISTRANT]);
      if (wrong) return wrong;
      upsert(record.customers, (e) => String(e.custNo), body, ctx);
      return ok();
    }
    case 'saveBhfUser': {
      const wrong = required(body, ['userId', 'userNm', 'useYn', ...REGISTRANT]);
      if (wrong) return wrong;
      upsert(record.users, (e) => String(e.userId), body, ctx);
      return ok();
    }
    case 'saveBhfInsurance': {
      const wrong = required(body, ['isrccCd', 'isrccNm', 'useYn', ...REGISTRANT]) ?? numbers(body, ['isrcRt']);
      if (wrong) return wrong;
      upsert(record.insurances, (e) => String(e.isrccCd), body, ctx);
      return ok();
    }
    case 'saveItem': {
      const wrong =
        required(body, [
          'itemCd',
          'itemClsCd',
          'itemTyCd',
          'itemNm',
          'orgnNatCd',
          'pkgUnitCd',
          'qtyUnitCd',
          'taxTyCd',
          'useYn',
          ...REGISTRANT,
        ]) ??
        codes(body, [
          ['itemTyCd', '24'],
          ['orgnNatCd', '05'],
          ['pkgUnitCd', '17'],
          ['qtyUnitCd', '10'],
          ['taxTyCd', '04'],
        ]);
      if (wrong) return wrong;
      if (!blank(body.dftPrc) && kraNumber(body.dftPrc) === null) return param('dftPrc', 'must be a number');
      upsert(record.items, (e) => String(e.itemCd), body, ctx);
      return ok();
    }
    case 'selectItemList':
      return selectChanged(body, record.items, 'itemList', (e) => ({ tin: record.tpin, regBhfId: record.bhfId, ...e, rraModYn: 'N' }));
    case 'saveItemComposition': {
      const wrong = required(body, ['itemCd', 'cpstItemCd', ...REGISTRANT]) ?? numbers(body, ['cpstQty']);
      if (wrong) return wrong;
      for (const field of ['itemCd', 'cpstItemCd'])
        if (!record.items.some((i) => i.itemCd === body[field]))
          return param(field, `${String(body[field])} is no item saved by this branch`);
      upsert(record.compositions, (e) => `${String(e.itemCd)}/${String(e.cpstItemCd)}`, body, ctx);
      return ok();
    }
    case 'selectImportItemList':
      return selectChanged(body, record.imports, 'itemList');
    case 'updateImportItem': {
      const wrong = required(body, ['taskCd', 'dclDe', 'itemSeq', 'hsCd', 'itemClsCd', 'itemCd', 'imptItemSttsCd', 'modrId', 'modrNm']);
      if (wrong) return wrong;
      if (body.imptItemSttsCd !== '3' && body.imptItemSttsCd !== '4')
        return param('imptItemSttsCd', 'must be 3 (approved) or 4 (cancelled)');
      const line = record.imports.find((i) => i.taskCd === body.taskCd && String(i.itemSeq) === String(body.itemSeq));
      if (!line) return param('taskCd', `no import line ${String(body.taskCd)}/${String(body.itemSeq)}`);
      Object.assign(line, {
        imptItemsttsCd: body.imptItemSttsCd,
        itemCd: body.itemCd,
        itemClsCd: body.itemClsCd,
        remark: body.remark ?? null,
        changedAt: kenyaDateTime(ctx.now),
      });
      ctx.state.changed();
      return ok();
    }
    case 'selectTrnsPurchaseSalesList':
      return selectChanged(body, record.purchaseSales, 'saleList');
    case 'insertTrnsPurchase': {
      const invcNo = kraInteger(body.invcNo, 1);
      if (invcNo === null) return param('invcNo', 'must be a whole number ≥ 1');
      const wrong =
        codes(body, [
          ['rcptTyCd', '38'],
          ['pchsSttsCd', '34'],
        ]) ??
        checkDate(body, 'pchsDt', false) ??
        numbers(body, ['totTaxblAmt', 'totTaxAmt', 'totAmt']) ??
        required(body, REGISTRANT) ??
        itemList(body);
      if (wrong) return wrong;
      if (record.purchases.some((p) => p.invcNo === invcNo)) return envelope(ctx.state.settings.duplicateCode);
      upsert(record.purchases, (e) => String(e.invcNo), { ...body, invcNo }, ctx);
      return ok();
    }
    case 'insertStockIO': {
      const sarNo = kraInteger(body.sarNo, 1);
      if (sarNo === null) return param('sarNo', 'must be a whole number ≥ 1');
      if (kraInteger(body.orgSarNo, 0) === null) return param('orgSarNo', 'must be a whole number ≥ 0');
      const wrong =
        codes(body, [['sarTyCd', '12']]) ??
        required(body, ['regTyCd', ...REGISTRANT]) ??
        checkDate(body, 'ocrnDt', false) ??
        numbers(body, ['totTaxblAmt', 'totTaxAmt', 'totAmt']) ??
        itemList(body);
      if (wrong) return wrong;
      if (record.stockMoves.some((m) => m.sarNo === sarNo)) return envelope('994');
      upsert(record.stockMoves, (e) => String(e.sarNo), { ...body, sarNo }, ctx);
      return ok();
    }
    case 'saveStockMaster': {
      const wrong = required(body, ['itemCd', ...REGISTRANT]) ?? numbers(body, ['rsdQty']);
      if (wrong) return wrong;
      record.stockMaster[String(body.itemCd)] = { ...stripCredentials(body), changedAt: kenyaDateTime(ctx.now) };
      ctx.state.changed();
      return ok();
    }
    case 'selectStockMoveList':
      return selectChanged(body, record.stockMoves, 'stockList', (e) => ({
        custTin: e.custTin ?? null,
        custBhfId: e.custBhfId ?? null,
        sarNo: e.sarNo,
        ocrnDt: e.ocrnDt,
        totItemCnt: e.totItemCnt,
        totTaxblAmt: e.totTaxblAmt,
        totTaxAmt: e.totTaxAmt,
        totAmt: e.totAmt,
        remark: e.remark ?? null,
        itemList: e.itemList,
      }));
  }
}
