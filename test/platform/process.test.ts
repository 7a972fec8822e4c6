// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { lockFilePath } from '../../src/platform/db/data-dir-lock.ts';
import { migrationProvider } from '../../src/platform/db/migrations/index.ts';
import { createTestDatabase, engineName, onPostgres, type TestDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/app.ts';
import { baseEnv, MAIN, runCli, spawnGateway } from '../helpers/process.ts';

// The gateway as operators run it: real processes, real signals, the real database.

describe(`the gateway process (${engineName})`, () => {
  let dir: string;
  let pgDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-process-'));
    if (onPostgres) pgDb = await createTestDatabase({ poolSize: 1 });
    env = baseEnv({
      DATA_DIR: join(dir, 'data'),
      DATABASE_URL: pgDb?.url,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SECRET_KEY: 'process-test-secret-key-0123456789abcdef',
    });
  });
  after(async () => {
    await pgDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const createPartner = (url: string, name: string) =>
    fetch(`${url}/admin/v1/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
  const listPartners = async (url: string) =>
    (
      (await (await fetch(`${url}/admin/v1/partners`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json()) as {
        data: Array<{ name: string }>;
      }
    ).data;

  test('SIGKILL right after a 2xx loses nothing; the restart reaps the stale lock', async () => {
    const first = await spawnGateway(env);
    const names = Array.from({ length: 5 }, (_, i) => `durable-${i}`);
    for (const name of names) assert.equal((await createPartner(first.url, name)).status, 201);
    await first.kill('SIGKILL');
    if (!onPostgres) assert.ok(existsSync(lockFilePath(env.DATA_DIR!)), 'a killed process leaves its lock behind');

    const second = await spawnGateway(env);
    try {
      const stored = (await listPartners(second.url)).map((p) => p.name);
      for (const name of names) assert.ok(stored.includes(name), `${name} survived the crash`);
    } finally {
      await second.kill('SIGTERM');
    }
  });

  test(
    'a restart while the killed process is still a zombie reaps its lock',
    { skip: onPostgres && 'the data-directory lock guards the embedded database only' },
    async () => {
      // `exec sleep` makes sleep the gateway's parent, and sleep never reaps a child: once killed,
      // the gateway stays a zombie (as it does for seconds under a busy supervisor).
      const parent = spawn('sh', ['-c', `"$0" "$1" serve & exec sleep 600`, process.execPath, MAIN], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      parent.stdout.on('data', (d) => (out += d));
      parent.stderr.on('data', (d) => (out += d));
      try {
        await eventually(() => (out.includes('"msg":"ready"') ? true : undefined), `the gateway under sh to be ready (${out})`, 60_000);
        const holder = (JSON.parse(readFileSync(lockFilePath(env.DATA_DIR!), 'utf8')) as { pid: number }).pid;
        process.kill(holder, 'SIGKILL');
        await eventually(
          () => (/\) Z /.test(readFileSync(`/proc/${holder}/stat`, 'utf8')) ? true : undefined),
          `process ${holder} to be a zombie`,
        );

        const restarted = await spawnGateway(env);
        try {
          assert.ok(existsSync(`/proc/${holder}`), 'the killed process was still a zombie when the new one started');
          assert.equal((await listPartners(restarted.url)).length > 0, true);
        } finally {
          await restarted.kill('SIGTERM');
        }
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );

  test('SIGTERM shuts down gracefully: exit 0, the lock released, and a last line with the duration and what was cut', async () => {
    const gw = await spawnGateway(env);
    assert.equal(await gw.kill('SIGTERM'), 0);
    assert.equal(existsSync(lockFilePath(env.DATA_DIR!)), false);
    const lines = gw.output().trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as {
      msg: string;
      level: number;
      ms: unknown;
      requests: unknown;
      workers: Record<string, unknown>;
    };
    assert.equal(last.msg, 'shut down');
    assert.equal(last.level, 30, 'nothing cut: an info line');
    assert.equal(typeof last.ms, 'number');
    assert.deepEqual(last.requests, { inFlight: 0, cut: 0 });
    // Nothing to file or deliver; a polling worker may be in the middle of its (database) round.
    for (const worker of ['filing.file', 'webhooks.deliver']) assert.deepEqual(last.workers[worker], { inHand: 0, cut: 0 }, worker);
    for (const worker of ['imports.pull', 'catalogue.sync', 'customers.register', 'alarms.backlog']) {
      const report = last.workers[worker] as { inHand: number; cut: number };
      assert.equal(typeof report.inHand, 'number', worker);
      assert.equal(report.cut, 0, `${worker}: nothing cut`);
    }
  });

  test('a request in flight at SIGTERM on a keep-alive connection is answered, with `Connection: close`: the client keeping its connection does not hold the stop up', async () => {
    const gw = await spawnGateway(env, ['--api-only']);
    const { hostname, port } = new URL(gw.url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    try {
      // In flight as in the test below (Expect: 100-continue); the client never closes its end.
      const body = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
      socket.write(
        `POST /api/v1/account/signin HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      await eventually(() => answer.startsWith('HTTP/1.1 100 Continue'), '100 Continue');
      const exited = once(gw.proc, 'exit') as Promise<[number | null]>;
      gw.proc.kill('SIGTERM');
      await eventually(() => gw.output().includes('"msg":"shutting down"'), 'the shutdown under way');
      socket.write(body);
      const [code] = await exited;
      assert.equal(code, 0, gw.output());
      assert.match(answer, /\r\nHTTP\/1\.1 401 [^\r]*\r\n/, 'the request in flight was answered');
      assert.match(answer, /\r\nconnection: close\r\n/i);
      const last = JSON.parse(gw.output().trimEnd().split('\n').pop()!) as { msg: string; requests: unknown };
      assert.equal(last.msg, 'shut down');
      assert.deepEqual(last.requests, { inFlight: 1, cut: 0 });
    } finally {
      socket.destroy();
    }
  });

  test('a shutdown that cannot finish within SHUTDOWN_TIMEOUT_MS exits 1, its last line saying what was unfinished', async () => {
    // The API alone: what cannot finish here is a request (workers' stops are the graceful test's).
    const gw = await spawnGateway({ ...env, SHUTDOWN_TIMEOUT_MS: '400' }, ['--api-only']);
    const { hostname, port } = new URL(gw.url);
    const socket = connect(Number(port), hostname);
    try {
      // A request whose body never comes: with Expect, Node answers 100 Continue in the same turn
      // as it hands the request to the app, so once that arrives the request is in flight.
      socket.write(
        `POST /api/v1/account/signin HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`,
      );
      const [continued] = (await once(socket, 'data')) as [Buffer];
      assert.match(continued.toString(), /^HTTP\/1\.1 100 Continue/);
      socket.write('{"email":');
      assert.equal(await gw.kill('SIGTERM'), 1);
    } finally {
      socket.destroy();
    }
    const lines = gw.output().trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as {
      msg: string;
      level: number;
      signal: string;
      ms: number;
      requests: unknown;
      workersUnfinished: unknown;
    };
    assert.match(last.msg, /^shutdown timed out: exiting with requests and worker steps unfinished/);
    assert.equal(last.level, 50, 'an error line');
    assert.equal(last.signal, 'SIGTERM');
    // A timer counts from libuv's cached loop time, which may lag the clock by a few milliseconds.
    assert.ok(last.ms >= 390, `exited after the grace, not before (${last.ms} ms)`);
    assert.deepEqual(last.requests, { inFlight: 1, cut: 1 });
    assert.deepEqual(last.workersUnfinished, []);
  });

  test('a busy PORT stops the start: exit 3, one line naming PORT, the database released', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const res = await runCli(['serve'], { ...env, PORT: String(port) });
      assert.equal(res.code, 3, res.stdout + res.stderr);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, new RegExp(`configuration: PORT: 127\\.0\\.0\\.1:${port} is already in use`));
      assert.equal(existsSync(lockFilePath(env.DATA_DIR!)), false, 'the lock is released');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  test('simulator CLI: a bad option is a usage error (exit 2) and a busy --port a configuration error (exit 3), one line each', async () => {
    const bad = await runCli(['simulator', '--bogus'], env);
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const busy = await runCli(['simulator', '--port', String((holder.address() as AddressInfo).port)], env);
      assert.equal(busy.code, 3, busy.stderr);
      assert.equal(busy.stderr.trim().split('\n').length, 1, busy.stderr);
      assert.match(busy.stderr, /--port: .* is already in use/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  test(
    'a second process on a held embedded data directory stops with a clear message',
    { skip: onPostgres && 'the data-directory lock guards the embedded database only' },
    async () => {
      const holder = await spawnGateway(env);
      try {
        const second = await runCli(['serve'], env);
        assert.equal(second.code, 4);
        assert.match(second.stderr, /in use by process \d+/);
        const cli = await runCli(['partner', 'create', '--name', 'x'], env);
        assert.equal(cli.code, 4);
        assert.match(cli.stderr, /stop that process first/);
      } finally {
        await holder.kill('SIGTERM');
      }
    },
  );

  test('CLI: help, usage errors, configuration errors and --json output with exit codes', async () => {
    const help = await runCli(['--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /partner create/);
    assert.equal((await runCli([], env)).code, 2);
    assert.equal((await runCli(['frobnicate'], env)).code, 2);
    const badPort = await runCli(['migrate'], { ...env, PORT: 'eighty' });
    assert.equal(badPort.code, 3);
    assert.match(badPort.stderr, /PORT/);
    assert.equal((await runCli(['migrate', '--json'], env)).code, 0);

    const created = await runCli(
      ['partner', 'create', '--name', 'Acme POS', '--test', '--scopes', 'tenants:read,tenants:write', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const out = JSON.parse(created.stdout) as { partner: { id: number }; key: { secret: string; scopes: string[]; mode: string } };
    assert.match(out.key.secret, /^sk_test_/);
    assert.deepEqual(out.key.scopes, ['tenants:read', 'tenants:write']);

    assert.equal((await runCli(['partner', 'create', '--name', 'x', '--scopes', 'everything'], env)).code, 2);
    const suspended = await runCli(['partner', 'suspend', String(out.partner.id), '--json'], env);
    assert.equal(JSON.parse(suspended.stdout).status, 'suspended');
    const missing = await runCli(['tenant', 'block', '999999', '--json'], env);
    assert.equal(missing.code, 5);
    assert.equal(JSON.parse(missing.stdout).error.code, 'not_found');
    assert.equal((await runCli(['tenant', 'quota', '1', 'lots'], env)).code, 2);

    const listed = await runCli(['partner', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as Array<{ name: string }>).some((p) => p.name === 'Acme POS'));
    const tenants = await runCli(['tenant', 'list', '--json'], env);
    assert.equal(tenants.code, 0, tenants.stderr);
    assert.ok(Array.isArray(JSON.parse(tenants.stdout)));
    const version = await runCli(['--version', '--json'], env);
    assert.equal(version.code, 0);
    assert.match(JSON.parse(version.stdout).interfaceVersion, /^\d+\.\d+\.\d+$/);
  });

  test('CLI: partner list and tenant list print a header line over aligned columns; --json the resources', async () => {
    const gateway = await spawnGateway(env);
    try {
      const created = (await (await createPartner(gateway.url, 'Lusaka Tills Ltd')).json()) as { data: { key: { secret: string } } };
      for (const [name, tpin] of [
        ['Chilenje Hardware', '1002345678'],
        ['Kabwe Agro Supplies and Hardware', '1002345679'],
      ]) {
        const tenant = await fetch(`${gateway.url}/api/v1/tenants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${created.data.key.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name, tpin }),
        });
        assert.equal(tenant.status, 201, await tenant.text());
      }
    } finally {
      await gateway.kill('SIGTERM');
    }

    const tenants = await runCli(['tenant', 'list'], env);
    assert.equal(tenants.code, 0, tenants.stderr);
    const lines = tenants.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^ID +TPIN +PARTNER +SUBSCRIPTION +STATUS +NAME$/);
    const hardware = lines.find((l) => l.endsWith('Chilenje Hardware'));
    const agro = lines.find((l) => l.endsWith('Kabwe Agro Supplies and Hardware'));
    assert.ok(hardware && agro, tenants.stdout);
    assert.match(
      hardware,
      /^\d+ +1002345678 +Lusaka Tills Ltd \(\d+\) +active +active +Chilenje Hardware$/,
      'the partner by its name, as partner list names it',
    );
    for (const column of ['TPIN', 'PARTNER', 'SUBSCRIPTION', 'STATUS', 'NAME']) {
      const at = lines[0]!.indexOf(column);
      for (const row of [hardware, agro])
        assert.match(row.slice(at - 1, at + 1), /^ \S$/, `${column}: its cells start where its title does:\n${tenants.stdout}`);
    }

    const partners = await runCli(['partner', 'list'], env);
    assert.equal(partners.code, 0, partners.stderr);
    assert.match(partners.stdout.split('\n')[0]!, /^ID +STATUS +NAME$/);
    assert.match(partners.stdout, /\n\d+ +active +Lusaka Tills Ltd\n/);

    const json = await runCli(['tenant', 'list', '--json'], env);
    assert.ok(
      (JSON.parse(json.stdout) as Array<{ name: string; tpin: string }>).some(
        (t) => t.name === 'Chilenje Hardware' && t.tpin === '1002345678',
      ),
    );
  });

  test('a first migrate and a first serve say what they do as they go: creating the embedded database, then each migration, numbered', async () => {
    const names = Object.keys(await migrationProvider.getMigrations()).sort(); // applied in the order of their names
    const progressOf = (lines: string[]) => lines.filter((line) => /^(creating the embedded database|applying migration)/.test(line));
    const expected = (dataDir: string) => [
      ...(onPostgres ? [] : [`creating the embedded database in ${dataDir} (the first time takes a few seconds)`]),
      ...names.map((name, i) => `applying migration ${name} (${i + 1}/${names.length})`),
    ];
    const fresh = async (name: string) => {
      const database = onPostgres ? await createTestDatabase({ migrated: false, poolSize: 1 }) : undefined;
      const dataDir = join(dir, name);
      return { dataDir, database, env: { ...env, DATA_DIR: dataDir, DATABASE_URL: database?.url } };
    };

    const forMigrate = await fresh('first-migrate');
    try {
      const migrated = await runCli(['migrate'], forMigrate.env);
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.deepEqual(progressOf(migrated.stderr.trimEnd().split('\n')), expected(forMigrate.dataDir), 'on standard error, one line each');
      assert.equal(migrated.stdout, `migrations applied: ${names.length}\n`);
      const again = await runCli(['migrate'], forMigrate.env);
      assert.deepEqual(
        [again.code, again.stderr, again.stdout],
        [0, '', 'the database is up to date: no migration to apply\n'],
        'nothing to apply: no progress, and the answer says so',
      );
    } finally {
      await forMigrate.database?.close();
    }

    const forServe = await fresh('first-serve');
    try {
      const gateway = await spawnGateway(forServe.env);
      await gateway.kill('SIGTERM');
      const lines = gateway
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; level: number });
      assert.deepEqual(progressOf(lines.map((line) => line.msg)), expected(forServe.dataDir), 'as info log lines');
      const ready = lines.findIndex((line) => line.msg === 'ready');
      assert.ok(ready > lines.findIndex((line) => line.msg.startsWith(`applying migration ${names.at(-1)}`)), 'before ready');
    } finally {
      await forServe.database?.close();
    }
  });

  test('CLI: stray arguments and unknown flags are usage errors (exit 2, one line, no stack); an unusable database is one line', async () => {
    for (const args of [
      ['partner', 'create', '--name', 'x', 'stray'],
      ['partner', 'suspend', '1', 'extra'],
      ['migrate', '--bogus'],
      ['tenant', 'list', 'extra'],
      ['tenant', 'block', '1', '2'],
      ['serve', '--bogus'],
    ]) {
      const res = await runCli(args, env);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, `${args.join(' ')}: one line, got ${res.stderr}`);
      assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
    }
    const unreachable = await runCli(['partner', 'list'], { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    assert.equal(unreachable.code, 1);
    assert.equal(unreachable.stderr.trim().split('\n').length, 1, unreachable.stderr);
    assert.match(unreachable.stderr, /Check DATABASE_URL/);
    const incomplete = await runCli(['partner', 'list'], { ...env, DATABASE_URL: 'postgres://' });
    assert.equal(incomplete.code, 3, incomplete.stderr);
    assert.equal(
      incomplete.stderr.trim(),
      'fiscal-gateway: configuration: DATABASE_URL: names no host: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE, got "postgres://"',
    );
  });
});
