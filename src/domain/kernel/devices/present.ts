import { iso } from '../../../platform/lib/time.ts';
import type { DeviceResource, AuthorityBranchResource } from './schemas.ts';
import type { DeviceRow, AuthorityBranchRow } from './store.ts';

export function presentDevice(row: DeviceRow): DeviceResource {
  return {
    id: row.id,
    deviceSerial: row.device_serial,
    branch: row.branch,
    vsdcBaseUrl: row.vsdc_base_url,
    protocol: row.protocol,
    production: row.production,
    apiCredential: row.api_credential_sealed === null ? null : { kind: row.api_credential_kind ?? 'bearer', set: true },
    unitKeySet: row.unit_key_sealed !== null,
    lastInvoiceNo: row.last_invoice_no,
    initialized: row.initialized,
    sdcId: row.sdc_id,
    mrcNo: row.mrc_no,
    taxpayerName: row.taxpayer_name,
    branchName: row.branch_name,
    countersAtInitialization:
      row.initialized && row.last_sale_invc_no !== null
        ? {
            lastSaleInvoiceNo: row.last_sale_invc_no,
            lastSaleReceiptNo: row.last_sale_rcpt_no,
            lastPurchaseInvoiceNo: row.last_pchs_invc_no,
            lastTrainingInvoiceNo: row.last_train_invc_no === null ? null : Number(row.last_train_invc_no),
            lastProformaInvoiceNo: row.last_profrm_invc_no === null ? null : Number(row.last_profrm_invc_no),
          }
        : null,
    nextInvoiceNo: row.initialized ? row.next_invoice_no : null,
    nextTrainingInvoiceNo: row.initialized ? Number(row.next_training_no) : null,
    nextProformaInvoiceNo: row.initialized ? Number(row.next_proforma_no) : null,
    initializedAt: iso(row.initialized_at),
    createdAt: row.created_at.toISOString(),
  };
}

/** `registeredBranches`: the branches the merchant has a device registered for. */
export function presentAuthorityBranch(row: AuthorityBranchRow, registeredBranches: ReadonlySet<string>): AuthorityBranchResource {
  return {
    branch: row.branch,
    name: row.name,
    location: row.location,
    province: row.province,
    district: row.district,
    sector: row.sector,
    headquarters: row.headquarters,
    status: row.status_code,
    openedOn: row.opened_on,
    registeredDevice: registeredBranches.has(row.branch),
    updatedAt: row.received_at.toISOString(),
  };
}
