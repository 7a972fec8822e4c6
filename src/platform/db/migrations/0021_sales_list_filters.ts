// The merchant's document list filters by status, type, branch and date
// (GET /api/v1/sales). Branch uses sales_device_list and dates sales_tenant_occurred; a status
// or a note type over all branches would otherwise walk the merchant's whole history through
// sales_tenant_list to find a few failed documents or credit notes. The type index holds only
// notes (a plain sale is most rows: walking sales_tenant_list finds them at once); the list
// query names `type <> 'sale'` as a literal so that generic plans can use it.
export const up = [
  `create index sales_tenant_status on sales (tenant_id, status, id desc)`,
  `create index sales_tenant_notes on sales (tenant_id, type, id desc) where type <> 'sale'`,
];
