// test-database: postgres only
// test-runtime: long
// The gateway's own database going away and coming back (docs/deployment.md, "When the database
// goes away"), on a PostgreSQL server of the test's own (bench/lib/pg-cluster.ts) that it stops,
// crashes, restarts, fails over, fills to its connection limit and whose connections it resets:
// - every kind of pool connection meets the end of its connection without an unhandled `error`
//   (a failure here is the process ending: node:test reports the uncaught exception), and each
//   error reads as the database being unavailable;
// - one `serve` (API and workers in one process) under load from several tills with
//   Idempotency-Keys, through every fault in turn: answers during an outage are 503
//   `database_unavailable` with `Retry-After` (never a 500, never a hang), `/healthz` stays 200
//   and `/readyz` says 503; the first sale after each fault is answered within seconds by the same
//   process; nothing lost, doubled or reordered (the soak's checks); one warning line per outage
//   and one line when it ends. The split tiers meet the same faults in test/platform/soak.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { request } from 'undici';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { applyDatabaseFault, DATABASE_FAULTS, startPgCluster, type DatabaseFault, type PgCluster } from '../../bench/lib/pg-cluster.ts';
import { ADMIN_TOKEN } from '../../bench/lib/processes.ts';
import { soakScenario } from '../../bench/scenarios/soak.ts';
import { isDatabaseUnavailable } from '../../src/platform/db/availability.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { mintSecret, PREFIXES } from '../../src/credentials/secret-format.ts';
import { onPostgres } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';

const skip = onPostgres ? false : 'the PostgreSQL pass: set TEST_DATABASE_URL (a server of its own is started either way)';

let cluster: PgCluster | undefined;
let sim: Simulator | undefined;
const workDir = mkdtempSync(join(tmpdir(), 'fg-outage-test-'));

before(async () => {
  if (!onPostgres) return;
  cluster = await startPgCluster({ maxConnections: 40 });
  sim = await startSimulator({ port: 0 });
});
after(async () => {
  await sim?.close();
  await cluster?.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The promise's rejection, which must come (caught from the start: no rejection goes unhandled meanwhile). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail('expected the statement to fail');
}

test(
  'every pool connection survives its end: idle, checked out, in a transaction, mid-statement, LISTEN, a refused connection',
  { skip },
  async () => {
    const c = cluster!;
    await c.createDatabase('clients');
    const database = await openDatabase({ databaseUrl: c.proxyUrl('clients'), poolSize: 4, migrate: false });
    try {
      const { db, notifier, availability } = database;
      // Four idle connections in the pool, and LISTEN on its own.
      await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.05)`.execute(db)));
      const heard: string[] = [];
      let resyncs = 0;
      notifier.listen('fg_outage_test', (payload) => heard.push(payload));
      notifier.onResync(() => resyncs++);
      await eventually(async () => {
        await notifier.notify(db as Kysely<unknown>, 'fg_outage_test', 'before');
        return heard.includes('before');
      }, 'the LISTEN connection hears a notification');

      // A failover: every backend ends while one connection is in a transaction's statement and
      // another is checked out between two statements.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let checkedOutReady!: () => void;
      const checkedOutIsReady = new Promise<void>((resolve) => (checkedOutReady = resolve));
      const checkedOut = rejection(
        db.connection().execute(async (conn) => {
          await sql`select 1`.execute(conn);
          checkedOutReady();
          await held;
          await sql`select 2`.execute(conn);
        }),
      );
      const inTransaction = rejection(
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await sql`select pg_sleep(30)`.execute(trx);
        }),
      );
      await checkedOutIsReady;
      await eventually(
        async () =>
          (
            await c.query<{ n: number }>(
              "select count(*)::int as n from pg_stat_activity where datname = 'clients' and query like '%pg_sleep(30)%' and state = 'active'",
            )
          )[0]!.n === 1,
        'the transaction runs its statement',
      );
      assert.ok((await c.terminate('clients')) >= 3);
      const transactionError = await inTransaction;
      assert.ok(isDatabaseUnavailable(transactionError), `in a transaction: ${String(transactionError)}`);
      release();
      const checkedOutError = await checkedOut;
      assert.ok(isDatabaseUnavailable(checkedOutError), `checked out: ${String(checkedOutError)}`);
      // The pool replaces what died (an idle connection whose end is not read yet may fail one
      // more statement, as unavailable: a request answered 503 and repeated); LISTEN comes back and
      // says notifications may have been missed.
      await eventually(async () => {
        try {
          return (await sql<{ n: number }>`select 3 as n`.execute(db)).rows[0]?.n === 3;
        } catch (err) {
          assert.ok(isDatabaseUnavailable(err), String(err));
          return false;
        }
      }, 'the pool answers again');
      await eventually(() => resyncs >= 1, 'the notifier resyncs after its connection came back');
      await eventually(async () => {
        await notifier.notify(db as Kysely<unknown>, 'fg_outage_test', 'after');
        return heard.includes('after');
      }, 'LISTEN hears notifications again');

      // A connection reset mid-statement (a TCP RST, as a network fault sends).
      const sleeping = rejection(sql`select pg_sleep(30)`.execute(db));
      await eventually(
        async () =>
          (
            await c.query<{ n: number }>(
              "select count(*)::int as n from pg_stat_activity where datname = 'clients' and query like '%pg_sleep(30)%' and state = 'active'",
            )
          )[0]!.n === 1,
        'the statement runs',
      );
      assert.ok(c.resetConnections() >= 1);
      const resetError = await sleeping;
      assert.ok(isDatabaseUnavailable(resetError), `mid-statement reset: ${String(resetError)}`);
      await eventually(
        async () => (await sql<{ n: number }>`select 4 as n`.execute(db)).rows[0]?.n === 4,
        'the pool answers after the reset',
      );

      // The server stopped: statements fail as unavailable and the database is down; started, it answers and is up.
      c.stop('fast');
      try {
        // The first statement may meet an idle connection's end; the next needs a new connection, which fails: down.
        await eventually(async () => {
          const stoppedError = await rejection(sql`select 5`.execute(db));
          assert.ok(isDatabaseUnavailable(stoppedError), `server stopped: ${String(stoppedError)}`);
          return availability.isDown;
        }, 'the database counts as down');
      } finally {
        c.start();
      }
      await eventually(
        async () => (await sql<{ n: number }>`select 6 as n`.execute(db)).rows[0]?.n === 6,
        'the database answers after its start',
      );
      assert.equal(availability.isDown, false);

      // Connections refused (every slot taken): a new connection fails with 53300, as unavailable.
      const fresh = await openDatabase({ databaseUrl: c.proxyUrl('clients'), poolSize: 1, migrate: false });
      try {
        const refusedErrors: unknown[] = [];
        await applyDatabaseFault(c, 'clients', 'refuse-connections', 0, async () => {
          refusedErrors.push(await rejection(sql`select 7`.execute(fresh.db)));
        });
        assert.equal((refusedErrors[0] as { code?: string }).code, '53300');
        assert.ok(isDatabaseUnavailable(refusedErrors[0]));
        assert.equal(fresh.availability.isDown, true);
        await eventually(
          async () => (await sql<{ n: number }>`select 8 as n`.execute(fresh.db)).rows[0]?.n === 8,
          'connections are accepted again',
        );
        assert.equal(fresh.availability.isDown, false);
      } finally {
        await fresh.close();
      }
    } finally {
      await database.close();
    }
  },
);

/** What a request answered while the database was away. */
interface Probe {
  fault: DatabaseFault;
  healthz: number;
  readyz: { status: number; code?: string };
  sale: { status: number; code?: string; retryAfter?: string };
  /** `/metrics`: its status, and what it said of the database. */
  metrics: { status: number; databaseUp: string | undefined };
}

async function answer(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; code?: string; retryAfter?: string }> {
  // Every answer within the request timeout, however long the outage: undici's own deadline here.
  const res = await request(url, { ...init, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const text = await res.body.text();
  const code = /"code":"([a-z_]+)"/.exec(text)?.[1];
  const retryAfter = res.headers['retry-after'];
  return { status: res.statusCode, ...(code ? { code } : {}), ...(typeof retryAfter === 'string' ? { retryAfter } : {}) };
}

async function scrape(api: string): Promise<Probe['metrics']> {
  const res = await request(`${api}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, databaseUp: /^fiscal_gateway_database_up (\d)$/m.exec(text)?.[1] };
}

test(
  'at start, serve and migrate wait for a server that does not answer yet, and say so once; other commands fail at once',
  { skip },
  async () => {
    const c = cluster!;
    await c.createDatabase('starting');
    c.stop('fast');
    let started = false;
    try {
      await assert.rejects(
        openDatabase({ databaseUrl: c.url('starting') }),
        (err: unknown) => isDatabaseUnavailable(err),
        'without a wait (the one-shot commands) the first refusal is the answer',
      );
      const lines: string[] = [];
      const opening = openDatabase({
        databaseUrl: c.url('starting'),
        waitForServerMs: 60_000,
        onProgress: (progress) => lines.push(progress.line),
      });
      const settled = opening.then(
        (database) => ({ database }),
        (err: unknown) => ({ err }),
      );
      await eventually(
        () => lines.some((line) => /^the database does not answer yet \(.+\): trying again for up to \d+ s$/.test(line)),
        'the line that says it waits',
      );
      c.start();
      started = true;
      const outcome = await settled;
      assert.ok('database' in outcome, `it opened once the server answered: ${'err' in outcome ? String(outcome.err) : ''}`);
      try {
        const migrated = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(outcome.database.db);
        assert.ok(migrated.rows[0]!.n > 30, 'and migrated the database');
        assert.equal(lines.filter((line) => line.startsWith('the database does not answer yet')).length, 1, 'one line for the whole wait');
      } finally {
        await outcome.database.close();
      }
    } finally {
      if (!started) c.start();
    }
  },
);

test(
  'one serve through every database fault under load: 503 database_unavailable meanwhile, back within seconds, nothing lost or doubled, one line per outage',
  { skip },
  async (t) => {
    const c = cluster!;
    await c.createDatabase('single');
    const probes: Probe[] = [];
    const recoveries: Array<{ fault: DatabaseFault; ms: number | null }> = [];
    // A tenant token of the right form that names no merchant: its lookup needs the database.
    const unknownToken = mintSecret(PREFIXES.tenantToken);
    const results = await soakScenario({
      root: process.cwd(),
      workDir,
      databaseUrl: c.proxyUrl('single'),
      sim: { url: sim!.url, origin: sim!.origin },
      tpinBase: 3_400_000_000,
      minutes: 1.25,
      merchants: 2,
      branchesPerMerchant: 2,
      clients: 4,
      thinkMs: 20,
      killEverySeconds: 0,
      tiers: 'single',
      faultPhaseSeconds: 6,
      sampleEverySeconds: 2,
      restartWarmupSeconds: 4,
      yesterdayPerBranch: 5,
      webhookFailShare: 0.1,
      drainTimeoutSeconds: 60,
      gatewayEnv: { LOG_LEVEL: 'info' },
      databaseFaults: {
        everySeconds: 10,
        apply: async (fault, gateway) => {
          await applyDatabaseFault(c, 'single', fault, 3_000, async () => {
            probes.push({
              fault,
              healthz: (await answer(`${gateway.api}/healthz`)).status,
              readyz: await answer(`${gateway.api}/readyz`),
              sale: await answer(`${gateway.api}/api/v1/sales`, {
                method: 'POST',
                headers: { authorization: `Bearer ${unknownToken}`, 'content-type': 'application/json' },
                body: JSON.stringify({ items: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 1, price: 185 }] }),
              }),
              metrics: await scrape(gateway.api),
            });
          });
          recoveries.push({ fault, ms: await gateway.sell() });
        },
      },
      build: false,
      log: (line) => t.diagnostic(line),
    });
    const summary = `counts ${JSON.stringify(results.counts)}; probes ${JSON.stringify(probes)}; recoveries ${JSON.stringify(recoveries)}`;
    t.diagnostic(summary);
    assert.deepEqual(results.violations, [], summary);
    assert.ok(results.counts.databaseFaults >= DATABASE_FAULTS.length, summary);
    assert.equal(results.counts.storedDocuments, results.counts.filedDocuments, summary);
    assert.ok(results.counts.databaseUnavailable > 0, summary);

    // While the server was stopped: alive, not ready, every request answered 503 database_unavailable with Retry-After.
    const stopped = probes.find((p) => p.fault === 'stop-start')!;
    // /metrics still answers, saying the database is down (the figures read from it are its last ones, or left out).
    assert.deepEqual(stopped, {
      fault: 'stop-start',
      healthz: 200,
      readyz: { status: 503, code: 'not_ready' },
      sale: { status: 503, code: 'database_unavailable', retryAfter: '5' },
      metrics: { status: 200, databaseUp: '0' },
    });
    // While it refused new connections, the pool's open ones may still serve; a request that needed a new one got the same 503.
    const refused = probes.find((p) => p.fault === 'refuse-connections')!;
    assert.equal(refused.healthz, 200);
    assert.ok(
      refused.sale.status === 401 ||
        (refused.sale.status === 503 && refused.sale.code === 'database_unavailable' && refused.sale.retryAfter === '5'),
      JSON.stringify(refused),
    );
    // After each fault the same process answered a sale within seconds.
    for (const recovery of recoveries)
      assert.ok(recovery.ms !== null && recovery.ms < 15_000, `after ${recovery.fault}: ${JSON.stringify(recovery)}`);

    // The log: one warning when an outage began and one line when it ended; no error line for it.
    const lines = readFileSync(join(workDir, 'soak-api.log'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string } });
    const down = lines.filter((l) => l.msg.startsWith('database unreachable'));
    const up = lines.filter((l) => l.msg.startsWith('database answers again'));
    assert.ok(
      down.length >= 1 && down.length <= results.counts.databaseFaults,
      `${down.length} outage lines for ${results.counts.databaseFaults} faults`,
    );
    assert.equal(up.length, down.length, 'each outage said to end');
    assert.ok(down.every((l) => l.level === 40));
    const noisy = lines.filter((l) => l.level >= 40 && !l.msg.startsWith('database unreachable') && isDatabaseUnavailable(l.err ?? {}));
    assert.deepEqual(noisy, [], 'no other warning or error line about the outage');
    const errors = lines.filter(
      (l) =>
        l.level >= 50 &&
        /ECONNREFUSED|ECONNRESET|terminat|Connection|too many clients|shutting down|starting up/i.test(`${l.msg} ${l.err?.message ?? ''}`),
    );
    assert.deepEqual(errors, [], 'no error line about the database');
  },
);
