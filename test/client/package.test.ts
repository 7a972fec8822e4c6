// The client package as a user installs it: `npm pack` (which builds dist/), unpacked into a
// node_modules of its own, imported by name from plain JavaScript in a Node process without
// TypeScript, and used against a gateway listening on a real port.
// test-database: embedded only (scripts/run-tests.mjs): the packed package's behaviour does not depend on the engine.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { engineName } from '../helpers/db.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// The published test vector (docs/webhooks.md).
const VECTOR = {
  secret: 'whsec_test_secret',
  t: 1700000000,
  body: '{"id":"01HZX0TESTEVENT00000000000","event":"invoice.fiscalised"}',
  header: 't=1700000000,v1=c1829592ca97aa16caafd7d88339c5ed0b051b6a0fcfc05b811e06d05b3e871a',
};

// What a partner's JavaScript would do; prints one JSON line of what it saw.
const SCRIPT = `
import { createTenantClient, createFiscalisationClient, verifyWebhook } from '@fiscal-gateway/client';
import { verifyWebhook as verifyFromSubpath } from '@fiscal-gateway/client/webhooks';

const { baseUrl, token, apiKey, vector } = JSON.parse(process.argv[2]);
const check = (options) => verifyWebhook({ payload: vector.body, header: vector.header, secret: vector.secret, ...options });
const me = await createTenantClient({ baseUrl, token }).GET('/api/v1/me');
const branches = await createFiscalisationClient({ baseUrl, apiKey }).GET('/zm/api/Branches');
let missingToken;
try { createTenantClient({ baseUrl }); } catch (err) { missingToken = err.message; }
console.log(JSON.stringify({
  sameFunction: verifyFromSubpath === verifyWebhook,
  atDate: check({ now: new Date(vector.t * 1000) }),
  atSeconds: check({ now: vector.t }),
  staleDate: check({ now: new Date((vector.t + 301) * 1000) }),
  staleSeconds: check({ now: vector.t + 301 }),
  tampered: check({ now: vector.t, payload: vector.body.replace('fiscalised', 'failed') }),
  parsedBody: check({ now: vector.t, payload: JSON.parse(vector.body) }),
  noArguments: verifyWebhook(),
  me: { status: me.response.status, tpin: me.data?.data?.tpin },
  branches: { status: branches.response.status },
  missingToken,
}));
`;

describe(`the packed client package from plain JavaScript (${engineName})`, () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'client-package-'));
  });
  after(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  test('npm pack ships compiled JS and declarations only, and they work by package name without TypeScript', async () => {
    execFileSync(NPM, ['pack', '--workspace', '@fiscal-gateway/client', '--pack-destination', dir, '--silent'], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');
    const files = execFileSync('tar', ['-tzf', join(dir, tarball)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .sort();
    assert.deepEqual(files, [
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/dist/schema.d.ts',
      'package/dist/schema.js',
      'package/dist/webhooks.d.ts',
      'package/dist/webhooks.js',
      'package/package.json',
    ]);

    // Installed as npm would: the package in node_modules, its one dependency beside it.
    const modules = join(dir, 'app', 'node_modules');
    mkdirSync(join(modules, '@fiscal-gateway'), { recursive: true });
    execFileSync('tar', ['-xzf', join(dir, tarball), '-C', join(modules, '@fiscal-gateway')]);
    renameSync(join(modules, '@fiscal-gateway', 'package'), join(modules, '@fiscal-gateway', 'client'));
    const openapiFetch = dirname(createRequire(join(ROOT, 'packages/client/package.json')).resolve('openapi-fetch/package.json'));
    symlinkSync(openapiFetch, join(modules, 'openapi-fetch'), 'dir');
    writeFileSync(join(dir, 'app', 'receiver.mjs'), SCRIPT);

    const merchant = await seedMerchant(t.ctx);
    const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    // Asynchronously: the gateway answering the script runs in this process.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['receiver.mjs', JSON.stringify({ baseUrl, token: merchant.token, apiKey: merchant.apiKey, vector: VECTOR })],
      {
        cwd: join(dir, 'app'),
        env,
        encoding: 'utf8',
      },
    );
    const seen = JSON.parse(stdout);

    assert.equal(seen.sameFunction, true);
    assert.deepEqual(seen.atDate, { ok: true, timestamp: VECTOR.t });
    assert.deepEqual(seen.atSeconds, { ok: true, timestamp: VECTOR.t });
    assert.deepEqual(seen.staleDate, { ok: false, reason: 'timestamp_out_of_tolerance' });
    assert.deepEqual(seen.staleSeconds, { ok: false, reason: 'timestamp_out_of_tolerance' });
    assert.deepEqual(seen.tampered, { ok: false, reason: 'signature_mismatch' });
    assert.deepEqual(seen.parsedBody, { ok: false, reason: 'payload_not_raw' });
    assert.equal(seen.noArguments.ok, false);
    assert.deepEqual(seen.me, { status: 200, tpin: merchant.tenant.tpin });
    assert.deepEqual(seen.branches, { status: 200 });
    assert.match(seen.missingToken, /createTenantClient: `token` must be a non-empty string/);
  });
});
