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
export const HEADER_TAX_BUCKETS = [
  'A', 'B', 'C1', 'C2', 'C3', 'D', 'Rvat', 'E', 'F', 'Ipl1', 'Ipl2', 'Tl', 'Ecm', 'Exeeg', 'Tot',
] as const;
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
