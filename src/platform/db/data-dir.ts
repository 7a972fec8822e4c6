// The embedded database's data directory before and after PGlite opens it: one that cannot be
// written, or whose files were damaged, stops the start with one line (exit 7, src/main.ts)
// instead of a stack trace, a hang or — for a directory that lost its PG_VERSION — a fresh
// database created on top of the old files (PGlite runs initdb wherever PG_VERSION is missing).
// What each damage does to the engine, measured: docs/decisions.md, "When the embedded
// database's disk fills, and other local faults".
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The PostgreSQL major version of the embedded engine (PGlite 0.5): a data directory of another one does not open. */
export const EMBEDDED_PG_MAJOR = '18';

/** Why the data directory cannot be used: it cannot be written, or its files are damaged (or another engine's). */
export type DataDirProblem = 'unwritable' | 'damaged';

export class DataDirUnusableError extends Error {
  constructor(
    readonly problem: DataDirProblem,
    message: string,
  ) {
    super(message);
    this.name = 'DataDirUnusableError';
  }
}

/** What to do about a damaged directory: never start on it, restore the last backup beside it. */
function restoreAdvice(dataDir: string): string {
  return `the gateway does not start on it. Move it aside and restore the latest backup into a new directory (DATA_DIR=${dataDir}-restored fiscal-gateway restore --from FILE), then start on that one (docs/deployment.md, "Restoring the embedded database")`;
}

export function damaged(dataDir: string, what: string): DataDirUnusableError {
  const abs = resolve(dataDir);
  return new DataDirUnusableError('damaged', `the embedded database in ${abs} is damaged (${what}): ${restoreAdvice(abs)}`);
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is a file, not a directory',
};

/** A filesystem error of writing at `path` as the one line that says what to fix; undefined for any other error. */
function unwritable(dataDir: string, path: string, err: unknown): DataDirUnusableError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  const reason = code === undefined ? undefined : REASONS[code];
  if (reason === undefined) return undefined;
  const abs = resolve(dataDir);
  return new DataDirUnusableError(
    'unwritable',
    `the embedded database's data directory ${abs} cannot be used: ${path} cannot be written (${reason}, ${code}). The gateway writes in it and beside it (its lock and development key files in ${dirname(abs)}): give the gateway's user write access there, free space, or point DATA_DIR at a writable directory`,
  );
}

/** Runs `write`, turning a filesystem refusal at `path` into the data directory's one line. */
export function writing<T>(dataDir: string, path: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    throw unwritable(dataDir, path, err) ?? err;
  }
}

/**
 * Before the lock and PGlite: refuses a DATA_DIR that is not a directory, a directory that holds
 * files but no database (PG_VERSION missing: PGlite would create a new database over them), one
 * of another PostgreSQL major version, and a database whose files this process cannot write.
 * Returns whether the directory holds a database.
 */
export function checkBeforeOpen(dataDir: string): { holdsDatabase: boolean } {
  const abs = resolve(dataDir);
  if (!existsSync(abs)) return { holdsDatabase: false };
  if (!statSync(abs).isDirectory()) {
    throw new DataDirUnusableError(
      'unwritable',
      `the embedded database's data directory ${abs} is a file, not a directory: point DATA_DIR at a directory (a new one is created)`,
    );
  }
  const versionFile = join(abs, 'PG_VERSION');
  // A mount point's lost+found is the filesystem's, not a sign of an older database.
  const entries = readdirSync(abs).filter((name) => name !== 'lost+found');
  if (!existsSync(versionFile)) {
    if (entries.length === 0) return { holdsDatabase: false };
    throw damaged(
      abs,
      `it holds ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}) but no PG_VERSION, so no database the gateway can open; a new one is never created over them`,
    );
  }
  const version = readFileSync(versionFile, 'utf8').trim();
  if (!/^\d+$/.test(version)) throw damaged(abs, `its PG_VERSION reads "${version.slice(0, 20)}", not a PostgreSQL version`);
  if (version !== EMBEDDED_PG_MAJOR) {
    throw new DataDirUnusableError(
      'damaged',
      `the embedded database in ${abs} was made by PostgreSQL ${version}, and this gateway's embedded engine is PostgreSQL ${EMBEDDED_PG_MAJOR}: a data directory opens only with the major version that made it. Start it with the gateway version that made it`,
    );
  }
  // Write access to what PGlite opens first (root passes any permission, never a read-only mount).
  for (const path of [abs, join(abs, 'global', 'pg_control'), join(abs, 'base'), join(abs, 'pg_wal')]) {
    if (!existsSync(path)) throw damaged(abs, `${path.slice(abs.length + 1)} is missing`);
    writing(abs, path, () => accessSync(path, constants.R_OK | constants.W_OK));
  }
  probeWrite(abs);
  return { holdsDatabase: true };
}

/** Creates and removes a small file in `dir`: a read-only mount, a full disk or a missing permission show here, before any lock is taken. */
export function probeWrite(dir: string): void {
  const probe = join(dir, `.fiscal-gateway-write-probe-${process.pid}`);
  writing(dir, dir, () => {
    const fd = openSync(probe, 'w', 0o600);
    try {
      writeSync(fd, 'x');
    } finally {
      closeSync(fd);
      rmSync(probe, { force: true });
    }
  });
}

/** A relation file of the opened database: where it should be, for which relation. */
export interface RelationFile {
  relation: string;
  path: string;
}

/**
 * After PGlite opened an existing database: every relation's main file is there, whole pages
 * long. A missing or cut file would otherwise surface on its first read, in the middle of a sale.
 */
export function checkRelationFiles(dataDir: string, files: readonly RelationFile[]): void {
  const abs = resolve(dataDir);
  for (const { relation, path } of files) {
    const full = join(abs, path);
    if (!existsSync(full)) throw damaged(abs, `the file ${path} of ${relation} is missing`);
    const size = statSync(full).size;
    if (size % 8192 !== 0) throw damaged(abs, `the file ${path} of ${relation} is cut short (${size} bytes, not whole 8 KB pages)`);
  }
}
