// The VSDC client: one typed call per endpoint, one pooled undici Agent, per host caps
// (host-limits.ts), and every answer read into a VsdcOutcome. It never throws for anything the
// network or the VSDC does.
import { Agent, request } from 'undici';
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
  type UnreachableOutcome,
  type UnreachableReason,
  type VsdcOutcome,
  type WriteOutcome,
} from './outcome.ts';
import { HostLimiter } from './host-limits.ts';
import { receiptProblem } from './sales-body.ts';
import { joinVsdcUrl } from './url.ts';

/** Which VSDC to talk to, as the gateway stores it per device. */
export interface DeviceTarget {
  baseUrl: string;
  tpin: string;
  bhfId: string;
}

interface VsdcClientOptions {
  /** Whole-call deadline (connect + reply). Default 20 000 ms. */
  timeoutMs?: number;
  /** Keep-alive sockets idle longer than this are closed. Default 4 000 ms. */
  keepAliveTimeoutMs?: number;
  /** Calls (and connections) at once per VSDC host (origin); 0 or absent: no cap (VSDC_HOST_CONNECTIONS). */
  hostConnections?: number;
  /** Calls started per second per VSDC host; 0 or absent: no cap (VSDC_HOST_RATE). */
  hostRate?: number;
}

interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
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
  selectTrnsPurchaseSales(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<PurchaseSalesData>>;
  savePurchase(target: DeviceTarget, body: SavePurchaseRequest, options?: CallOptions): Promise<WriteOutcome>;
  selectStockItems(target: DeviceTarget, payload?: SelectSinceRequest, options?: CallOptions): Promise<SelectOutcome<StockItemsData>>;
  saveStockItems(target: DeviceTarget, body: SaveStockItemsRequest, options?: CallOptions): Promise<WriteOutcome>;
  saveStockMaster(target: DeviceTarget, body: SaveStockMasterRequest, options?: CallOptions): Promise<WriteOutcome>;
  close(): Promise<void>;
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function unreachable(reason: UnreachableReason, detail: string, extra: Partial<UnreachableOutcome> = {}): UnreachableOutcome {
  return { kind: 'unreachable', reason, detail, ...extra };
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return e.cause === undefined ? undefined : errorCode(e.cause);
}

function fromNetworkError(err: unknown, timedOut: boolean): UnreachableOutcome {
  const detail = err instanceof Error ? err.message || err.name : String(err);
  if (timedOut) return unreachable('timeout', 'no reply within the VSDC timeout');
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return unreachable('connection_refused', detail);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return unreachable('connection_reset', detail);
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return unreachable('timeout', detail);
    default:
      if (err instanceof Error && (err.name === 'AbortError' || code === 'UND_ERR_ABORTED')) return unreachable('aborted', detail);
      return unreachable('network_error', code ? `${code}: ${detail}` : detail);
  }
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
    if (status >= 200 && status < 300) return unreachable('not_an_envelope', httpAnswer(`HTTP ${status} without a VSDC envelope`, text), { httpStatus: status });
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

/**
 * The calls in flight under each caller's signal (a filer's stop signal covers all of its calls):
 * one listener per signal aborts them all, instead of one listener per call (which a busy filer
 * would pile up past the EventTarget's warning threshold).
 */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

function follow(signal: AbortSignal, controller: AbortController): () => void {
  if (signal.aborted) {
    controller.abort();
    return () => {};
  }
  let set = followers.get(signal);
  if (!set) {
    const calls = new Set<AbortController>();
    followers.set(signal, (set = calls));
    signal.addEventListener('abort', () => calls.forEach((c) => c.abort()), { once: true });
  }
  set.add(controller);
  const calls = set;
  return () => calls.delete(controller);
}

export function createVsdcClient(options: VsdcClientOptions = {}): VsdcClient {
  const defaultTimeoutMs = options.timeoutMs ?? 20_000;
  const hosts = new HostLimiter({ connections: options.hostConnections ?? 0, ratePerSecond: options.hostRate ?? 0 });
  const agent = new Agent({
    ...(options.hostConnections ? { connections: options.hostConnections } : {}),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    connect: { timeout: defaultTimeoutMs },
    maxResponseSize: MAX_RESPONSE_BYTES,
  });

  async function call(endpoint: VsdcEndpoint, target: DeviceTarget, payload: object, callOptions: CallOptions = {}): Promise<VsdcOutcome<unknown>> {
    let url: string;
    let origin: string;
    try {
      const parsed = new URL(joinVsdcUrl(target.baseUrl, VSDC_PATHS[endpoint]));
      url = parsed.toString();
      origin = parsed.origin;
    } catch {
      return unreachable('network_error', `invalid vsdcBaseUrl "${target.baseUrl}"`);
    }
    const timeoutMs = callOptions.timeoutMs ?? defaultTimeoutMs;
    const cancel = callOptions.signal;
    // One controller and one timer per call: AbortSignal.timeout() with AbortSignal.any() cost
    // ~4 % of the gateway's CPU under the sales load (issue 22's profile).
    const controller = new AbortController();
    const unfollow = cancel ? follow(cancel, controller) : undefined;
    let release: (() => void) | undefined;
    if (hosts.enabled) {
      // The deadline starts with the slot: waiting for our own cap is not the VSDC being slow.
      try {
        release = await hosts.acquire(origin, controller.signal);
      } catch {
        unfollow?.();
        return unreachable('aborted', 'the caller cancelled the call');
      }
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const body = JSON.stringify(withTarget(payload, target));
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      return interpretReply(endpoint, response.statusCode, text);
    } catch (err) {
      if (cancel?.aborted && !timedOut) return unreachable('aborted', 'the caller cancelled the call');
      return fromNetworkError(err, timedOut);
    } finally {
      clearTimeout(timer);
      unfollow?.();
      release?.();
    }
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
    close: () => agent.close(),
  };
}
