import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
    readonly holderCommand: string,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${holderPid} (${holderCommand}). ` +
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

/**
 * The process state letter from /proc (Linux), or undefined where there is no /proc. A field
 * after the command name, which may itself hold spaces and parentheses: read after the last ')'.
 */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/**
 * A killed process stays a zombie until its parent reaps it (seconds, when the parent is busy),
 * and `kill(pid, 0)` still finds it: a zombie (Z) or dying (X) process holds nothing, so it
 * counts as dead.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const state = procState(pid);
  return state !== 'Z' && state !== 'X';
}

/**
 * Takes the exclusive lock on an embedded data directory (O_EXCL create). A lock left by a
 * dead process is reaped; a live one is never stolen. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string, command: string): () => void {
  const path = lockFilePath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, command, since: new Date().toISOString() }));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          const holder = JSON.parse(readFileSync(path, 'utf8')) as { pid?: number };
          if (holder.pid === process.pid) rmSync(path, { force: true });
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid?: number; command?: string } = {};
      try {
        holder = JSON.parse(readFileSync(path, 'utf8')) as typeof holder;
      } catch {
        /* half-written by a process that died at once: treat as stale */
      }
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new DataDirLockedError(dataDir, holder.pid, holder.command ?? 'unknown command');
      }
      if (holder.pid === process.pid) {
        throw new DataDirLockedError(dataDir, process.pid, holder.command ?? 'this process');
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
