// The VSDC client: one typed call per endpoint, one pooled undici Agent, per host caps
// (host-limits.ts), and every answer read into a VsdcOutcome. It never throws for anything the
// network or the VSDC does.
import {
  VSDC_EPOCH,
  VSDC_PATHS,
  type BranchesData,
  type CodesData,
  type ImportItemsData,
  type InitInfoData,
  type InitInfoRequest,
  type ItemsClassData,
  type ItemsData,
  type NoticesData,
  type PrincipalsData,
  type PurchaseSalesData,
  type RrpItemsData,
  type SaveBranchCustomerRequest,
  type SaveBranchUserRequest,
  type SaveItemCompositionRequest,
  type SaveItemRequest,
  type SavePurchaseRequest,
  type SaveRrpItemsRequest,
  type SaveSalesData,
  type SaveSalesRequest,
  type SaveStockItemsRequest,
  type SaveStockMasterRequest,
  type SelectCustomerData,
  type SelectCustomerRequest,
  type SelectInvoiceData,
  type SelectInvoiceRequest,
  type SelectItemData,
  type SelectItemRequest,
  type SelectSinceRequest,
  type StockItemsData,
  type UpdateImportItemsRequest,
  type VsdcEndpoint,
  type VsdcEnvelope,
} from '@fiscal-gateway/vsdc-protocol';
import {
  classifyResult,
  type InitOutcome,
  type SaveSalesOutcome,
  type SelectOutcome,
  type VsdcOutcome,
  type WriteOutcome,
} from '../outcome.ts';
import { createTransport, unreachable, type CallOptions, type Transport, type TransportOptions } from '../transport.ts';
import { receiptProblem } from './sales-body.ts';
import { joinVsdcUrl } from '../url.ts';

/** Which VSDC to talk to, as the gateway stores it per device. */
export interface DeviceTarget {
  baseUrl: string;
  tpin: string;
  bhfId: string;
}

/** Payloads exclude `tpin`/`bhfId`: the client injects them from the target. */
type Payload<T> = Omit<T, 'tpin' | 'bhfId'>;

export interface VsdcClient {
  selectInitInfo(target: DeviceTarget, payload: InitInfoRequest, options?: CallOptions): Promise<InitOutcome<InitInfoData>>;
  selectCodes(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<CodesData>>;
  selectItemsClass(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<ItemsClassData>>;
  saveSales(target: DeviceTarget, body: Payload<SaveSalesRequest>, options?: CallOptions): Promise<SaveSalesOutcome<SaveSalesData>>;
  selectInvoice(target: DeviceTarget, payload: SelectInvoiceRequest, options?: CallOptions): Promise<SelectOutcome<SelectInvoiceData>>;
  selectCustomer(target: DeviceTarget, payload: SelectCustomerRequest, options?: CallOptions): Promise<SelectOutcome<SelectCustomerData>>;
  saveBrancheCustomers(target: DeviceTarget, payload: SaveBranchCustomerRequest, options?: CallOptions): Promise<WriteOutcome>;
  saveItem(target: DeviceTarget, payload: SaveItemRequest, options?: CallOptions): Promise<WriteOutcome>;
  updateItem(target: DeviceTarget, payload: SaveItemRequest, options?: CallOptions): Promise<WriteOutcome>;
  selectImportItems(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<ImportItemsData>>;
  updateImportItems(target: DeviceTarget, payload: UpdateImportItemsRequest, options?: CallOptions): Promise<WriteOutcome>;
  selectNotices(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<NoticesData>>;
  selectBranches(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<BranchesData>>;
  saveBrancheUser(target: DeviceTarget, payload: SaveBranchUserRequest, options?: CallOptions): Promise<WriteOutcome>;
  selectItems(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<ItemsData>>;
  /** `empty` when the item is not registered. */
  selectItem(target: DeviceTarget, payload: SelectItemRequest, options?: CallOptions): Promise<SelectOutcome<SelectItemData>>;
  saveItemComposition(target: DeviceTarget, payload: SaveItemCompositionRequest, options?: CallOptions): Promise<WriteOutcome>;
  saveRrpItems(target: DeviceTarget, payload: SaveRrpItemsRequest, options?: CallOptions): Promise<WriteOutcome>;
  selectRrpItems(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<RrpItemsData>>;
  selectPrincipals(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<PrincipalsData>>;
  selectTrnsPurchaseSales(
    target: DeviceTarget,
    payload?: SelectSinceRequest,
    options?: CallOptions,
  ): Promise<SelectOutcome<PurchaseSalesData>>;
  savePurchase(target: DeviceTarget, body: SavePurchaseRequest, options?: CallOptions): Promise<WriteOutcome>;
  selectStockItems(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<StockItemsData>>;
  saveStockItems(target: DeviceTarget, body: SaveStockItemsRequest, options?: CallOptions): Promise<WriteOutcome>;
  saveStockMaster(target: DeviceTarget, body: SaveStockMasterRequest, options?: CallOptions): Promise<WriteOutcome>;
  close(): Promise<void>;
}

/** An envelope is a JSON object with a `resultCd`; anything else proves nothing about the VSDC. */
export function parseEnvelope(text: string): VsdcEnvelope | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const raw = parsed as Record<string, unknown>;
  let resultCd: string;
  if (typeof raw.resultCd === 'string' && raw.resultCd.trim() !== '') resultCd = raw.resultCd.trim();
  // Some VSDC builds and proxies send the code as a number; 0 must still read as "000".
  else if (typeof raw.resultCd === 'number' && Number.isInteger(raw.resultCd)) resultCd = String(raw.resultCd).padStart(3, '0');
  else return null;
  return {
    resultCd,
    resultMsg: typeof raw.resultMsg === 'string' ? raw.resultMsg : '',
    resultDt: typeof raw.resultDt === 'string' ? raw.resultDt : null,
    data: raw.data ?? null,
  };
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** `HTTP 404`, then `: ` and what the body said, when it said anything. */
function httpAnswer(head: string, text: string): string {
  const said = snippet(text);
  return said ? `${head}: ${said}` : head;
}

/** The list each newer select endpoint answers in `data`; a 000 without it is treated as no answer. */
const LIST_KEYS: Partial<Record<VsdcEndpoint, string>> = {
  selectNotices: 'noticeList',
  selectBranches: 'bhfList',
  selectItems: 'itemList',
  selectRrpItems: 'itemList',
  selectPrincipals: 'taxpayerPrincipalList',
  selectTrnsPurchaseSales: 'saleList',
  selectStockItems: 'stockList',
};

/** Success bodies the gateway must be able to use; a 000 without them is treated as no answer. */
function successProblem(endpoint: VsdcEndpoint, data: unknown): string | null {
  const listKey = LIST_KEYS[endpoint];
  if (listKey !== undefined) {
    return Array.isArray((data as Record<string, unknown> | null)?.[listKey]) ? null : `data.${listKey} is not a list`;
  }
  switch (endpoint) {
    case 'saveSales':
      return receiptProblem(data);
    case 'selectInvoice': {
      const problem = receiptProblem(data);
      if (problem !== null) return problem;
      return typeof (data as { totAmt?: unknown }).totAmt === 'number' ? null : 'totAmt is missing';
    }
    case 'selectInitInfo': {
      const info = (data as { info?: { sdcId?: unknown } } | null)?.info;
      return typeof info?.sdcId === 'string' && info.sdcId !== '' ? null : 'data.info.sdcId is missing';
    }
    case 'selectItem': {
      const item = (data as { itemInfo?: { itemCd?: unknown } } | null)?.itemInfo;
      return typeof item?.itemCd === 'string' ? null : 'data.itemInfo.itemCd is missing';
    }
    default:
      return null;
  }
}

export function interpretReply(endpoint: VsdcEndpoint, status: number, text: string): VsdcOutcome<unknown> {
  if (status >= 500) return unreachable('http_error', httpAnswer(`HTTP ${status}`, text), { httpStatus: status });
  const envelope = parseEnvelope(text);
  const envelopeCounts = envelope !== null && ((status >= 200 && status < 300) || status === 400);
  if (!envelopeCounts) {
    if (status === 400) {
      // The VSDC's JSON binder refused the body (e.g. "" in a number field): resending the same
      // body can never succeed, so this is a terminal rejection, not an outage.
      return { kind: 'rejected', code: '400', message: httpAnswer('VSDC refused the request body (HTTP 400)', text), resultDt: null };
    }
    if (status >= 200 && status < 300)
      return unreachable('not_an_envelope', httpAnswer(`HTTP ${status} without a VSDC envelope`, text), { httpStatus: status });
    return unreachable('http_error', httpAnswer(`HTTP ${status}`, text), { httpStatus: status });
  }
  const meta = { resultCd: envelope.resultCd, resultMsg: envelope.resultMsg, resultDt: envelope.resultDt };
  switch (classifyResult(envelope.resultCd, endpoint)) {
    case 'ok': {
      const problem = successProblem(endpoint, envelope.data);
      if (problem !== null) return unreachable('bad_success_body', `resultCd 000 but ${problem}`, { resultCd: envelope.resultCd });
      return { kind: 'ok', data: envelope.data, ...meta };
    }
    case 'empty':
      return { kind: 'empty', ...meta };
    case 'already_installed':
      return { kind: 'already_installed', ...meta };
    case 'duplicate':
      return { kind: 'duplicate', ...meta };
    case 'unreachable':
      return unreachable('authority_unreachable', `${envelope.resultCd} ${envelope.resultMsg}`.trim(), { resultCd: envelope.resultCd });
    case 'rejected':
      return { kind: 'rejected', code: envelope.resultCd, message: envelope.resultMsg, resultDt: envelope.resultDt };
  }
}

/**
 * The payload with the target's tpin and bhfId. A saveSales body already carries them (and has
 * ~90 fields, which V8 copies slowly), so it is sent as it is when they match.
 */
function withTarget(payload: object, target: DeviceTarget): object {
  const carried = payload as { tpin?: unknown; bhfId?: unknown };
  if (carried.tpin === target.tpin && carried.bhfId === target.bhfId) return payload;
  return Object.assign({}, payload, { tpin: target.tpin, bhfId: target.bhfId });
}

/** The ZRA client over a transport (a context shares one), or over one of its own built with `options`. */
export function createVsdcClient(over: Transport | TransportOptions = {}): VsdcClient {
  const transport = 'post' in over ? over : createTransport(over);
  async function call(
    endpoint: VsdcEndpoint,
    target: DeviceTarget,
    payload: object,
    callOptions: CallOptions = {},
  ): Promise<VsdcOutcome<unknown>> {
    let url: string;
    try {
      url = new URL(joinVsdcUrl(target.baseUrl, VSDC_PATHS[endpoint])).toString();
    } catch {
      return unreachable('network_error', `invalid vsdcBaseUrl "${target.baseUrl}"`);
    }
    const answer = await transport.post(url, JSON.stringify(withTarget(payload, target)), {}, callOptions);
    return answer.kind === 'answered' ? interpretReply(endpoint, answer.status, answer.text) : answer;
  }

  const since = (payload: SelectSinceRequest | undefined): SelectSinceRequest => ({ lastReqDt: payload?.lastReqDt ?? VSDC_EPOCH });

  // The casts below only narrow VsdcOutcome to what classifyResult allows for that endpoint.
  return {
    selectInitInfo: (t, p, o) => call('selectInitInfo', t, p, o) as Promise<InitOutcome<InitInfoData>>,
    selectCodes: (t, p, o) => call('selectCodes', t, since(p), o) as Promise<SelectOutcome<CodesData>>,
    selectItemsClass: (t, p, o) => call('selectItemsClass', t, since(p), o) as Promise<SelectOutcome<ItemsClassData>>,
    saveSales: (t, b, o) => call('saveSales', t, b, o) as Promise<SaveSalesOutcome<SaveSalesData>>,
    selectInvoice: (t, p, o) => call('selectInvoice', t, p, o) as Promise<SelectOutcome<SelectInvoiceData>>,
    selectCustomer: (t, p, o) => call('selectCustomer', t, p, o) as Promise<SelectOutcome<SelectCustomerData>>,
    saveBrancheCustomers: (t, p, o) => call('saveBrancheCustomers', t, p, o) as Promise<WriteOutcome>,
    saveItem: (t, p, o) => call('saveItem', t, p, o) as Promise<WriteOutcome>,
    updateItem: (t, p, o) => call('updateItem', t, p, o) as Promise<WriteOutcome>,
    selectImportItems: (t, p, o) => call('selectImportItems', t, since(p), o) as Promise<SelectOutcome<ImportItemsData>>,
    updateImportItems: (t, p, o) => call('updateImportItems', t, p, o) as Promise<WriteOutcome>,
    selectNotices: (t, p, o) => call('selectNotices', t, since(p), o) as Promise<SelectOutcome<NoticesData>>,
    selectBranches: (t, p, o) => call('selectBranches', t, since(p), o) as Promise<SelectOutcome<BranchesData>>,
    saveBrancheUser: (t, p, o) => call('saveBrancheUser', t, p, o) as Promise<WriteOutcome>,
    selectItems: (t, p, o) => call('selectItems', t, since(p), o) as Promise<SelectOutcome<ItemsData>>,
    selectItem: (t, p, o) => call('selectItem', t, p, o) as Promise<SelectOutcome<SelectItemData>>,
    saveItemComposition: (t, p, o) => call('saveItemComposition', t, p, o) as Promise<WriteOutcome>,
    saveRrpItems: (t, p, o) => call('saveRrpItems', t, p, o) as Promise<WriteOutcome>,
    selectRrpItems: (t, p, o) => call('selectRrpItems', t, since(p), o) as Promise<SelectOutcome<RrpItemsData>>,
    selectPrincipals: (t, p, o) => call('selectPrincipals', t, since(p), o) as Promise<SelectOutcome<PrincipalsData>>,
    selectTrnsPurchaseSales: (t, p, o) => call('selectTrnsPurchaseSales', t, since(p), o) as Promise<SelectOutcome<PurchaseSalesData>>,
    savePurchase: (t, b, o) => call('savePurchase', t, b, o) as Promise<WriteOutcome>,
    selectStockItems: (t, p, o) => call('selectStockItems', t, since(p), o) as Promise<SelectOutcome<StockItemsData>>,
    saveStockItems: (t, b, o) => call('saveStockItems', t, b, o) as Promise<WriteOutcome>,
    saveStockMaster: (t, b, o) => call('saveStockMaster', t, b, o) as Promise<WriteOutcome>,
    close: () => transport.close(),
  };
}
