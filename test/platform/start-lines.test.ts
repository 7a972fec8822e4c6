// What a start opens and says (issue 34): METRICS_PORT gives a `--workers-only` process, which
// serves no API, a port with GET /metrics (the filing metrics live in that process); a busy
// METRICS_PORT stops the start with exit 3 and no line claiming to listen; a production start
// without SMTP_URL or PUBLIC_URL warns once, naming them; one whose SMTP_URL does not answer says so
// once, after its ready line (issue 45 §5). Real processes on one database.
// test-database: embedded only (scripts/run-tests.mjs): ports and start lines do not depend on the engine.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { buildApp } from '../../src/app/app.ts';
import { mailWarning } from '../../src/app/server.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { closeContext, createContext } from '../../src/domain/kernel/context.ts';
import { syncCatalogue } from '../../src/domain/kernel/catalogue/service.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { TEST_ADMIN_TOKEN, TEST_SECRET_KEY, bearer, seedMerchant, testConfig } from '../helpers/app.ts';
import { createTestDatabase, embeddedTemplate, engineName, onPostgres, type TestDatabase } from '../helpers/db.ts';
import { saleBody } from '../helpers/harness.ts';
import { eventually } from '../helpers/poll.ts';
import { baseEnv, runCli, spawnGateway, type SpawnedGateway } from '../helpers/process.ts';
import { startTestSmtp } from '../helpers/smtp.ts';

const LISTENING = /listening|"msg":"ready"|workers running/i;

/** The complete JSON lines of an output (a line still being written is left out). */
function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function holdPort(): Promise<{ port: number; close(): Promise<void> }> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return { port: (holder.address() as AddressInfo).port, close: () => new Promise((resolve) => holder.close(() => resolve())) };
}

describe(`the start's ports and lines (${engineName})`, () => {
  let sim: Simulator;
  let dir: string;
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  const children: SpawnedGateway[] = [];

  before(async () => {
    sim = await startSimulator({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'fg-start-lines-'));
    const dataDir = join(dir, 'data');
    // A merchant with an initialised branch and one pending sale, stored without workers: the
    // worker process below files it. Embedded: the directory is released before any child opens it.
    testDb = onPostgres ? await createTestDatabase() : undefined;
    const database = testDb?.database ?? (await openDatabase({ dataDir, loadDataDir: await embeddedTemplate() }));
    const ctx = createContext(testConfig({ dataDir, saleWaitMs: 0 }), database);
    const app = await buildApp(ctx, { logger: false });
    try {
      const merchant = await seedMerchant(ctx);
      const devices = `/api/v1/tenants/${merchant.tenant.id}/devices`;
      const partner = bearer(merchant.partner.secret);
      assert.equal(
        (
          await app.inject({
            method: 'POST',
            url: devices,
            headers: partner,
            payload: { deviceSerial: 'START-1', branch: '000', vsdcBaseUrl: sim.url },
          })
        ).statusCode,
        201,
      );
      assert.equal((await app.inject({ method: 'POST', url: `${devices}/000/initialize`, headers: partner })).statusCode, 200);
      await syncCatalogue(ctx);
      const sale = await app.inject({ method: 'POST', url: '/api/v1/sales', headers: bearer(merchant.token), payload: saleBody() });
      assert.equal(sale.statusCode, 201, sale.body);
      assert.equal(sale.json().data.status, 'pending');
    } finally {
      await app.close();
      await closeContext(ctx);
      if (!testDb) await database.close();
    }
    env = baseEnv({
      GATEWAY_ENV: 'production',
      SECRET_KEY: TEST_SECRET_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATA_DIR: dataDir,
      DATABASE_URL: testDb?.url,
      FILING_RETRY_MS: '50',
    });
  });
  after(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await testDb?.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a --workers-only process with METRICS_PORT serves GET /metrics (ADMIN_TOKEN as on the API) with the filing metrics, and /healthz', async () => {
    const worker = await spawnGateway({ ...env, METRICS_PORT: '0' }, ['--workers-only']);
    children.push(worker);
    const running = await eventually(
      () => logLines(worker.output()).find((line) => line.msg === 'workers running'),
      'the whole start line',
    );
    const metricsUrl = String(running.metrics);
    assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, worker.output());
    assert.doesNotMatch(worker.output(), /Server listening/, 'the start says it once, in its own line');

    const refused = await fetch(metricsUrl);
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), {
      error: { code: 'unauthenticated', message: 'GET /metrics needs Authorization: Bearer <ADMIN_TOKEN>.' },
    });

    // The worker files the pending sale: its VSDC call is counted in this process, and only here.
    const scrape = async () => {
      const res = await fetch(metricsUrl, { headers: bearer(TEST_ADMIN_TOKEN) });
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /text\/plain/);
      return res.text();
    };
    const text = await eventually(async () => {
      const body = await scrape();
      return /fiscal_gateway_vsdc_calls_total\{endpoint="saveSales",outcome="ok"\} 1\n/.test(body) ? body : undefined;
    }, 'the worker to file the sale and count the call');
    assert.match(text, /fiscal_gateway_vsdc_call_duration_seconds_count\{endpoint="saveSales"\} 1\n/);
    assert.match(text, /fiscal_gateway_documents\{status="(pending|uploaded)"\} 1\n/);
    assert.match(text, /fiscal_gateway_webhook_deliveries\{status="pending"\} \d+/);
    assert.match(text, /fiscal_gateway_process_process_resident_memory_bytes \d+/);

    const origin = new URL(metricsUrl).origin;
    const health = await fetch(`${origin}/healthz`);
    assert.deepEqual([health.status, await health.json()], [200, { status: 'ok' }]);
    const elsewhere = await fetch(`${origin}/api/v1/me`, { headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(elsewhere.status, 404, 'only /metrics and /healthz');
    assert.deepEqual(await elsewhere.json(), { message: 'The route GET /api/v1/me does not exist.' }, "the API's 404 shape");

    assert.equal(await worker.kill('SIGTERM'), 0);
    await assert.rejects(fetch(metricsUrl), 'the port is closed with the process');
  });

  test('a busy METRICS_PORT stops the start: exit 3, one line naming METRICS_PORT, and nothing said to listen', async () => {
    const holder = await holdPort();
    try {
      // A full serve: the API port opens first, then METRICS_PORT fails.
      const run = await runCli(['serve'], {
        ...env,
        SMTP_URL: 'smtp://127.0.0.1:1',
        PUBLIC_URL: 'https://gateway.example',
        METRICS_PORT: String(holder.port),
      });
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.deepEqual(run.stderr.trim().split('\n'), [
        `fiscal-gateway: configuration: METRICS_PORT: 127.0.0.1:${holder.port} is already in use by another process; stop what holds it (another gateway process on this host?) or set METRICS_PORT to a free port (each process on a host needs its own)`,
      ]);
      assert.doesNotMatch(run.stdout, LISTENING, 'no line claims the gateway listens');
    } finally {
      await holder.close();
    }
  });

  test('the mail warning names what is missing, in production only', () => {
    const production = { GATEWAY_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, HOST: '10.0.0.7', PORT: '8080' };
    assert.equal(mailWarning(loadConfig({ ...production, GATEWAY_ENV: 'development' })), undefined, 'development has the outbox');
    assert.equal(
      mailWarning(loadConfig({ ...production, SMTP_URL: 'smtp://mail.example', PUBLIC_URL: 'https://gateway.example' })),
      undefined,
    );
    assert.deepEqual(mailWarning(loadConfig({ ...production, PUBLIC_URL: 'https://gateway.example' }))?.missing, ['SMTP_URL']);
    const links = mailWarning(loadConfig({ ...production, SMTP_URL: 'smtp://mail.example' }));
    assert.deepEqual(links?.missing, ['PUBLIC_URL']);
    assert.match(links!.message, /^PUBLIC_URL is not set: the links in merchant mails point at http:\/\/10\.0\.0\.7:8080 \(HOST:PORT\)/);
  });

  test('a production start without SMTP_URL and PUBLIC_URL warns once, naming both; with them, no warning', async () => {
    const bare = await spawnGateway(env, ['--api-only']);
    children.push(bare);
    assert.equal(await bare.kill('SIGTERM'), 0);
    const warnings = logLines(bare.output()).filter((line) => line.level === 40 && Array.isArray(line.missing));
    assert.equal(warnings.length, 1, bare.output());
    assert.deepEqual(warnings[0]!.missing, ['SMTP_URL', 'PUBLIC_URL']);
    assert.match(
      String(warnings[0]!.msg),
      /^SMTP_URL is not set: merchant mails \(address verification, password reset, invitations\) are dropped.*; PUBLIC_URL is not set: the links in merchant mails point at http:\/\/127\.0\.0\.1:0 \(HOST:PORT\)/,
    );

    const smtp = await startTestSmtp();
    try {
      const configured = await spawnGateway({ ...env, SMTP_URL: smtp.url, PUBLIC_URL: 'https://gateway.example' }, ['--api-only']);
      children.push(configured);
      const server = new URL(smtp.url).host;
      await eventually(
        () => logLines(configured.output()).some((line) => line.msg === `SMTP_URL ${server} answers`),
        "the start's check of SMTP_URL",
      );
      assert.equal(await configured.kill('SIGTERM'), 0);
      assert.ok(
        logLines(configured.output()).some((line) => line.msg === 'ready'),
        configured.output(),
      );
      assert.equal(logLines(configured.output()).filter((line) => line.level === 40).length, 0, configured.output());
    } finally {
      await smtp.close();
    }
  });

  test('a start whose SMTP_URL does not answer says so in one warn line after its ready line, and serves all the same', async () => {
    const unreachable = await spawnGateway({ ...env, SMTP_URL: 'smtp://user:secret@127.0.0.1:1', PUBLIC_URL: 'https://gateway.example' }, [
      '--api-only',
    ]);
    children.push(unreachable);
    const warned = await eventually(
      () => logLines(unreachable.output()).find((line) => line.level === 40),
      "the start's check of SMTP_URL",
    );
    assert.deepEqual(
      [warned.msg, warned.smtp, warned.reason],
      ['SMTP_URL 127.0.0.1:1: connection refused; mails are kept in the outbox and retried', '127.0.0.1:1', 'unreachable'],
    );
    const lines = logLines(unreachable.output());
    assert.ok(
      lines.findIndex((line) => line.msg === 'ready') < lines.findIndex((line) => line.level === 40),
      'the check never holds the start up',
    );
    assert.doesNotMatch(unreachable.output(), /secret/, "SMTP_URL's password is never logged");
    const ready = await fetch(`${unreachable.url}/readyz`);
    assert.equal(ready.status, 200, 'mail is not readiness: its mails wait in the outbox');
    assert.equal(await unreachable.kill('SIGTERM'), 0);
  });
});
