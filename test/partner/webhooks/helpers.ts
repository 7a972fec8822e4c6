import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../../../src/domain/kernel/context.ts';
import { enqueueEvent } from '../../../src/domain/kernel/outbox/events.ts';
import { bearer, type TestApp } from '../../helpers/app.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with a request: answer it (or never, to force a timeout). */
export type ReceiverBehaviour = (req: ReceivedRequest, res: ServerResponse) => void;

export const answer =
  (status: number, headers: Record<string, string> = {}): ReceiverBehaviour =>
  (_req, res) => {
    res.writeHead(status, headers).end(status >= 200 && status < 300 ? 'ok' : `status ${status}`);
  };
export const neverAnswer: ReceiverBehaviour = () => {};

/** A real HTTP receiver on 127.0.0.1 that records every request it gets. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  /**
   * Deliveries that arrived while an earlier request for the same delivery was still waiting for
   * this receiver's answer on an open connection (must stay empty). A request already answered
   * counts as over even before its 'close' event, which may come after the sender's next request.
   */
  readonly concurrentDuplicates: string[] = [];
  behaviour: ReceiverBehaviour = answer(200);
  private readonly unanswered = new Map<string, Set<ServerResponse>>();
  private readonly open = new Set<ServerResponse>();
  private readonly server = createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(received);
      const delivery = String(req.headers['x-webhook-delivery'] ?? '');
      const earlier = this.unanswered.get(delivery) ?? new Set<ServerResponse>();
      if ([...earlier].some((r) => !r.writableEnded && !r.destroyed)) this.concurrentDuplicates.push(delivery);
      earlier.add(res);
      this.unanswered.set(delivery, earlier);
      this.open.add(res);
      res.on('close', () => {
        this.open.delete(res);
        earlier.delete(res);
      });
      this.behaviour(received, res);
    });
  }

  requestsFor(deliveryId: number | string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['x-webhook-delivery'] === String(deliveryId));
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function registerEndpoint(t: TestApp, secret: string, body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(secret), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { secret: string; endpoint: { id: number; url: string; status: string; events: string[] } };
}

/** A sale resource as the sales module puts it in `data.invoice` (only what receivers read here). */
export function invoice(id: number, status: 'uploaded' | 'failed' = 'uploaded') {
  return {
    id,
    reference: `ref-${id}`,
    invoiceNo: id,
    status,
    resultCode: status === 'uploaded' ? '000' : '999',
    lastError: status === 'failed' ? 'Rejected' : null,
  };
}

export async function fireInvoiceEvent(
  ctx: AppContext,
  partnerId: number | null,
  tenantId: number,
  saleId: number,
  type: 'invoice.fiscalised' | 'invoice.failed' = 'invoice.fiscalised',
) {
  return enqueueEvent(
    ctx.db,
    { type, partnerId, tenantId, data: { invoice: invoice(saleId, type === 'invoice.fiscalised' ? 'uploaded' : 'failed') } },
    ctx.database.notifier,
  );
}

export async function deliveryRows(ctx: AppContext, endpointId: number) {
  return ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute();
}

/**
 * Short retry delays, so a whole schedule runs in well under a second. The timeout stays long
 * enough that a loaded machine (or undici's first-use start-up) never turns an answer into one.
 */
export const FAST_DELIVERY = { webhookRetryDelaysSec: [0.02, 0.02, 0.02, 0.02, 0.02], webhookTimeoutMs: 2_000 };
