// Hints between the requests that store documents and the filers that file them. The database
// stays the truth: a signal only says "look again". In one process they travel in memory; on
// PostgreSQL they also go through LISTEN/NOTIFY to the other gateway processes.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AppContext } from '../../context.ts';
import type { Notifier } from '../../db/notifier.ts';
import type { SaleRow } from './store.ts';

/** Payload `<deviceId>:<origin>`: a branch has a new document to file. */
export const FILING_CHANNEL = 'fg_filing';
/** Payload `<saleId>:<origin>`: a document's outcome was recorded. */
export const OUTCOME_CHANNEL = 'fg_sale_outcome';

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

const RECENT_MS = 2_000;

export class SaleSignals {
  private readonly queued = new EventEmitter().setMaxListeners(0);
  private readonly waiters = new Map<number, Set<(row: SaleRow | undefined) => void>>();
  /** Outcomes signalled in the last moments, for a waiter that registers just after. */
  private readonly recent = new Map<number, number>();
  private readonly unlisten: () => void;

  constructor(notifier: Notifier) {
    this.unlisten = notifier.listen(OUTCOME_CHANNEL, (payload) => {
      const saleId = foreignSignal(payload);
      if (saleId !== undefined) this.outcomeRecorded(saleId);
    });
  }

  /** A document was stored on this branch (called after commit). */
  documentQueued(deviceId: number): void {
    this.queued.emit('queued', deviceId);
  }

  onDocumentQueued(listener: (deviceId: number) => void): () => void {
    this.queued.on('queued', listener);
    return () => this.queued.off('queued', listener);
  }

  /**
   * A document's outcome was committed: by a filer in this process, which hands over the row it
   * recorded (so the waiting request need not read it again), or announced by another process.
   */
  outcomeRecorded(saleId: number, row?: SaleRow): void {
    const now = Date.now();
    this.recent.set(saleId, now);
    if (this.recent.size > 10_000) {
      for (const [id, at] of this.recent) if (now - at > RECENT_MS) this.recent.delete(id);
    }
    const waiting = this.waiters.get(saleId);
    if (!waiting) return;
    this.waiters.delete(saleId);
    for (const wake of waiting) wake(row);
  }

  /**
   * Resolves when the sale's outcome is signalled or after `ms`, whichever comes first: with the
   * recorded row when this process recorded it, else undefined (read the database).
   */
  waitForOutcome(saleId: number, ms: number): Promise<SaleRow | undefined> {
    const at = this.recent.get(saleId);
    if (at !== undefined && Date.now() - at <= RECENT_MS) return Promise.resolve(undefined);
    if (ms <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const set = this.waiters.get(saleId) ?? new Set<(row: SaleRow | undefined) => void>();
      this.waiters.set(saleId, set);
      const done = (row?: SaleRow) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(saleId) === set) this.waiters.delete(saleId);
        resolve(row);
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  close(): void {
    this.unlisten();
    this.queued.removeAllListeners();
  }
}

const byNotifier = new WeakMap<Notifier, SaleSignals>();

/** The signals of this process for the context's database (one per database). */
export function saleSignals(ctx: AppContext): SaleSignals {
  const notifier = ctx.database.notifier;
  let signals = byNotifier.get(notifier);
  if (!signals) {
    signals = new SaleSignals(notifier);
    byNotifier.set(notifier, signals);
  }
  return signals;
}
