// Server-side prepared statements for the hot statements on PostgreSQL. A statement whose SQL
// begins with PREPARED is parsed and planned once per connection under a name derived from its
// text, then only bound and executed; for the gateway's larger statements (a sale's insert, a
// filing's outcome) parsing and planning cost more than running them. Everything else runs
// unnamed as before. The embedded database does the same in its session (db/pglite-dialect.ts).
import { createHash } from 'node:crypto';
import { sql, type Compilable, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS, tagDatabaseError } from './availability.ts';
import type { DB } from './schema.ts';

export const PREPARED = '/* prepared */ ';

/** Put first in a hot statement: `sql\`${prepared} select …\``. */
export const prepared: RawBuilder<unknown> = sql.raw(PREPARED);

/**
 * A statement built with Kysely's query builder, run as a hot statement. Its text must not vary
 * with the values (use `= any(array)` rather than `in (…)` over a list), or each length would be
 * prepared apart; plans are generic (database.ts), so check a filtered statement's plan with
 * EXPLAIN for a generic plan before marking it.
 */
export async function runPrepared<R>(db: Kysely<DB>, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  return (await db.executeQuery<R>({ ...compiled, sql: PREPARED + compiled.sql })).rows;
}

const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `fg_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

function rethrowTagged(err: unknown): never {
  tagDatabaseError(err);
  throw err;
}

/**
 * A pg client that runs marked statements as named ones (pg prepares each once per connection).
 * Its connection may end at any moment (a server restart, a failover, a backend terminated): the
 * statement in progress fails with that error and the pool drops the client when it is released.
 * pg also emits the error on the client, and a checked-out client has no listener of the pool's:
 * without this one, that emit would end the process.
 */
export class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    // The pool passes its options here: the timeout bounds opening this connection only (a pool
    // option of the same name would also bound the wait for a busy pool's next free client).
    super(
      typeof config === 'string'
        ? { connectionString: config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS }
        : { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...config },
    );
    this.on('error', () => {});
  }

  override query(...args: unknown[]): never {
    const [text, values] = args;
    const result: unknown =
      typeof text === 'string' && text.startsWith(PREPARED)
        ? super.query({ name: nameOf(text), text, values: values as unknown[] })
        : (super.query as (...a: unknown[]) => unknown)(...args);
    // A statement's promise (Kysely's form): its socket errors are the database's (availability.ts).
    if (result instanceof Promise) return result.catch(rethrowTagged) as never;
    return result as never;
  }
}
