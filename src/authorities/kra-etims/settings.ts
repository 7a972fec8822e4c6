// The adapter's settings: what the sources dispute, each one value here (docs/decisions.md,
// "KRA eTIMS adapter"), so a finding changes a line, not the code.
import type { SalesType } from '../port/filing.ts';
import { DUPLICATE_CODES } from './result-codes.ts';
import type { KraProtocol } from './wire.ts';

export interface KraSettings {
  /** Document kinds filed: no OSCU client sends training or proforma; the VSCU family knows them. */
  salesTypes: readonly SalesType[];
  /** The unit keys filed documents by `invcNo` alone: training and proforma documents take their numbers from the sales sequence. */
  kindsShareSequence: boolean;
  /** What integrators report KRA enforcing on credit notes. */
  creditNoteRules: { maxAgeDays: number | null; sameCustomerAsOriginal: boolean; maxPerOriginal: number | null };
  /** Codes a sale's reused number is answered with (994 "overlapped data", 921 "already declared"). */
  duplicateCodes: ReadonlySet<string>;
  /** VSCU only: a sale is `saveSales` then `saveInvoice` (the disputed two-call variant) instead of `saveSales` alone. */
  twoCallSale: boolean;
}

const CREDIT_NOTE_RULES = { maxAgeDays: 183, sameCustomerAsOriginal: true, maxPerOriginal: null };

export const KRA_SETTINGS: Readonly<Record<KraProtocol, KraSettings>> = {
  oscu: {
    salesTypes: ['normal'],
    kindsShareSequence: false,
    creditNoteRules: CREDIT_NOTE_RULES,
    duplicateCodes: DUPLICATE_CODES,
    twoCallSale: false,
  },
  vscu: {
    salesTypes: ['normal', 'training', 'proforma'],
    kindsShareSequence: true,
    creditNoteRules: CREDIT_NOTE_RULES,
    duplicateCodes: DUPLICATE_CODES,
    twoCallSale: false,
  },
};
