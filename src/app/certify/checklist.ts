// The authority's developer self-checklist (specification v1.0.8, as integrators transcribe it;
// vsdc-protocol.md): section 2, the 17 endpoints an integration must call correctly, and
// section 3, the functional items, most of them mandatory. `certify` walks both.
import { VSDC_PATHS, type VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';

export interface ChecklistEndpoint {
  endpoint: VsdcEndpoint;
  path: string;
  title: string;
  /** A select: an empty answer (`001`) counts as answered. */
  select: boolean;
}

const endpoint = (name: VsdcEndpoint, title: string): ChecklistEndpoint => ({
  endpoint: name,
  path: VSDC_PATHS[name],
  title,
  select: name.startsWith('select'),
});

/** Section 2, in the checklist's order. */
export const CHECKLIST_ENDPOINTS: readonly ChecklistEndpoint[] = [
  endpoint('selectInitInfo', 'Initialisation'),
  endpoint('selectCodes', 'Code data'),
  endpoint('selectCustomer', 'Branch customers: get'),
  endpoint('saveBrancheCustomers', 'Branch customers: save'),
  endpoint('selectItemsClass', 'Item classification codes'),
  endpoint('saveBrancheUser', 'Branch users: save'),
  endpoint('selectBranches', 'Branch details'),
  endpoint('saveItem', 'Items: save'),
  endpoint('selectItems', 'Items: retrieve'),
  endpoint('selectImportItems', 'Import items: retrieve'),
  endpoint('updateImportItems', 'Import items: update'),
  endpoint('saveSales', 'Sales: save'),
  endpoint('selectTrnsPurchaseSales', 'Purchases: retrieve'),
  endpoint('selectStockItems', 'Stock: retrieve'),
  endpoint('saveStockItems', 'Stock: save movements'),
  endpoint('saveStockMaster', 'Stock: save master'),
  endpoint('savePurchase', 'Purchases: save'),
];

export interface ChecklistItem {
  no: number;
  title: string;
  mandatory: boolean;
  /** The calls that are its evidence. */
  endpoints: readonly VsdcEndpoint[];
}

/** Section 3, numbered in the checklist's order. */
export const CHECKLIST_ITEMS: readonly ChecklistItem[] = [
  { no: 1, title: 'Initialise the device', mandatory: true, endpoints: ['selectInitInfo'] },
  { no: 2, title: 'Code data', mandatory: true, endpoints: ['selectCodes'] },
  { no: 3, title: 'Item classification codes', mandatory: true, endpoints: ['selectItemsClass'] },
  { no: 4, title: 'Branch customer: save and retrieve', mandatory: false, endpoints: ['selectCustomer', 'saveBrancheCustomers'] },
  { no: 5, title: 'Branch user: save', mandatory: false, endpoints: ['saveBrancheUser'] },
  { no: 6, title: 'Branch details', mandatory: true, endpoints: ['selectBranches'] },
  { no: 7, title: 'Item: save', mandatory: true, endpoints: ['saveItem'] },
  { no: 8, title: 'Item composition', mandatory: true, endpoints: ['saveItemComposition'] },
  { no: 9, title: 'Item: retrieve', mandatory: true, endpoints: ['selectItems'] },
  { no: 10, title: 'Import items: retrieve and update', mandatory: true, endpoints: ['selectImportItems', 'updateImportItems'] },
  { no: 11, title: 'Retrieved purchases: save the answer', mandatory: true, endpoints: ['savePurchase'] },
  { no: 12, title: 'Purchases: retrieve', mandatory: true, endpoints: ['selectTrnsPurchaseSales'] },
  { no: 13, title: 'Purchase from an unregistered supplier, captured by hand (regTyCd M)', mandatory: true, endpoints: ['savePurchase'] },
  { no: 14, title: 'Sales recorded and uploaded', mandatory: true, endpoints: ['saveSales'] },
  { no: 15, title: 'Unique consecutive invoice numbers per branch', mandatory: true, endpoints: ['saveSales'] },
  { no: 16, title: 'Invoice numbers and details cannot be changed or deleted', mandatory: true, endpoints: [] },
  { no: 17, title: 'Tax invoice minimum features', mandatory: true, endpoints: ['saveSales'] },
  { no: 18, title: 'Credit notes', mandatory: true, endpoints: ['saveSales'] },
  { no: 19, title: 'Debit notes', mandatory: true, endpoints: ['saveSales'] },
  { no: 20, title: 'Reprints marked COPY', mandatory: true, endpoints: [] },
  { no: 21, title: 'Backup strategy', mandatory: false, endpoints: [] },
  { no: 22, title: 'User authentication with user-level passwords', mandatory: true, endpoints: [] },
  { no: 23, title: 'Stock: save after a sale', mandatory: true, endpoints: ['saveStockItems', 'saveStockMaster'] },
  { no: 24, title: 'Stock: retrieve', mandatory: true, endpoints: ['selectStockItems'] },
  { no: 25, title: 'Stock: update on adjustment', mandatory: true, endpoints: ['saveStockItems', 'saveStockMaster'] },
  { no: 26, title: 'Reports exportable as Excel, CSV and PDF', mandatory: true, endpoints: [] },
  {
    no: 27,
    title: 'Basic transaction report (invoice number, date, customer, TPIN, value, tax, description)',
    mandatory: true,
    endpoints: [],
  },
  { no: 28, title: 'Audit trail', mandatory: true, endpoints: [] },
];

/**
 * The endpoints among `called` that section 2 of the form does not list (saveItemComposition, which
 * item 8 needs; the pulls of the gateway's workers), in the protocol's order, each titled by the
 * items that need it.
 */
export function endpointsBeyondTheForm(called: readonly string[]): ChecklistEndpoint[] {
  const onTheForm = new Set<string>(CHECKLIST_ENDPOINTS.map((e) => e.endpoint));
  const seen = new Set(called);
  return (Object.keys(VSDC_PATHS) as VsdcEndpoint[])
    .filter((name) => seen.has(name) && !onTheForm.has(name))
    .map((name) => {
      const items = CHECKLIST_ITEMS.filter((i) => i.endpoints.includes(name));
      const title =
        items.length === 0
          ? `${name} (no item of the form needs it: the gateway's own background work)`
          : items.map((i) => `${i.title} (item ${i.no})`).join('; ');
      return endpoint(name, title);
    });
}

/** The tax invoice's minimum features, each with what on the printed receipt shows it. */
export const MINIMUM_FEATURES: ReadonlyArray<{ feature: string; pattern: RegExp }> = [
  { feature: 'the words TAX INVOICE', pattern: /TAX INVOICE/ },
  { feature: 'supplier TPIN', pattern: /TPIN/ },
  { feature: 'invoice number', pattern: /Invoice (No|number)/i },
  { feature: 'date', pattern: /\d{4}-\d{2}-\d{2}/ },
  { feature: 'customer TPIN and name', pattern: /Customer/i },
  { feature: 'tax rates', pattern: /16(\.00)?\s*%/ },
  { feature: 'total excluding tax', pattern: /(Total|Taxable).{0,40}(excl|ex\.|before)/i },
  { feature: 'total tax', pattern: /VAT|Tax/ },
  { feature: 'QR code', pattern: /<svg|data:image\/png|<img/i },
  { feature: 'SDC id', pattern: /SDC/ },
  { feature: 'VSDC date', pattern: /VSDC/ },
  { feature: 'internal data', pattern: /Internal data/i },
  { feature: 'receipt signature', pattern: /Signature/i },
];
