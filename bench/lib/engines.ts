// Where a benchmark's gateway keeps its data: a fresh database on the PostgreSQL server, or an
// embedded database directory in a temporary folder. `sql` runs statements directly (bulk
// seeding); on the embedded database only while no gateway holds the directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export type EngineName = 'postgres' | 'embedded';

export interface Engine {
  name: EngineName;
  /** DATABASE_URL or DATA_DIR for the gateway. */
  env: Record<string, string>;
  /** Runs statements in one session, in order; returns the last one's rows. */
  sql(statements: string[]): Promise<Record<string, unknown>[]>;
  dispose(): Promise<void>;
}

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export async function postgresReachable(adminUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return rows[0]?.server_version;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

let databases = 0;

export async function postgresEngine(adminUrl: string): Promise<Engine> {
  const name = `fg_bench_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name: 'postgres',
    env: { DATABASE_URL: url.toString() },
    async sql(statements) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        let rows: Record<string, unknown>[] = [];
        for (const statement of statements) rows = (await client.query(statement)).rows as Record<string, unknown>[];
        return rows;
      } finally {
        await client.end();
      }
    },
    async dispose() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

export function embeddedEngine(): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-'));
  const dataDir = join(dir, 'data');
  return {
    name: 'embedded',
    env: { DATA_DIR: dataDir },
    async sql(statements) {
      const db = await PGlite.create({ dataDir });
      try {
        let rows: Record<string, unknown>[] = [];
        for (const statement of statements) rows = (await db.query<Record<string, unknown>>(statement)).rows;
        return rows;
      } finally {
        await db.close();
      }
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
