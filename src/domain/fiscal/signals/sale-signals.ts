// Hints between the requests that store documents and the filers that file them. The database
// stays the truth: a signal only says "look again". In one process they travel in memory; on
// PostgreSQL they also go through LISTEN/NOTIFY to the other gateway processes.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AppContext, ContextMember } from '../../kernel/context.ts';
import type { Notifier } from '../../../platform/db/notifier.ts';
import type { Selectable } from 'kysely';
import type { SalesTable } from '../../../platform/db/tables/sales.ts';

type SaleRow = Selectable<SalesTable>;

/** Payload `<deviceId>:<origin>`: a branch has a new document to file. */
export const FILING_CHANNEL = 'fg_filing';
/**
 * Payload `<saleId>:<origin>:<json>`: a document's outcome was recorded; the JSON holds the
 * columns the outcome set (and `updated_at`), so a waiting request in another process answers
 * without reading the row again. Without them (`{}`) it is a hint: read the row. Not sent when
 * the request that stored the document waits in the recording process (storingRequestWaits).
 */
export const OUTCOME_CHANNEL = 'fg_sale_outcome';

/** What an outcome changed on a stored row: overlay it on the row the request stored. */
type OutcomeUpdate = Partial<SaleRow>;

/** Tells this process's own notifications apart from other processes' (they already acted on them). */
export const PROCESS_TAG = randomBytes(6).toString('hex');

export function signalPayload(id: number): string {
  return `${id}:${PROCESS_TAG}`;
}

/** The id in a payload, or undefined when the payload is malformed or came from this process. */
export function foreignSignal(payload: string): number | undefined {
  const [idText, origin] = payload.split(':');
  if (origin === PROCESS_TAG) return undefined;
  const id = Number(idText);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** The outcome in a payload of OUTCOME_CHANNEL (undefined when it names no outcome fields). */
function outcomeOfPayload(payload: string): OutcomeUpdate | undefined {
  const at = payload.indexOf('{');
  if (at < 0) return undefined;
  try {
    const fields = JSON.parse(payload.slice(at)) as Record<string, unknown>;
    if (typeof fields.status !== 'string' || typeof fields.updated_at !== 'string') return undefined;
    return {
      ...(fields as OutcomeUpdate),
      updated_at: new Date(fields.updated_at),
      published_at: typeof fields.published_at === 'string' ? new Date(fields.published_at) : null,
    };
  } catch {
    return undefined;
  }
}

const RECENT_MS = 2_000;

class SaleSignals {
  private readonly queued = new EventEmitter().setMaxListeners(0);
  private readonly outcomes = new EventEmitter().setMaxListeners(0);
  private readonly waiters = new Map<number, Set<(update: OutcomeUpdate | undefined) => void>>();
  /** Outcomes signalled in the last moments, for a waiter that registers just after. */
  private readonly recent = new Map<number, number>();
  /** Sales whose storing request waits in this process, with its computed amounts (storingRequestWaits). */
  private readonly storedHere = new Set<number>();
  private readonly unlisten: Array<() => void>;

  constructor(notifier: Notifier) {
    this.unlisten = [
      notifier.listen(OUTCOME_CHANNEL, (payload) => {
        const saleId = foreignSignal(payload);
        if (saleId !== undefined) this.outcomeRecorded(saleId, outcomeOfPayload(payload));
      }),
      // Outcomes announced while the LISTEN connection was away were missed: every waiting request reads its row.
      notifier.onResync(() => this.wakeAllWaiters()),
    ];
  }

  private wakeAllWaiters(): void {
    const waiting = [...this.waiters.values()];
    this.waiters.clear();
    for (const set of waiting) for (const wake of set) wake(undefined);
  }

  /** A document was stored on this branch (called after commit). */
  documentQueued(deviceId: number): void {
    this.queued.emit('queued', deviceId);
  }

  onDocumentQueued(listener: (deviceId: number) => void): () => void {
    this.queued.on('queued', listener);
    return () => this.queued.off('queued', listener);
  }

  /** Hears every outcome signalled (a hint for work that follows filing, e.g. the stock chain). */
  onOutcomeRecorded(listener: (saleId: number) => void): () => void {
    this.outcomes.on('outcome', listener);
    return () => this.outcomes.off('outcome', listener);
  }

  /**
   * A document's outcome was committed, by a filer in this process or announced by another;
   * `update` (the recorded row, or the fields the outcome set) spares the waiting request a read.
   */
  outcomeRecorded(saleId: number, update?: OutcomeUpdate): void {
    this.outcomes.emit('outcome', saleId);
    const now = Date.now();
    this.recent.set(saleId, now);
    if (this.recent.size > 10_000) {
      for (const [id, at] of this.recent) if (now - at > RECENT_MS) this.recent.delete(id);
    }
    const waiting = this.waiters.get(saleId);
    if (!waiting) return;
    this.waiters.delete(saleId);
    for (const wake of waiting) wake(update);
  }

  /**
   * The request that stored the sale waits for its outcome in this process (until the returned
   * function is called). A filer of this process that records the outcome hands it over in
   * memory and does not notify the other processes: nobody there waits for it but, rarely, a
   * replay of the same Idempotency-Key, which re-reads the row (settle in service.ts). The filer
   * builds the body from the stored row and lines alone, whoever stored them.
   */
  storingRequestWaits(saleId: number): () => void {
    this.storedHere.add(saleId);
    return () => this.storedHere.delete(saleId);
  }

  storingRequestWaitsHere(saleId: number): boolean {
    return this.storedHere.has(saleId);
  }

  /** Some request of this process (the storing one or a replay) waits for the sale's outcome; tests wait for it. */
  isAwaitedHere(saleId: number): boolean {
    return this.waiters.has(saleId);
  }

  /**
   * Resolves when the sale's outcome is signalled or after `ms`, whichever comes first: with what
   * the outcome changed when the signal carried it, else undefined (read the database).
   */
  waitForOutcome(saleId: number, ms: number): Promise<OutcomeUpdate | undefined> {
    const at = this.recent.get(saleId);
    if (at !== undefined && Date.now() - at <= RECENT_MS) return Promise.resolve(undefined);
    if (ms <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const set = this.waiters.get(saleId) ?? new Set<(update: OutcomeUpdate | undefined) => void>();
      this.waiters.set(saleId, set);
      const done = (update?: OutcomeUpdate) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(saleId) === set) this.waiters.delete(saleId);
        resolve(update);
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  close(): void {
    for (const off of this.unlisten) off();
    this.queued.removeAllListeners();
    this.storedHere.clear();
    this.outcomes.removeAllListeners();
  }
}

/** The context's signals: built by `provideModuleMembers`, so outcomes from other processes are heard before the first sale waits. */
export const SALE_SIGNALS: ContextMember<SaleSignals> = {
  name: 'sales.signals',
  create: (ctx) => new SaleSignals(ctx.database.notifier),
  close: (signals) => signals.close(),
};

/** The signals of this process for the context's database. */
export function saleSignals(ctx: AppContext): SaleSignals {
  return ctx.members.get(SALE_SIGNALS);
}
