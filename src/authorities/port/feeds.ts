// The feeds the gateway pulls from an authority, in the domain's words: each member reads one page
// of what changed for a device since a cursor (opaque to the domain: the adapter's; null before
// the first answer) and returns the records it could read, with the cursor the next read starts
// from. Records the adapter cannot key are left out; values it cannot read are null. Each record
// carries `raw`, the authority's record as received, which the gateway keeps beside it.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Pulled } from './outcomes.ts';

/** A line of a customs declaration, keyed by its declaration (`task`, `declarationDate`) and `itemSeq`. */
export interface CustomsLine {
  task: string;
  declarationDate: string;
  itemSeq: number;
  declarationNo: string | null;
  hsCode: string | null;
  itemName: string | null;
  originCountryCode: string | null;
  exportCountryCode: string | null;
  packages: number | null;
  packagingUnitCode: string | null;
  quantity: number | null;
  quantityUnitCode: string | null;
  totalWeight: number | null;
  netWeight: number | null;
  supplierName: string | null;
  agentName: string | null;
  invoiceForeignAmount: number | null;
  invoiceCurrency: string | null;
  exchangeRate: number | null;
  raw: unknown;
}

/** A line of a supplier's sale to the merchant, numbered 1, 2, … as listed. */
export interface SupplierSaleLine {
  lineNo: number;
  itemSeq: number | null;
  itemCode: string | null;
  classificationCode: string | null;
  itemName: string | null;
  barcode: string | null;
  packagingUnitCode: string | null;
  packages: number | null;
  quantityUnitCode: string | null;
  quantity: number | null;
  unitPrice: number | null;
  supplyAmount: number | null;
  discountRate: number | null;
  discountAmount: number | null;
  vatCategory: string | null;
  taxableAmount: number | null;
  vatAmount: number | null;
  totalAmount: number | null;
  raw: unknown;
}

/**
 * A supplier's sale to the merchant as the authority reports it: stored as received, whatever
 * does not add up said in `inconsistencies` (the authority's words), never refused.
 */
export interface SupplierSale {
  supplierTpin: string | null;
  supplierName: string | null;
  supplierBranch: string | null;
  supplierInvoiceNo: string | null;
  supplierSdcId: string | null;
  receiptTypeCode: string | null;
  paymentTypeCode: string | null;
  /** The authority's own text of its dates. */
  confirmedAt: string | null;
  salesDate: string | null;
  stockReleasedAt: string | null;
  totalItemCount: number | null;
  totalTaxableAmount: number | null;
  totalTaxAmount: number | null;
  totalAmount: number | null;
  remark: string | null;
  /** What makes the same sale pulled again the same record (through this branch or another). */
  dedupeKey: string;
  inconsistencies: string[];
  lines: SupplierSaleLine[];
  raw: unknown;
}

/** A movement of the authority's stock ledger of a branch, keyed by its number. */
export interface LedgerMove {
  number: number;
  /** The authority's movement type; null when it sent none. */
  type: string | null;
  /** Its readable lines, each quantity signed by the movement's direction, as exact decimal text (4 places). */
  lines: Array<{ seq: number; itemCode: string; quantity: string }>;
  raw: unknown;
}

/** A principal an agent sells for, keyed by the authority's id. */
export interface AuthorityPrincipal {
  id: string;
  tpin: string | null;
  name: string | null;
  address: string | null;
  email: string | null;
  tel: string | null;
  accountNo: string | null;
  raw: unknown;
}

/** A notice the authority published to the taxpayer, keyed by its number. */
export interface AuthorityNotice {
  number: number;
  title: string | null;
  content: string | null;
  detailUrl: string | null;
  registeredBy: string | null;
  registeredAt: Date | null;
  raw: unknown;
}

/** A read of one feed for a device since a cursor. */
export type FeedRead<T> = (device: AuthorityDevice, cursor: string | null, options?: CallOptions) => Promise<Pulled<T>>;

export interface FeedsPort {
  customsLines: FeedRead<CustomsLine>;
  supplierSales: FeedRead<SupplierSale>;
  stockLedger: FeedRead<LedgerMove>;
  principals: FeedRead<AuthorityPrincipal>;
  /** The taxpayer's (any of its devices answers for it). */
  notices: FeedRead<AuthorityNotice>;
}
