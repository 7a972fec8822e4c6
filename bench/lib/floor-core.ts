// What the two floors of the sale path (issue 22) share: the per-sale steps, their SQL and the
// branches' filing order. bench/lib/naive-floor.ts runs them on node:http and pg; bench/lib/
// stack-floor.ts runs the very same steps on the gateway's own stack (Fastify with a TypeBox
// schema, pino's request line, Kysely over pg, undici), so that the bench can tell what the stack
// costs from what the gateway's work costs.
import { createHash } from 'node:crypto';
import type { SaveSalesRequest } from '@fiscal-gateway/vsdc-protocol';
import { buildZraSaleBody } from '../../src/authorities/zra-vsdc/sales-body.ts';

export const FLOOR_TABLE_SQL = `create table if not exists floor_documents (
  id bigserial primary key,
  device_id integer not null,
  invoice_no bigint not null,
  status text not null,
  total numeric not null,
  vat numeric not null,
  receipt_no bigint,
  receipt_signature text,
  internal_data text,
  created_at timestamptz not null default now(),
  unique (device_id, invoice_no))`;

/** $1 the token's SHA-256. */
export const TOKEN_SQL = `select d.id as device_id, t.tpin, d.branch, d.vsdc_base_url
  from tenant_tokens k join tenants t on t.id = k.tenant_id join devices d on d.tenant_id = t.id and d.initialized and d.branch = '000'
  where k.token_hash = $1 and k.revoked_at is null`;

/** $1 device, $2 total, $3 VAT: takes the branch's next number (the gateway's own counter row) and stores the document. */
export const STORE_SQL = `with counter as (update devices set next_invoice_no = next_invoice_no + 1 where id = $1 returning next_invoice_no - 1 as invoice_no)
  insert into floor_documents (device_id, invoice_no, status, total, vat)
  select $1, counter.invoice_no, 'pending', $2, $3 from counter returning id, invoice_no`;

/** $1 document, $2 status, $3 receipt number, $4 signature, $5 internal data. */
export const OUTCOME_SQL = `update floor_documents set status = $2, receipt_no = $3, receipt_signature = $4, internal_data = $5 where id = $1`;

export interface SaleInput {
  items: { name: string; classificationCode: string; quantity: number; price: number; vatCategory?: string }[];
}

export interface TokenRow {
  device_id: number;
  tpin: string;
  branch: string;
  vsdc_base_url: string;
}

export const tokenHash = (authorization: string | undefined) =>
  createHash('sha256')
    .update((authorization ?? '').replace(/^Bearer /, ''))
    .digest('hex');

/** The saveSales body of a walk-in cash sale; its invoice number is set once taken. */
export function saleBody(device: TokenRow, input: SaleInput): SaveSalesRequest {
  return buildZraSaleBody({
    tpin: device.tpin,
    bhfId: device.branch,
    invoiceNo: 1,
    receiptType: 'S',
    customer: { tpin: null, name: 'Walk-in customer' },
    paymentMethod: '01',
    occurredAt: new Date(),
    taxInclusive: true,
    currency: 'ZMW',
    lines: input.items.map((i) => ({
      name: i.name,
      classificationCode: i.classificationCode,
      quantity: i.quantity,
      price: i.price,
      vatCategory: (i.vatCategory ?? 'A') as 'A',
    })),
  });
}

export const saveSalesUrl = (device: TokenRow) => `${device.vsdc_base_url.replace(/\/$/, '')}/trnsSales/saveSales`;

export interface FiledOutcome {
  status: 'uploaded' | 'failed';
  receiptNo: number | null;
  signature: string | null;
  internalData: string | null;
}

export function outcomeOf(replyText: string): FiledOutcome {
  const parsed = JSON.parse(replyText) as { resultCd: string; data?: { rcptNo: number; rcptSign: string; intrlData: string } };
  const ok = parsed.resultCd === '000' && parsed.data !== undefined;
  return {
    status: ok ? 'uploaded' : 'failed',
    receiptNo: parsed.data?.rcptNo ?? null,
    signature: parsed.data?.rcptSign ?? null,
    internalData: parsed.data?.intrlData ?? null,
  };
}

/**
 * Each branch's VSDC calls one at a time, in invoice order. Each branch's line starts at its
 * counter as the floor found it (the bench starts a floor while no other server stores documents).
 */
export class BranchLines {
  private readonly lines = new Map<number, { next: number; waiting: Map<number, () => void> }>();

  constructor(counters: Array<{ id: number; next_invoice_no: string | number }>) {
    for (const d of counters) this.lines.set(d.id, { next: Number(d.next_invoice_no), waiting: new Map() });
  }

  /** Resolves when every earlier invoice of the device has had its VSDC call. */
  turnOf(deviceId: number, invoiceNo: number): Promise<void> {
    const line = this.lines.get(deviceId)!;
    if (line.next === invoiceNo) return Promise.resolve();
    return new Promise((resolve) => line.waiting.set(invoiceNo, resolve));
  }

  done(deviceId: number, invoiceNo: number): void {
    const line = this.lines.get(deviceId)!;
    line.next = invoiceNo + 1;
    const go = line.waiting.get(line.next);
    if (go) {
      line.waiting.delete(line.next);
      go();
    }
  }
}
