// What the real VSDC's JSON binder (Jackson) does before any business check: a number or date
// field holding "" (or a number field holding text) fails binding with a bare HTTP 400.
// Numeric strings are coerced to numbers in place, as Jackson does.
import type { VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';

interface FieldTypes {
  numbers: readonly string[];
  dates: readonly string[];
  lists?: Record<string, FieldTypes>;
}

const TRIO_FIELDS = ['A', 'B', 'C1', 'C2', 'C3', 'D', 'Rvat', 'E', 'F', 'Ipl1', 'Ipl2', 'Tl', 'Ecm', 'Exeeg', 'Tot'].flatMap((b) => [
  `taxblAmt${b}`,
  `taxRt${b}`,
  `taxAmt${b}`,
]);
/** Some integrators send a `C` bucket beside C1–C3 (no rate field). */
const C_BUCKET = ['taxblAmtC', 'taxAmtC'];

const SALES_LINE: FieldTypes = {
  numbers: [
    'itemSeq',
    'pkg',
    'qty',
    'prc',
    'splyAmt',
    'dcRt',
    'dcAmt',
    'isrcRt',
    'isrcAmt',
    'vatTaxblAmt',
    'vatAmt',
    'exciseTaxblAmt',
    'tlTaxblAmt',
    'iplTaxblAmt',
    'iplAmt',
    'tlAmt',
    'exciseTxAmt',
    'totAmt',
    'rrp',
  ],
  dates: [],
};

const PURCHASE_LINE: FieldTypes = {
  numbers: [
    'itemSeq',
    'pkg',
    'qty',
    'prc',
    'splyAmt',
    'dcRt',
    'dcAmt',
    'taxblAmt',
    'vatAmt',
    'iplTaxblAmt',
    'tlTaxblAmt',
    'exciseTaxblAmt',
    'iplAmt',
    'tlAmt',
    'exciseTxAmt',
    'taxAmt',
    'totAmt',
  ],
  dates: ['itemExprDt'],
};

const STOCK_LINE: FieldTypes = {
  numbers: [
    'itemSeq',
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
  ],
  dates: ['itemExprDt'],
};

const NOTHING_TYPED: FieldTypes = { numbers: [], dates: [] };
const SELECT_SINCE: FieldTypes = { numbers: [], dates: ['lastReqDt'] };
const ITEM: FieldTypes = { numbers: ['dftPrc', 'sftyQty', 'rrp'], dates: [] };

const BINDINGS: Record<VsdcEndpoint, FieldTypes> = {
  selectInitInfo: { numbers: [], dates: [] },
  selectCodes: SELECT_SINCE,
  selectItemsClass: SELECT_SINCE,
  selectImportItems: SELECT_SINCE,
  saveSales: {
    numbers: [
      'orgInvcNo',
      'totItemCnt',
      'totTaxblAmt',
      'totTaxAmt',
      'totAmt',
      'cashDcRt',
      'cashDcAmt',
      'exchangeRt',
      ...TRIO_FIELDS,
      ...C_BUCKET,
    ],
    dates: ['cfmDt', 'salesDt', 'stockRlsDt', 'cnclReqDt', 'cnclDt', 'rfdDt'],
    lists: { itemList: SALES_LINE },
  },
  selectInvoice: { numbers: [], dates: [] },
  selectCustomer: { numbers: [], dates: [] },
  saveBrancheCustomers: { numbers: [], dates: [] },
  saveItem: ITEM,
  updateItem: ITEM,
  updateImportItems: { numbers: [], dates: ['dclDe'], lists: { importItemList: { numbers: ['itemSeq'], dates: [] } } },
  selectNotices: SELECT_SINCE,
  selectBranches: SELECT_SINCE,
  saveBrancheUser: NOTHING_TYPED,
  selectItems: SELECT_SINCE,
  selectItem: NOTHING_TYPED,
  saveItemComposition: { numbers: ['cpstQty'], dates: [] },
  saveRrpItems: { numbers: [], dates: [], lists: { itemList: { numbers: ['rrp'], dates: [] } } },
  selectRrpItems: SELECT_SINCE,
  selectPrincipals: SELECT_SINCE,
  selectTrnsPurchaseSales: SELECT_SINCE,
  // spplrInvcNo is a number: text there is a bare 400 (observed live).
  savePurchase: {
    numbers: ['invcNo', 'orgInvcNo', 'spplrInvcNo', 'totItemCnt', 'totTaxblAmt', 'totTaxAmt', 'totAmt', ...TRIO_FIELDS],
    dates: ['cfmDt', 'pchsDt', 'wrhsDt', 'cnclReqDt', 'cnclDt', 'rfdDt'],
    lists: { itemList: PURCHASE_LINE },
  },
  selectStockItems: SELECT_SINCE,
  saveStockItems: {
    numbers: ['sarNo', 'orgSarNo', 'totItemCnt', 'totTaxblAmt', 'totTaxAmt', 'totAmt'],
    dates: ['ocrnDt'],
    lists: { itemList: STOCK_LINE },
  },
  saveStockMaster: { numbers: [], dates: [], lists: { stockItemList: { numbers: ['rsdQty'], dates: [] } } },
};

const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

function bindObject(target: Record<string, unknown>, types: FieldTypes): boolean {
  for (const field of types.numbers) {
    const value = target[field];
    if (value === undefined || value === null || typeof value === 'number') continue;
    if (typeof value === 'string' && NUMERIC_TEXT.test(value)) {
      target[field] = Number(value);
      continue;
    }
    return false;
  }
  for (const field of types.dates) {
    const value = target[field];
    if (value === undefined || value === null) continue;
    if (typeof value === 'number' && Number.isInteger(value)) {
      target[field] = String(value);
      continue;
    }
    if (typeof value !== 'string' || value === '') return false;
  }
  for (const [field, lineTypes] of Object.entries(types.lists ?? {})) {
    const list = target[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) return false;
    for (const entry of list) {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
      if (!bindObject(entry as Record<string, unknown>, lineTypes)) return false;
    }
  }
  return true;
}

/** False when the body would fail binding (→ bare HTTP 400). */
export function bindRequestBody(endpoint: VsdcEndpoint, body: Record<string, unknown>): boolean {
  return bindObject(body, BINDINGS[endpoint]);
}
