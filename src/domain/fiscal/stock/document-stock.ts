// `stock` on the sale resource: where a document's stock chain stands. Shared by the sales
// module (which shows it) and this one (which decides it).
import { Type, type Static } from 'typebox';
import type { DocumentStatus, DocumentType, SalesType } from '../../../platform/db/tables/sales.ts';
import { Nullable, literals } from '../../../platform/http/schema-helpers.ts';
import type { DocumentStockRow } from './read-store.ts';

const DOCUMENT_STOCK_STATES = ['not_applicable', 'pending', 'sent', 'failed'] as const;

export const DocumentStock = Type.Object(
  {
    state: literals(DOCUMENT_STOCK_STATES, {
      description:
        'not_applicable: the document moves no stock (no line names a registered goods item, a debit note, a refused document, or stock tracking off); ' +
        'pending: its stock is not booked or its stock chain not yet accepted (retried while the VSDC does not answer); sent: saveStockItems and saveStockMaster accepted; ' +
        'failed: the authority refused the chain (resultCode, message). See docs/stock.md',
    }),
    resultCode: Nullable(Type.String({ description: "When failed: the authority's code" })),
    message: Nullable(Type.String({ description: "When failed: the authority's text" })),
  },
  { description: 'The stock chain that follows the document (GET /api/v1/stock/movements lists every movement)' },
);
export type DocumentStockResource = Static<typeof DocumentStock>;

const NOT_APPLICABLE: DocumentStockResource = { state: 'not_applicable', resultCode: null, message: null };
const PENDING: DocumentStockResource = { state: 'pending', resultCode: null, message: null };

interface DocumentForStock {
  type: DocumentType;
  /** Training and proforma documents sell nothing: they never move stock. */
  sales_type: SalesType;
  status: DocumentStatus;
  invoice_no: number | string;
}

/**
 * The document's stock state. Without `known` (a document just written, whose movement cannot
 * exist yet): pending when it may move stock. With what the database says (stockOfDocuments):
 * its movement's state, or not_applicable once its branch was booked past it without one.
 */
export function documentStock(
  doc: DocumentForStock,
  itemCodes: ReadonlyArray<string | null>,
  known?: DocumentStockRow,
): DocumentStockResource {
  if (known?.state) {
    if (known.state === 'sent') return { state: 'sent', resultCode: known.result_code, message: null };
    if (known.state === 'failed') return { state: 'failed', resultCode: known.result_code, message: known.result_message };
    return PENDING;
  }
  if (
    doc.type === 'debit_note' ||
    doc.sales_type !== 'normal' ||
    doc.status === 'failed' ||
    doc.status === 'resolved' ||
    !itemCodes.some((code) => code !== null)
  )
    return NOT_APPLICABLE;
  if (known && (!known.stock_tracking || (known.booked_invoice_no !== null && known.booked_invoice_no >= Number(doc.invoice_no))))
    return NOT_APPLICABLE;
  return PENDING;
}
