// One delivery attempt over HTTP: re-check the URL rules, resolve and guard the address,
// POST the stored body bytes pinned to the checked address, and classify the answer.
import type { LookupAddress } from 'node:dns';
import { Agent, request } from 'undici';
import type { GatewayEnv } from '../../../platform/config.ts';
import { guardHost, pinnedLookup, systemResolver, type ResolvedBefore, type Resolver } from './address-guard.ts';
import type { AttemptOutcome } from './delivery-queue.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import { urlProblems } from './url-rules.ts';

const USER_AGENT = 'fiscal-gateway-webhooks/1.10.0';

interface SenderOptions {
  env: GatewayEnv;
  /** The whole exchange — resolution, connect, response headers — must fit in this. */
  timeoutMs: number;
  resolver?: Resolver;
}

interface OutgoingDelivery {
  deliveryId: number;
  eventId: string;
  eventType: string;
  url: string;
  secret: string;
  body: string;
}

const MAX_ERROR_BODY = 300;
const MAX_DRAINED_BODY = 64 * 1024;
const AGENT_IDLE_MS = 60_000;
const MAX_AGENTS = 512;

interface PooledAgent {
  agent: Agent;
  lastUsed: number;
}

export class WebhookSender {
  // Keep-alive pools keyed by origin and pinned address, so a connection opened for one
  // resolution is never reused after the name starts resolving elsewhere.
  private readonly agents = new Map<string, PooledAgent>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: SenderOptions) {
    this.sweeper = setInterval(() => this.sweep(Date.now() - AGENT_IDLE_MS), AGENT_IDLE_MS);
    this.sweeper.unref();
  }

  /** `resolvedBefore`: whether the URL's host is known to have resolved (asked only when it gives no address). */
  async send(delivery: OutgoingDelivery, now: Date, resolvedBefore?: ResolvedBefore): Promise<AttemptOutcome> {
    const problems = urlProblems(delivery.url, this.options.env);
    if (problems.length > 0) return { kind: 'failed', responseStatus: null, terminal: true, error: `URL refused: ${problems.join(' ')}` };
    const url = new URL(delivery.url);
    const signal = AbortSignal.timeout(this.options.timeoutMs);

    const guard = await guardHost(
      url.hostname,
      { allowLoopback: this.options.env === 'development' },
      this.options.resolver ?? systemResolver,
      signal,
      resolvedBefore,
    );
    if (!guard.ok) return { kind: 'failed', responseStatus: null, terminal: guard.terminal, error: `Address guard: ${guard.reason}` };

    const timestamp = Math.floor(now.getTime() / 1000);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agentFor(url.origin, guard.address),
        signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(delivery.secret, timestamp, delivery.body),
          'x-webhook-event': delivery.eventType,
          'x-webhook-id': delivery.eventId,
          'x-webhook-delivery': String(delivery.deliveryId),
        },
        body: delivery.body,
      });
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        await response.body.dump({ limit: MAX_DRAINED_BODY }).catch(() => {});
        return { kind: 'delivered', responseStatus: status };
      }
      if (status >= 300 && status < 400) {
        await response.body.dump({ limit: MAX_DRAINED_BODY }).catch(() => {});
        const location = response.headers.location;
        const where = typeof location === 'string' ? ` to ${location.slice(0, 200)}` : '';
        return {
          kind: 'failed',
          responseStatus: status,
          terminal: false,
          error: `Receiver answered HTTP ${status}: a redirect${where}, which is never followed.`,
        };
      }
      const excerpt = await readExcerpt(response.body);
      return {
        kind: 'failed',
        responseStatus: status,
        terminal: false,
        error: `Receiver answered HTTP ${status}${excerpt ? `: ${excerpt}` : '.'}`,
      };
    } catch (err) {
      if (signal.aborted)
        return {
          kind: 'failed',
          responseStatus: null,
          terminal: false,
          error: `Timed out: no response within ${this.options.timeoutMs} ms.`,
        };
      return { kind: 'failed', responseStatus: null, terminal: false, error: `Request failed: ${describeError(err)}` };
    }
  }

  private agentFor(origin: string, address: LookupAddress): Agent {
    const key = `${origin}|${address.address}`;
    let pooled = this.agents.get(key);
    if (!pooled) {
      if (this.agents.size >= MAX_AGENTS) this.sweep(Number.POSITIVE_INFINITY, Math.ceil(MAX_AGENTS / 4));
      pooled = {
        agent: new Agent({ connect: { lookup: pinnedLookup(address), timeout: this.options.timeoutMs }, keepAliveTimeout: 10_000 }),
        lastUsed: 0,
      };
      this.agents.set(key, pooled);
    }
    pooled.lastUsed = Date.now();
    return pooled.agent;
  }

  /** Closes pools idle since `before` (at most `max` of them, least recently used first). */
  private sweep(before: number, max = Number.POSITIVE_INFINITY): void {
    const idle = [...this.agents.entries()].filter(([, p]) => p.lastUsed < before).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, pooled] of idle.slice(0, max)) {
      this.agents.delete(key);
      void pooled.agent.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const pools = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(pools.map((p) => p.agent.close().catch(() => {})));
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_ERROR_BODY) break;
    }
  } catch {
    // the excerpt is only a courtesy in the log
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ERROR_BODY).replace(/\s+/g, ' ').trim();
}

function describeError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  return code ? `${code} ${message}`.slice(0, 300) : message.slice(0, 300);
}
