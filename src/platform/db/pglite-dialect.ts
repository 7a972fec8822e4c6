import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { PREPARED } from './prepared.ts';
import { isDiskFull } from './storage-floor.ts';

/** What a statement the engine refused for want of disk is thrown as (the data directory's StorageFullError). */
type DiskFull = (err: unknown) => Error;

/**
 * Kysely dialect over one PGlite instance. PGlite is a single session, so connection
 * acquisition is serialised: whoever holds the connection (a transaction from BEGIN to
 * COMMIT, or a single query) owns the session until it releases it.
 */
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGlite,
    private readonly diskFull?: DiskFull,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.diskFull);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private tail: Promise<void> = Promise.resolve();
  private readonly connection: PGliteConnection;

  constructor(pglite: PGlite, diskFull: DiskFull | undefined) {
    this.connection = new PGliteConnection(pglite, diskFull);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => released);
    await previous;
    this.connection.release = release;
    return this.connection;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await (conn as PGliteConnection).exec(`begin${level}`);
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).exec('commit');
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).exec('rollback');
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    const c = conn as PGliteConnection;
    const release = c.release;
    c.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.tail;
  }
}

/** A statement parsed and planned once in the session: its name and its parameters' types. */
interface PreparedStatement {
  name: string;
  parameterTypes: number[];
}

const NO_FS_SYNC = { syncToFs: false } as const;

class PGliteConnection implements DatabaseConnection {
  release: (() => void) | undefined;
  private readonly statements = new Map<string, PreparedStatement>();
  /** Names given so far (a name is never reused, even for a statement whose describe failed). */
  private named = 0;
  constructor(
    private readonly pglite: PGlite,
    private readonly diskFull: DiskFull | undefined,
  ) {}

  /** The engine's disk-full error (rolled back by the engine, which stays usable) as the data directory's own. */
  private failure(err: unknown): unknown {
    return this.diskFull && isDiskFull(err) ? this.diskFull(err) : err;
  }

  async exec(sql: string): Promise<void> {
    try {
      await this.pglite.exec(sql);
    } catch (err) {
      throw this.failure(err);
    }
  }

  /**
   * A hot statement (marked PREPARED, db/prepared.ts) as a named statement of the session: parsed
   * and planned on its first run, then only bound and executed, as on PostgreSQL. PGlite's
   * `query` parses and plans every statement anew, which cost more than running the sale path's
   * large statements. The same protocol messages `query` sends, with a name; the rows are read
   * by PGlite's own parser, and the data directory is synced after it as after `query`.
   */
  private async executePrepared<R>(sql: string, parameters: readonly unknown[]): Promise<{ rows: R[]; affectedRows?: number }> {
    const pglite = this.pglite;
    const { serialize } = protocol;
    return pglite.runExclusive(async () => {
      const messages = [];
      try {
        let statement = this.statements.get(sql);
        if (!statement) {
          const name = `fg_${++this.named}`;
          await pglite.execProtocolStream(serialize.parse({ name, text: sql }), NO_FS_SYNC);
          const parameterTypes = parse.parseDescribeStatementResults(
            await pglite.execProtocolStream(serialize.describe({ type: 'S', name }), NO_FS_SYNC),
          );
          statement = { name, parameterTypes };
          this.statements.set(sql, statement);
        }
        const values = parameters.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serializer = pglite.serializers[statement.parameterTypes[i]!];
          return serializer ? serializer(value) : String(value);
        });
        messages.push(...(await pglite.execProtocolStream(serialize.bind({ statement: statement.name, values }), NO_FS_SYNC)));
        messages.push(...(await pglite.execProtocolStream(serialize.describe({ type: 'P' }), NO_FS_SYNC)));
        messages.push(...(await pglite.execProtocolStream(serialize.execute({}), NO_FS_SYNC)));
      } finally {
        messages.push(...(await pglite.execProtocolStream(serialize.sync(), NO_FS_SYNC)));
      }
      await pglite.syncToFs();
      const [result] = parse.parseResults(messages, pglite.parsers, { rowMode: 'object' });
      return { rows: (result?.rows ?? []) as R[], ...(result?.affectedRows !== undefined ? { affectedRows: result.affectedRows } : {}) };
    });
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    let result: { rows: R[]; affectedRows?: number };
    try {
      result = compiled.sql.startsWith(PREPARED)
        ? await this.executePrepared<R>(compiled.sql, compiled.parameters)
        : await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[], { rowMode: 'object' });
    } catch (err) {
      throw this.failure(err);
    }
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined && compiled.query.kind !== 'SelectQueryNode' ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded database');
  }
}
