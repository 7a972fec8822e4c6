import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { DatabaseAvailability, isDatabaseUnavailable, tagDatabaseError, unavailableReason } from './availability.ts';
import { acquireDataDirLock, lockFilePath } from './data-dir-lock.ts';
import { checkBeforeOpen, checkRelationFiles, damaged, probeWrite, writing, type RelationFile } from './data-dir.ts';
import { migrationProvider } from './migrations/index.ts';
import { LocalNotifier, PostgresNotifier, type Notifier } from './notifier.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { PreparingClient } from './prepared.ts';
import type { DB } from './schema.ts';
import { diskFullError, StorageFloor } from './storage-floor.ts';

type DatabaseKind = 'embedded' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  notifier: Notifier;
  /** Whether the database answers, as the pool's connection attempts find out (PostgreSQL; the embedded one is always up). */
  availability: DatabaseAvailability;
  /** The pg pool behind `db` on PostgreSQL (shared with the rate-limit store). */
  pool: pg.Pool | undefined;
  /**
   * Embedded only: a gzipped tarball of the data directory, taken between transactions after a
   * checkpoint (a consistent copy that needs no recovery), while the database stays open.
   */
  backup: (() => Promise<Blob>) | undefined;
  /** Embedded, opened with `minFreeBytes`: the free-space floor of the data directory's disk (`serve`). */
  storage: StorageFloor | undefined;
  close(): Promise<void>;
}

interface OpenOptions {
  /** PostgreSQL server; absent → embedded. */
  databaseUrl?: string | undefined;
  /** Embedded data directory; absent → in memory (tests). */
  dataDir?: string | undefined;
  /** Embedded: start from this dump (tests load a migrated template). */
  loadDataDir?: Blob | File | undefined;
  /** Who holds the embedded lock, for the message a second process gets. */
  command?: string;
  migrate?: boolean;
  /** Embedded: watch the data directory's disk and refuse writes below this many free bytes (DATA_DIR_MIN_FREE_MB; `serve`). */
  minFreeBytes?: number;
  /** Called before each slow step: creating an embedded database, each migration applied (`migrate` and `serve` print them). */
  onProgress?: (progress: OpenProgress) => void;
  poolSize?: number;
  /**
   * PostgreSQL, migrating: how long to keep trying while the server does not answer yet (a stack
   * started together, a server restarting); 0, the default, fails at once.
   */
  waitForServerMs?: number;
}

/** `serve` and `migrate` at start: a PostgreSQL that is starting, restarting or not yet resolvable gets this long. */
export const SERVER_START_WAIT_MS = 60_000;

/** A slow step of opening a database, as a line to print and its fields (for a log line). */
export interface OpenProgress {
  line: string;
  fields: Record<string, string>;
}

/** A migration about to be applied: the `number`th of the `total` this run applies. */
interface MigrationStep {
  name: string;
  number: number;
  total: number;
}

function migrationProgress(step: MigrationStep): OpenProgress {
  return {
    line: `applying migration ${step.name} (${step.number}/${step.total})`,
    fields: { migration: step.name, step: `${step.number}/${step.total}` },
  };
}

// int8 (counts, invoice numbers) as numbers; numeric (money) stays a string on both engines.
const INT8 = 20;
const NUMERIC = 1700;
pg.types.setTypeParser(INT8, (v) => Number(v));

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const database = options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 10) : await openEmbedded(options);
  if (options.migrate !== false) {
    const onProgress = options.onProgress;
    const deadline = Date.now() + (options.waitForServerMs ?? 0);
    for (let attempt = 0, delayMs = 500; ; attempt++, delayMs = Math.min(delayMs * 2, 4_000)) {
      try {
        await migrateToLatest(database.db, onProgress ? (step) => onProgress(migrationProgress(step)) : undefined);
        break;
      } catch (err) {
        if (database.kind !== 'postgres' || !isDatabaseUnavailable(err) || Date.now() + delayMs > deadline) {
          await database.close();
          throw err;
        }
        // Once per start: the server is not there yet; every later attempt is silent.
        if (attempt === 0) {
          const seconds = Math.round((deadline - Date.now()) / 1000);
          onProgress?.({
            line: `the database does not answer yet (${unavailableReason(err)}): trying again for up to ${seconds} s`,
            fields: { waitingForDatabase: unavailableReason(err) },
          });
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }
  return database;
}

function openPostgres(url: string, poolSize: number): Database {
  // Prepared statements always run a generic plan: theirs are all key lookups, and replanning
  // them for every execution (the default for their first runs) cost as much as running them.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    Client: PreparingClient,
    options: '-c plan_cache_mode=force_generic_plan',
    keepAlive: true,
  });
  const availability = new DatabaseAvailability();
  pool.on('error', () => {}); // an idle client's connection dropped; the pool replaces it
  pool.on('connect', () => availability.connected());
  // Every connection Kysely takes goes through here: a failed attempt is what starts an outage.
  const watched = {
    connect: () =>
      pool.connect().catch((err: unknown) => {
        tagDatabaseError(err, 'connect');
        availability.connectFailed(err);
        throw err;
      }),
    end: () => pool.end(),
  };
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: watched }) });
  const notifier = new PostgresNotifier(url, availability);
  return {
    db,
    kind: 'postgres',
    notifier,
    availability,
    pool,
    backup: undefined,
    storage: undefined,
    async close() {
      await notifier.close();
      await db.destroy();
    },
  };
}

/** The last lines the engine wrote to its standard error: why an open failed (a FATAL or PANIC line). */
function engineLog(): { onStderr: (text: string) => boolean; last: () => string | undefined } {
  const lines: string[] = [];
  return {
    onStderr(text) {
      lines.push(text);
      if (lines.length > 20) lines.shift();
      return true;
    },
    last: () => {
      const said = lines.findLast((line) => /\b(PANIC|FATAL|ERROR):/.test(line));
      return said?.replace(/^.*?\b(PANIC|FATAL|ERROR):\s*/, '');
    },
  };
}

/** Every relation's main file, as the catalogue names it (relative to the data directory). */
async function relationFiles(pglite: PGlite): Promise<RelationFile[]> {
  const { rows } = await pglite.query<RelationFile>(
    `select c.oid::regclass::text as relation, pg_relation_filepath(c.oid) as path
       from pg_class c
      where c.relkind in ('r', 'i', 't', 'S', 'm') and c.relpersistence = 'p' and pg_relation_filepath(c.oid) is not null`,
  );
  return rows;
}

async function openEmbedded(options: OpenOptions): Promise<Database> {
  const dataDir = options.dataDir;
  let release: (() => void) | undefined;
  let holdsDatabase = false;
  if (dataDir) {
    // Before anything is written: a directory that cannot be written or holds a damaged database stops here.
    holdsDatabase = checkBeforeOpen(dataDir).holdsDatabase;
    // The lock (and the key and development files) live beside the directory: make its parent too.
    const parent = dirname(resolve(dataDir));
    writing(dataDir, parent, () => mkdirSync(parent, { recursive: true }));
    release = writing(dataDir, lockFilePath(dataDir), () => acquireDataDirLock(dataDir, options.command ?? 'fiscal-gateway'));
    try {
      // initdb, on a first start: the longest wait of all, said before it starts.
      if (!options.loadDataDir && !holdsDatabase) {
        options.onProgress?.({
          line: `creating the embedded database in ${dataDir} (the first time takes a few seconds)`,
          fields: { dataDir },
        });
      }
      writing(dataDir, dataDir, () => mkdirSync(dataDir, { recursive: true }));
      if (!holdsDatabase) probeWrite(dataDir);
    } catch (err) {
      release();
      throw err;
    }
  }
  let pglite: PGlite;
  let storage: StorageFloor | undefined;
  const engine = engineLog();
  try {
    // Loaded only for the embedded database: the module alone holds ~37 MB a PostgreSQL process never needs.
    const { PGlite } = await import('@electric-sql/pglite');
    const parsers = { [INT8]: (v: string) => Number(v), [NUMERIC]: (v: string) => v };
    try {
      pglite = await PGlite.create({
        ...(dataDir ? { dataDir } : {}),
        ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
        parsers,
        onStderr: engine.onStderr,
      });
    } catch (err) {
      // An existing database the engine cannot open is damaged (a control file, a catalogue, the log): never started on.
      if (dataDir && holdsDatabase) throw damaged(dataDir, `the engine could not open it: ${engine.last() ?? (err as Error).message}`);
      throw err;
    }
    if (dataDir && holdsDatabase) {
      try {
        checkRelationFiles(dataDir, await relationFiles(pglite));
      } catch (err) {
        await pglite.close().catch(() => {});
        throw err;
      }
    }
    if (dataDir && options.minFreeBytes !== undefined) storage = await StorageFloor.watch(dataDir, options.minFreeBytes);
  } catch (err) {
    release?.();
    throw err;
  }
  const diskFull = (err: unknown) => (storage ? storage.diskFull(err) : diskFullError(dataDir ?? 'memory', err));
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite, diskFull) });
  const notifier = new LocalNotifier();
  return {
    db,
    kind: 'embedded',
    notifier,
    availability: new DatabaseAvailability(),
    pool: undefined,
    // The one Kysely connection is the whole session: holding it, no transaction is open and no
    // statement runs until the copy is taken (PGlite's own query lock covers the tar itself).
    backup: () =>
      db.connection().execute(async (conn) => {
        await sql`checkpoint`.execute(conn);
        return pglite.dumpDataDir('gzip');
      }),
    storage,
    async close() {
      storage?.close();
      await notifier.close();
      await db.destroy();
      await pglite.close();
      release?.();
    },
  };
}

export async function migrateToLatest(db: Kysely<DB>, onMigration?: (step: MigrationStep) => void): Promise<string[]> {
  const migrator = new Migrator({ db, provider: onMigration ? await reportingProvider(db, onMigration) : migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The migrations, each announcing itself before it runs, numbered among those not yet applied.
 * (Another process applying them meanwhile, under the migrator's lock, leaves some unannounced.)
 */
async function reportingProvider(db: Kysely<DB>, onMigration: (step: MigrationStep) => void): Promise<MigrationProvider> {
  const pending = (await new Migrator({ db, provider: migrationProvider }).getMigrations())
    .filter((m) => m.executedAt === undefined)
    .map((m) => m.name);
  const migrations = await migrationProvider.getMigrations();
  return {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(migrations).map(([name, migration]): [string, Migration] => [
          name,
          {
            async up(migrating) {
              const index = pending.indexOf(name);
              if (index >= 0) onMigration({ name, number: index + 1, total: pending.length });
              await migration.up(migrating);
            },
          },
        ]),
      ),
  };
}

export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** A unique-constraint violation (SQLSTATE 23505), on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
