// The embedded database's lock across containers: two containers on one volume do not see each
// other's processes (each has its own PID namespace), and a container restarted on the volume
// often gets the pid its killed predecessor had. The lock tells them apart by the holder's PID
// namespace and start time, and by the holder renewing it.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { acquireDataDirLock, DataDirLockedError, LOCK_RENEW_MS, LOCK_STALE_MS, lockFilePath } from '../../src/platform/db/data-dir-lock.ts';
import { eventually } from '../helpers/poll.ts';

const dir = mkdtempSync(join(tmpdir(), 'fg-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A data directory whose lock file holds `holder`, last renewed `ageMs` ago. */
function lockedBy(holder: Record<string, unknown>, ageMs = 0): string {
  const dataDir = join(dir, `data-${++n}`);
  const path = lockFilePath(dataDir);
  writeFileSync(path, JSON.stringify({ command: 'serve', since: new Date().toISOString(), ...holder }));
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return dataDir;
}

const ownRecord = () => {
  const dataDir = join(dir, `own-${++n}`);
  const release = acquireDataDirLock(dataDir, 'serve');
  const record = JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as { pid: number; started: string; pidNamespace: string };
  release();
  return record;
};

describe('the embedded data directory lock', { skip: !existsSync('/proc/self/ns/pid') && 'reads /proc (Linux)' }, () => {
  test('a holder in another PID namespace (another container on the volume) that renews its lock keeps it', () => {
    const dataDir = lockedBy({ pid: 7, pidNamespace: 'pid:[1]', started: '100' }, 1_000);
    assert.throws(
      () => acquireDataDirLock(dataDir, 'serve'),
      (err: unknown) =>
        err instanceof DataDirLockedError &&
        err.holderPid === 7 &&
        /in use by process 7 \(serve\) in another container or PID namespace \(it renewed the lock 1 s ago; a lock not renewed for 20 s is taken over\)/.test(
          err.message,
        ),
    );
    assert.ok(existsSync(lockFilePath(dataDir)), 'the lock is left alone');
  });

  test('a lock from another PID namespace not renewed for LOCK_STALE_MS was left by a killed container: taken over', () => {
    const dataDir = lockedBy({ pid: 7, pidNamespace: 'pid:[1]', started: '100' }, LOCK_STALE_MS + 1_000);
    const release = acquireDataDirLock(dataDir, 'serve');
    assert.equal((JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as { pid: number }).pid, process.pid);
    release();
  });

  test('a lock naming this very pid, but a process that started at another time (a restarted container), is stale', () => {
    const own = ownRecord();
    const dataDir = lockedBy({ pid: process.pid, pidNamespace: own.pidNamespace, started: String(Number(own.started) - 1) });
    const release = acquireDataDirLock(dataDir, 'serve');
    release();
    // … while this process's own live lock is never taken twice.
    const held = join(dir, `held-${++n}`);
    const releaseHeld = acquireDataDirLock(held, 'serve');
    assert.throws(() => acquireDataDirLock(held, 'backup'), DataDirLockedError);
    releaseHeld();
  });

  test('the holder renews its lock while it holds it', { timeout: LOCK_RENEW_MS * 4 }, async () => {
    const dataDir = join(dir, `renewed-${++n}`);
    const release = acquireDataDirLock(dataDir, 'serve');
    try {
      const old = new Date(Date.now() - LOCK_STALE_MS);
      utimesSync(lockFilePath(dataDir), old, old);
      await eventually(
        () => Date.now() - statSync(lockFilePath(dataDir)).mtimeMs < LOCK_STALE_MS / 2,
        'the lock renewed',
        LOCK_RENEW_MS * 3,
      );
    } finally {
      release();
    }
    assert.equal(existsSync(lockFilePath(dataDir)), false, 'released');
  });
});
