// `serve` in development: the built-in simulator, the demo merchant on an empty database, and a
// printed curl that really fiscalises a sale — on the first start and on every start after.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPostgresDatabaseUrl, createTestDatabase, engineName, type TestDatabase } from '../../helpers/db.ts';
import { runPrintedCurl } from '../../helpers/docs-shell.ts';
import { eventually } from '../../helpers/poll.ts';
import { baseEnv, runCli, spawnGateway, type SpawnedGateway } from '../../helpers/process.ts';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A port held by a real socket (not ours) until `close`; counts the connections it gets. */
async function holdPort(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const printedToken = (output: string) => /tenant token:\s+(tt_\S+)/.exec(output)?.[1];
const printedPartnerKey = (output: string) => /partner key:\s+(sk_\S+)/.exec(output)?.[1];

/** The last line the process wrote, as JSON. */
function lastLogLine(output: string): Record<string, unknown> {
  const lines = output.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

describe(`development start (${engineName})`, () => {
  const children: SpawnedGateway[] = [];
  let testDb: TestDatabase | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'fg-dev-'));
  after(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await testDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an empty database gets a demo merchant on the built-in simulator; every start prints a working curl', async () => {
    testDb = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    const env = baseEnv({
      GATEWAY_ENV: 'development',
      BUILTIN_SIMULATOR: '1',
      SIMULATOR_PORT: String(await freePort()),
      DATA_DIR: join(dir, 'data'),
      DATABASE_URL: testDb?.url,
      SALE_WAIT_MS: '5000',
    });

    const first = await spawnGateway(env);
    children.push(first);
    assert.match(first.output(), /built-in VSDC simulator on http:\/\/127\.0\.0\.1:\d+/);
    const partnerKey = /partner key:\s+(sk_\S+)/.exec(first.output())?.[1];
    assert.ok(partnerKey, first.output());
    const sale = await runPrintedCurl(first.output());
    assert.equal(sale.status, 201);
    assert.equal(sale.body.data.status, 'uploaded');
    const tenants = await fetch(`${first.url}/api/v1/tenants`, { headers: { authorization: `Bearer ${partnerKey}` } });
    assert.equal(tenants.status, 200);
    assert.equal(((await tenants.json()) as { meta: { total: number } }).meta.total, 2, 'the Zambian and the Kenyan demo merchants');
    const kenyan = await runPrintedCurl(first.output(), 'KE_TENANT_TOKEN');
    assert.equal(kenyan.status, 201);
    assert.equal(kenyan.body.data.status, 'uploaded', 'the Kenyan demo device files on the simulator’s KRA OSCU profile');
    assert.equal(await first.kill('SIGTERM'), 0);

    const second = await spawnGateway(env);
    children.push(second);
    assert.equal(/Bearer (\S+?)'/.exec(second.output())?.[1], /Bearer (\S+?)'/.exec(first.output())?.[1], 'the same demo credentials');
    const again = await runPrintedCurl(second.output());
    assert.equal(again.body.data.status, 'uploaded', 'the simulator remembers the demo device across restarts');
    assert.equal(again.body.data.invoiceNo, sale.body.data.invoiceNo + 1);
    const stillOne = await fetch(`${second.url}/api/v1/tenants`, { headers: { authorization: `Bearer ${partnerKey}` } });
    assert.equal(((await stillOne.json()) as { meta: { total: number } }).meta.total, 2, 'not provisioned twice');
    assert.equal(await second.kill('SIGTERM'), 0);
  });

  test(
    'each database gets its own demo: the printed credentials work on the database they were printed for, never another one',
    {
      skip:
        engineName === 'postgres' &&
        'it makes its own embedded and PostgreSQL databases whichever the pass: run once, on the embedded pass',
    },
    async () => {
      const home = mkdtempSync(join(dir, 'switch-'));
      const simulatorPort = await freePort();
      const env = (databaseUrl?: string) =>
        baseEnv({
          GATEWAY_ENV: 'development',
          BUILTIN_SIMULATOR: '1',
          SIMULATOR_PORT: String(simulatorPort),
          DATA_DIR: join(home, 'data'),
          DATABASE_URL: databaseUrl,
          SALE_WAIT_MS: '5000',
        });
      const dropped: Array<() => Promise<void>> = [];
      try {
        /** Starts on `databaseUrl` (embedded without), checks the printed curl and partner key work, stops; the printed token. */
        const startOn = async (databaseUrl: string | undefined, what: string): Promise<string> => {
          const gw = await spawnGateway(env(databaseUrl));
          children.push(gw);
          const sale = await runPrintedCurl(gw.output());
          assert.equal(sale.status, 201, `${what}: the printed curl works\n${gw.output()}`);
          assert.equal(sale.body.data.status, 'uploaded', `${what}: the demo device files on the simulator`);
          const tenants = await fetch(`${gw.url}/api/v1/tenants`, {
            headers: { authorization: `Bearer ${printedPartnerKey(gw.output())}` },
          });
          assert.equal(tenants.status, 200, `${what}: the printed partner key works`);
          assert.equal(await gw.kill('SIGTERM'), 0);
          return printedToken(gw.output())!;
        };

        const embedded = await startOn(undefined, 'the embedded database');
        const postgres = await createPostgresDatabaseUrl();
        if (postgres) {
          dropped.push(postgres.drop);
          const other = (await createPostgresDatabaseUrl())!;
          dropped.push(other.drop);
          // Both are copies of one migrated template: told apart all the same.
          const onB = await startOn(postgres.url, 'PostgreSQL database B');
          assert.notEqual(onB, embedded, 'B gets its own demo, not the embedded database’s');
          const onC = await startOn(other.url, 'PostgreSQL database C');
          assert.notEqual(onC, onB, 'C gets its own demo, not B’s');
          assert.equal(await startOn(postgres.url, 'B again'), onB, 'B prints its own demo again');
        }
        assert.equal(await startOn(undefined, 'the embedded database again'), embedded, 'the embedded database prints its own demo again');

        // The data directory deleted, the files beside it left: a new database, a new demo, and a
        // simulator that does not remember the old database's device.
        rmSync(join(home, 'data'), { recursive: true, force: true });
        assert.notEqual(await startOn(undefined, 'a new embedded database in the same place'), embedded);
      } finally {
        for (const drop of dropped) await drop();
      }
    },
  );

  test(
    'HOST=0.0.0.0 (a container): the built-in simulator listens where the API does, and the demo files to its loopback address',
    { skip: engineName === 'postgres' && 'where the simulator listens does not depend on the engine: run on the embedded pass' },
    async () => {
      const simulatorPort = await freePort();
      const gw = await spawnGateway(
        baseEnv({
          GATEWAY_ENV: 'development',
          BUILTIN_SIMULATOR: '1',
          HOST: '0.0.0.0',
          SIMULATOR_PORT: String(simulatorPort),
          DATA_DIR: join(mkdtempSync(join(dir, 'any-')), 'data'),
          SALE_WAIT_MS: '5000',
        }),
      );
      children.push(gw);
      assert.match(gw.output(), new RegExp(`built-in VSDC simulator on http://127\\.0\\.0\\.1:${simulatorPort} `));
      // 127.0.0.2 reaches only a socket bound to every address (one bound to 127.0.0.1 refuses it).
      const health = await fetch(`http://127.0.0.2:${simulatorPort}/_sim/health`);
      assert.equal(health.status, 200, 'the simulator is reachable from outside the loopback address, as the API is');
      const sale = await runPrintedCurl(gw.output());
      assert.equal(sale.status, 201);
      assert.equal(sale.body.data.status, 'uploaded', 'the demo device files to an address it can connect to');
      assert.equal(await gw.kill('SIGTERM'), 0);
    },
  );

  test(
    'a busy SIMULATOR_PORT stops the development start: exit 3, one line, nothing sent to what holds the port',
    {
      timeout: 120_000,
      skip: engineName === 'postgres' && 'a port check before any worker starts: the same on both engines, run on the embedded pass',
    },
    async () => {
      const holder = await holdPort();
      try {
        const env = baseEnv({
          GATEWAY_ENV: 'development',
          BUILTIN_SIMULATOR: '1',
          SIMULATOR_PORT: String(holder.port),
          DATA_DIR: join(dir, 'busy-simulator', 'data'),
        });
        const run = await runCli(['serve'], env);
        assert.equal(run.code, 3, run.stdout + run.stderr);
        const problem = run.stderr.trim().split('\n');
        assert.equal(problem.length, 1, run.stderr);
        assert.match(problem[0]!, new RegExp(`SIMULATOR_PORT: 127\\.0\\.0\\.1:${holder.port} is already in use.*BUILTIN_SIMULATOR=0`));
        assert.doesNotMatch(
          run.stdout,
          /"msg":"ready"|listening|curl/i,
          'never ready nor listening (the API port had opened), no demo printed',
        );
        assert.equal(holder.connections(), 0, 'nothing was filed to the process that holds the port');
        assert.equal(existsSync(join(dir, 'busy-simulator', '.data.lock')), false, 'the data directory is released');
      } finally {
        await holder.close();
      }
    },
  );

  test(
    'SIGTERM during a VSDC call: the last line says how long the shutdown took and that the call was cut; the next start files the document',
    { timeout: 180_000 },
    async () => {
      const simulatorPort = await freePort();
      const shutdownDb = await createPostgresDatabaseUrl();
      const env = baseEnv({
        GATEWAY_ENV: 'development',
        BUILTIN_SIMULATOR: '1',
        SIMULATOR_PORT: String(simulatorPort),
        DATA_DIR: join(dir, 'shutdown', 'data'),
        DATABASE_URL: shutdownDb?.url,
        SALE_WAIT_MS: '200',
      });
      try {
        const device = `http://127.0.0.1:${simulatorPort}/_sim/devices/2000000001/000`;
        const first = await spawnGateway(env);
        children.push(first);
        // The workers' first calls (catalogue, customs imports, notices, and branches beside the
        // initialisation's own) answered: the held call will be the filing's.
        await eventually(async () => {
          const { calls } = (await (await fetch(`${device}/calls`)).json()) as { calls: Array<{ endpoint: string }> };
          const answered = ['selectItemsClass', 'selectImportItems', 'selectNotices'].every((e) => calls.some((c) => c.endpoint === e));
          return answered && calls.filter((c) => c.endpoint === 'selectBranches').length >= 2 ? true : undefined;
        }, 'the catalogue, import and authority workers to have called the demo device');
        const hold = await fetch(`${device}/faults`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ delayMs: 600_000 }),
        });
        assert.equal(hold.status, 200);
        const sale = await runPrintedCurl(first.output());
        assert.equal(sale.status, 201);
        assert.equal(sale.body.data.status, 'pending');
        await eventually(
          async () => (((await (await fetch(`${device}/held`)).json()) as { held: number }).held > 0 ? true : undefined),
          'the filing call to be held by the simulator',
        );

        assert.equal(await first.kill('SIGTERM'), 0);
        const last = lastLogLine(first.output());
        assert.equal(last.msg, 'shut down', first.output());
        assert.equal(last.signal, 'SIGTERM');
        assert.equal(typeof last.ms, 'number');
        assert.deepEqual(last.requests, { inFlight: 0, cut: 0 });
        const workers = last.workers as Record<string, { inHand: number; cut: number }>;
        assert.deepEqual(workers['filing.file'], { inHand: 1, cut: 1 }, 'the held call was cut after the grace');
        assert.deepEqual(workers['webhooks.deliver'], { inHand: 0, cut: 0 });
        assert.equal(last.level, 40, 'a shutdown that cut something is a warning');

        // The simulator forgets its fault switches on restart: the pending document is filed now.
        const second = await spawnGateway(env);
        children.push(second);
        const token = printedToken(second.output());
        await eventually(async () => {
          const res = await fetch(`${second.url}/api/v1/sales/${sale.body.data.id}`, { headers: { authorization: `Bearer ${token}` } });
          const body = (await res.json()) as { data: { status: string } };
          return body.data.status === 'uploaded' ? true : undefined;
        }, 'the cut document to be filed by the next start');
        assert.equal(await second.kill('SIGTERM'), 0);
      } finally {
        await shutdownDb?.drop();
      }
    },
  );
});
