// Kenya's KRA eTIMS behind the seam, for its two units: the KRA-hosted OSCU (`kra-oscu`) and the
// taxpayer-hosted VSCU jar (`kra-vscu`). One adapter, its protocol a wire setting of the client
// (client.ts); the profile as data; each port over the client. Stateless: the domain owns numbers.
import type { AuthorityProfile } from '../port/profile.ts';
import type { ArithmeticPort, FiscalAuthority } from '../port/index.ts';
import { kraCataloguePort } from './catalogue.ts';
import type { KraClient } from './client.ts';
import { KRA_PAYMENT_METHODS, KRA_RECEIPT_TITLES, KRA_REFUND_REASONS } from './codes.ts';
import { kraFeedsPort } from './feeds.ts';
import { kraDevicePort, kraFilingPort } from './filing.ts';
import { kraBranchUsersPort, kraCustomersPort, kraItemsPort, kraRegisterPort } from './master-data.ts';
import { HOME_CURRENCY } from './sales-body.ts';
import { KRA_SETTINGS } from './settings.ts';
import { kraPurchasesPort, kraStockPort } from './stock-purchases.ts';
import { computeKraSale, KRA_TAX_CATEGORIES, kraLineGross } from './tax.ts';
import type { KraProtocol } from './wire.ts';

const NAMES: Record<KraProtocol, string> = {
  oscu: 'Kenya Revenue Authority (eTIMS OSCU)',
  vscu: 'Kenya Revenue Authority (eTIMS VSCU)',
};

function kraProfile(protocol: KraProtocol): AuthorityProfile {
  const settings = KRA_SETTINGS[protocol];
  return {
    id: `kra-${protocol}`,
    authority: 'kra',
    protocol,
    name: NAMES[protocol],
    taxpayerId: { pattern: /^[A-Z][0-9]{9}[A-Z]$/, words: 'a letter, 9 digits and a letter', example: 'P051234567X' },
    branch: { pattern: /^[0-9]{2}$/, words: '2 digits', example: '00', headquarters: '00' },
    timeZone: 'Africa/Nairobi',
    currency: HOME_CURRENCY,
    taxCategories: KRA_TAX_CATEGORIES,
    defaultTaxCategory: 'B',
    paymentMethods: KRA_PAYMENT_METHODS,
    defaultPaymentMethod: '01',
    creditNoteReasons: KRA_REFUND_REASONS,
    debitNoteReasons: null,
    salesTypes: settings.salesTypes,
    kindsShareSequence: settings.kindsShareSequence,
    levies: [],
    receiptTitles: KRA_RECEIPT_TITLES,
    receiptLabels: {
      taxpayerId: 'PIN',
      fiscalBlock: 'SCU INFORMATION',
      fiscalisedAt: 'Date',
      unitId: 'SCU ID',
      unitNumber: 'MRC No',
      internalData: 'Internal Data',
      signature: 'Receipt Signature',
      fiscalFooter: 'Fiscal receipt issued through KRA eTIMS.',
      invoiceNo: 'CU Invoice No',
      receiptNo: 'Receipt No',
      totalReceiptNo: 'Total Receipt No',
      itemCount: 'Item count',
      originalInvoiceNo: 'Original CU Invoice No',
    },
    // As KRA's receipts print them: the CU invoice number in the SCU block, codes in fours, B first.
    receiptLayout: {
      fiscalBlock: ['fiscalisedAt', 'unitId', 'invoiceNo', 'receiptNo', 'totalReceiptNo', 'itemCount'],
      groupFiscalCodes: true,
      taxTableOrder: ['B', 'E', 'C', 'D', 'A'],
      creditNoteAmountsNegative: true,
    },
    country: 'KE',
    amountTolerance: 0.01,
    foreignCurrencies: false,
    creditNoteRules: settings.creditNoteRules,
    authorityInvoiceNo: ({ sdcId, invoiceNo }) => `${sdcId}/${invoiceNo}`,
  };
}

export const KRA_OSCU_PROFILE = kraProfile('oscu');
export const KRA_VSCU_PROFILE = kraProfile('vscu');
const PROFILES: Record<KraProtocol, AuthorityProfile> = { oscu: KRA_OSCU_PROFILE, vscu: KRA_VSCU_PROFILE };

const arithmetic: ArithmeticPort = { computeSale: computeKraSale, lineGross: kraLineGross };

/** The adapter over a KRA client of either protocol (the context's, instrumented). */
export function kraEtimsAuthority(client: KraClient, now: () => Date = () => new Date()): FiscalAuthority {
  const profile = PROFILES[client.protocol];
  return {
    profile,
    arithmetic,
    device: kraDevicePort(client, now),
    filing: kraFilingPort(client, KRA_SETTINGS[client.protocol], now),
    stock: kraStockPort(client, profile),
    catalogue: kraCataloguePort(client),
    items: kraItemsPort(client),
    customers: kraCustomersPort(client),
    branchUsers: kraBranchUsersPort(client),
    register: kraRegisterPort(client, profile),
    feeds: kraFeedsPort(client),
    purchases: kraPurchasesPort(client, profile),
  };
}
