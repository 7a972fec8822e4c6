// The delivery worker: claims due deliveries and runs their attempts concurrently, at most
// `perEndpoint` (WEBHOOK_ENDPOINT_CONCURRENCY) at once for one endpoint and `maxInFlight` moving
// ones in all: an attempt unanswered after STALLED_AFTER_MS gives its slot up (its socket stays
// open until WEBHOOK_TIMEOUT_MS, up to MAX_OPEN_ATTEMPTS at once), so a slow or dead receiver
// holds its own endpoint's attempts and never the other endpoints' slots or the queue. Woken by
// enqueued events (notifier), by its own scheduled retries, and by a poll for everything else
// (other processes' retries, expired leases).
import type { AppContext } from '../../kernel/context.ts';
import type { Worker, WorkerStopReport } from '../../../platform/workers/index.ts';
import { workerLoop, type Pass, type WorkerLoop } from '../../../platform/workers/loop.ts';
import type { Resolver } from './address-guard.ts';
import {
  claimDueDeliveries,
  DeliveredRecorder,
  recordAttempt,
  type AttemptOutcome,
  type ClaimedDelivery,
  type RetryPolicy,
} from './delivery-queue.ts';
import { WEBHOOKS_CHANNEL } from '../../kernel/outbox/events.ts';
import { WebhookSender } from './sender.ts';
import { secretAad } from './service.ts';
import { receiverHasAnswered } from './store.ts';
import { ApiError } from '../../../platform/errors/errors.ts';

const DELIVERY_WORKER_NAME = 'webhooks.deliver';

const LEASE_MARGIN_MS = 10_000;

/** Attempts in flight in one process that are still moving (answered or not within STALLED_AFTER_MS). */
const MAX_IN_FLIGHT = 128;
/**
 * An attempt unanswered this long stops counting against MAX_IN_FLIGHT: a receiver that answers
 * at all answers within a few hundred milliseconds, and one that does not (stalled, or slow past
 * reason) must not keep the process's slots from the endpoints that do.
 */
const STALLED_AFTER_MS = 1_000;
/** Attempts open at once, stalled ones included: sockets and bodies in memory. */
const MAX_OPEN_ATTEMPTS = 1_024;

/** Spec part 6: 10 consecutive failed deliveries disable an endpoint. */
const DISABLE_AFTER_FAILED_DELIVERIES = 10;

interface DeliveryWorkerOptions {
  /** Replaces the system resolver (tests: names that resolve to chosen addresses). */
  resolver?: Resolver;
  pollIntervalMs?: number;
  maxInFlight?: number;
  /** Replaces WEBHOOK_ENDPOINT_CONCURRENCY. */
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
  private readonly delivered: DeliveredRecorder;
  /** The attempts in flight are the loop's units in hand; none is ever cut. */
  private readonly loop: WorkerLoop;
  /** Attempts in flight for less than STALLED_AFTER_MS. */
  private moving = 0;
  /** Claims until the free slots are used or nothing more is due; woken again while it runs, it runs once more. */
  private readonly fill: Pass;
  private readonly started: Worker;
  private retryTimer: { at: number; cancel: () => void } | undefined;

  constructor(
    private readonly ctx: AppContext,
    options: DeliveryWorkerOptions,
  ) {
    const { config } = ctx;
    this.sender = new WebhookSender({
      env: config.env,
      timeoutMs: config.webhookTimeoutMs,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    this.policy = { delaysSec: config.webhookRetryDelaysSec, disableAfter: DISABLE_AFTER_FAILED_DELIVERIES, jitter: options.jitter ?? 0.1 };
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
    this.perEndpoint = options.perEndpoint ?? config.webhookEndpointConcurrency;
    // An attempt ends within the timeout; the margin covers recording it. A crashed worker's
    // claims come back after the lease, so a long margin only delays them.
    this.leaseMs = Math.max(options.leaseMs ?? config.webhookTimeoutMs + LEASE_MARGIN_MS, config.webhookTimeoutMs + 1_000);
    this.delivered = new DeliveredRecorder(ctx.db);
    this.loop = workerLoop({ name: DELIVERY_WORKER_NAME, log: ctx.log });
    this.fill = this.loop.pass({ run: () => this.claimDue(), failure: 'claiming deliveries failed' });
    this.started = this.loop.worker(() => {
      this.loop.listen(this.ctx.database.notifier.listen(WEBHOOKS_CHANNEL, () => this.fill.run()));
      this.loop.listen(this.ctx.database.notifier.onResync(() => this.fill.run()));
      this.loop.every(this.pollIntervalMs, () => this.fill.run(), { keepsProcessAlive: true });
      this.fill.run();
    });
  }

  start(): void {
    this.started.start();
  }

  /** Lets the attempts in flight end (each within WEBHOOK_TIMEOUT_MS) and records them: none is cut. */
  async stop(): Promise<WorkerStopReport> {
    const report = await this.started.stop();
    await this.sender.close();
    return report;
  }

  private async claimDue(): Promise<void> {
    while (!this.loop.stopped) {
      const free = Math.min(this.maxInFlight - this.moving, MAX_OPEN_ATTEMPTS - this.loop.inHand);
      if (free <= 0) break;
      const claims = await claimDueDeliveries(this.ctx.db, this.ctx.clock.now(), {
        batch: free,
        perEndpoint: this.perEndpoint,
        leaseMs: this.leaseMs,
      });
      for (const claim of claims) this.launch(claim);
      if (claims.length < free) break;
    }
  }

  private launch(claim: ClaimedDelivery): void {
    this.moving++;
    let counted = true;
    const leaveSlot = () => {
      if (!counted) return;
      counted = false;
      this.moving--;
    };
    const stalled = this.loop.after(STALLED_AFTER_MS, () => {
      leaveSlot();
      this.fill.run();
    });
    void this.loop
      .hold(
        this.attempt(claim).catch((err: unknown) =>
          this.loop.log.error({ err, deliveryId: claim.id }, 'delivery attempt failed to record'),
        ),
      )
      .then(() => {
        stalled();
        leaveSlot();
        this.fill.run();
      });
  }

  private async attempt(claim: ClaimedDelivery): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      const secret = this.ctx.secretBox.open(claim.secretCiphertext, secretAad(claim.endpointId, claim.partnerId));
      outcome = await this.sender.send(
        { deliveryId: claim.id, eventId: claim.eventId, eventType: claim.eventType, url: claim.url, secret, body: claim.body },
        this.ctx.clock.now(),
        () => receiverHasAnswered(this.ctx.db, claim.endpointId),
      );
    } catch (err) {
      // A secret sealed with another SECRET_KEY: said as such on the attempt, and retried (the operator may restart with the right key).
      const error =
        err instanceof ApiError && err.code === 'secret_unreadable'
          ? `Not sent: the endpoint's signing secret is unreadable. ${err.message}`
          : `Internal error before sending: ${(err as Error).message}`;
      outcome = { kind: 'failed', responseStatus: null, terminal: false, error };
    }
    const at = this.ctx.clock.now();
    if (outcome.kind === 'delivered' && (await this.delivered.record({ claim, responseStatus: outcome.responseStatus, at }))) return;
    const recorded = await recordAttempt(this.ctx.db, claim, outcome, at, this.policy);
    if (recorded.status === 'retry_scheduled') this.wakeAt(recorded.retryAt);
  }

  /** Wakes when this worker's own retry falls due, rather than on the next poll. */
  private wakeAt(at: Date): void {
    if (this.loop.stopped) return;
    const when = at.getTime();
    const delay = Math.max(0, when - this.ctx.clock.now().getTime()) + 5;
    if (delay >= this.pollIntervalMs) return;
    if (this.retryTimer && this.retryTimer.at <= when) return;
    this.retryTimer?.cancel();
    const cancel = this.loop.after(delay, () => {
      this.retryTimer = undefined;
      this.fill.run();
    });
    this.retryTimer = { at: when, cancel };
  }
}
