// Wire types of the VSDC protocol (see /work/shared/vsdc-protocol.md). Field names are the VSDC's.

export const VSDC_PATHS = {
  selectInitInfo: '/initializer/selectInitInfo',
  selectCodes: '/code/selectCodes',
  selectItemsClass: '/itemClass/selectItemsClass',
  saveSales: '/trnsSales/saveSales',
  selectInvoice: '/trnsSales/selectInvoice',
  selectCustomer: '/customers/selectCustomer',
  saveBrancheCustomers: '/branches/saveBrancheCustomers',
  saveItem: '/items/saveItem',
  updateItem: '/items/updateItem',
  selectImportItems: '/imports/selectImportItems',
  updateImportItems: '/imports/updateImportItems',
  selectNotices: '/notices/selectNotices',
  selectBranches: '/branches/selectBranches',
  saveBrancheUser: '/branches/saveBrancheUser',
  selectItems: '/items/selectItems',
  selectItem: '/items/selectItem',
  saveItemComposition: '/items/saveItemComposition',
  saveRrpItems: '/items/saveRrpItems',
  selectRrpItems: '/items/selectRrpItems',
  selectPrincipals: '/trnsSales/selectPrincipals',
  selectTrnsPurchaseSales: '/trnsPurchase/selectTrnsPurchaseSales',
  savePurchase: '/trnsPurchase/savePurchase',
  selectStockItems: '/stock/selectStockItems',
  saveStockItems: '/stock/saveStockItems',
  saveStockMaster: '/stockMaster/saveStockMaster',
} as const;

export type VsdcEndpoint = keyof typeof VSDC_PATHS;

export interface VsdcEnvelope {
  resultCd: string;
  resultMsg: string;
  resultDt: string | null;
  data: unknown;
}

// ---- initialisation ----

export interface InitInfoRequest {
  dvcSrlNo: string;
}

/**
 * `data.info` of a real `selectInitInfo` answer: the taxpayer is `tin` (not `tpin`), `mrcNo` is
 * space-padded, and several counters (`lastInvcNo`, `lastTrainInvcNo`, …) may be null.
 */
export interface InitInfo {
  tin?: string | null;
  bhfId: string;
  sdcId: string;
  /** May carry trailing spaces on the wire; trim before storing. */
  mrcNo: string;
  taxprNm: string | null;
  bhfNm: string | null;
  /** The branch's last sale invoice number (`cisInvcNo`); null or 0 on a fresh device. */
  lastSaleInvcNo: number | null;
  lastPchsInvcNo: number | null;
  lastSaleRcptNo: number | null;
  lastInvcNo?: number | null;
  lastTrainInvcNo?: number | null;
  lastProfrmInvcNo?: number | null;
  lastCopyInvcNo?: number | null;
  [field: string]: unknown;
}

export interface InitInfoData {
  info: InitInfo;
}

// ---- code tables and classification ----

export interface SelectSinceRequest {
  /** `YYYYMMDDHHmmss`; defaults to `20000101000000` (everything). */
  lastReqDt?: string;
}

export interface CodeDetail {
  cd: string;
  cdNm: string;
  cdDesc: string | null;
  useYn: 'Y' | 'N';
  srtOrd: number;
  userDfnCd1: string | null;
  userDfnCd2: string | null;
  userDfnCd3: string | null;
}

export interface CodeClass {
  cdCls: string;
  cdClsNm: string;
  cdClsDesc: string | null;
  useYn: 'Y' | 'N';
  userDfnNm1: string | null;
  userDfnNm2: string | null;
  userDfnNm3: string | null;
  dtlList: CodeDetail[];
}

export interface CodesData {
  clsList: CodeClass[];
}

export interface ItemClass {
  itemClsCd: string;
  itemClsNm: string;
  itemClsLvl: number;
  taxTyCd: string | null;
  mjrTgYn: 'Y' | 'N' | null;
  useYn: 'Y' | 'N';
}

export interface ItemsClassData {
  itemClsList: ItemClass[];
}

// ---- sales ----

export interface SaveSalesLine {
  itemSeq: number;
  itemCd: string | null;
  itemClsCd: string;
  itemNm: string;
  bcd: string | null;
  pkgUnitCd: string;
  pkg: number;
  qtyUnitCd: string;
  qty: number;
  prc: number;
  /** MTV (`B`) lines only: the recommended retail price per unit (a `B` line without it is a `910`). */
  rrp?: number;
  splyAmt: number;
  dcRt: number;
  dcAmt: number;
  isrccCd: string | null;
  isrccNm: string | null;
  isrcRt: number;
  isrcAmt: number;
  vatCatCd: string;
  exciseTxCatCd: string | null;
  tlCatCd: string | null;
  iplCatCd: string | null;
  vatTaxblAmt: number;
  vatAmt: number;
  exciseTaxblAmt: number;
  tlTaxblAmt: number;
  iplTaxblAmt: number;
  iplAmt: number;
  tlAmt: number;
  exciseTxAmt: number;
  totAmt: number;
}

/** Header bucket suffixes, in the casing the protocol page uses (`taxblAmtRvat`, not `RVAT`). */
export const HEADER_TAX_BUCKETS = ['A', 'B', 'C1', 'C2', 'C3', 'D', 'Rvat', 'E', 'F', 'Ipl1', 'Ipl2', 'Tl', 'Ecm', 'Exeeg', 'Tot'] as const;
export type HeaderTaxBucket = (typeof HEADER_TAX_BUCKETS)[number];

type TaxTrio = { [K in HeaderTaxBucket as `taxblAmt${K}` | `taxRt${K}` | `taxAmt${K}`]: number };

export interface SaveSalesHeader {
  tpin: string;
  bhfId: string;
  orgInvcNo: number;
  orgSdcId: string | null;
  cisInvcNo: string;
  custTpin: string;
  custNm: string;
  salesTyCd: string;
  rcptTyCd: 'S' | 'R' | 'D';
  pmtTyCd: string;
  salesSttsCd: string;
  cfmDt: string;
  salesDt: string;
  stockRlsDt: string | null;
  cnclReqDt: string | null;
  cnclDt: string | null;
  rfdDt: string | null;
  rfdRsnCd: string | null;
  dbtRsnCd: string | null;
  totItemCnt: number;
  totTaxblAmt: number;
  totTaxAmt: number;
  totAmt: number;
  cashDcRt: number;
  cashDcAmt: number;
  prchrAcptcYn: 'Y' | 'N';
  remark: string | null;
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
  saleCtyCd: string;
  currencyTyCd: string;
  exchangeRt: number;
  destnCountryCd: string | null;
  /** The buyer's Local Purchase Order of a zero-rated LPO sale (category C2); null otherwise. */
  lpoNumber: string | null;
  /** An RVAT agent's sale: the principal (selectPrincipals' `id`); absent otherwise. */
  principalId?: number | string;
  itemList: SaveSalesLine[];
}

export type SaveSalesRequest = SaveSalesHeader & TaxTrio;

export interface SaveSalesData {
  rcptNo: number;
  intrlData: string;
  rcptSign: string;
  /** Absent in some real responses; fall back to the envelope's `resultDt`. */
  vsdcRcptPbctDate?: string | null;
  sdcId?: string | null;
  mrcNo?: string | null;
  qrCodeUrl?: string | null;
  [field: string]: unknown;
}

export interface SelectInvoiceRequest {
  cisInvcNo: string;
  /** The device's `sdcId`. */
  invcSdcId: string;
}

export interface SelectInvoiceData extends SaveSalesData {
  cisInvcNo?: string;
  rcptTyCd?: string;
  totTaxblAmt?: number;
  totTaxAmt?: number;
  totAmt: number;
}

// ---- customers ----

export interface SelectCustomerRequest {
  custmTpin: string;
}

export interface CustomerRecord {
  custTpin: string;
  custNm: string;
  adrs: string | null;
  telNo: string | null;
  email: string | null;
  useYn: 'Y' | 'N';
  [field: string]: unknown;
}

export interface SelectCustomerData {
  custList: CustomerRecord[];
}

export interface SaveBranchCustomerRequest {
  custNo: string;
  custTpin: string | null;
  custNm: string;
  adrs?: string | null;
  telNo?: string | null;
  email?: string | null;
  faxNo?: string | null;
  useYn: 'Y' | 'N';
  remark?: string | null;
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
}

// ---- items ----

export interface SaveItemRequest {
  itemCd: string;
  itemClsCd: string;
  /** Class 24: `1` raw material, `2` finished product, `3` service. */
  itemTyCd: string;
  itemNm: string;
  itemStdNm?: string | null;
  orgnNatCd: string;
  pkgUnitCd: string;
  qtyUnitCd: string;
  vatCatCd: string;
  iplCatCd?: string | null;
  tlCatCd?: string | null;
  exciseTxCatCd?: string | null;
  btchNo?: string | null;
  bcd?: string | null;
  dftPrc: number;
  addInfo?: string | null;
  sftyQty?: number | null;
  manufacturerTpin?: string | null;
  manufacturerItemCd?: string | null;
  rrp?: number | null;
  svcChargeYn?: 'Y' | 'N';
  rentalYn?: 'Y' | 'N';
  useYn: 'Y' | 'N';
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
}

// ---- customs imports ----

export interface ImportItem {
  taskCd: string;
  /** Declaration date, `YYYYMMDD`. */
  dclDe: string;
  itemSeq: number;
  dclNo: string;
  hsCd: string;
  itemNm: string;
  orgnNatCd: string;
  exptNatCd: string;
  pkg: number;
  pkgUnitCd: string;
  qty: number;
  qtyUnitCd: string;
  totWt: number;
  netWt: number;
  spplrNm: string;
  agntNm: string;
  invcFcurAmt: number;
  invcFcurCd: string;
  invcFcurExcrt: number;
  [field: string]: unknown;
}

export interface ImportItemsData {
  itemList: ImportItem[];
}

export interface ImportItemDecision {
  itemSeq: number;
  /** As the declaration line carried it (null when it had none). */
  hsCd: string | null;
  /** Null on a rejection: a rejected line names no item. */
  itemClsCd: string | null;
  itemCd: string | null;
  /** `3` approved, `4` rejected (class 26). */
  imptItemSttsCd: '3' | '4';
  remark?: string | null;
  modrId: string;
  modrNm: string;
}

export interface UpdateImportItemsRequest {
  taskCd: string;
  dclDe: string;
  importItemList: ImportItemDecision[];
}

// ---- notices ----

export interface Notice {
  noticeNo: number;
  title: string;
  /** The notice's text. */
  cont: string;
  dtlUrl: string | null;
  regrNm: string;
  /** `YYYYMMDDHHmmss`. */
  regDt: string;
  [field: string]: unknown;
}

export interface NoticesData {
  noticeList: Notice[];
}

// ---- branches and their users ----

/** One of the taxpayer's branches: the branch fields a real `selectInitInfo` answer carries. */
export interface BranchRecord {
  /** The taxpayer's TPIN; real answers name it `tin`. */
  tin?: string;
  bhfId: string;
  bhfNm: string;
  /** `01` active. */
  bhfSttsCd?: string | null;
  /** `YYYYMMDD`. */
  bhfOpenDt?: string | null;
  prvncNm: string | null;
  dstrtNm: string | null;
  sctrNm: string | null;
  locDesc: string | null;
  hqYn: 'Y' | 'N';
  mgrNm: string | null;
  mgrTelNo: string | null;
  mgrEmail: string | null;
  [field: string]: unknown;
}

/** The list key is not documented publicly; `bhfList` is our reading (integrators read it). */
export interface BranchesData {
  bhfList: BranchRecord[];
}

export interface SaveBranchUserRequest {
  userId: string;
  userNm: string;
  pwd?: string | null;
  adrs?: string | null;
  /** Contact (telephone). */
  cntc?: string | null;
  authCd?: string | null;
  remark?: string | null;
  useYn: 'Y' | 'N';
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
}

// ---- registered items, compositions and RRP items ----

/** An item as `selectItems` and `selectItem` return it: the fields it was registered with. */
export type ItemRecord = Omit<SaveItemRequest, 'regrId' | 'regrNm' | 'modrId' | 'modrNm'> & { [field: string]: unknown };

export interface ItemsData {
  itemList: ItemRecord[];
}

export interface SelectItemRequest {
  itemCd: string;
}

/** `data.itemInfo` is our reading (integrators read it, falling back to `data` itself). */
export interface SelectItemData {
  itemInfo: ItemRecord;
}

/** One component of a processed or repackaged item: `cpstQty` of `cpstItemCd` go into one `itemCd`. */
export interface SaveItemCompositionRequest {
  itemCd: string;
  cpstItemCd: string;
  cpstQty: number;
  regrId: string;
  regrNm: string;
}

/** A manufacturer's recommended retail price for an MTV (category `B`) item. */
export interface RrpItemInput {
  itemCd: string;
  itemClsCd: string;
  itemTyCd: string;
  itemNm: string;
  itemDesc?: string | null;
  orgnNatCd: string;
  pkgUnitCd: string;
  qtyUnitCd: string;
  rrp: number;
  useYn: 'Y' | 'N';
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
}

export interface SaveRrpItemsRequest {
  itemList: RrpItemInput[];
}

/** One entry of the RRP feed: every manufacturer's prices, not only this taxpayer's. */
export interface RrpItem {
  manufacturerTpin: string;
  manufacturerName: string;
  itemCd: string;
  itemClsCd: string;
  itemNm: string;
  orgnNatCd: string;
  pkgUnitCd: string;
  qtyUnitCd: string;
  rrp: number;
  [field: string]: unknown;
}

export interface RrpItemsData {
  itemList: RrpItem[];
}

// ---- principals (RVAT agents) ----

/** A principal an RVAT agent sells for; an RVAT sale names it in `principalId`. */
export interface Principal {
  id: number;
  tpin: string;
  principalNm: string;
  principalAddress: string | null;
  principalEmail: string | null;
  principalTelNo: string | null;
  accountNo: string | null;
  /** `YYYYMMDDHHmmss`. */
  regDt: string;
  modDt: string | null;
  [field: string]: unknown;
}

export interface PrincipalsData {
  taxpayerPrincipalList: Principal[];
}

// ---- purchases ----

/** A line of a supplier's sale, as pulled: any field may be null or inconsistent. */
export interface PurchaseSaleLine {
  itemSeq: number;
  itemCd: string | null;
  itemClsCd: string | null;
  itemNm: string;
  bcd: string | null;
  pkgUnitCd: string | null;
  pkg: number | null;
  qtyUnitCd: string | null;
  qty: number;
  prc: number;
  splyAmt: number;
  dcRt: number | null;
  dcAmt: number | null;
  vatCatCd: string | null;
  iplCatCd: string | null;
  tlCatCd: string | null;
  exciseTxCatCd: string | null;
  vatTaxblAmt: number | null;
  vatAmt: number | null;
  totAmt: number;
  [field: string]: unknown;
}

/**
 * A sale another taxpayer filed with this one as the buyer (`selectTrnsPurchaseSales`). Pulled
 * data is not always consistent (dates as `2024-05-08 10:20:10`, totals that do not add up,
 * `spplrInvcNo` a number or text): store it as received, never refuse it.
 */
export interface PurchaseSale {
  spplrTpin: string;
  spplrNm: string;
  spplrBhfId: string;
  spplrInvcNo: number | string;
  spplrSdcId?: string | null;
  rcptTyCd: string;
  pmtTyCd: string | null;
  cfmDt: string;
  salesDt: string;
  stockRlsDt: string | null;
  totItemCnt: number;
  totTaxblAmt: number;
  totTaxAmt: number;
  totAmt: number;
  remark: string | null;
  itemList: PurchaseSaleLine[];
  [field: string]: unknown;
}

export interface PurchaseSalesData {
  saleList: PurchaseSale[];
}

export interface SavePurchaseLine {
  itemSeq: number;
  itemCd: string;
  itemClsCd: string;
  itemNm: string;
  bcd?: string | null;
  spplrItemClsCd?: string | null;
  spplrItemCd?: string | null;
  spplrItemNm?: string | null;
  pkgUnitCd: string;
  pkg: number;
  qtyUnitCd: string;
  qty: number;
  prc: number;
  splyAmt: number;
  dcRt: number;
  dcAmt: number;
  taxblAmt: number;
  vatCatCd: string;
  iplCatCd?: string | null;
  tlCatCd?: string | null;
  exciseTxCatCd?: string | null;
  vatAmt: number;
  iplAmt?: number;
  tlAmt?: number;
  exciseTxAmt?: number;
  taxAmt: number;
  totAmt: number;
  /** `YYYYMMDD` or null. */
  itemExprDt?: string | null;
}

/** Purchase status (code class 34) the buyer answers with. */
export const PURCHASE_STATUS = { approved: '02', rejected: '04' } as const;

/** The buyer's record of a purchase: its answer to a pulled sale (`regTyCd` `A`) or one entered by hand (`M`). */
export interface SavePurchaseRequest extends Partial<TaxTrio> {
  /** The buyer's own purchase number; continues `lastPchsInvcNo`. A resend with the same number replaces the record. */
  invcNo: number;
  orgInvcNo: number;
  spplrTpin: string | null;
  spplrBhfId: string | null;
  spplrNm: string;
  /** A number on the wire: text is a bare HTTP 400. */
  spplrInvcNo: number | null;
  spplrSdcId?: string | null;
  /** `A` answers a sale pulled with `selectTrnsPurchaseSales`; `M` a purchase entered by hand. */
  regTyCd: 'A' | 'M';
  /** Class 14: `N` normal. */
  pchsTyCd: string;
  /** Class 38: `P` purchase, `R` credit note after purchase. */
  rcptTyCd: 'P' | 'R';
  pmtTyCd: string;
  /** Class 34, see PURCHASE_STATUS. */
  pchsSttsCd: string;
  /** `YYYYMMDDHHmmss`. */
  cfmDt: string;
  /** `YYYYMMDD`. */
  pchsDt: string;
  wrhsDt?: string | null;
  cnclReqDt?: string | null;
  cnclDt?: string | null;
  rfdDt?: string | null;
  totItemCnt: number;
  totTaxblAmt: number;
  totTaxAmt: number;
  totAmt: number;
  remark?: string | null;
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
  itemList: SavePurchaseLine[];
}

// ---- stock ----

/** `sarTyCd` (code class 12): what moved the stock, in (`0x`) or out (`1x`). */
export const STOCK_MOVEMENT_TYPES = {
  importIn: '01',
  purchaseIn: '02',
  returnIn: '03',
  movementIn: '04',
  processingIn: '05',
  adjustmentIn: '06',
  saleOut: '11',
  returnOut: '12',
  movementOut: '13',
  processingOut: '14',
  discardOut: '15',
  adjustmentOut: '16',
} as const;
export type StockMovementType = (typeof STOCK_MOVEMENT_TYPES)[keyof typeof STOCK_MOVEMENT_TYPES];

export interface StockItemLine {
  itemSeq: number;
  itemCd: string;
  itemClsCd: string;
  itemNm: string;
  bcd?: string | null;
  pkgUnitCd: string;
  pkg: number;
  qtyUnitCd: string;
  /** Always positive: `sarTyCd` says the direction. */
  qty: number;
  itemExprDt?: string | null;
  prc: number;
  splyAmt: number;
  /** Must not be null (910). */
  totDcAmt: number;
  taxblAmt: number;
  vatCatCd: string;
  iplCatCd?: string | null;
  tlCatCd?: string | null;
  exciseTxCatCd?: string | null;
  vatAmt: number;
  iplAmt?: number;
  tlAmt?: number;
  exciseTxAmt?: number;
  taxAmt: number;
  totAmt: number;
}

/** One stock movement (a stock adjustment record, "SAR"). */
export interface SaveStockItemsRequest {
  /** The branch's own increasing stock-movement number. A resend with the same number replaces the record. */
  sarNo: number;
  /** The movement this one corrects, else 0. */
  orgSarNo: number;
  /** `A` automatic (follows a document), `M` manual. */
  regTyCd: 'A' | 'M';
  custTpin?: string | null;
  custNm?: string | null;
  custBhfId?: string | null;
  sarTyCd: StockMovementType;
  /** `YYYYMMDD`. */
  ocrnDt: string;
  totItemCnt: number;
  totTaxblAmt: number;
  totTaxAmt: number;
  totAmt: number;
  remark?: string | null;
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
  itemList: StockItemLine[];
}

export interface StockMasterEntry {
  itemCd: string;
  /** The absolute remaining quantity, not a change. */
  rsdQty: number;
}

/** Remaining quantities after a movement; each `itemCd` at most once per call (twice is a `999`). */
export interface SaveStockMasterRequest {
  regrId: string;
  regrNm: string;
  modrId: string;
  modrNm: string;
  stockItemList: StockMasterEntry[];
}

/** A recorded movement, as `selectStockItems` returns the ledger (remaining quantities cannot be read back). */
export interface StockMovement {
  sarNo: number;
  orgSarNo?: number;
  regTyCd?: string;
  sarTyCd?: string;
  custTpin: string | null;
  custNm?: string | null;
  custBhfId: string | null;
  ocrnDt: string;
  totItemCnt: number;
  totTaxblAmt: number;
  totTaxAmt: number;
  totAmt: number;
  remark: string | null;
  itemList: StockItemLine[];
  [field: string]: unknown;
}

export interface StockItemsData {
  stockList: StockMovement[];
}
