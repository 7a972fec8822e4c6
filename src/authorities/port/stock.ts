// Reporting a branch's stock to the authority: a movement of goods and the levels it leaves, in
// the domain's words, and the port each adapter implements. The domain numbers the movements,
// keeps their order and their state (sent, then levels set); the adapter builds and reads the calls.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Rejected, Sent, Unreachable } from './outcomes.ts';

/** What recorded the movement: a document the authority filed, a purchase, or the merchant's own adjustment. */
type StockMovementSource = 'sale' | 'credit_note' | 'debit_note' | 'purchase' | 'adjustment';

/** One line of a movement; amounts are exact decimal text, as stored. */
export interface StockMovementLine {
  /** 1, 2, … within the movement. */
  seq: number;
  itemCode: string;
  quantity: string;
  /** Tax inclusive. */
  unitPrice: string;
  taxable: string;
  tax: string;
  total: string;
  /** What the branch held of the item after this line. */
  remaining: string;
  /** The item as registered; null when it was deleted since (the adapter's defaults then apply). */
  classificationCode: string | null;
  name: string | null;
  barcode: string | null;
  packagingUnitCode: string | null;
  quantityUnitCode: string | null;
  vatCategory: string | null;
}

export interface StockMovement {
  /** The branch's number of the movement: its own sequence, sent in that order. */
  number: number;
  /** The authority's movement type (code class 12: `0x` brings goods in, `1x` takes them out). */
  type: string;
  source: StockMovementSource;
  /** A document's customer or a purchase's supplier, as the gateway holds them (unchecked). */
  counterparty: { tpin: string | null; name: string | null; branch: string | null };
  remark: string | null;
  occurredAt: Date;
  totals: { taxable: string; tax: string; total: string };
  lines: StockMovementLine[];
}

/**
 * The answer to a movement's levels. A refusal names the call that was refused (`call`, in the
 * authority's words, with the item where each item is a call of its own): the movement itself was
 * accepted before, and a person reading the failure needs to know which part was not.
 */
type LevelsSent = { kind: 'accepted'; code: string } | (Rejected & { call: string }) | Unreachable;

export interface StockPort {
  /** Reports the movement (its lines and amounts) under its number. */
  sendMovement(device: AuthorityDevice, movement: StockMovement, options?: CallOptions): Promise<Sent>;
  /**
   * Sets the authority's level of each item of an accepted movement to what the branch held after
   * it: absolute quantities, so sending them again is harmless. One outcome however many calls
   * the authority takes: unreachable as soon as one call goes unanswered (the domain sends the
   * whole step again later); else the first refusal, once every item was tried (a refused item
   * says nothing about the others, and each level set is one more the authority holds right).
   */
  sendLevels(device: AuthorityDevice, movement: StockMovement, options?: CallOptions): Promise<LevelsSent>;
}
