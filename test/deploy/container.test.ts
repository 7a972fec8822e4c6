// The image: the root Dockerfile built with podman and run as an operator runs it. The embedded
// default fiscalises a sale against the built-in simulator and keeps its data on the volume
// across containers; `podman stop` ends it gracefully with a sale in flight; the API and the
// workers images fiscalise and file on PostgreSQL; `certify` passes in it; it runs as a
// non-root user; a production start without SECRET_KEY stops with its one line; compose.yaml is
// valid, and its PostgreSQL stack and its development service come up and serve a sale.
//
// No container registry is reachable here: scripts/container-setup.sh installs podman (Debian's,
// as root, with runc and no default rlimits) and test/deploy/node-standin.sh builds a stand-in
// for node:20-bookworm-slim once per machine; the unchanged Dockerfile is built on it with
// --pull=never. The containers use the host's network, so that they reach the test's PostgreSQL
// and simulator on 127.0.0.1 (compose uses its own network, as it does anywhere). Everything the test
// creates is removed at its end, but the stand-in and podman's layer cache, which make the next
// run fast.
//
// test-database: postgres only (the API and workers images run against the PostgreSQL server of
// TEST_DATABASE_URL, in a database of their own; so it runs once, in CI's PostgreSQL pass)
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { freePort } from '../../bench/lib/processes.ts';
import { TEST_DATABASE_URL } from '../helpers/db.ts';
import { runPrintedCurl, type SaleAnswer } from '../helpers/docs-shell.ts';
import { eventually } from '../helpers/poll.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no shell), with a deadline. */
async function run(
  command: string,
  args: string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Run> {
  const proc = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const [code] = (await once(proc, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

const podman = (args: string[], timeoutMs?: number) => run('podman', args, timeoutMs === undefined ? {} : { timeoutMs });

async function podmanOk(args: string[], timeoutMs?: number): Promise<string> {
  const result = await podman(args, timeoutMs);
  assert.equal(result.code, 0, `podman ${args.join(' ')}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

const suffix = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const IMAGE = `localhost/fiscal-gateway-test:${suffix}`;
/** The stand-in for compose.yaml's postgres image (test/deploy/postgres-standin), kept like the node stand-in. */
const POSTGRES_STANDIN = 'localhost/fiscal-gateway-test-postgres:bookworm';
const created = { containers: new Set<string>(), volumes: new Set<string>(), networks: new Set<string>() };

/** `podman run -d` on the host's network; the container is removed at the end of the test. */
async function startContainer(name: string, env: Record<string, string>, args: string[] = [], extra: string[] = []): Promise<string> {
  const container = `fgt-${name}-${suffix}`;
  created.containers.add(container);
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await podmanOk(['run', '-d', '--name', container, '--network', 'host', ...envArgs, ...extra, IMAGE, ...args]);
  return container;
}

const logsOf = async (container: string) => {
  const result = await podman(['logs', container]);
  return result.stdout + result.stderr;
};

/** The container's log once it holds `pattern`. */
function logOnceItSays(container: string, pattern: RegExp, what: string, timeoutMs = 90_000): Promise<string> {
  return eventually(
    async () => {
      const log = await logsOf(container);
      if (pattern.test(log)) return log;
      const state = (await podmanOk(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', container])).trim();
      if (state.startsWith('exited')) throw new Error(`${container} exited (${state}) before ${what}:\n${log}`);
      return undefined;
    },
    `${container}: ${what}`,
    timeoutMs,
  );
}

async function volume(name: string): Promise<string> {
  const volumeName = `fgt-${name}-${suffix}`;
  created.volumes.add(volumeName);
  await podmanOk(['volume', 'create', volumeName]);
  return volumeName;
}

/** An answer of the API (`{data: …}`) or of the simulator's control API (read through a cast). */
interface Answer {
  status: number;
  body: { data: Record<string, unknown> };
}

async function call(
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Answer['body'] };
}

const SALE = { items: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 2, price: 185 }] };

/** The last line the container logged, as JSON. */
function lastLine(log: string): Record<string, unknown> {
  const lines = log.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

describe('the container image (Dockerfile, podman)', () => {
  const timings: string[] = [];
  before(async () => {
    // The machine's container tools, once; then the stand-in base image, once per machine.
    const setup = await run('bash', ['scripts/container-setup.sh'], { timeoutMs: 600_000 });
    assert.equal(setup.code, 0, setup.stderr);
    let began = Date.now();
    const standin = await run('bash', ['test/deploy/node-standin.sh'], { timeoutMs: 900_000 });
    assert.equal(standin.code, 0, standin.stderr + standin.stdout);
    timings.push(`stand-in ${((Date.now() - began) / 1000).toFixed(1)} s${standin.stdout.trim() ? ' (built)' : ' (cached)'}`);
    began = Date.now();
    // `--format docker`: the OCI format has no HEALTHCHECK (docker build always writes this one).
    await podmanOk(['build', '--pull=never', '--network', 'host', '--format', 'docker', '--quiet', '--tag', IMAGE, '.'], 1_200_000);
    timings.push(`image build ${((Date.now() - began) / 1000).toFixed(1)} s`);
  });

  after(async () => {
    // --volumes: the anonymous /data volume of a container started without one (the PostgreSQL tiers).
    for (const container of created.containers) await podman(['rm', '--force', '--volumes', '--time', '0', container]);
    for (const name of created.volumes) await podman(['volume', 'rm', '--force', name]);
    for (const name of created.networks)
      if ((await podman(['network', 'exists', name])).code === 0) await podman(['network', 'rm', '--force', name]);
    // The tag only: the layers stay as the build cache of the next run.
    await podman(['rmi', IMAGE]);
    console.log(`# container test: ${timings.join(', ')}`);
  });

  test('the image: a non-root user, the version label of package.json, a health check, SIGTERM, lean', async () => {
    const [inspected] = JSON.parse(await podmanOk(['image', 'inspect', IMAGE])) as Array<{
      Size: number;
      Config: {
        User: string;
        Labels: Record<string, string>;
        StopSignal: string;
        Cmd: string[];
        ExposedPorts: Record<string, unknown>;
        Volumes: Record<string, unknown>;
      };
      Healthcheck?: { Test: string[] };
    }>;
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(inspected!.Config.User, 'node');
    assert.equal(inspected!.Config.Labels['org.opencontainers.image.version'], version);
    assert.equal(inspected!.Config.StopSignal, 'SIGTERM');
    assert.deepEqual(inspected!.Config.Cmd, ['serve']);
    assert.deepEqual(Object.keys(inspected!.Config.Volumes), ['/data']);
    assert.deepEqual(Object.keys(inspected!.Config.ExposedPorts), ['8080/tcp']);
    assert.match(inspected!.Healthcheck?.Test.join(' ') ?? '', /\/healthz/);
    timings.push(`image ${(inspected!.Size / 1e6).toFixed(0)} MB`);

    const who = await podman(['run', '--rm', '--no-healthcheck', '--network', 'host', '--entrypoint', 'id', IMAGE, '-u']);
    assert.equal(who.stdout.trim(), '1000', 'the gateway runs as uid 1000 (node), not root');
    const printed = await podman(['run', '--rm', '--no-healthcheck', '--network', 'host', IMAGE, '--version']);
    assert.match(printed.stdout, new RegExp(`^fiscal-gateway ${version.replaceAll('.', '\\.')} `));
    // What the runtime does not read is not in the image: no dev dependencies, no sources.
    const listing = await podman([
      'run',
      '--rm',
      '--no-healthcheck',
      '--network',
      'host',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'ls /app /app/node_modules; ls /app/node_modules/.bin 2>/dev/null',
    ]);
    const names = listing.stdout.split('\n');
    for (const absent of ['src', 'test', 'typescript', 'vite', 'tsx', 'eslint', 'playwright-core', 'kubernetes-models'])
      assert.ok(!names.includes(absent), `${absent} is not in the image`);
    for (const present of ['dist', 'console', 'node_modules', 'package.json', 'fastify', 'pg', '@electric-sql'])
      assert.ok(names.includes(present), `${present} is in the image`);
  });

  test(
    "`certify` in the image passes the authority's checklist: every dependency the runtime reads is there (PDF receipts, Excel and CSV exports), its files on the volume",
    { timeout: 300_000 },
    async () => {
      const data = await volume('certify');
      const certify = await podman(
        [
          'run',
          '--rm',
          '--no-healthcheck',
          '--network',
          'host',
          '--volume',
          `${data}:/data`,
          IMAGE,
          'certify',
          '--out',
          '/data/certification',
        ],
        300_000,
      );
      assert.equal(certify.code, 0, certify.stdout.slice(-3_000) + certify.stderr);
      assert.match(certify.stderr, /✓ 26\. Reports exportable as Excel, CSV and PDF/, 'the PDF, Excel and CSV exports work in the image');
      assert.match(certify.stdout, /PASSED: \/data\/certification\/report\.md and evidence\.json/);
    },
  );

  test('a production start without SECRET_KEY stops with its one line, as the process does', async () => {
    const refused = await podman(['run', '--rm', '--no-healthcheck', '--network', 'host', '-e', 'GATEWAY_ENV=production', IMAGE]);
    assert.equal(refused.code, 3);
    assert.equal(
      refused.stderr,
      'fiscal-gateway: configuration: SECRET_KEY: is required in production (it encrypts readable partner secret keys)\n',
    );
    assert.equal(refused.stdout, '');
  });

  test(
    'the embedded default: a sale against the built-in simulator; `podman stop` with a sale in flight loses nothing; the volume outlives the container',
    { timeout: 600_000 },
    async () => {
      const data = await volume('data');
      const env = {
        PORT: String(await freePort()),
        SIMULATOR_PORT: String(await freePort()),
        SALE_WAIT_MS: '5000',
        ADMIN_TOKEN: 'container-test-operator-token',
      };
      const first = await startContainer('embedded-1', env, [], ['--volume', `${data}:/data`]);
      const started = await logOnceItSays(first, /^\s*curl -sS -X POST[\s\S]*"ready"/m, 'the demo and the ready line');
      assert.match(started, /creating the embedded database in \/data\/db/);
      assert.match(started, /built-in VSDC simulator on http:\/\/127\.0\.0\.1:\d+/);
      // The image's HEALTHCHECK, run once (podman schedules it with systemd timers, absent here).
      assert.equal((await podman(['healthcheck', 'run', first])).code, 0, 'healthy');
      const sale = await runPrintedCurl(started);
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      assert.equal(sale.body.data.status, 'uploaded');

      // The backup docs/deployment.md gives: the CLI in the running container, through its server.
      const backup = await podman(['exec', first, 'fiscal-gateway', 'backup', '--out', '/data/backup.tar.gz']);
      assert.equal(backup.code, 0, backup.stderr);
      assert.match(await podmanOk(['exec', first, 'ls', '-l', '/data/backup.tar.gz']), /^-\S+ 1 node node [1-9]\d* /);

      // A slow VSDC, a sale, and the stop while the sale waits for it.
      const sim = /export .*SIM=(\S+)/.exec(started)![1]!;
      const gateway = /export GATEWAY=(\S+)/.exec(started)![1]!;
      const token = /tenant token:\s+(tt_\S+)/.exec(started)![1]!;
      assert.equal((await call('PUT', `${new URL(sim).origin}/_sim/latency`, undefined, { ms: 2_000 })).status, 200);
      const inFlight = call('POST', `${gateway}/api/v1/sales`, token, SALE, { 'idempotency-key': `stop-${suffix}` });
      await eventually(
        async () =>
          ((await call('GET', `${new URL(sim).origin}/_sim/stats`, undefined)).body as unknown as { inFlight: number }).inFlight > 0,
        'the sale at the VSDC',
      );
      const stopBegan = Date.now();
      const stopped = await podman(['stop', '--time', '30', first], 60_000);
      const stopMs = Date.now() - stopBegan;
      assert.equal(stopped.code, 0, stopped.stderr);
      const answered = await inFlight;
      assert.equal(answered.status, 201, 'the sale in flight is answered, not cut');
      assert.ok(['uploaded', 'pending'].includes((answered.body as unknown as SaleAnswer['body']).data.status));
      const exit = (await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', first])).trim();
      const stopLog = await logsOf(first);
      assert.equal(
        exit,
        '0',
        `a graceful stop (exit 0), not the SIGKILL after the timeout (${stopMs} ms; ${await podmanOk(['inspect', '--format', '{{json .State}}', first])}):\n${stopLog.slice(-3_000)}`,
      );
      const shutDown = lastLine(stopLog);
      assert.equal(shutDown.msg, 'shut down', stopLog.slice(-2_000));
      assert.equal(shutDown.signal, 'SIGTERM', "tini handed podman stop's SIGTERM to the gateway");
      assert.ok(stopMs < 30_000, `stopped in ${stopMs} ms`);
      timings.push(`podman stop with a sale in flight ${(stopMs / 1000).toFixed(1)} s`);
      await podmanOk(['rm', first]);

      // A new container on the same volume: the same database, the same demo, nothing lost.
      const second = await startContainer('embedded-2', env, [], ['--volume', `${data}:/data`]);
      const restarted = await logOnceItSays(second, /^\s*curl -sS -X POST[\s\S]*"ready"/m, 'the demo and the ready line');
      assert.doesNotMatch(restarted, /creating the embedded database/);
      assert.equal(/tenant token:\s+(tt_\S+)/.exec(restarted)?.[1], token, 'the same demo credentials');
      const kept = await call('GET', `${gateway}/api/v1/sales/${sale.body.data.id}`, token);
      assert.equal(kept.status, 200);
      assert.equal(kept.body.data.status, 'uploaded');
      const caught = await eventually(
        async () => {
          const got = await call('GET', `${gateway}/api/v1/sales/${(answered.body as unknown as SaleAnswer['body']).data.id}`, token);
          return got.body.data.status === 'uploaded' ? got : undefined;
        },
        'the sale that was in flight at the stop, uploaded',
        60_000,
      );
      assert.equal(caught.body.data.invoiceNo, sale.body.data.invoiceNo + 1);
      const next = await runPrintedCurl(restarted);
      assert.equal(next.status, 201);
      assert.equal(next.body.data.invoiceNo, sale.body.data.invoiceNo + 2, 'gap-free numbering across containers');
      await podmanOk(['stop', '--time', '30', second], 60_000);
    },
  );

  test(
    'the API and the workers images on PostgreSQL: migrations once, then a sale fiscalised by the API and filed by the workers',
    { timeout: 600_000 },
    async () => {
      const database = `fg_container_${suffix.replace(/\W/g, '_')}`;
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`create database "${database}"`);
      let simulator: Simulator | undefined;
      try {
        const url = new URL(TEST_DATABASE_URL!);
        url.pathname = `/${database}`;
        simulator = await startSimulator({ port: 0 });
        const port = String(await freePort());
        const env = {
          DATABASE_URL: url.toString(),
          GATEWAY_ENV: 'production',
          SECRET_KEY: 'container-test-secret-key-0123456789abcdef',
          ADMIN_TOKEN: 'container-test-operator-token',
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          SMTP_URL: 'smtp://127.0.0.1:1',
        };
        const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
        // What the Kubernetes manifests ask for: a read-only root filesystem.
        const readOnly = ['--read-only'];
        const migrated = await podman(['run', '--rm', '--no-healthcheck', '--network', 'host', ...readOnly, ...envArgs, IMAGE, 'migrate']);
        assert.equal(migrated.code, 0, migrated.stderr);
        assert.match(migrated.stdout, /^migrations applied: \d+\n$/);
        const partner = await podman([
          'run',
          '--rm',
          '--no-healthcheck',
          '--network',
          'host',
          ...readOnly,
          ...envArgs,
          IMAGE,
          'partner',
          'create',
          '--name',
          'Container partner',
          '--json',
        ]);
        assert.equal(partner.code, 0, partner.stderr);
        const partnerKey = (JSON.parse(partner.stdout) as { key: { secret: string } }).key.secret;

        const api = await startContainer('api', { ...env, PORT: port }, ['serve', '--api-only'], readOnly);
        const metricsPort = String(await freePort());
        const workers = await startContainer('workers', { ...env, METRICS_PORT: metricsPort }, ['serve', '--workers-only'], readOnly);
        await logOnceItSays(api, /"msg":"ready"/, 'the API ready');
        await logOnceItSays(workers, /"msg":"workers running"/, 'the workers running');
        const base = `http://127.0.0.1:${port}`;
        assert.equal((await call('GET', `${base}/readyz`, undefined)).status, 200);
        const health = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
        assert.equal(health.status, 200, 'the workers answer /healthz on METRICS_PORT (the HEALTHCHECK and the probes)');
        assert.equal(
          (await podman(['healthcheck', 'run', workers])).code,
          0,
          'the HEALTHCHECK reads METRICS_PORT on a workers-only container',
        );
        const workersMetrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
          headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
        });
        assert.equal(workersMetrics.status, 200);

        const tenant = await call('POST', `${base}/api/v1/tenants`, partnerKey, { name: 'Container merchant', tpin: '2000000001' });
        assert.equal(tenant.status, 201, JSON.stringify(tenant.body));
        const tenantId = tenant.body.data.id as number;
        const device = await call('POST', `${base}/api/v1/tenants/${tenantId}/devices`, partnerKey, {
          deviceSerial: `CONTAINER-${suffix}`,
          branch: '000',
          vsdcBaseUrl: simulator.url,
        });
        assert.equal(device.status, 201, JSON.stringify(device.body));
        const initialised = await call('POST', `${base}/api/v1/tenants/${tenantId}/devices/000/initialize`, partnerKey);
        assert.equal(initialised.status, 200, JSON.stringify(initialised.body));
        const minted = await call('POST', `${base}/api/v1/tenants/${tenantId}/tokens`, partnerKey, { name: 'Till 1' });
        assert.equal(minted.status, 201);
        const token = minted.body.data.token as string;

        // The workers process files it (the API process runs no worker): the VSDC has it, in order.
        const sale = await eventually(
          async () => {
            const answer = await call('POST', `${base}/api/v1/sales`, token, SALE, { 'idempotency-key': `pg-${suffix}` });
            return answer.status === 201 ? answer : undefined;
          },
          'a sale stored (the catalogue synced by the workers)',
          60_000,
        );
        const filed = await eventually(
          async () => {
            const got = await call('GET', `${base}/api/v1/sales/${sale.body.data.id}`, token);
            return got.body.data.status === 'uploaded' ? got : undefined;
          },
          'the sale filed by the workers',
          60_000,
        );
        const atVsdc = await call('GET', `${simulator.origin}/_sim/devices/2000000001/000/documents?filed=true`, undefined);
        assert.deepEqual(
          (atVsdc.body as unknown as { documents: Array<{ cisInvcNo: string }> }).documents.map((d) => d.cisInvcNo),
          [String(filed.body.data.invoiceNo)],
        );

        for (const container of [api, workers]) {
          await podmanOk(['stop', '--time', '30', container], 60_000);
          assert.equal((await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', container])).trim(), '0');
          assert.equal(lastLine(await logsOf(container)).msg, 'shut down');
        }
      } finally {
        await simulator?.close();
        await admin.query(`drop database if exists "${database}" with (force)`);
        await admin.end();
      }
    },
  );

  /**
   * A podman-compose project of compose.yaml (and `overrides`, files written beside it) in a
   * directory of its own, with compose.env from the example; `down` removes its containers with
   * their anonymous volumes (the image's /data), its named volumes and its network.
   */
  function composeProject(name: string, env: Record<string, string>, overrides: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'fg-compose-'));
    const project = `fgt-${name}-${suffix}`;
    copyFileSync('compose.yaml', join(dir, 'compose.yaml'));
    copyFileSync('compose.env.example', join(dir, 'compose.env'));
    for (const [file, text] of Object.entries(overrides)) writeFileSync(join(dir, file), text);
    const files = ['compose.yaml', ...Object.keys(overrides)].flatMap((file) => ['-f', file]);
    created.networks.add(`${project}_default`);
    const compose = (args: string[]) =>
      run('podman-compose', ['-p', project, ...files, ...args], {
        cwd: dir,
        env: { ...process.env, GATEWAY_IMAGE: IMAGE, ...env },
        timeoutMs: 300_000,
      });
    return {
      dir,
      container: (service: string) => `${project}_${service}_1`,
      async up(services: string[]) {
        const up = await compose(['up', '-d', ...services]);
        for (const service of services) created.containers.add(`${project}_${service}_1`);
        assert.equal(up.code, 0, up.stderr + up.stdout);
      },
      async down() {
        const listed = await podman(['ps', '--all', '--filter', `label=io.podman.compose.project=${project}`, '--format', '{{.Names}}']);
        for (const container of listed.stdout.split('\n').filter(Boolean))
          await podman(['rm', '--force', '--volumes', '--time', '0', container]);
        await compose(['down', '-v']);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  test(
    "compose.yaml is valid (Docker Compose's own check), and its PostgreSQL stack comes up under podman-compose and fiscalises a sale that the workers file",
    { timeout: 600_000 },
    async () => {
      // compose.yaml's postgres image cannot be pulled here: a stand-in with its interface, once per machine.
      if ((await podman(['image', 'exists', POSTGRES_STANDIN])).code !== 0) {
        await podmanOk(
          ['build', '--pull=never', '--network', 'host', '--quiet', '--tag', POSTGRES_STANDIN, 'test/deploy/postgres-standin'],
          600_000,
        );
      }
      const port = String(await freePort());
      // A VSDC for the merchant: the simulator, as a service of the project (its network's DNS names it `vsdc`).
      const stack = composeProject(
        'compose-pg',
        { POSTGRES_IMAGE: POSTGRES_STANDIN, GATEWAY_PORT: port },
        {
          'compose.vsdc.yaml':
            'services:\n  vsdc:\n    image: ${GATEWAY_IMAGE}\n    command: ["simulator", "--port", "8089", "--host", "0.0.0.0"]\n',
        },
      );
      try {
        // Docker's own Compose (Debian's docker-compose, no engine needed) validates the file against
        // the Compose schema, every profile included; a broken file fails the same check.
        const valid = await run('docker-compose', ['--profile', 'dev', 'config', '--quiet'], { cwd: stack.dir });
        assert.equal(valid.code, 0, valid.stderr);
        writeFileSync(join(stack.dir, 'broken.yaml'), 'services:\n  api:\n    depends_on:\n      migrate:\n        condition: once\n');
        const broken = await run('docker-compose', ['-f', 'compose.yaml', '-f', 'broken.yaml', 'config', '--quiet'], { cwd: stack.dir });
        assert.notEqual(broken.code, 0, 'the check refuses an invalid file');

        await stack.up(['postgres', 'migrate', 'api', 'workers', 'vsdc']);
        const base = `http://127.0.0.1:${port}`;
        // podman-compose 1.0.3 starts the services in order without waiting for depends_on's
        // conditions: a tier that found no database yet is restarted by its restart policy.
        await eventually(
          async () => (await call('GET', `${base}/readyz`, undefined)).status === 200,
          'the API ready on PostgreSQL',
          120_000,
        );
        const migrate = await podman(['start', '--attach', stack.container('migrate')], 120_000);
        assert.equal(migrate.code, 0, migrate.stderr);
        assert.match(migrate.stdout, /the database is up to date|migrations applied/);
        await logOnceItSays(stack.container('workers'), /"msg":"workers running"/, 'the workers running');

        const partner = await podman([
          'exec',
          stack.container('api'),
          'fiscal-gateway',
          'partner',
          'create',
          '--name',
          'Compose partner',
          '--json',
        ]);
        assert.equal(partner.code, 0, partner.stderr);
        const partnerKey = (JSON.parse(partner.stdout) as { key: { secret: string } }).key.secret;
        const tenant = await call('POST', `${base}/api/v1/tenants`, partnerKey, { name: 'Compose merchant', tpin: '2000000001' });
        assert.equal(tenant.status, 201, JSON.stringify(tenant.body));
        const tenantId = tenant.body.data.id as number;
        assert.equal(
          (
            await call('POST', `${base}/api/v1/tenants/${tenantId}/devices`, partnerKey, {
              deviceSerial: `COMPOSE-${suffix}`,
              branch: '000',
              vsdcBaseUrl: 'http://vsdc:8089',
            })
          ).status,
          201,
        );
        assert.equal((await call('POST', `${base}/api/v1/tenants/${tenantId}/devices/000/initialize`, partnerKey)).status, 200);
        const token = (await call('POST', `${base}/api/v1/tenants/${tenantId}/tokens`, partnerKey, { name: 'Till 1' })).body.data
          .token as string;
        const sale = await eventually(
          async () => {
            const answer = await call('POST', `${base}/api/v1/sales`, token, SALE, { 'idempotency-key': `compose-${suffix}` });
            return answer.status === 201 ? answer : undefined;
          },
          'a sale stored (the catalogue synced by the workers)',
          60_000,
        );
        await eventually(
          async () => (await call('GET', `${base}/api/v1/sales/${sale.body.data.id as number}`, token)).body.data.status === 'uploaded',
          'the sale filed by the workers service',
          60_000,
        );
      } finally {
        await stack.down();
      }
    },
  );

  test("compose.yaml's dev profile: a development gateway whose printed curl fiscalises a sale", { timeout: 600_000 }, async () => {
    const dev = composeProject('compose-dev', { DEV_PORT: String(await freePort()), DEV_SIMULATOR_PORT: String(await freePort()) });
    try {
      // podman-compose 1.0.3 knows no profiles: the service is named.
      await dev.up(['dev']);
      created.volumes.add(`${dev.container('dev').replace(/_dev_1$/, '')}_dev-data`);
      const log = await logOnceItSays(dev.container('dev'), /^\s*curl -sS -X POST[\s\S]*"ready"/m, 'the demo and the ready line');
      const sale = await runPrintedCurl(log);
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      assert.equal(sale.body.data.status, 'uploaded');
    } finally {
      await dev.down();
    }
  });
});
