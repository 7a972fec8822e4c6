// The merchant's answers to what the authority reported (a customs line, a supplier's sale) and a
// purchase the merchant captured by hand, in the domain's words: the domain decides and keeps
// the state of each answer; the adapter builds and sends the call.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Sent } from './outcomes.ts';

/** The merchant's answer to a customs line (its key as the feed gave it). */
export interface CustomsLineAnswer {
  task: string;
  declarationDate: string;
  itemSeq: number;
  hsCode: string | null;
  decision: 'approved' | 'rejected';
  /** The merchant's item the goods become (approved only). */
  itemCode: string | null;
  classificationCode: string | null;
  remark: string | null;
}

/** How an item is described on a purchase line: the merchant's own item, or as the supplier sent it. */
export interface PurchaseLineItem {
  itemCode: string | null;
  classificationCode: string | null;
  name: string | null;
  barcode: string | null;
  packagingUnitCode: string | null;
  quantityUnitCode: string | null;
}

/** A line of a purchase to send; amounts are exact decimal text as stored, null where the supplier sent none. */
export interface PurchaseLineToSend {
  seq: number;
  /** The merchant's registered item the line maps to, if any. */
  own: PurchaseLineItem | null;
  supplier: PurchaseLineItem;
  packages: string | null;
  quantity: string | null;
  unitPrice: string | null;
  supplyAmount: string | null;
  discountRate: string | null;
  discountAmount: string | null;
  taxableAmount: string | null;
  vatAmount: string | null;
  totalAmount: string | null;
  vatCategory: string | null;
}

/**
 * A purchase as the merchant answered it: a supplier's sale the authority reported (`pulled`),
 * accepted or rejected, or one captured by hand (`manual`, accepted), under the branch's own
 * purchase number.
 */
export interface PurchaseToSend {
  number: number;
  source: 'pulled' | 'manual';
  decision: 'accepted' | 'rejected';
  decidedAt: Date;
  supplier: { tpin: string | null; branch: string | null; name: string | null; invoiceNo: string | null; sdcId: string | null };
  receiptTypeCode: string | null;
  paymentTypeCode: string | null;
  /** The supplier's date of sale in the authority's text, as received or captured. */
  salesDate: string | null;
  totals: { taxable: string | null; tax: string | null; amount: string | null };
  remark: string | null;
  lines: PurchaseLineToSend[];
}

export interface PurchasesPort {
  /** Files the merchant's answer to a customs line. */
  answerCustomsLine(device: AuthorityDevice, answer: CustomsLineAnswer, options?: CallOptions): Promise<Sent>;
  /** Files the merchant's answer to a supplier's sale, or a purchase captured by hand. */
  sendPurchase(device: AuthorityDevice, purchase: PurchaseToSend, options?: CallOptions): Promise<Sent>;
  /** The authority's stock movement type of goods bought (an accepted purchase raises stock by it). */
  readonly stockInType: string;
  /** A captured purchase's moment in the authority's text, as a reported sale carries its confirmation and its date. */
  purchaseDatesOf(at: Date): { confirmedAt: string; salesDate: string };
}
