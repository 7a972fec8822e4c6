// KRA eTIMS on the wire, in its own small types: the two protocols' paths (the KRA-hosted OSCU's
// flat names, the taxpayer-hosted VSCU jar's VSDC-family ones), the envelope, and dates in
// Nairobi time (`YYYYMMDDHHmmss`, and the `YYYY-MM-DD HH:MM:SS.0` some replies carry).

export type KraProtocol = 'oscu' | 'vscu';

/** The calls the adapter makes, named by their OSCU names. */
export type KraEndpoint =
  | 'selectInitOsdcInfo'
  | 'selectCodeList'
  | 'selectItemClsList'
  | 'selectCustomer'
  | 'selectBhfList'
  | 'selectNoticeList'
  | 'saveBhfCustomer'
  | 'saveBhfUser'
  | 'saveItem'
  | 'selectItemList'
  | 'saveItemComposition'
  | 'selectImportItemList'
  | 'updateImportItem'
  | 'saveTrnsSalesOsdc'
  | 'saveInvoice'
  | 'selectInvoiceDetails'
  | 'selectTrnsPurchaseSalesList'
  | 'insertTrnsPurchase'
  | 'insertStockIO'
  | 'saveStockMaster'
  | 'selectStockMoveList';

/**
 * Each call's path per protocol. VSCU's are the VSDC family the jar serves; `saveInvoice` exists on
 * VSCU only (the disputed second call of a sale); `selectInvoiceDetails` on VSCU is
 * `/trnsSales/selectSales`, a path no source shows (the gateway's extension, docs/decisions.md).
 */
export const KRA_PATHS: Readonly<Record<KraProtocol, Readonly<Record<KraEndpoint, string | null>>>> = {
  oscu: {
    selectInitOsdcInfo: '/selectInitOsdcInfo',
    selectCodeList: '/selectCodeList',
    selectItemClsList: '/selectItemClsList',
    selectCustomer: '/selectCustomer',
    selectBhfList: '/selectBhfList',
    selectNoticeList: '/selectNoticeList',
    saveBhfCustomer: '/saveBhfCustomer',
    saveBhfUser: '/saveBhfUser',
    saveItem: '/saveItem',
    selectItemList: '/selectItemList',
    saveItemComposition: '/saveItemComposition',
    selectImportItemList: '/selectImportItemList',
    updateImportItem: '/updateImportItem',
    saveTrnsSalesOsdc: '/saveTrnsSalesOsdc',
    saveInvoice: null,
    selectInvoiceDetails: '/selectInvoiceDetails',
    selectTrnsPurchaseSalesList: '/selectTrnsPurchaseSalesList',
    insertTrnsPurchase: '/insertTrnsPurchase',
    insertStockIO: '/insertStockIO',
    saveStockMaster: '/saveStockMaster',
    selectStockMoveList: '/selectStockMoveList',
  },
  vscu: {
    selectInitOsdcInfo: '/initializer/selectInitInfo',
    selectCodeList: '/code/selectCodes',
    selectItemClsList: '/itemClass/selectItemsClass',
    selectCustomer: '/customers/selectCustomer',
    selectBhfList: '/branches/selectBranches',
    selectNoticeList: '/notices/selectNotices',
    saveBhfCustomer: '/branches/saveBrancheCustomers',
    saveBhfUser: '/branches/saveBrancheUsers',
    saveItem: '/items/saveItems',
    selectItemList: '/items/selectItems',
    saveItemComposition: '/items/saveItemComposition',
    selectImportItemList: '/imports/selectImportItems',
    updateImportItem: '/imports/updateImportItems',
    saveTrnsSalesOsdc: '/trnsSales/saveSales',
    saveInvoice: '/trnsSales/saveInvoice',
    selectInvoiceDetails: '/trnsSales/selectSales',
    selectTrnsPurchaseSalesList: '/trnsPurchase/selectTrnsPurchaseSales',
    insertTrnsPurchase: '/trnsPurchase/savePurchases',
    insertStockIO: '/stock/saveStockItems',
    saveStockMaster: '/stockMaster/saveStockMaster',
    selectStockMoveList: '/stock/selectStockItems',
  },
};

/** The reads that answer `001` when nothing matches. */
export const SELECTS: ReadonlySet<KraEndpoint> = new Set<KraEndpoint>([
  'selectCodeList',
  'selectItemClsList',
  'selectCustomer',
  'selectBhfList',
  'selectNoticeList',
  'selectItemList',
  'selectImportItemList',
  'selectInvoiceDetails',
  'selectTrnsPurchaseSalesList',
  'selectStockMoveList',
]);

export interface KraEnvelope {
  resultCd: string;
  resultMsg: string;
  resultDt: string | null;
  data: unknown;
}

/** `lastReqDt` of a full read: Odoo pulls from here against the live sandbox. */
export const KRA_EPOCH = '20180101000000';

/** Nairobi keeps East Africa Time, UTC+3, all year (no summer time). */
const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `YYYYMMDDHHmmss` in Nairobi time. */
export function formatKraDateTime(at: Date): string {
  const d = new Date(at.getTime() + NAIROBI_OFFSET_MS);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

/** `YYYYMMDD` in Nairobi time. */
export function formatKraDate(at: Date): string {
  return formatKraDateTime(at).slice(0, 8);
}

const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?$/;
const SPACED = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?$/;

/**
 * A KRA date read as Nairobi time: `YYYYMMDDHHmmss`, `YYYYMMDD` or `YYYY-MM-DD HH:MM:SS[.f]`;
 * null for anything else (or a day that does not exist).
 */
export function parseKraDateTime(text: string | null | undefined): Date | null {
  if (typeof text !== 'string') return null;
  const m = COMPACT.exec(text.trim()) ?? SPACED.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  const utc = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const check = new Date(utc);
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d! || h > 23 || mi > 59 || s > 59) return null;
  return new Date(utc - NAIROBI_OFFSET_MS);
}

/**
 * The `lastReqDt` a read since `cursor` (an earlier answer's `resultDt`) asks with: one second
 * before it, so a change made in that same second still comes back (the domain's keyed stores
 * skip what comes twice). Null: everything; text that is no date goes as it is.
 */
export function lastReqDtOf(cursor: string | null): string {
  if (cursor === null) return KRA_EPOCH;
  const at = parseKraDateTime(cursor);
  if (at === null || at.getTime() <= parseKraDateTime(KRA_EPOCH)!.getTime()) return cursor;
  return formatKraDateTime(new Date(at.getTime() - 1000));
}

/** Who the gateway tells KRA registered or changed what it sends, when nobody else is named. */
export const GATEWAY_REGISTRANT = 'fiscal-gateway';
export const GATEWAY_REGISTRANT_FIELDS = {
  regrId: GATEWAY_REGISTRANT,
  regrNm: GATEWAY_REGISTRANT,
  modrId: GATEWAY_REGISTRANT,
  modrNm: GATEWAY_REGISTRANT,
} as const;
