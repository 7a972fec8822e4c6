// The protocol endpoints: each takes a bound request body and answers what a real VSDC would.
import {
  formatVsdcDateTime,
  type ImportItemDecision,
  type SaveBranchCustomerRequest,
  type VsdcEndpoint,
} from '@fiscal-gateway/vsdc-protocol';
import { branchDetails, saveBranchUser, selectBranches } from './branches.js';
import { CATALOGUE_PUBLISHED_AT, CLASSIFICATION_CATALOGUE, isKnownClassification } from './catalogue.js';
import { CODE_TABLES, CODE_TABLES_PUBLISHED_AT, isKnownCode } from './code-tables.js';
import { takeLostReply, takeRejection } from '../../core/faults.js';
import type { DeviceRecord, FiledDocument, ReceivedDocument, StoredItem } from './device.js';
import { selectNotices, selectPrincipals } from './feeds.js';
import { saveItemComposition, saveRrpItems, selectItem, selectItems, selectRrpItems } from './items.js';
import { checkNote, recordCredit } from './notes.js';
import { offerToBuyer, savePurchase, selectTrnsPurchaseSales } from './purchases.js';
import { issueReceipt } from './receipts.js';
import { checkSaveSales, invoiceNumberOf, summarizeSaleBody } from './sales-check.js';
import {
  badCode,
  empty,
  envelope,
  invalid,
  lastRequestDate,
  mustNotBeNull,
  ok,
  text,
  type Body,
  type EndpointContext,
  type EnvelopeReply,
  type Reply,
} from './replies.js';
import { saveStockItems, saveStockMaster, selectStockItems } from './stock.js';

/** Endpoints a device answers before it is initialised (code tables double as the health probe). */
const OPEN_BEFORE_INIT: ReadonlySet<VsdcEndpoint> = new Set<VsdcEndpoint>(['selectInitInfo', 'selectCodes', 'selectItemsClass']);

export function handleEndpoint(endpoint: VsdcEndpoint, body: Body, ctx: EndpointContext): Reply {
  if (!ctx.device.record.installed && !OPEN_BEFORE_INIT.has(endpoint)) return envelope('901');
  // saveSales applies the reject and loseReplies switches itself: it logs them as arrivals.
  if (endpoint === 'saveSales') return saveSales(body, ctx);
  const faults = ctx.device.faults;
  const forced = takeRejection(faults, endpoint);
  if (forced) return envelope(forced.code, null, forced.message);
  const reply = answer(endpoint, body, ctx);
  if (reply.kind !== 'envelope' || reply.resultCd !== '000') return reply;
  if (endpoint === 'selectInitInfo') ctx.device.record.installedAt ??= formatVsdcDateTime(ctx.now);
  return takeLostReply(faults, endpoint) ? { ...reply, loseReply: true } : reply;
}

function answer(endpoint: Exclude<VsdcEndpoint, 'saveSales'>, body: Body, ctx: EndpointContext): Reply {
  switch (endpoint) {
    case 'selectInitInfo':
      return selectInitInfo(body, ctx);
    case 'selectCodes':
      return selectSince(body, CODE_TABLES_PUBLISHED_AT, () => ({ clsList: CODE_TABLES }));
    case 'selectItemsClass':
      return selectSince(body, CATALOGUE_PUBLISHED_AT, () => ({ itemClsList: CLASSIFICATION_CATALOGUE }));
    case 'selectInvoice':
      return selectInvoice(body, ctx);
    case 'selectCustomer':
      return selectCustomer(body, ctx);
    case 'saveBrancheCustomers':
      return saveBranchCustomer(body, ctx);
    case 'saveItem':
    case 'updateItem':
      return saveItem(endpoint, body, ctx);
    case 'selectImportItems':
      return selectImportItems(body, ctx);
    case 'updateImportItems':
      return updateImportItems(body, ctx);
    case 'selectNotices':
      return selectNotices(body, ctx);
    case 'selectBranches':
      return selectBranches(body, ctx);
    case 'saveBrancheUser':
      return saveBranchUser(body, ctx);
    case 'selectItems':
      return selectItems(body, ctx);
    case 'selectItem':
      return selectItem(body, ctx);
    case 'saveItemComposition':
      return saveItemComposition(body, ctx);
    case 'saveRrpItems':
      return saveRrpItems(body, ctx);
    case 'selectRrpItems':
      return selectRrpItems(body, ctx);
    case 'selectPrincipals':
      return selectPrincipals(body, ctx);
    case 'selectTrnsPurchaseSales':
      return selectTrnsPurchaseSales(body, ctx);
    case 'savePurchase':
      return savePurchase(body, ctx);
    case 'selectStockItems':
      return selectStockItems(body, ctx);
    case 'saveStockItems':
      return saveStockItems(body, ctx);
    case 'saveStockMaster':
      return saveStockMaster(body, ctx);
  }
}

function selectInitInfo(body: Body, { state, device }: EndpointContext): Reply {
  const serial = text(body.dvcSrlNo);
  if (serial === null) return mustNotBeNull('dvcSrlNo');
  const holder = state.deviceWithSerial(serial);
  if (device.record.installed || (holder && holder !== device)) return envelope('902');

  const record = device.record;
  if (record.sdcId === null || record.mrcNo === null) Object.assign(record, state.allocateIdentity());
  record.installed = true;
  record.dvcSrlNo = serial;
  state.changed();
  // Shaped like a real answer captured from the sandbox: the taxpayer is `tin` (requests say
  // `tpin`), `mrcNo` is space-padded, and the counters the device does not keep are null.
  const { bhfSttsCd: _status, ...branch } = branchDetails(record);
  return ok({
    info: {
      ...branch,
      taxprNm: record.taxprNm,
      bsnsActv: null,
      // The captured answer leaves the district out here, though selectBranches names it.
      dstrtNm: null,
      sdcId: record.sdcId,
      mrcNo: record.mrcNo,
      lastPchsInvcNo: record.lastPchsInvcNo,
      lastSaleRcptNo: record.lastSaleRcptNo,
      lastInvcNo: null,
      lastSaleInvcNo: record.lastSaleInvcNo,
      lastTrainInvcNo: record.lastTrainInvcNo ?? null,
      lastProfrmInvcNo: record.lastProfrmInvcNo ?? null,
      lastCopyInvcNo: null,
    },
  });
}

function selectSince(body: Body, publishedAt: string, data: () => unknown): Reply {
  const since = lastRequestDate(body);
  if (typeof since !== 'string') return since;
  return since > publishedAt ? empty() : ok(data());
}

function receiptData(doc: FiledDocument): Record<string, unknown> {
  return { ...doc.receipt };
}

function saveSales(body: Body, ctx: EndpointContext): Reply {
  const { device, now, state } = ctx;
  const faults = device.faults;
  const record = device.record;

  const log = (reply: EnvelopeReply, receipt: ReceivedDocument['receipt'] = null, replyLost = false): EnvelopeReply => {
    record.received.push({
      seq: record.received.length + 1,
      receivedAt: now.toISOString(),
      ...summarizeSaleBody(body),
      resultCd: reply.resultCd,
      resultMsg: reply.resultMsg,
      receipt,
      replyLost,
    });
    state.changed();
    return reply;
  };

  const forcedRejection = takeRejection(faults, 'saveSales');
  if (forcedRejection) return log(envelope(forcedRejection.code, null, forcedRejection.message));

  const cisInvcNo = invoiceNumberOf(body);
  if (cisInvcNo === null) return log(mustNotBeNull('cisInvcNo'));
  if (device.filedByInvoice.has(cisInvcNo)) return log(envelope('924'));

  const checked = checkSaveSales(body, now);
  if (!checked.ok) return log(envelope(checked.code, null, checked.message));
  const note = checkNote(checked, device);
  if ('ok' in note) return log(envelope(note.code, null, note.message));

  const receipt = issueReceipt(device, cisInvcNo, checked.totals.total, now);
  const filed: FiledDocument = {
    cisInvcNo,
    rcptTyCd: checked.rcptTyCd,
    orgInvcNo: checked.orgInvcNo,
    salesDt: checked.salesDt,
    cfmDt: checked.cfmDt,
    totals: checked.totals,
    receipt,
    lines: checked.lines,
  };
  record.filed.push(filed);
  device.filedByInvoice.set(cisInvcNo, filed);
  device.filedByReceipt.set(receipt.rcptNo, filed);
  if (note.original && checked.rcptTyCd === 'R') recordCredit(note.original, checked);
  // Only a normal sale is a purchase of its buyer's.
  if (body.salesTyCd === 'N') offerToBuyer(state, device, body, receipt, now);
  advanceCounter(record, String(body.salesTyCd), cisInvcNo);

  const loseReply = takeLostReply(faults, 'saveSales');
  return { ...log(envelope('000', receiptData(filed)), receipt, loseReply), loseReply };
}

/** The kind's counter moves to the filed number (a training or proforma cisInvcNo's trailing digits: `T-12` → 12). */
function advanceCounter(record: DeviceRecord, salesTyCd: string, cisInvcNo: string): void {
  if (salesTyCd === 'N') {
    const invoiceNumber = Number(cisInvcNo);
    if (Number.isSafeInteger(invoiceNumber) && invoiceNumber > record.lastSaleInvcNo) record.lastSaleInvcNo = invoiceNumber;
    return;
  }
  const digits = /(\d+)$/.exec(cisInvcNo);
  const n = digits ? Number(digits[1]) : NaN;
  if (!Number.isSafeInteger(n)) return;
  if (salesTyCd === 'T' && n > (record.lastTrainInvcNo ?? 0)) record.lastTrainInvcNo = n;
  if (salesTyCd === 'P' && n > (record.lastProfrmInvcNo ?? 0)) record.lastProfrmInvcNo = n;
}

function selectInvoice(body: Body, { device }: EndpointContext): Reply {
  const cisInvcNo = invoiceNumberOf(body);
  const sdcId = text(body.invcSdcId);
  const absent = [cisInvcNo === null ? 'cisInvcNo' : null, sdcId === null ? 'invcSdcId' : null].filter((f): f is string => f !== null);
  if (absent.length > 0) return mustNotBeNull(...absent);
  if (sdcId !== device.record.sdcId) return empty();
  const filed = device.filedByInvoice.get(cisInvcNo as string);
  if (!filed) return empty();
  return ok({
    ...receiptData(filed),
    cisInvcNo: filed.cisInvcNo,
    rcptTyCd: filed.rcptTyCd,
    orgInvcNo: filed.orgInvcNo,
    salesDt: filed.salesDt,
    cfmDt: filed.cfmDt,
    totTaxblAmt: filed.totals.taxable,
    totTaxAmt: filed.totals.tax,
    totAmt: filed.totals.total,
  });
}

function selectCustomer(body: Body, { state }: EndpointContext): Reply {
  const tpin = text(body.custmTpin);
  if (tpin === null) return mustNotBeNull('custmTpin');
  if (!/^\d{10}$/.test(tpin)) return invalid('[custmTpin] must be 10 digits');
  let taxpayer = state.taxpayers.get(tpin);
  if (!taxpayer) {
    const installed = [...state.devices.values()].find((d) => d.record.tpin === tpin && d.record.installed);
    if (installed) taxpayer = { tpin, name: installed.record.taxprNm, address: null };
  }
  if (!taxpayer) return empty();
  return ok({
    custList: [{ custTpin: taxpayer.tpin, custNm: taxpayer.name, adrs: taxpayer.address, telNo: null, email: null, useYn: 'Y' }],
  });
}

function saveBranchCustomer(body: Body, { device, state }: EndpointContext): Reply {
  const absent = ['custNo', 'custNm', 'useYn'].filter((f) => text(body[f]) === null);
  if (absent.length > 0) return mustNotBeNull(...absent);
  if (body.custTpin != null && !(typeof body.custTpin === 'string' && /^\d{10}$/.test(body.custTpin)))
    return invalid('[custTpin] must be 10 digits');
  if (body.useYn !== 'Y' && body.useYn !== 'N') return invalid('[useYn] must be Y or N');
  const customer = body as unknown as SaveBranchCustomerRequest;
  const list = device.record.branchCustomers;
  const at = list.findIndex((c) => c.custNo === customer.custNo);
  const stored = { ...customer, tpin: undefined, bhfId: undefined } as SaveBranchCustomerRequest;
  if (at >= 0) list[at] = stored;
  else list.push(stored);
  state.changed();
  return ok();
}

function saveItem(endpoint: 'saveItem' | 'updateItem', body: Body, { device, state, now }: EndpointContext): Reply {
  const absent = ['itemCd', 'itemClsCd', 'itemTyCd', 'itemNm', 'orgnNatCd', 'pkgUnitCd', 'qtyUnitCd', 'vatCatCd', 'useYn'].filter(
    (f) => text(body[f]) === null,
  );
  if (body.dftPrc === undefined || body.dftPrc === null) absent.push('dftPrc');
  if (absent.length > 0) return mustNotBeNull(...absent);
  if (!isKnownClassification(body.itemClsCd)) return badCode('itemClsCd', body.itemClsCd);
  if (!isKnownCode('24', body.itemTyCd)) return badCode('itemTyCd', body.itemTyCd);
  if (!isKnownCode('04', body.vatCatCd)) return badCode('vatCatCd', body.vatCatCd);
  if (!isKnownCode('05', body.orgnNatCd)) return badCode('orgnNatCd', body.orgnNatCd);
  if (!isKnownCode('17', body.pkgUnitCd)) return badCode('pkgUnitCd', body.pkgUnitCd);
  if (!isKnownCode('10', body.qtyUnitCd)) return badCode('qtyUnitCd', body.qtyUnitCd);
  if (typeof body.dftPrc !== 'number' || body.dftPrc < 0) return invalid('[dftPrc] must not be negative');
  if (body.useYn !== 'Y' && body.useYn !== 'N') return invalid('[useYn] must be Y or N');

  const item = { ...body, tpin: undefined, bhfId: undefined, changedAt: formatVsdcDateTime(now) } as unknown as StoredItem;
  const items = device.record.items;
  const at = items.findIndex((i) => i.itemCd === item.itemCd);
  if (endpoint === 'updateItem' && at < 0) return invalid(`[itemCd] ${item.itemCd} is not registered`);
  // saveItem on a known code overwrites it, so a retry after a lost reply stays harmless.
  if (at >= 0) items[at] = item;
  else items.push(item);
  state.changed();
  return ok();
}

function selectImportItems(body: Body, { device }: EndpointContext): Reply {
  const since = lastRequestDate(body);
  if (typeof since !== 'string') return since;
  // "At or after" so a line fed in the same second as the previous resultDt is never missed;
  // callers key import lines by taskCd + dclDe + itemSeq.
  const lines = device.record.imports.filter((line) => line.publishedAt >= since);
  if (lines.length === 0) return empty();
  return ok({ itemList: lines.map(({ publishedAt: _published, decision: _decision, ...line }) => line) });
}

function updateImportItems(body: Body, { device, state }: EndpointContext): Reply {
  const absent = ['taskCd', 'dclDe'].filter((f) => text(body[f]) === null);
  if (!Array.isArray(body.importItemList) || body.importItemList.length === 0) absent.push('importItemList');
  if (absent.length > 0) return mustNotBeNull(...absent);
  const decisions = body.importItemList as ImportItemDecision[];
  const lines = device.record.imports.filter((l) => l.taskCd === body.taskCd && l.dclDe === body.dclDe);
  if (lines.length === 0) return invalid(`[taskCd] no import declaration ${String(body.taskCd)} of ${String(body.dclDe)}`);
  for (const decision of decisions) {
    if (!lines.some((l) => l.itemSeq === decision.itemSeq))
      return invalid(`[itemSeq] ${String(decision.itemSeq)} is not on declaration ${String(body.taskCd)}`);
    if (decision.imptItemSttsCd !== '3' && decision.imptItemSttsCd !== '4') return badCode('imptItemSttsCd', decision.imptItemSttsCd);
    if (decision.imptItemSttsCd === '3') {
      if (text(decision.itemCd) === null) return mustNotBeNull('importItemList.itemCd');
      if (!isKnownClassification(decision.itemClsCd)) return badCode('itemClsCd', decision.itemClsCd);
    }
  }
  for (const decision of decisions) {
    const line = lines.find((l) => l.itemSeq === decision.itemSeq);
    if (!line) continue;
    line.imptItemSttsCd = decision.imptItemSttsCd;
    line.decision = { itemCd: decision.itemCd ?? null, itemClsCd: decision.itemClsCd ?? null, remark: decision.remark ?? null };
  }
  state.changed();
  return ok();
}
