import { iso } from '../../../platform/lib/time.ts';
import { presentAnswerFiling } from '../imports/present.ts';
import type { PurchaseResource } from './schemas.ts';
import type { PurchaseLineRow, PurchaseRow } from './store.ts';

const amount = (value: string | null): number | null => (value === null ? null : Number(value));

function presentLine(line: PurchaseLineRow): PurchaseResource['lines'][number] {
  return {
    line: line.line_no,
    itemSeq: amount(line.item_seq),
    itemCode: line.item_code,
    itemClassificationCode: line.item_class_code,
    itemName: line.item_name,
    barcode: line.barcode,
    packagingUnitCode: line.packaging_unit_code,
    packages: amount(line.packages),
    quantityUnitCode: line.quantity_unit_code,
    quantity: amount(line.quantity),
    unitPrice: amount(line.unit_price),
    supplyAmount: amount(line.supply_amount),
    discountRate: amount(line.discount_rate),
    discountAmount: amount(line.discount_amount),
    vatCategory: line.vat_category,
    taxableAmount: amount(line.taxable_amount),
    vatAmount: amount(line.vat_amount),
    totalAmount: amount(line.total_amount),
    mappedItemCode: line.mapped_item_code,
  };
}

export function presentPurchase(row: PurchaseRow): PurchaseResource {
  return {
    id: Number(row.id),
    source: row.source,
    branch: row.branch,
    supplier: {
      tpin: row.supplier_tpin,
      name: row.supplier_name,
      branch: row.supplier_branch,
      invoiceNo: row.supplier_invoice_no,
      sdcId: row.supplier_sdc_id,
    },
    receiptTypeCode: row.receipt_type_code,
    paymentTypeCode: row.payment_type_code,
    confirmedAt: row.confirmed_dt,
    salesDate: row.sales_date,
    stockReleaseDate: row.stock_release_dt,
    totals: {
      itemCount: amount(row.total_item_count),
      taxableAmount: amount(row.total_taxable_amount),
      taxAmount: amount(row.total_tax_amount),
      amount: amount(row.total_amount),
    },
    remark: row.remark,
    inconsistencies: row.inconsistencies,
    lines: row.lines.map(presentLine),
    status: row.decision ?? 'pending',
    decidedAt: iso(row.decided_at),
    answerRemark: row.answer_remark,
    purchaseInvoiceNo: row.purchase_invoice_no === null ? null : Number(row.purchase_invoice_no),
    filing: presentAnswerFiling(row),
    receivedAt: iso(row.received_at),
    updatedAt: iso(row.updated_at),
  };
}
