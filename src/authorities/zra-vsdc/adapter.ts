// Zambia's Smart Invoice VSDC behind the seam: the profile as data, and each port over the ZRA
// client (client.ts) and the transformers beside it. Stateless: the domain owns numbers and queues.
import { formatVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import type { DevicePort, Initialisation } from '../port/device.ts';
import type { FilingPort, FileOutcome, FindOutcome } from '../port/filing.ts';
import type { ArithmeticPort, FiscalAuthority } from '../port/index.ts';
import type { AuthorityProfile, TaxCategory } from '../port/profile.ts';
import type { VsdcClient } from './client.ts';
import { targetOf } from './calls.ts';
import {
  BANNERS,
  CREDIT_NOTE_REASON_LABELS,
  DEBIT_NOTE_REASON_LABELS,
  HOME_CURRENCY,
  PAYMENT_TYPE_LABELS,
  SALES_TYPES,
  TITLES,
  cisInvoiceNo,
} from './codes.ts';
import { buildSaveSalesBody, receiptProblem, toFiscalReceipt } from './sales-body.ts';
import { stockPort } from './stock.ts';
import { cataloguePort } from './catalogue.ts';
import { itemsPort } from './items.ts';
import { customersPort } from './customers.ts';
import { branchUsersPort } from './branch-users.ts';
import { registerPort } from './register.ts';
import { feedsPort } from './feeds.ts';
import { purchasesPort } from './purchases.ts';
import { computeSale, LEVIES, lineSupplyAmount, VAT_CATEGORIES } from './tax.ts';

const labelled = (labels: Readonly<Record<string, string>>) => Object.entries(labels).map(([code, label]) => ({ code, label }));
/** What a line of B (MTV), C1 (export) and C2 (zero-rated LPO) needs beyond the others. */
const REQUIRES: Readonly<Record<string, TaxCategory['requires']>> = { B: 'rrp', C1: 'export', C2: 'lpo' };

export const ZRA_VSDC_PROFILE: AuthorityProfile = {
  id: 'zra-vsdc',
  authority: 'zra',
  protocol: 'vsdc',
  name: 'Zambia Revenue Authority (Smart Invoice VSDC)',
  taxpayerId: { pattern: /^[0-9]{10}$/, words: '10 digits', example: '1002623668' },
  branch: { pattern: /^[0-9]{3}$/, words: '3 digits', example: '000', headquarters: '000' },
  timeZone: 'Africa/Lusaka',
  currency: HOME_CURRENCY,
  taxCategories: VAT_CATEGORIES.map((c) => (REQUIRES[c.code] ? { ...c, requires: REQUIRES[c.code] } : c)),
  defaultTaxCategory: 'A',
  paymentMethods: labelled(PAYMENT_TYPE_LABELS),
  defaultPaymentMethod: '01',
  creditNoteReasons: labelled(CREDIT_NOTE_REASON_LABELS),
  debitNoteReasons: labelled(DEBIT_NOTE_REASON_LABELS),
  salesTypes: SALES_TYPES,
  // Each kind its own sequence: the VSDC files a training or proforma number with its kind's letter (`T-12`).
  kindsShareSequence: false,
  levies: LEVIES,
  receiptTitles: { ...TITLES, ...BANNERS },
  receiptLabels: {
    taxpayerId: 'TPIN',
    fiscalBlock: 'SDC INFORMATION',
    fiscalisedAt: 'VSDC date',
    unitId: 'SDC ID',
    unitNumber: 'MRC No',
    internalData: 'Internal data',
    signature: 'Receipt signature',
    fiscalFooter: "Fiscal receipt issued through the authority's VSDC.",
    invoiceNo: 'Invoice No',
    receiptNo: 'Receipt No',
    totalReceiptNo: 'Total receipt No',
    itemCount: 'Item count',
    originalInvoiceNo: 'Original invoice',
  },
  receiptLayout: {
    fiscalBlock: ['fiscalisedAt', 'unitId', 'unitNumber', 'receiptNo'],
    groupFiscalCodes: false,
    taxTableOrder: VAT_CATEGORIES.map((c) => c.code),
    creditNoteAmountsNegative: false,
  },
  country: 'ZM',
  amountTolerance: 0.01,
  foreignCurrencies: true,
  // The VSDC checks notes itself (930–935); the gateway's own rule (never more than remains) holds for all.
  creditNoteRules: { maxAgeDays: null, sameCustomerAsOriginal: false, maxPerOriginal: null },
  authorityInvoiceNo: ({ sdcId, receiptNo }) => `INV${sdcId.replace(/^SDC/, '')}/${receiptNo}`,
};

/** A counter of a real `selectInitInfo` answer: a whole number ≥ 0 (a number or its text), else null. */
function counter(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function devicePort(client: VsdcClient): DevicePort {
  return {
    // Reads only what it needs from a real answer (`sdcId`, the space-padded `mrcNo`, the names and
    // counters, any of which may be null) and tolerates the rest (`tin`, `bsnsActv`, …).
    async initialise(device, serial, options): Promise<Initialisation> {
      const outcome = await client.selectInitInfo(targetOf(device), { dvcSrlNo: serial }, options);
      switch (outcome.kind) {
        case 'ok': {
          const info = outcome.data.info;
          return {
            kind: 'ok',
            device: {
              sdcId: String(info.sdcId),
              mrcNo: String(info.mrcNo ?? '').trim(),
              taxpayerName: text(info.taxprNm),
              branchName: text(info.bhfNm),
              lastSaleInvoiceNo: counter(info.lastSaleInvcNo) ?? 0,
              lastPurchaseInvoiceNo: counter(info.lastPchsInvcNo),
              lastSaleReceiptNo: counter(info.lastSaleRcptNo),
              lastTrainingInvoiceNo: counter(info.lastTrainInvcNo),
              lastProformaInvoiceNo: counter(info.lastProfrmInvcNo),
            },
          };
        }
        case 'already_installed':
          return { kind: 'already_installed', message: outcome.resultMsg };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
      }
    },
    // A ZRA device has no key of its own to check: a code-table read proves the unit answers it.
    async verify(device, options = {}) {
      const outcome = await client.selectCodes(targetOf(device), { lastReqDt: formatVsdcDateTime(new Date()) }, options);
      if (outcome.kind === 'unreachable') return outcome;
      return outcome.kind === 'rejected' ? { kind: 'rejected', code: outcome.code, message: outcome.message } : { kind: 'ok' };
    },
  };
}

function filingPort(client: VsdcClient, now: () => Date): FilingPort {
  return {
    async file(device, doc, options = {}): Promise<FileOutcome> {
      const body = buildSaveSalesBody(device, doc);
      const outcome = await client.saveSales(targetOf(device), body, options.signal ? { signal: options.signal } : {});
      switch (outcome.kind) {
        case 'ok':
          return { kind: 'ok', receipt: toFiscalReceipt(outcome.data, outcome.resultDt, now()) };
        case 'duplicate':
          return { kind: 'duplicate', code: outcome.resultCd, message: outcome.resultMsg };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
      }
    },
    async findFiled(device, doc, options = {}): Promise<FindOutcome> {
      if (!device.sdcId) return { kind: 'unreadable', problem: 'the branch has no SDC id to look it up with' };
      const outcome = await client.selectInvoice(
        targetOf(device),
        { cisInvcNo: cisInvoiceNo(doc.salesType, doc.invoiceNo), invcSdcId: device.sdcId },
        options.signal ? { signal: options.signal } : {},
      );
      switch (outcome.kind) {
        case 'ok': {
          const problem = receiptProblem(outcome.data);
          if (problem !== null) return { kind: 'unreadable', problem };
          return { kind: 'ok', receipt: toFiscalReceipt(outcome.data, outcome.resultDt, now()), total: Number(outcome.data.totAmt) };
        }
        case 'empty':
          return { kind: 'empty' };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
      }
    },
    // The code tables changed since now: a small answer, and nothing filed.
    async probe(device, at, options = {}) {
      const outcome = await client.selectCodes(
        targetOf(device),
        { lastReqDt: formatVsdcDateTime(at) },
        options.signal ? { signal: options.signal } : {},
      );
      return outcome.kind === 'unreachable' ? outcome : { kind: 'answered' };
    },
  };
}

const arithmetic: ArithmeticPort = { computeSale, lineGross: lineSupplyAmount };

/** The adapter over a ZRA client (the context's, instrumented). */
export function zraVsdcAuthority(client: VsdcClient, now: () => Date = () => new Date()): FiscalAuthority {
  return {
    profile: ZRA_VSDC_PROFILE,
    arithmetic,
    device: devicePort(client),
    filing: filingPort(client, now),
    stock: stockPort(client, ZRA_VSDC_PROFILE),
    catalogue: cataloguePort(client),
    items: itemsPort(client),
    customers: customersPort(client),
    branchUsers: branchUsersPort(client),
    register: registerPort(client, ZRA_VSDC_PROFILE),

    feeds: feedsPort(client),
    purchases: purchasesPort(client),
  };
}
