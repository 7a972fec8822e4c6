import type { Static } from 'typebox';
import type { AnswerFiling, FILING_STATES, ImportItemResource } from './schemas.ts';

type FilingState = (typeof FILING_STATES)[number];
import type { ImportItemRow } from './store.ts';
import { iso } from '../../../platform/lib/time.ts';

const amount = (value: string | null): number | null => (value === null ? null : Number(value));

export function presentImportItem(row: ImportItemRow): ImportItemResource {
  // Spec 2.8 and 3.4: `filing` is the state itself; what the authority said is beside it.
  const { state: filing, ...filingDetail } = presentAnswerFiling(row);
  return {
    id: Number(row.id),
    branch: row.branch,
    taskCode: row.task_cd,
    declarationDate: row.dcl_de,
    itemSeq: row.item_seq,
    declarationNo: row.dcl_no,
    hsCode: row.hs_cd,
    itemName: row.item_name,
    originCountryCode: row.origin_country_code,
    exportCountryCode: row.export_country_code,
    packages: amount(row.packages),
    packagingUnitCode: row.packaging_unit_code,
    quantity: amount(row.quantity),
    quantityUnitCode: row.quantity_unit_code,
    totalWeight: amount(row.total_weight),
    netWeight: amount(row.net_weight),
    supplierName: row.supplier_name,
    agentName: row.agent_name,
    invoiceForeignAmount: amount(row.invoice_foreign_amount),
    invoiceCurrency: row.invoice_currency,
    exchangeRate: amount(row.exchange_rate),
    decision: row.decision,
    decidedAt: iso(row.decided_at),
    itemCode: row.item_code,
    itemClassificationCode: row.item_class_code,
    remark: row.remark,
    filing,
    filingDetail,
    receivedAt: row.received_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The columns every answered row (customs line, purchase) keeps about its filing. */
interface AnswerFilingColumns {
  filing_state: FilingState;
  filing_code: string | null;
  filing_message: string | null;
  filed_at: Date | null;
  next_attempt_at: Date | null;
  last_unreachable: string | null;
}

export function presentAnswerFiling(row: AnswerFilingColumns): Static<typeof AnswerFiling> {
  const sending = row.filing_state === 'sending';
  return {
    state: row.filing_state,
    resultCode: row.filing_code,
    message: row.filing_message,
    filedAt: iso(row.filed_at),
    nextAttemptAt: sending ? iso(row.next_attempt_at) : null,
    lastError: sending ? row.last_unreachable : null,
  };
}
