// What the ZRA profile remembers per device (tpin + bhfId). Everything here is plain JSON so the
// state file can hold it; Maps are rebuilt on load.
import {
  VSDC_EPOCH,
  type ImportItem,
  type Notice,
  type Principal,
  type PurchaseSale,
  type SaveBranchCustomerRequest,
  type SaveBranchUserRequest,
  type SaveItemCompositionRequest,
  type SaveItemRequest,
  type SavePurchaseRequest,
  type SaveStockItemsRequest,
  type VsdcEndpoint,
} from '@fiscal-gateway/vsdc-protocol';
import { noFaults as noFaultsOn, type DeviceFaults as CoreDeviceFaults } from '../../core/faults.js';
import type { StoredDevice } from '../../core/store.js';

export interface IssuedReceipt {
  rcptNo: number;
  intrlData: string;
  rcptSign: string;
  vsdcRcptPbctDate: string;
  sdcId: string;
  mrcNo: string;
  qrCodeUrl: string;
}

export interface DocumentTotals {
  taxable: number;
  tax: number;
  total: number;
}

/** One line of a filed document, as credit notes are checked against it (amounts ×10 000). */
export interface FiledLine {
  key: string;
  qty4: number;
  amount4: number;
}

export interface FiledDocument {
  cisInvcNo: string;
  rcptTyCd: string;
  orgInvcNo: number;
  salesDt: string;
  cfmDt: string;
  totals: DocumentTotals;
  receipt: IssuedReceipt;
  lines: FiledLine[];
  /** For sales: what credit notes have taken back so far (×10 000). */
  credited?: { total4: number; byKey: Record<string, { qty4: number; amount4: number }> };
}

/** Every saveSales the device answered, in arrival order (the control API's `documents`). */
export interface ReceivedDocument {
  seq: number;
  receivedAt: string;
  cisInvcNo: string | null;
  rcptTyCd: string | null;
  orgInvcNo: number | null;
  totals: DocumentTotals | null;
  resultCd: string;
  resultMsg: string;
  /** Set when the document was filed. */
  receipt: IssuedReceipt | null;
  /** The document was filed but the socket was destroyed before the reply. */
  replyLost: boolean;
}

export interface ImportRecord extends ImportItem {
  imptItemSttsCd: string;
  /** `YYYYMMDDHHmmss` when the line was fed; `selectImportItems` returns lines from `lastReqDt` on. */
  publishedAt: string;
  decision: { itemCd: string | null; itemClsCd: string | null; remark: string | null } | null;
}

/** `changedAt` (`YYYYMMDDHHmmss`): select calls return the entries changed at or after `lastReqDt`. */
interface Changed {
  changedAt: string;
}

export type StoredItem = SaveItemRequest & Changed;
export type BranchUserRecord = SaveBranchUserRequest & Changed;
export type CompositionRecord = SaveItemCompositionRequest & Changed;
export type NoticeRecord = Notice & Changed;
export type PrincipalRecord = Principal & Changed;

/** A sale addressed to this taxpayer (`selectTrnsPurchaseSales`), kept exactly as seeded or filed. */
export interface PurchaseRecord extends Changed {
  sale: PurchaseSale;
  /** The buyer's latest `savePurchase` answer to it (`regTyCd` `A`). */
  answer: { invcNo: number; pchsSttsCd: string } | null;
}

/** What `savePurchase` recorded, keyed by `invcNo`. */
export type SavedPurchase = SavePurchaseRequest & { receivedAt: string };

export type StockMovementRecord = SaveStockItemsRequest & Changed;

/** The absolute remaining quantity last sent with `saveStockMaster`. */
export interface StockLevel extends Changed {
  rsdQty: number;
}

/** Where `reject` and `loseReplies` apply unless told otherwise. */
export const DEFAULT_FAULT_ENDPOINTS: readonly VsdcEndpoint[] = ['saveSales'];

export type DeviceFaults = CoreDeviceFaults<VsdcEndpoint>;

function noFaults(): DeviceFaults {
  return noFaultsOn(DEFAULT_FAULT_ENDPOINTS);
}

export interface DeviceRecord {
  tpin: string;
  bhfId: string;
  installed: boolean;
  dvcSrlNo: string | null;
  sdcId: string | null;
  /** As the VSDC sends it: padded with trailing spaces. */
  mrcNo: string | null;
  taxprNm: string;
  bhfNm: string;
  lastSaleInvcNo: number;
  lastSaleRcptNo: number;
  lastPchsInvcNo: number;
  /** The training (salesTyCd T) and proforma (P) counters: the number in the last such cisInvcNo; null before one. */
  lastTrainInvcNo?: number | null;
  lastProfrmInvcNo?: number | null;
  filed: FiledDocument[];
  received: ReceivedDocument[];
  /** When the device was installed; `selectBranches` reports its branch from then on. */
  installedAt: string | null;
  branchCustomers: SaveBranchCustomerRequest[];
  branchUsers: BranchUserRecord[];
  items: StoredItem[];
  compositions: CompositionRecord[];
  imports: ImportRecord[];
  notices: NoticeRecord[];
  principals: PrincipalRecord[];
  purchases: PurchaseRecord[];
  savedPurchases: SavedPurchase[];
  stockMovements: StockMovementRecord[];
  /** By `itemCd`. */
  stockLevels: Record<string, StockLevel>;
}

/** A device in memory: the generic stored device with ZRA's record and its indexes of filed documents. */
export interface Device extends StoredDevice<DeviceRecord, VsdcEndpoint> {
  filedByInvoice: Map<string, FiledDocument>;
  filedByReceipt: Map<number, FiledDocument>;
}

export function newDeviceRecord(tpin: string, bhfId: string, taxprNm: string): DeviceRecord {
  return {
    tpin,
    bhfId,
    installed: false,
    dvcSrlNo: null,
    sdcId: null,
    mrcNo: null,
    taxprNm,
    bhfNm: bhfId === '000' ? 'Headquarter' : `Branch ${bhfId}`,
    lastSaleInvcNo: 0,
    lastSaleRcptNo: 0,
    lastPchsInvcNo: 0,
    filed: [],
    received: [],
    installedAt: null,
    branchCustomers: [],
    branchUsers: [],
    items: [],
    compositions: [],
    imports: [],
    notices: [],
    principals: [],
    purchases: [],
    savedPurchases: [],
    stockMovements: [],
    stockLevels: {},
  };
}

/** A record from an older state file gets the fields it lacks. */
function upgradeRecord(record: DeviceRecord): void {
  const fresh = newDeviceRecord(record.tpin, record.bhfId, record.taxprNm) as unknown as Record<string, unknown>;
  const stored = record as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fresh)) if (stored[key] === undefined) stored[key] = value;
  for (const item of record.items) item.changedAt ??= VSDC_EPOCH;
}

export function deviceFromRecord(record: DeviceRecord): Device {
  upgradeRecord(record);
  const device: Device = { record, filedByInvoice: new Map(), filedByReceipt: new Map(), faults: noFaults(), calls: [] };
  for (const doc of record.filed) {
    device.filedByInvoice.set(doc.cisInvcNo, doc);
    device.filedByReceipt.set(doc.receipt.rcptNo, doc);
  }
  return device;
}
