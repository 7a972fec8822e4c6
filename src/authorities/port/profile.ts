// What an authority is, as data: its identifiers and their forms, its zone and currency, its tax
// categories, payment types and note reasons, the documents it takes, the tolerance of its
// arithmetic. The domain validates and shows by these; it hard-codes none of them.
import type { AuthorityProfileId } from './device.ts';
import type { DocumentType, SalesType } from './filing.ts';

/** A tax category as the authority publishes it. */
export interface TaxCategory {
  code: string;
  name: string;
  /** Percent (16 means 16 %). */
  rate: number;
  /**
   * What a line in it needs beyond the others: `rrp`, a minimum taxable value (VAT on the
   * recommended retail price when the line sells below it); `export`, a destination country, with
   * no other category on the document; `lpo`, the buyer's Local Purchase Order number.
   */
  requires?: 'rrp' | 'export' | 'lpo';
}

/** A code of one of the authority's tables, with what it means. */
export interface CodeLabel {
  code: string;
  label: string;
}

/** The form of an identifier, with the words and example a refusal says. */
interface IdentifierForm {
  pattern: RegExp;
  /** `10 digits` */
  words: string;
  example: string;
}

/** The words of a receipt for what the authority gave it, as the authority's receipts say them. */
export interface ReceiptLabels {
  /** The supplier's and the customer's taxpayer id: `TPIN`. */
  taxpayerId: string;
  /** The heading of the fiscal block: `SDC INFORMATION`. */
  fiscalBlock: string;
  /** When the authority fiscalised it: `VSDC date`. */
  fiscalisedAt: string;
  /** The signing unit's id and number: `SDC ID`, `MRC No`. */
  unitId: string;
  unitNumber: string;
  internalData: string;
  signature: string;
  /** The last line of a fiscal receipt. */
  fiscalFooter: string;
  /** The authority's number of the document (`authorityInvoiceNo`): `Invoice No`; KRA's `CU Invoice No`. */
  invoiceNo: string;
  /** The unit's receipt number of the document: `Receipt No`. */
  receiptNo: string;
  /** The unit's count of all its receipts (`fiscal.totalReceiptNo`), where the authority gives one. */
  totalReceiptNo: string;
  /** How many lines the document has. */
  itemCount: string;
  /** On a note: the number of the invoice it corrects, as its receipt printed it. */
  originalInvoiceNo: string;
}

/** A line of a receipt's fiscal block (under `receiptLabels.fiscalBlock`), each with its label in `receiptLabels`. */
export type FiscalBlockField = 'fiscalisedAt' | 'unitId' | 'unitNumber' | 'invoiceNo' | 'receiptNo' | 'totalReceiptNo' | 'itemCount';

/** How a receipt lays out what the authority gave it: where a receipt of one authority differs from another's. */
export interface ReceiptLayout {
  /**
   * The fiscal block's lines, in order (a value the document lacks is left out); internal data,
   * signature and the QR code follow. `invoiceNo` here moves the authority's number out of the
   * receipt's head into this block.
   */
  fiscalBlock: readonly FiscalBlockField[];
  /** Internal data and signature printed in groups of four characters joined by hyphens (`WOAW-BLHI-…`). */
  groupFiscalCodes: boolean;
  /** The order of the per-category tax table (the categories a document uses, in this order). */
  taxTableOrder: readonly string[];
  /** A credit note prints its amounts negative (KRA's receipts), not as filed (positive). */
  creditNoteAmountsNegative: boolean;
}

export interface AuthorityProfile {
  id: AuthorityProfileId;
  /** The tenant's authority (`tenants.authority`: `zra`). */
  authority: string;
  /** The device's protocol (`devices.protocol`: `vsdc`). */
  protocol: string;
  /** For people: `Zambia Revenue Authority (Smart Invoice VSDC)`. */
  name: string;
  taxpayerId: IdentifierForm;
  branch: IdentifierForm & { headquarters: string };
  /** IANA zone of the authority's dates and of a new merchant's days. */
  timeZone: string;
  /** ISO 4217: the currency its figures are in. */
  currency: string;
  taxCategories: readonly TaxCategory[];
  /** A line without `vatCategory` is in this one. */
  defaultTaxCategory: string;
  paymentMethods: readonly CodeLabel[];
  /** A document without `paymentMethod` is paid so. */
  defaultPaymentMethod: string;
  creditNoteReasons: readonly CodeLabel[];
  /** Null: the authority has no debit notes. */
  debitNoteReasons: readonly CodeLabel[] | null;
  /** The document kinds it files (normal always). */
  salesTypes: readonly SalesType[];
  /**
   * Training and proforma documents take their numbers from the normal sequence (the unit keys what
   * it holds by the number alone), instead of a sequence of their own kind.
   */
  kindsShareSequence: boolean;
  /** Levies it publishes beside its tax categories (the gateway computes none: a line naming one is refused). */
  levies: readonly TaxCategory[];
  /** What a receipt prints at its head: a normal document's title by its type; a training or proforma one's banner. */
  receiptTitles: Readonly<Record<DocumentType | Exclude<SalesType, 'normal'>, string>>;
  /** The words a receipt prints for the authority's identifiers and its fiscal block. */
  receiptLabels: ReceiptLabels;
  receiptLayout: ReceiptLayout;
  /** ISO 3166 alpha-2: the authority's country (a new item's default origin, the first part of a generated item code). */
  country: string;
  /** Two amounts the authority holds equal when they differ by at most this. */
  amountTolerance: number;
  /** Whether a document may be in another currency than `currency` (with its exchange rate). */
  foreignCurrencies: boolean;
  /** The rules a credit note meets before it is filed, beyond never crediting more than remains. */
  creditNoteRules: CreditNoteRules;
  /** The number a fiscal receipt prints for the document (ZRA: `INV{unit}/{receiptNo}`; KRA: `{sdcId}/{invoiceNo}`). */
  authorityInvoiceNo(filed: { sdcId: string; invoiceNo: number; receiptNo: number }): string;
}

/** A credit note's rules, each one the authority's (or what integrators report it enforcing). */
interface CreditNoteRules {
  /** Days after the original within which a note is taken; null: no limit. */
  maxAgeDays: number | null;
  /** The note names the original's customer (taxpayer id and name). */
  sameCustomerAsOriginal: boolean;
  /** How many credit notes one original takes; null: as many as its amount allows. */
  maxPerOriginal: number | null;
}
