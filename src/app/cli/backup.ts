// `fiscal-gateway backup --out FILE` and `fiscal-gateway restore --from FILE`: the embedded
// database's copy and its return (docs/deployment.md, "Backup and retention"; the choice of
// approach is in docs/decisions.md). On PostgreSQL neither copies anything: they print the
// pg_dump / pg_restore commands to use and exit 2.
import {
  closeSync,
  constants,
  copyFileSync,
  createWriteStream,
  existsSync,
  openAsBlob,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Config } from '../../platform/config.ts';
import { SecretBox, developmentKeyFile, findDevelopmentKeyFile, readDevelopmentKey } from '../../credentials/secret-box.ts';
import { recordedKey, recordedWhen, type RecordedKey } from '../../credentials/secret-key.ts';
import { openDatabase } from '../../platform/db/database.ts';
import { DataDirLockedError } from '../../platform/db/data-dir-lock.ts';
import { NotFoundError } from '../../platform/errors/errors.ts';
import { BACKUP_PID_HEADER } from '../backup-routes.ts';
import { UsageError, print } from './output.ts';

const BACKUP_USAGE = 'backup --out FILE [--url URL]';
const RESTORE_USAGE = 'restore --from FILE';

/** A word the shell passes through unchanged: as it is when plain, single-quoted otherwise. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The PostgreSQL commands that do what backup and restore do for the embedded database. A backup's
 * `--out` named like the embedded copy (`.tar.gz`) is renamed `.dump`: pg_dump's custom format is
 * no tarball. A restore's `--from` is a file that exists, named as it is.
 */
export function postgresCommands(file: string, command: 'backup' | 'restore'): { dump: string; restore: string } {
  const f = shellWord(command === 'backup' ? file.replace(/\.(tar\.gz|tgz|tar|gz)$/, '.dump') : file);
  return {
    dump: `pg_dump --format=custom --file=${f} "$DATABASE_URL"`,
    restore: `pg_restore --no-owner --dbname="$DATABASE_URL" ${f}`,
  };
}

function onPostgres(command: 'backup' | 'restore', file: string): UsageError {
  const { dump, restore } = postgresCommands(file, command);
  const lines =
    command === 'backup'
      ? [
          'backup copies the embedded database only; with DATABASE_URL set, back up PostgreSQL with its own tools (nothing was copied):',
          `  ${dump}`,
          'and restore that file into an empty database with:',
          `  ${restore}`,
        ]
      : [
          "restore fills an embedded data directory only; with DATABASE_URL set, restore a pg_dump file with PostgreSQL's own tools (nothing was restored):",
          `  ${restore}`,
          '(into an empty database; the file comes from:',
          `  ${dump} )`,
        ];
  return new UsageError(lines.join('\n'));
}

/** A data directory that holds a database (PGlite keeps PGDATA in it). */
function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/** The running server's own address, as the CLI on its machine reaches it. */
function serverUrl(config: Config): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** Writes `write`'s bytes to `out` through a temporary file beside it: a failed copy never leaves a partial FILE. */
async function writeAtomically(out: string, write: (tmp: string) => Promise<void>): Promise<number> {
  const tmp = `${out}.partial-${process.pid}`;
  try {
    await write(tmp);
    renameSync(tmp, out);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return statSync(out).size;
}

interface BackupResult {
  out: string;
  bytes: number;
  /** online: copied by the running server (its pid); offline: by this command, holding the lock. */
  mode: 'online' | 'offline';
  serverPid?: number;
}

async function backupThroughServer(
  config: Config,
  locked: DataDirLockedError,
  out: string,
  url: string | undefined,
): Promise<BackupResult> {
  const base = (url ?? serverUrl(config)).replace(/\/+$/, '');
  if (!config.adminToken) {
    const refusal = new DataDirLockedError(locked.dataDir, locked.holderPid, locked.holderCommand);
    refusal.message = `the embedded database in ${locked.dataDir} is held by the running gateway (process ${locked.holderPid}); to back it up while it runs, set ADMIN_TOKEN to the server's operator token (the server must run with it), or stop the server first.`;
    throw refusal;
  }
  let response: Response;
  try {
    response = await fetch(`${base}/admin/v1/backup`, { method: 'POST', headers: { authorization: `Bearer ${config.adminToken}` } });
  } catch (err) {
    throw new Error(
      `the embedded database is held by process ${locked.holderPid} (${locked.holderCommand}), but its server does not answer at ${base} (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}); give its address with --url`,
    );
  }
  if (response.status === 401 || response.status === 403)
    throw new Error(`the gateway at ${base} refused ADMIN_TOKEN (${response.status}): use the server's operator token`);
  if (response.status === 404)
    throw new Error(`the gateway at ${base} has no backup endpoint: it runs without ADMIN_TOKEN, or on PostgreSQL, or is an older version`);
  if (!response.ok || !response.body)
    throw new Error(`the gateway at ${base} answered ${response.status} to the backup: ${(await response.text()).slice(0, 300)}`);
  const pid = Number(response.headers.get(BACKUP_PID_HEADER));
  if (pid !== locked.holderPid) {
    await response.body.cancel();
    throw new Error(
      `the gateway at ${base} (process ${Number.isFinite(pid) ? pid : 'unknown'}) is not the one holding ${locked.dataDir} (process ${locked.holderPid}); give that one's address with --url`,
    );
  }
  const body = response.body;
  const bytes = await writeAtomically(out, (tmp) =>
    pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream), createWriteStream(tmp)),
  );
  return { out, bytes, mode: 'online', serverPid: pid };
}

export async function backupCommand(config: Config, args: string[], json: boolean): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { out: { type: 'string' }, url: { type: 'string' } },
  });
  if (!values.out) throw new UsageError(`backup needs --out FILE; usage: fiscal-gateway ${BACKUP_USAGE}`);
  const out = values.out;
  if (config.databaseUrl) throw onPostgres('backup', out);
  if (values.url !== undefined && !/^https?:\/\/[^/]/.test(values.url))
    throw new UsageError(`backup --url takes the running gateway's address, such as http://127.0.0.1:8080, got "${values.url}"`);
  const dataDir = config.dataDir;
  if (!holdsDatabase(dataDir)) throw new NotFoundError(`no embedded database in ${resolve(dataDir)} (DATA_DIR): nothing to back up`);
  let result: BackupResult;
  try {
    // No server: hold the lock ourselves (no process can start on the directory meanwhile).
    const database = await openDatabase({ dataDir, command: 'backup', migrate: false });
    try {
      const tarball = await database.backup!();
      const bytes = await writeAtomically(out, async (tmp) => writeFileSync(tmp, Buffer.from(await tarball.arrayBuffer())));
      result = { out, bytes, mode: 'offline' };
    } finally {
      await database.close();
    }
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    // Only `serve` answers HTTP; another command holding the directory is waited for, not raced.
    if (err.holderCommand !== 'serve') throw err;
    result = await backupThroughServer(config, err, out, values.url);
  }
  const how = result.mode === 'online' ? `online, by the running gateway (process ${result.serverPid})` : 'no server was running';
  print(json, result, `backup of ${resolve(dataDir)} written to ${out} (${result.bytes} bytes; ${how})`);
}

export async function restoreCommand(config: Config, args: string[], json: boolean): Promise<void> {
  const { values } = parseArgs({ args, strict: true, allowPositionals: false, options: { from: { type: 'string' } } });
  if (!values.from) throw new UsageError(`restore needs --from FILE; usage: fiscal-gateway ${RESTORE_USAGE}`);
  const from = values.from;
  if (config.databaseUrl) throw onPostgres('restore', from);
  if (!existsSync(from) || !statSync(from).isFile()) throw new NotFoundError(`no backup file ${from}`);
  const dataDir = config.dataDir;
  const existed = existsSync(dataDir);
  if (existed && (!statSync(dataDir).isDirectory() || readdirSync(dataDir).length > 0)) {
    throw new UsageError(
      `DATA_DIR ${resolve(dataDir)} is not empty: restore only into an empty or new directory (point DATA_DIR at one, or move this one aside)`,
    );
  }
  // A backup is a gzipped tarball: anything else is refused before PGlite is handed it.
  const head = Buffer.alloc(2);
  const fd = openSync(from, 'r');
  try {
    readSync(fd, head, 0, 2, 0);
  } finally {
    closeSync(fd);
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b)
    throw new Error(`${from} could not be restored: it is not a fiscal-gateway backup (not a gzipped tarball)`);
  let documents: number;
  let recorded: RecordedKey | undefined;
  try {
    const database = await openDatabase({
      dataDir,
      command: 'restore',
      migrate: false,
      loadDataDir: await openAsBlob(from, { type: 'application/gzip' }),
    });
    try {
      // A check that the copy opens and holds the gateway's tables; `serve` migrates it if older.
      const row = await sql<{ n: number }>`select count(*)::int as n from sales`.execute(database.db);
      documents = row.rows[0]?.n ?? 0;
      // A copy from before keys were recorded (migration 0031) has no such table: nothing to say about its key.
      recorded = await recordedKey(database.db).catch(() => undefined);
    } finally {
      await database.close();
    }
  } catch (err) {
    // Leave the directory as it was (empty or absent) so that the restore can be run again.
    if (err instanceof DataDirLockedError) throw err;
    if (existed) for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    else rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${from} could not be restored (is it a fiscal-gateway backup?): ${(err as Error).message}`);
  }
  const key = restoredKey(config, recorded);
  print(
    json,
    { from, dataDir: resolve(dataDir), documents, key },
    `restored ${from} into ${resolve(dataDir)} (${documents} documents). ${key.line}; then start the gateway on it: DATA_DIR=${shellWord(dataDir)}${config.secretKey === undefined ? '' : ' SECRET_KEY=…'} fiscal-gateway serve`,
  );
}

/** What `restore` found of the key that sealed the copy's secrets: fits the SECRET_KEY given, copied beside the directory (development), or to find. */
interface RestoredKey {
  state: 'unrecorded' | 'matches' | 'differs' | 'in-place' | 'copied' | 'to-copy';
  /** The development key file that sealed the copy (found beside it, or copied there). */
  file?: string;
  line: string;
}

/**
 * The copy records which key sealed its secrets (a fingerprint). With SECRET_KEY: whether it is
 * that one. In development: the key is a development key file; the one that fits, found in the
 * working directory or beside DATA_DIR, is copied beside the restored directory under its name,
 * so that `serve` finds it (a file there already is never overwritten: the line says what to copy).
 */
function restoredKey(config: Config, recorded: RecordedKey | undefined): RestoredKey {
  if (!recorded)
    return { state: 'unrecorded', line: 'Its secrets are opened by the SECRET_KEY (or development key file) the copy was made with' };
  const when = recordedWhen(recorded);
  if (config.secretKey !== undefined) {
    return new SecretBox(config.secretKey).fingerprint === recorded.fingerprint
      ? { state: 'matches', line: `Its secrets were sealed with this SECRET_KEY (${when}): start the gateway with it` }
      : {
          state: 'differs',
          line: `Its secrets were sealed with another key than this SECRET_KEY (${when}): start the gateway with the SECRET_KEY the copy was made with`,
        };
  }
  const file = developmentKeyFile(config.dataDir);
  const fits = (box: SecretBox) => box.fingerprint === recorded.fingerprint;
  const present = readDevelopmentKey(config.dataDir);
  if (present !== undefined && fits(new SecretBox(present)))
    return { state: 'in-place', file, line: `Its development key file ${file} is in place` };
  const found = findDevelopmentKeyFile(config.dataDir, fits);
  if (present === undefined && found) {
    copyFileSync(found, file, constants.COPYFILE_EXCL);
    return { state: 'copied', file, line: `The development key file that sealed its secrets, ${found}, was copied to ${file}` };
  }
  const copy = found
    ? `cp ${found} ${file}`
    : `copy the development key file of the DATA_DIR the backup was made from (.<name>.secret-key beside that directory) to ${file}`;
  const why =
    present === undefined
      ? 'its secrets were sealed with a key that no development key file here holds'
      : `${file} holds another key than the one that sealed its secrets`;
  return {
    state: 'to-copy',
    ...(found ? { file: found } : {}),
    line: `SECRET_KEY is not set, and ${why} (${when}): ${copy}, or start the gateway with SECRET_KEY set to that key`,
  };
}
