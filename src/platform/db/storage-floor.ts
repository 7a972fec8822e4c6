// The free-space floor of the embedded database's disk (DATA_DIR_MIN_FREE_MB). PGlite cannot
// promise a clean refusal when its disk fills: a table that cannot grow is a clean ERROR
// (SQLSTATE 53100, rolled back, the engine usable), but a write-ahead log segment it cannot
// allocate (16 MB at a time) blocks the event loop for good (measured: docs/decisions.md, "When
// the embedded database's disk fills, and other local faults"). So `serve` stops taking writes
// while the disk has less than the floor free, and takes them again when it has room: the HTTP
// refusal is platform/http/storage-floor.ts, `/readyz` and the log lines and gauges read this.
import { statfs } from 'node:fs/promises';
import { resolve } from 'node:path';

/** How often the free space is read: one statfs a second, never one per write. */
const CHECK_INTERVAL_MS = 1_000;

const MB = 1024 * 1024;

export interface StorageState {
  /** Writes are refused: the disk has less than `minFreeBytes` free. */
  refusing: boolean;
  /** Free bytes on the data directory's filesystem, as this process may use them, at the last read. */
  freeBytes: number;
}

/** The error of a write the engine could not store for want of disk (SQLSTATE 53100 `disk_full`): rolled back, nothing half-written. */
export class StorageFullError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageFullError';
  }
}

async function freeBytesOf(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

const inMb = (bytes: number) => `${Math.floor(bytes / MB)} MB`;

export class StorageFloor {
  readonly dataDir: string;
  private state: StorageState;
  private readonly listeners = new Set<(state: StorageState) => void>();
  private readonly timer: NodeJS.Timeout;
  private reading: Promise<void> | undefined;

  private constructor(
    dataDir: string,
    readonly minFreeBytes: number,
    freeBytes: number,
  ) {
    this.dataDir = resolve(dataDir);
    this.state = { refusing: freeBytes < minFreeBytes, freeBytes };
    this.timer = setInterval(() => void this.check(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** The floor of `dataDir`'s disk, read once now and every second after. */
  static async watch(dataDir: string, minFreeBytes: number): Promise<StorageFloor> {
    return new StorageFloor(dataDir, minFreeBytes, await freeBytesOf(dataDir));
  }

  get refusing(): boolean {
    return this.state.refusing;
  }

  get freeBytes(): number {
    return this.state.freeBytes;
  }

  /** Reads the free space now (after the engine said the disk is full, or on the timer). */
  check(): Promise<void> {
    this.reading ??= freeBytesOf(this.dataDir)
      .then(
        (freeBytes) => this.update(freeBytes),
        () => {}, // the directory vanished or cannot be read: the engine's own errors say so
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Called with the state now (when writes are refused already) and at every change of `refusing`. */
  onChange(listener: (state: StorageState) => void): () => void {
    this.listeners.add(listener);
    if (this.state.refusing) listener(this.state);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    clearInterval(this.timer);
    this.listeners.clear();
  }

  /** Why writes are refused, for the API's answer and `/readyz`: the cause, the directory, what to do. */
  refusal(): string {
    return `Writes are refused: the disk of the embedded database's data directory ${this.dataDir} has ${inMb(this.state.freeBytes)} free, less than DATA_DIR_MIN_FREE_MB (${inMb(this.minFreeBytes)}). Nothing was stored and no invoice number was used. The operator must free space on that disk; writes resume within seconds, without a restart.`;
  }

  /** Why `/readyz` answers 503 while writes are refused: the warning's sentence. */
  notReady(): string {
    const line = this.changeLine(this.state);
    return `${line[0]!.toUpperCase()}${line.slice(1)}.`;
  }

  /** The log line of a change: writes refused (a warning, with what to do), or taken again. */
  changeLine(state: StorageState): string {
    const free = `the disk of the embedded database's data directory ${this.dataDir} has ${inMb(state.freeBytes)} free`;
    return state.refusing
      ? `writes are refused: ${free}, less than DATA_DIR_MIN_FREE_MB (${inMb(this.minFreeBytes)}); reads go on. Free space on that disk: writes resume within seconds, without a restart`
      : `writes are taken again: ${free} (DATA_DIR_MIN_FREE_MB: ${inMb(this.minFreeBytes)})`;
  }

  /** The engine's own disk-full error, as the one the API answers (507 `storage_full`), also making the floor look again now. */
  diskFull(cause: unknown): StorageFullError {
    void this.check();
    return diskFullError(this.dataDir, cause);
  }

  private update(freeBytes: number): void {
    const refusing = freeBytes < this.minFreeBytes;
    const changed = refusing !== this.state.refusing;
    this.state = { refusing, freeBytes };
    if (changed) for (const listener of this.listeners) listener(this.state);
  }
}

export function diskFullError(dataDir: string, cause: unknown): StorageFullError {
  return new StorageFullError(
    `The embedded database could not store this: the disk of its data directory ${resolve(dataDir)} is full. Nothing was stored and no invoice number was used. The operator must free space on that disk; writes resume without a restart.`,
    { cause },
  );
}

/** A write the engine refused for want of disk (SQLSTATE 53100 `disk_full`, e.g. a table that could not grow). */
export function isDiskFull(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '53100';
}
