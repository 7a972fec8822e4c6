// Per VSDC host caps (VSDC_HOST_CONNECTIONS, VSDC_HOST_RATE): a vendor's shared VSDC serves many
// branches, and a process filing thousands of branches at once must not flood it. A call takes a
// slot of its host (origin) before it is sent and gives it back when its answer is read; calls
// beyond the cap wait in arrival order. The call's own deadline (VSDC_TIMEOUT_MS) starts once it
// has its slot: the wait is ours, not the VSDC's, and must not read as the VSDC timing out.

export interface HostLimits {
  /** Calls in flight at once per host; 0: no cap. */
  connections: number;
  /** Calls started per second per host; 0: no cap. */
  ratePerSecond: number;
}

interface Waiter {
  grant: () => void;
  signal: AbortSignal | undefined;
}

class HostGate {
  inFlight = 0;
  private readonly queue: Waiter[] = [];
  /** The earliest time (performance.now()) the next call may start under the rate cap. */
  private nextStartAt = 0;

  constructor(private readonly limits: HostLimits) {}

  /** Nothing in flight or waiting, and the rate's spacing is behind us: the gate may be forgotten. */
  get disposable(): boolean {
    return this.inFlight === 0 && this.queue.length === 0 && this.nextStartAt <= performance.now();
  }

  /** Resolves with a release function once a slot is free (and the rate allows); rejects when `signal` aborts first. */
  acquire(signal: AbortSignal | undefined): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const slot = async (): Promise<void> => {
        try {
          await this.paced(signal);
        } catch (err) {
          this.release();
          reject(err);
          return;
        }
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.release();
        });
      };
      if (this.limits.connections === 0 || this.inFlight < this.limits.connections) {
        this.inFlight++;
        void slot();
        return;
      }
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          void slot();
        },
        signal,
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortError());
      };
      if (signal?.aborted) return reject(abortError());
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Waits for the rate cap: starts are spaced 1/rate apart (at most rate × T + 1 in any T seconds). */
  private paced(signal: AbortSignal | undefined): Promise<void> {
    if (this.limits.ratePerSecond === 0) return Promise.resolve();
    const now = performance.now();
    const startAt = Math.max(now, this.nextStartAt);
    this.nextStartAt = startAt + 1_000 / this.limits.ratePerSecond;
    const wait = startAt - now;
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError());
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortError());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.ceil(wait));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next)
      next.grant(); // the slot passes on: inFlight stays
    else this.inFlight--;
  }
}

function abortError(): Error {
  const err = new Error('the caller cancelled the call while it waited for a VSDC host slot');
  err.name = 'AbortError';
  return err;
}

/** The gates of every host, made on first use and dropped when idle. */
export class HostLimiter {
  private readonly gates = new Map<string, HostGate>();

  constructor(private readonly limits: HostLimits) {}

  get enabled(): boolean {
    return this.limits.connections > 0 || this.limits.ratePerSecond > 0;
  }

  /** Takes a slot at `origin`; the function it resolves with gives it back (once). */
  async acquire(origin: string, signal?: AbortSignal): Promise<() => void> {
    let gate = this.gates.get(origin);
    if (!gate) this.gates.set(origin, (gate = new HostGate(this.limits)));
    const release = await gate.acquire(signal);
    const held = gate;
    return () => {
      release();
      if (held.disposable && this.gates.get(origin) === held) this.gates.delete(origin);
    };
  }

  /** Calls in flight at `origin` (tests). */
  inFlight(origin: string): number {
    return this.gates.get(origin)?.inFlight ?? 0;
  }
}
