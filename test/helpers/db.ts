import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '../../src/platform/db/database.ts';
import { migrationsFingerprint } from '../../src/platform/db/migrations/index.ts';
import { PGliteDialect } from '../../src/platform/db/pglite-dialect.ts';
import type { DB } from '../../src/platform/db/schema.ts';

/** Set by `.ci/run` (and by hand) to run the database tests against a PostgreSQL server. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const onPostgres = Boolean(TEST_DATABASE_URL);
export const engineName = onPostgres ? 'postgres' : 'embedded';

const fingerprint = createHash('sha256').update(migrationsFingerprint()).digest('hex').slice(0, 12);
const CACHE_DIR = join(process.cwd(), 'node_modules', '.cache', 'fiscal-gateway');

/** The migrated embedded database as a data-directory dump (cached per migration set). */
export async function embeddedTemplate(): Promise<Blob> {
  const path = join(CACHE_DIR, `pglite-template-${fingerprint}.tar.gz`);
  if (!existsSync(path)) {
    const pglite = await PGlite.create();
    const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
    await migrateToLatest(db);
    const dump = await pglite.dumpDataDir('gzip');
    await pglite.close();
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, path);
  }
  return new Blob([readFileSync(path)]);
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A new PostgreSQL database: a copy of the migrated template, or empty with `migrated: false`. */
async function postgresDatabaseUrl(migrated = true): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = TEST_DATABASE_URL!;
  const template = `fg_tpl_${fingerprint}`;
  const name = `fg_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (migrated) {
      await admin.query(`select pg_advisory_lock(hashtext('fiscal-gateway-test-template'))`);
      const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
      if (exists.rowCount === 0) {
        await admin.query(`create database "${template}"`);
        const database = await openDatabase({ databaseUrl: withDatabase(adminUrl, template), poolSize: 1 });
        await database.close();
      }
      await admin.query(`create database "${name}" template "${template}"`);
      await admin.query(`select pg_advisory_unlock(hashtext('fiscal-gateway-test-template'))`);
    } else {
      await admin.query(`create database "${name}"`);
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`).catch(() => {});
      await c.end();
    },
  };
}

export interface TestDatabase {
  database: Database;
  /** PostgreSQL URL of this test's own database (for spawning gateway processes). */
  url: string | undefined;
  close(): Promise<void>;
}

/** A fresh database for one test file, on the engine this run targets: migrated unless `migrated: false`. */
export async function createTestDatabase(options: { poolSize?: number; migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  if (onPostgres) {
    const { url, drop } = await postgresDatabaseUrl(migrated);
    const database = await openDatabase({ databaseUrl: url, poolSize: options.poolSize ?? 10, migrate: migrated });
    return {
      database,
      url,
      async close() {
        await database.close();
        await drop();
      },
    };
  }
  const database = await openDatabase(migrated ? { loadDataDir: await embeddedTemplate() } : { migrate: false });
  return { database, url: undefined, close: () => database.close() };
}

/** A PostgreSQL database for tests that need a real server whatever the run (multi-process). */
export async function createPostgresDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  return onPostgres ? postgresDatabaseUrl() : undefined;
}
