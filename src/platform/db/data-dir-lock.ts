import { closeSync, openSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
    readonly holderCommand: string,
    /** Where the holder runs, when it is not a process this one can see (another container). */
    where = '',
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${holderPid} (${holderCommand})${where}. ` +
        'Only one process may open it: stop that process first, or run several processes against PostgreSQL with DATABASE_URL.',
    );
    this.name = 'DataDirLockedError';
  }
}

/** Path of the lock file, beside (not inside) the data directory PGlite owns. */
export function lockFilePath(dataDir: string): string {
  const abs = resolve(dataDir);
  return join(dirname(abs), `.${basename(abs)}.lock`);
}

/** How often a holder renews its lock file's modification time. */
export const LOCK_RENEW_MS = 5_000;
/**
 * A lock written in another PID namespace (another container on the same volume) names a
 * process this one cannot see: it counts as held while it is renewed, and as left by a dead
 * process once it has not been renewed for this long.
 */
export const LOCK_STALE_MS = 20_000;

/** The fields of /proc/PID/stat from the third (the state letter) on, or undefined where there is no /proc. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (second field) may itself hold spaces and parentheses: read after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** When the process started, in clock ticks since boot (field 22): a reused pid has another. */
const startTicks = (pid: number): string | undefined => procStat(pid)?.[19];

/** This process's PID namespace (`pid:[4026531836]`); each container has its own. */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/**
 * A killed process stays a zombie until its parent reaps it (seconds, when the parent is busy),
 * and `kill(pid, 0)` still finds it: a zombie (Z) or dying (X) process holds nothing, so it
 * counts as dead. So does a live process that started after the lock's holder (the pid was
 * reused: in a container restarted on the same volume, the gateway often has the same pid).
 */
function isAlive(pid: number, started: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = procStat(pid);
  if (stat === undefined) return true;
  return stat[0] !== 'Z' && stat[0] !== 'X' && (started === undefined || stat[19] === started);
}

interface LockHolder {
  pid?: number;
  command?: string;
  /** The holder's start time (startTicks) and PID namespace, where /proc says. */
  started?: string;
  pidNamespace?: string;
}

/**
 * Takes the exclusive lock on an embedded data directory (O_EXCL create). A lock left by a
 * dead process is reaped; a live one is never stolen. The holder renews the file's modification
 * time every LOCK_RENEW_MS, which is how a process in another PID namespace (another container
 * on the same volume) tells a live holder from one that was killed. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string, command: string): () => void {
  const path = lockFilePath(dataDir);
  const ownNamespace = pidNamespace();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      const record: LockHolder & { since: string } = {
        pid: process.pid,
        command,
        since: new Date().toISOString(),
        started: startTicks(process.pid),
        pidNamespace: ownNamespace,
      };
      writeSync(fd, JSON.stringify(record));
      closeSync(fd);
      const renew = setInterval(() => {
        const now = new Date();
        try {
          utimesSync(path, now, now);
        } catch {
          /* removed by hand: nothing to renew */
        }
      }, LOCK_RENEW_MS);
      renew.unref();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        try {
          const holder = JSON.parse(readFileSync(path, 'utf8')) as { pid?: number };
          if (holder.pid === process.pid) rmSync(path, { force: true });
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: LockHolder = {};
      let renewedMsAgo = 0;
      try {
        holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
        renewedMsAgo = Date.now() - statSync(path).mtimeMs;
      } catch {
        /* half-written by a process that died at once: treat as stale */
      }
      if (typeof holder.pid === 'number') {
        const holderCommand = holder.command ?? 'unknown command';
        if (holder.pidNamespace !== undefined && ownNamespace !== undefined && holder.pidNamespace !== ownNamespace) {
          if (renewedMsAgo < LOCK_STALE_MS) {
            throw new DataDirLockedError(
              dataDir,
              holder.pid,
              holderCommand,
              ` in another container or PID namespace (it renewed the lock ${Math.max(0, Math.round(renewedMsAgo / 1000))} s ago; a lock not renewed for ${LOCK_STALE_MS / 1000} s is taken over)`,
            );
          }
        } else if (holder.pid === process.pid && (holder.started === undefined || holder.started === startTicks(process.pid))) {
          throw new DataDirLockedError(dataDir, process.pid, holder.command ?? 'this process');
        } else if (holder.pid !== process.pid && isAlive(holder.pid, holder.started)) {
          throw new DataDirLockedError(dataDir, holder.pid, holderCommand);
        }
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
