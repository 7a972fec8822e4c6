// The PostgreSQL notifier's LISTEN connection dropped under it (a restart, a failover, an
// operator's pg_terminate_backend): it connects again and listens on every channel it had.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { sql, type Kysely } from 'kysely';
import { PostgresNotifier } from '../../src/platform/db/notifier.ts';
import { createTestDatabase, onPostgres, TEST_DATABASE_URL, type TestDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';

describe(
  'notifier (postgres)',
  { skip: onPostgres ? false : 'needs PostgreSQL: set TEST_DATABASE_URL (the embedded notifier has no connection to lose)' },
  () => {
    let testDb: TestDatabase;
    before(async () => {
      testDb = await createTestDatabase({ poolSize: 2 });
    });
    after(() => testDb.close());

    /** Backends of this database whose last statement was a LISTEN: the notifier's connection. */
    async function listenerPids(): Promise<number[]> {
      const rows = await sql<{ pid: number }>`
      select pid from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen %'`.execute(testDb.database.db);
      return rows.rows.map((r) => Number(r.pid));
    }

    /** Sends notifications until one reaches the listener (LISTEN itself is asynchronous). */
    async function reaches(received: string[], channel: string, label: string): Promise<void> {
      let n = 0;
      await eventually(
        async () => {
          const payload = `${label}-${++n}`;
          await testDb.database.notifier.notify(testDb.database.db as Kysely<unknown>, channel, payload);
          return received.some((p) => p.startsWith(`${label}-`));
        },
        `a notification (${label}) to reach the listener`,
        15_000,
      );
    }

    test('a LISTEN connection terminated by the server is replaced, and notifications reach the listener again', async () => {
      const { notifier } = testDb.database;
      const wakes: string[] = [];
      const outcomes: string[] = [];
      notifier.listen('fg_test_wake', (payload) => wakes.push(payload));
      notifier.listen('fg_test_outcome', (payload) => outcomes.push(payload));
      await reaches(wakes, 'fg_test_wake', 'before');
      await reaches(outcomes, 'fg_test_outcome', 'before');

      const [dropped, ...others] = await listenerPids();
      assert.ok(dropped !== undefined && others.length === 0, 'one LISTEN connection');
      const terminated = await sql<{ ok: boolean }>`select pg_terminate_backend(${dropped}::int) as ok`.execute(testDb.database.db);
      assert.equal(terminated.rows[0]?.ok, true);

      await reaches(wakes, 'fg_test_wake', 'after');
      await reaches(outcomes, 'fg_test_outcome', 'after');
      const now = await listenerPids();
      assert.equal(now.length, 1);
      assert.notEqual(now[0], dropped, 'a new connection listens');
    });

    test('a server that stays unreachable through several reconnect attempts is listened to again once it is back', async () => {
      // A TCP proxy in front of PostgreSQL: "down" drops every connection, open or new.
      const upstream = new URL(TEST_DATABASE_URL!);
      let down = false;
      let refused = 0;
      const open = new Set<Socket>();
      const proxy = createServer((socket) => {
        if (down) {
          refused += 1;
          socket.destroy();
          return;
        }
        const server = connect(Number(upstream.port || 5432), upstream.hostname);
        open.add(socket);
        socket.on('close', () => open.delete(socket));
        socket.pipe(server).pipe(socket);
        socket.on('error', () => server.destroy());
        server.on('error', () => socket.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxied = new URL(TEST_DATABASE_URL!);
      proxied.hostname = '127.0.0.1';
      proxied.port = String((proxy.address() as AddressInfo).port);
      proxied.pathname = `/${(await sql<{ db: string }>`select current_database() as db`.execute(testDb.database.db)).rows[0]!.db}`;
      const notifier = new PostgresNotifier(proxied.toString());
      try {
        const received: string[] = [];
        notifier.listen('fg_test_deaf', (payload) => received.push(payload));
        await reaches(received, 'fg_test_deaf', 'before');

        down = true;
        for (const socket of open) socket.destroy();
        await eventually(() => refused >= 3, 'three refused reconnect attempts', 20_000);
        down = false;

        await reaches(received, 'fg_test_deaf', 'after');
      } finally {
        await notifier.close();
        proxy.close();
        for (const socket of open) socket.destroy();
      }
    });
  },
);
