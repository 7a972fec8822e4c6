// A PostgreSQL server of the run's own: a fresh cluster in a temporary directory, on a free port,
// that a test or the soak may stop, restart, crash, refuse connections on and reset the
// connections of — what a failover, a restart or an operator does to a production database —
// without touching the server the rest of the suite shares. Debian's server binaries (the
// postgresql package CI has); as root, the server runs as the `postgres` user, since PostgreSQL
// refuses to run as root. The gateway reaches it through a TCP relay (`proxyUrl`) that can reset
// every connection mid-statement.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgCluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  /** The same database through the relay, whose connections `resetConnections` cuts. */
  proxyUrl(database?: string): string;
  /** Every connection through the relay reset at once (a TCP RST to both ends), as a network fault does. */
  resetConnections(): number;
  createDatabase(name: string): Promise<string>;
  /** `fast` ends every session and checkpoints; `immediate` is a crash (recovery at the next start). */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  restart(mode?: 'fast' | 'immediate'): void;
  /** Terminates the backends of `database` (a failover ends every session), or of one pid. */
  terminate(database: string, which?: { pid: number }): Promise<number>;
  /** Runs one statement as the superuser on `database` (default `postgres`). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], database?: string): Promise<R[]>;
  /** The server's log so far. */
  log(): string;
  close(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) throw new Error("no PostgreSQL server binaries in /usr/lib/postgresql: install Debian's postgresql package");
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no pg_ctl under /usr/lib/postgresql/*/bin');
  return join(root, versions[0]!, 'bin');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A new cluster, started. `maxConnections` is the server's limit (3 of them reserved to superusers). */
export async function startPgCluster(options: { maxConnections?: number } = {}): Promise<PgCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'fg-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const asRoot = userInfo().uid === 0;
  if (asRoot)
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const run = (tool: string, args: string[]) => {
    const command = join(bin, tool);
    return asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' })
      : execFileSync(command, args, { stdio: 'pipe' });
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  // fsync off: the machine does not crash, only the server (an immediate stop); every commit the
  // server acknowledged is in the operating system's cache and survives it (synchronous_commit stays on).
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${options.maxConnections ?? 60}`;
  const ctl = (args: string[]) => run('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', ...args]);
  ctl(['-o', serverOptions, 'start']);
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = [], database = 'postgres'): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url(database) });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };
  const relay = await startRelay(port);
  let running = true;
  return {
    port,
    url,
    proxyUrl: (database = 'postgres') => `postgres://postgres@127.0.0.1:${relay.port}/${database}`,
    resetConnections: () => relay.reset(),
    async createDatabase(name) {
      await query(`create database "${name}"`);
      return url(name);
    },
    stop(mode = 'fast') {
      ctl(['-m', mode, 'stop']);
      running = false;
    },
    start() {
      ctl(['-o', serverOptions, 'start']);
      running = true;
    },
    restart(mode = 'fast') {
      ctl(['-m', mode, '-o', serverOptions, 'restart']);
      running = true;
    },
    async terminate(database, which) {
      // The victims chosen first (offset 0 keeps the planner from calling pg_terminate_backend on other rows).
      const victims = which
        ? 'select pid from pg_stat_activity where pid = $1 offset 0'
        : 'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() offset 0';
      const rows = await query<{ done: boolean }>(`select pg_terminate_backend(pid) as done from (${victims}) victims`, [
        which ? which.pid : database,
      ]);
      return rows.filter((r) => r.done).length;
    },
    query,
    log: () => (existsSync(logFile) ? execFileSync('cat', [logFile]).toString() : ''),
    async close() {
      await relay.close();
      if (running) {
        try {
          ctl(['-m', 'immediate', 'stop']);
        } catch {
          // already stopped
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP relay to the server's port that can reset every connection it carries. */
async function startRelay(target: number): Promise<{ port: number; reset(): number; close(): Promise<void> }> {
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    reset() {
      const n = pairs.size;
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
      return n;
    },
    close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The ways a database goes away that the soak and the outage test apply, in turn. */
export const DATABASE_FAULTS = ['restart', 'stop-start', 'failover', 'one-backend', 'refuse-connections', 'reset'] as const;
export type DatabaseFault = (typeof DATABASE_FAULTS)[number];

/**
 * Applies `fault` to `database` on `cluster`; the faults that leave the database away for a while
 * (`stop-start`, `refuse-connections`) keep it away `outageMs`, calling `during` meanwhile (a test
 * probes the gateway then).
 */
export async function applyDatabaseFault(
  cluster: PgCluster,
  database: string,
  fault: DatabaseFault,
  outageMs: number,
  during: () => Promise<void> = async () => {},
): Promise<void> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  switch (fault) {
    case 'restart':
      cluster.restart('fast');
      return;
    case 'stop-start': {
      cluster.stop('immediate');
      const until = Date.now() + outageMs;
      await during();
      await sleep(Math.max(0, until - Date.now()));
      cluster.start();
      return;
    }
    case 'failover':
      await cluster.terminate(database);
      return;
    case 'one-backend': {
      const [victim] = await cluster.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() order by random() limit 1',
        [database],
      );
      if (victim) await cluster.terminate(database, { pid: victim.pid });
      return;
    }
    case 'refuse-connections': {
      // Every slot taken (the reserved ones too: the gateway connects as a superuser here).
      const held: pg.Client[] = [];
      for (;;) {
        const client = new pg.Client({ connectionString: cluster.url() });
        client.on('error', () => {});
        try {
          await client.connect();
        } catch {
          break;
        }
        held.push(client);
      }
      const until = Date.now() + outageMs;
      await during();
      await sleep(Math.max(0, until - Date.now()));
      await Promise.all(held.map((client) => client.end().catch(() => {})));
      return;
    }
    case 'reset':
      cluster.resetConnections();
      return;
  }
}
