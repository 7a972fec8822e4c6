// `serve` in development: the built-in simulator, the demo merchant on an empty database, and a
// printed curl that really fiscalises a sale — on the first start and on every start after.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/db.ts';
import { printedExports, runBash } from '../helpers/docs-shell.ts';
import { baseEnv, spawnGateway, type SpawnedGateway } from '../helpers/process.ts';

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

/** Runs what the gateway printed, as a reader pastes it: its `export` line, then its curl, in bash. */
async function runPrintedCurl(output: string, cwd: string): Promise<{ status: number; body: { data: { status: string; invoiceNo: number } } }> {
  const exportLine = /^\s*(export GATEWAY=.*)$/m.exec(output)?.[1];
  const curl = /^\s*(curl -sS -X POST \$GATEWAY\/api\/v1\/sales[^\n]*\n[^\n]*\n[^\n]*)$/m.exec(output)?.[1];
  assert.ok(exportLine && curl, `an export line and a complete curl are printed:\n${output}`);
  const result = await runBash(`set -euo pipefail\n${exportLine}\n${curl} -w '\\n%{http_code}'\n`, { cwd });
  assert.equal(result.code, 0, result.stderr);
  const [body, status] = [result.stdout.slice(0, result.stdout.lastIndexOf('\n')), result.stdout.slice(result.stdout.lastIndexOf('\n') + 1)];
  return { status: Number(status), body: JSON.parse(body) as { data: { status: string; invoiceNo: number } } };
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

  test('an empty database gets a demo merchant on the built-in simulator; every start prints the export line and a curl that work', async () => {
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
    const sale = await runPrintedCurl(first.output(), dir);
    assert.equal(sale.status, 201);
    assert.equal(sale.body.data.status, 'uploaded');
    const tenants = await fetch(`${first.url}/api/v1/tenants`, { headers: { authorization: `Bearer ${partnerKey}` } });
    assert.equal(tenants.status, 200);
    assert.equal(((await tenants.json()) as { meta: { total: number } }).meta.total, 1);
    assert.equal(await first.kill('SIGTERM'), 0);

    const second = await spawnGateway(env);
    children.push(second);
    const credentials = (output: string) => {
      const { PARTNER_KEY, TENANT_TOKEN, SIM } = printedExports(output);
      return { PARTNER_KEY, TENANT_TOKEN, SIM };
    };
    assert.deepEqual(credentials(second.output()), credentials(first.output()), 'the same demo credentials, on the same simulator');
    const again = await runPrintedCurl(second.output(), dir);
    assert.equal(again.body.data.status, 'uploaded', 'the simulator remembers the demo device across restarts');
    assert.equal(again.body.data.invoiceNo, sale.body.data.invoiceNo + 1);
    const stillOne = await fetch(`${second.url}/api/v1/tenants`, { headers: { authorization: `Bearer ${partnerKey}` } });
    assert.equal(((await stillOne.json()) as { meta: { total: number } }).meta.total, 1, 'not provisioned twice');
    assert.equal(await second.kill('SIGTERM'), 0);
  });
});
