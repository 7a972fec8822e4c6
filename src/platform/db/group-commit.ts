// Group commit: writes that arrive while a commit is in flight wait for it and then go to the
// database together, as one statement (or one transaction) and one commit, instead of one
// commit each. A batch is taken one turn of the event loop after its first write (no timer):
// the requests read from their sockets in the same turn, and the continuations of one answered
// statement (a grouped lookup's requests reaching their insert), join it instead of the first of
// them going alone. Under load, a batch holds whatever arrived during the previous commit.
//
// With `parallel` above 1, a burst does not queue behind one statement: while a batch is in
// flight, another starts as soon as a full batch (`maxBatch` items) waits, up to `parallel` at
// once. Below a full batch nothing changes: what arrives during a commit waits for it and goes
// together, so a steady load keeps its large groups and few commits.
//
// A batch's outcome is per item: `flush` answers each item (a value or an error of its own), or
// throws, and then every item of the batch gets that error.
//
// A group commit lives as long as the application context that holds it (a context member of
// the module that owns the statement): closing it commits what waits and refuses what comes after.

type ItemResult<O> = { ok: true; value: O } | { ok: false; error: unknown };

interface GroupCommitOptions {
  /** At most this many items in one batch (the rest wait for the next). */
  maxBatch: number;
  /** Batches in flight at once, each but the first only when full (default 1). */
  parallel?: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<I, O> {
  private queue: Array<Waiting<I, O>> = [];
  private inFlight = 0;
  /** A batch is to be taken on the next turn of the event loop. */
  private taking = false;
  private closed = false;
  private drained: Array<() => void> = [];

  constructor(
    /** Writes the items (in arrival order) and answers each, in the same order. */
    private readonly flush: (items: I[]) => Promise<Array<ItemResult<O>>>,
    private readonly options: GroupCommitOptions,
  ) {}

  /** Resolves once the item's batch is committed (or rejects with its own or its batch's error). */
  submit(item: I): Promise<O> {
    if (this.closed) return Promise.reject(new Error('group commit: closed with its context'));
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  /** Refuses new items and resolves once those already submitted are committed (or have failed). */
  close(): Promise<void> {
    this.closed = true;
    if (this.inFlight === 0 && !this.taking && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Items waiting for the commit in flight (tests and metrics). */
  get waiting(): number {
    return this.queue.length;
  }

  private pump(): void {
    if (this.taking) return;
    if (this.queue.length === 0) {
      if (this.inFlight === 0) for (const resolve of this.drained.splice(0)) resolve();
      return;
    }
    const another = this.inFlight < (this.options.parallel ?? 1) && this.queue.length >= this.options.maxBatch;
    if (this.inFlight > 0 && !another) return;
    this.taking = true;
    const take = (): void => {
      this.taking = false;
      const batch = this.queue.splice(0, this.options.maxBatch);
      if (batch.length === 0) return this.pump();
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
      this.pump();
    };
    setImmediate(take);
  }

  private async run(batch: Array<Waiting<I, O>>): Promise<void> {
    let results: Array<ItemResult<O>>;
    try {
      results = await this.flush(batch.map((w) => w.item));
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    batch.forEach((w, i) => {
      const result = results[i];
      if (!result) w.reject(new Error('group commit: no result for an item'));
      else if (result.ok) w.resolve(result.value);
      else w.reject(result.error);
    });
  }
}

/**
 * Group commits of one statement told apart by a key (a notification target, a rate-limit
 * bucket): each built on its first item, all closed together.
 */
export class KeyedGroupCommits<I, O> {
  private readonly byKey = new Map<string, GroupCommit<I, O>>();
  private closed = false;

  of(key: string, create: () => GroupCommit<I, O>): GroupCommit<I, O> {
    let batcher = this.byKey.get(key);
    if (!batcher) {
      this.byKey.set(key, (batcher = create()));
      if (this.closed) void batcher.close();
    }
    return batcher;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.byKey.values()].map((batcher) => batcher.close()));
  }
}

/**
 * An error the database raised while executing a statement that names the data, not the
 * connection or the server: the statement was rolled back for certain, so its items can be
 * retried one by one to find the one it was about. SQLSTATE classes 22 (data exception),
 * 23 (integrity constraint: a reused Idempotency-Key) and 40 (deadlock, serialization).
 */
export function isDataError(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^(22|23|40)[0-9A-Z]{3}$/.test(code);
}

/**
 * Runs a batch with `many`; when it fails for a reason in the data (isDataError), runs each
 * item alone with `one`, in arrival order, so only the item at fault gets the error. Any other
 * failure (the connection, the server) is every item's.
 */
export async function batchOrEach<I, O>(
  items: I[],
  many: (items: I[]) => Promise<O[]>,
  one: (item: I) => Promise<O>,
): Promise<Array<ItemResult<O>>> {
  if (items.length === 1) return [await settle(one(items[0]!))];
  try {
    return (await many(items)).map((value) => ({ ok: true, value }));
  } catch (err) {
    if (!isDataError(err)) throw err;
  }
  const results: Array<ItemResult<O>> = [];
  for (const item of items) results.push(await settle(one(item)));
  return results;
}

async function settle<O>(promise: Promise<O>): Promise<ItemResult<O>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
