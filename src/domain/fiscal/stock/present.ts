import { iso } from '../../../platform/lib/time.ts';
import { isIncoming } from './movements.ts';
import type { StockLevelResource, StockMovementResource } from './schemas.ts';
import type { LevelRow, MovementLineRow, MovementRow } from './read-store.ts';

export function presentLevel(row: LevelRow): StockLevelResource {
  return {
    itemCode: row.item_code,
    itemName: row.item_name,
    branch: row.branch,
    quantity: Number(row.quantity),
    quantityUnitCode: row.quantity_unit_code,
    updatedAt: row.updated_at.toISOString(),
  };
}

export function presentMovement(row: MovementRow, lines: MovementLineRow[]): StockMovementResource {
  return {
    id: Number(row.id),
    branch: row.branch,
    sarNo: row.sar_no,
    movementType: row.sar_type_code,
    direction: isIncoming(row.sar_type_code) ? 'in' : 'out',
    source: { kind: row.source_kind, id: row.source_kind === 'adjustment' ? null : Number(row.source_id) },
    remark: row.remark,
    items: lines.map((l) => ({
      itemCode: l.item_code,
      quantity: Number(l.quantity),
      unitPrice: Number(l.unit_price),
      remaining: Number(l.remaining),
    })),
    chain: { state: row.state, resultCode: row.result_code, message: row.result_message, sentAt: iso(row.sent_at) },
    createdAt: row.created_at.toISOString(),
  };
}
