// The delivery worker: claims due deliveries and runs their attempts concurrently, at most
// `perEndpoint` at once for one endpoint and `maxInFlight` in all, so a slow or dead receiver
// holds a few slots and never the queue. Woken by enqueued events (notifier), by its own
// scheduled retries, and by a poll for everything else (other processes' retries, expired leases).
import type { AppContext } from '../../kernel/context.ts';
import type { Logger } from '../../../platform/observability/log.ts';
import type { Worker, WorkerStopReport } from '../../../platform/workers/index.ts';
import type { Resolver } from './address-guard.ts';
import { claimDueDeliveries, DeliveredRecorder, recordAttempt, type AttemptOutcome, type ClaimedDelivery, type RetryPolicy } from './delivery-queue.ts';
import { WEBHOOKS_CHANNEL } from '../../kernel/outbox/events.ts';
import { WebhookSender } from './sender.ts';
import { secretAad } from './service.ts';

export const DELIVERY_WORKER_NAME = 'webhooks.deliver';

const LEASE_MARGIN_MS = 10_000;

/** Spec part 6: 10 consecutive failed deliveries disable an endpoint. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 10;

export interface DeliveryWorkerOptions {
  /** Replaces the system resolver (tests: names that resolve to chosen addresses). */
  resolver?: Resolver;
  pollIntervalMs?: number;
  maxInFlight?: number;
  perEndpoint?: number;
  /** How long a claim lasts; must exceed the longest attempt (the webhook timeout). */
  leaseMs?: number;
  /** Fraction of each retry delay added at random; 0 for an exact schedule. */
  jitter?: number;
}

export function createDeliveryWorker(ctx: AppContext, options: DeliveryWorkerOptions = {}): Worker {
  return new DeliveryWorker(ctx, options);
}

class DeliveryWorker implements Worker {
  readonly name = DELIVERY_WORKER_NAME;
  private readonly sender: WebhookSender;
  private readonly policy: RetryPolicy;
  private readonly pollIntervalMs: number;
  private readonly maxInFlight: number;
  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly log: Logger;
  private readonly delivered: DeliveredRecorder;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private filling: Promise<void> | undefined;
  private wakeAgain = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly ctx: AppContext,
    options: DeliveryWorkerOptions,
  ) {
    const { config } = ctx;
    this.sender = new WebhookSender({ env: config.env, timeoutMs: config.webhookTimeoutMs, ...(options.resolver ? { resolver: options.resolver } : {}) });
    this.policy = { delaysSec: config.webhookRetryDelaysSec, disableAfter: DISABLE_AFTER_FAILED_DELIVERIES, jitter: options.jitter ?? 0.1 };
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.maxInFlight = options.maxInFlight ?? 64;
    this.perEndpoint = options.perEndpoint ?? 4;
    // An attempt ends within the timeout; the margin covers recording it. A crashed worker's
    // claims come back after the lease, so a long margin only delays them.
    this.leaseMs = Math.max(options.leaseMs ?? config.webhookTimeoutMs + LEASE_MARGIN_MS, config.webhookTimeoutMs + 1_000);
    this.log = ctx.log.child({ worker: this.name });
    this.delivered = new DeliveredRecorder(ctx.db);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unlisten = this.ctx.database.notifier.listen(WEBHOOKS_CHANNEL, () => this.wake());
    this.pollTimer = setInterval(() => this.wake(), this.pollIntervalMs);
    this.wake();
  }

  /** Lets the attempts in flight end (each within WEBHOOK_TIMEOUT_MS) and records them: none is cut. */
  async stop(): Promise<WorkerStopReport> {
    this.running = false;
    this.unlisten?.();
    clearInterval(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    this.retryTimer = undefined;
    await this.filling;
    const inHand = this.inFlight.size;
    await Promise.all(this.inFlight);
    await this.sender.close();
    return { inHand, cut: 0 };
  }

  private wake(): void {
    if (!this.running) return;
    if (this.filling) {
      this.wakeAgain = true;
      return;
    }
    this.filling = this.fill().finally(() => {
      this.filling = undefined;
    });
  }

  /** Claims until the free slots are used or nothing more is due. */
  private async fill(): Promise<void> {
    do {
      this.wakeAgain = false;
      while (this.running) {
        const free = this.maxInFlight - this.inFlight.size;
        if (free <= 0) break;
        let claims: ClaimedDelivery[];
        try {
          claims = await claimDueDeliveries(this.ctx.db, this.ctx.clock.now(), { batch: free, perEndpoint: this.perEndpoint, leaseMs: this.leaseMs });
        } catch (err) {
          this.log.error({ err }, 'claiming deliveries failed');
          return;
        }
        for (const claim of claims) this.launch(claim);
        if (claims.length < free) break;
      }
    } while (this.wakeAgain && this.running);
  }

  private launch(claim: ClaimedDelivery): void {
    const attempt: Promise<void> = this.attempt(claim)
      .catch((err: unknown) => this.log.error({ err, deliveryId: claim.id }, 'delivery attempt failed to record'))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  private async attempt(claim: ClaimedDelivery): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      const secret = this.ctx.secretBox.open(claim.secretCiphertext, secretAad(claim.endpointId, claim.partnerId));
      outcome = await this.sender.send(
        { deliveryId: claim.id, eventId: claim.eventId, eventType: claim.eventType, url: claim.url, secret, body: claim.body },
        this.ctx.clock.now(),
      );
    } catch (err) {
      outcome = { kind: 'failed', responseStatus: null, terminal: false, error: `Internal error before sending: ${(err as Error).message}` };
    }
    const at = this.ctx.clock.now();
    if (outcome.kind === 'delivered' && (await this.delivered.record({ claim, responseStatus: outcome.responseStatus, at }))) return;
    const recorded = await recordAttempt(this.ctx.db, claim, outcome, at, this.policy);
    if (recorded.status === 'retry_scheduled') this.wakeAt(recorded.retryAt);
  }

  /** Wakes when this worker's own retry falls due, rather than on the next poll. */
  private wakeAt(at: Date): void {
    if (!this.running) return;
    const when = at.getTime();
    const delay = Math.max(0, when - this.ctx.clock.now().getTime()) + 5;
    if (delay >= this.pollIntervalMs) return;
    if (this.retryTimer && this.retryTimer.at <= when) return;
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    const timer = setTimeout(() => {
      this.retryTimer = undefined;
      this.wake();
    }, delay);
    timer.unref();
    this.retryTimer = { at: when, timer };
  }
}
