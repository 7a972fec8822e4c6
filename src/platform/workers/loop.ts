// The one loop every background worker runs on: what wakes it (signals, notify channels, timers),
// its passes (claim work, one pass at a time), the units of work it holds (bounded by the worker),
// and the stop (stop claiming, finish or cut what is in hand, say which). A worker says only what
// is its own: what a pass does, how many units it takes, when it retries.
//
// A stop: no pass starts and no timer fires any more; the wake-ups are unsubscribed; `stopping`
// aborts. The units in hand (and the passes that may still take some) are waited for; after
// `stopGraceMs` (where given) `cut` aborts, so VSDC calls still running are cut and their work is
// left for the next claim. The report counts the units in hand at the stop (with those a pass
// running then still took) and those the worker says were cut.
import { isDatabaseUnavailable } from '../db/availability.ts';
import type { Logger } from '../observability/log.ts';
import type { Worker, WorkerStopReport } from './index.ts';

interface WorkerLoopOptions {
  /** `module.job`; on every line the worker logs. */
  name: string;
  /** The context's logger (`ctx.log`); the loop logs through a child bound to the name. */
  log: Logger;
  /** On stop, units in hand get this long before `cut` aborts; without it they are waited for and never cut. */
  stopGraceMs?: number;
}

interface PassOptions {
  /** One pass; returns how long until the next (from its end), or nothing for `everyMs`. */
  run: () => Promise<number | void>;
  /** Between a pass's end and the next; without it, a pass runs only when run or scheduled. */
  everyMs?: number;
  /** Logged, with the error, when a pass fails. */
  failure: string;
  /** After a failed pass, the next one this long after (default `everyMs`). */
  retryMs?: number;
  /** The pass is the work itself: while it runs it is a unit in hand (the stop report counts it). */
  inHand?: boolean;
  /** A run asked for while the pass runs is dropped (a fixed tick), rather than run once after it. */
  skipWhileRunning?: boolean;
  /** On stop, waited for only after `cut` (its calls are cut as soon as the units in hand are done). */
  waitedAfterCut?: boolean;
}

/** A pass that runs one at a time: started now (`run`) or at a time (`schedule`), never twice at once. */
export interface Pass {
  /** Runs the pass now; if it is running, once more after it (unless `skipWhileRunning`). */
  run(): void;
  /** Runs the pass in `ms`, unless it is already due sooner. */
  schedule(ms: number): void;
}

/**
 * A pass that failed because the database is unreachable runs again after this, doubling up to
 * the most (or sooner, at its own retry): it resumes within seconds of the database's return, and
 * an outage costs each worker one failed connection attempt every few seconds, not a hot loop.
 */
const OUTAGE_RETRY_FIRST_MS = 500;
const OUTAGE_RETRY_MAX_MS = 4_000;

class LoopPass implements Pass {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private again = false;
  private outageRetryMs = OUTAGE_RETRY_FIRST_MS;
  running: Promise<void> | undefined;

  constructor(
    private readonly loop: WorkerLoop,
    readonly options: PassOptions,
  ) {}

  schedule(ms: number): void {
    if (this.loop.stopped) return;
    const at = Date.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.run(), ms);
    this.timer.unref();
  }

  run(): void {
    this.cancel();
    if (this.loop.stopped) return;
    if (this.running) {
      if (!this.options.skipWhileRunning) this.again = true;
      return;
    }
    const { everyMs, retryMs = everyMs } = this.options;
    this.running = this.options
      .run()
      .then(
        (next) => {
          this.outageRetryMs = OUTAGE_RETRY_FIRST_MS;
          return next ?? everyMs;
        },
        (err: unknown) => {
          // Written at debug when the database is away (observability/log.ts): the outage is said once.
          this.loop.log.error({ err }, this.options.failure);
          if (!isDatabaseUnavailable(err)) return retryMs;
          const outageRetryMs = this.outageRetryMs;
          this.outageRetryMs = Math.min(outageRetryMs * 2, OUTAGE_RETRY_MAX_MS);
          return Math.min(retryMs ?? Infinity, outageRetryMs);
        },
      )
      .then((next) => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.schedule(0);
        } else if (next !== undefined) this.schedule(next);
      });
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}

export class WorkerLoop {
  readonly name: string;
  readonly log: Logger;
  private readonly stopGraceMs: number | undefined;
  private readonly stoppingController = new AbortController();
  private readonly cutController = new AbortController();
  private readonly passes: LoopPass[] = [];
  private readonly units = new Map<unknown, Promise<unknown>>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly timeouts = new Set<NodeJS.Timeout>();
  private readonly intervals = new Set<NodeJS.Timeout>();
  private stopped_ = false;
  private stopReport: Promise<WorkerStopReport> | undefined;
  /** Units in hand at the stop, and taken after it by a pass still running. */
  private heldAtStop = 0;
  private cutUnits = 0;

  constructor(options: WorkerLoopOptions) {
    this.name = options.name;
    this.log = options.log.child({ worker: options.name });
    this.stopGraceMs = options.stopGraceMs;
  }

  get stopped(): boolean {
    return this.stopped_;
  }

  /** Aborted when the stop begins: stop taking work (the work in hand decides what that means). */
  get stopping(): AbortSignal {
    return this.stoppingController.signal;
  }

  /** Aborted when the stop's grace has run out (or the stop is done): cut what still runs. */
  get cut(): AbortSignal {
    return this.cutController.signal;
  }

  /** Units of work in hand now. */
  get inHand(): number {
    return this.units.size;
  }

  holds(key: unknown): boolean {
    return this.units.has(key);
  }

  pass(options: PassOptions): Pass {
    const pass = new LoopPass(this, options);
    this.passes.push(pass);
    return pass;
  }

  /** A wake-up source (its unsubscribe): a signal in this process, a notify channel. Unsubscribed at the stop. */
  listen(unsubscribe: () => void): void {
    if (this.stopped_) unsubscribe();
    else this.unsubscribe.push(unsubscribe);
  }

  /**
   * Holds a unit of work (under `key`, e.g. the branch it drains) until it settles, and resolves
   * with it once it is let go. The work logs its own failures: a rejection is passed on.
   */
  hold<T>(work: Promise<T>, key: unknown = work): Promise<T> {
    if (this.stopped_) this.heldAtStop++;
    const held = work.finally(() => this.units.delete(key));
    this.units.set(
      key,
      held.catch(() => {}),
    );
    return held;
  }

  /** A unit in hand was cut by the stop (its call aborted before it answered). */
  countCut(): void {
    this.cutUnits++;
  }

  /** Runs `fn` once in `ms` unless the loop has stopped first; returns what cancels it. */
  after(ms: number, fn: () => void): () => void {
    if (this.stopped_) return () => {};
    const timer = setTimeout(() => {
      this.timeouts.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timeouts.add(timer);
    return () => {
      clearTimeout(timer);
      this.timeouts.delete(timer);
    };
  }

  /** Runs `fn` every `ms` until the stop. `keepsProcessAlive`: the timer is not unref'd. */
  every(ms: number, fn: () => void, options: { keepsProcessAlive?: boolean } = {}): void {
    if (this.stopped_) return;
    const timer = setInterval(fn, ms);
    if (!options.keepsProcessAlive) timer.unref();
    this.intervals.add(timer);
  }

  /** The Worker that starts with `start` (once) and stops this loop. */
  worker(start: () => void): Worker {
    let started = false;
    return {
      name: this.name,
      start: () => {
        if (started || this.stopped_) return;
        started = true;
        start();
      },
      stop: () => this.stop(),
    };
  }

  stop(): Promise<WorkerStopReport> {
    this.stopReport ??= this.stopNow();
    return this.stopReport;
  }

  private async stopNow(): Promise<WorkerStopReport> {
    this.stopped_ = true;
    this.stoppingController.abort();
    for (const off of this.unsubscribe) off();
    for (const pass of this.passes) pass.cancel();
    for (const timer of this.timeouts) clearTimeout(timer);
    for (const timer of this.intervals) clearInterval(timer);
    this.heldAtStop = this.units.size + this.passes.filter((p) => p.options.inHand && p.running).length;
    const grace = this.stopGraceMs === undefined ? undefined : setTimeout(() => this.cutController.abort(), this.stopGraceMs);
    await this.settled((p) => !p.options.waitedAfterCut, true);
    clearTimeout(grace);
    this.cutController.abort();
    await this.settled((p) => !!p.options.waitedAfterCut, false);
    return { inHand: this.heldAtStop, cut: this.cutUnits };
  }

  /** Until the chosen passes (and, with `units`, the units in hand) have all settled. */
  private async settled(which: (pass: LoopPass) => boolean, units: boolean): Promise<void> {
    for (;;) {
      const pending = [...this.passes.filter(which).map((p) => p.running), ...(units ? this.units.values() : [])].filter(
        (p) => p !== undefined,
      );
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }
}

export function workerLoop(options: WorkerLoopOptions): WorkerLoop {
  return new WorkerLoop(options);
}
