// `fiscal-gateway certify` (docs/certification.md), run as the compiled CLI: against its own
// simulator it passes every endpoint and item of the authority's checklist and writes the report
// and the evidence; a VSDC that cannot be reached fails the run with exit 6 and says why; usage
// mistakes exit 2. It never uses the operator's database: DATABASE_URL and DATA_DIR point at
// nothing usable here, and the run still passes.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CHECKLIST_ENDPOINTS, CHECKLIST_ITEMS } from '../../src/app/certify/checklist.ts';
import { baseEnv, runCli } from '../helpers/process.ts';

const root = mkdtempSync(join(tmpdir(), 'fg-certify-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

// The operator's settings, which certify must ignore: a database that does not exist, a data
// directory that is not one.
const env = baseEnv({
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  DATA_DIR: join(root, 'not-a-database'),
  GATEWAY_ENV: 'production',
});

interface Summary {
  ok: boolean;
  endpoints: Array<{ path: string; ok: boolean }>;
  items: Array<{ no: number; title: string; mandatory: boolean; ok: boolean }>;
}

describe('fiscal-gateway certify', () => {
  test('against its own simulator, every endpoint and item passes, with the report and the evidence', async () => {
    const out = join(root, 'passed');
    const run = await runCli(['certify', '--out', out, '--json', '--timeout', '90'], env);
    const summary = JSON.parse(run.stdout) as Summary;
    const failed = summary.items.filter((i) => !i.ok).map((i) => `${i.no}. ${i.title}`);
    assert.deepEqual(failed, [], `${readFileSync(join(out, 'report.md'), 'utf8')}\n${run.stderr}`);
    assert.equal(run.code, 0);
    assert.equal(summary.ok, true);
    assert.deepEqual(
      summary.endpoints.map((e) => e.path),
      CHECKLIST_ENDPOINTS.map((e) => e.path),
    );
    assert.ok(summary.endpoints.every((e) => e.ok));
    assert.deepEqual(
      summary.items.map((i) => i.no),
      CHECKLIST_ITEMS.map((i) => i.no),
    );

    const report = readFileSync(join(out, 'report.md'), 'utf8');
    assert.match(report, /\*\*Result: PASSED\*\*/);
    assert.match(report, /## Section 2 — endpoints/);
    assert.match(report, /## Section 3 — functional items/);
    assert.match(report, /Taxpayer \(TPIN\) \| 2000000001/);
    assert.match(report, /built-in simulator .* a rehearsal, not evidence/);
    assert.doesNotMatch(report, /✗/);
    // Item 8 calls an endpoint section 2 of the form does not list: the report names it too.
    assert.match(report, /\| ✓ \| Item composition \(item 8\) \| `\/items\/saveItemComposition` \| 000 ×\d+ \| #\d+ \|/);

    // Every VSDC request and answer, in order, and each endpoint's evidence points at a real call.
    const evidence = JSON.parse(readFileSync(join(out, 'evidence.json'), 'utf8')) as {
      calls: Array<{
        seq: number;
        endpoint: string;
        request: Record<string, unknown>;
        resultCd: string | null;
        sentAt: string;
        answeredAt: string | null;
      }>;
      endpoints: Array<{ endpoint: string; evidence: number | null }>;
      endpointsBeyondTheForm: Array<{ endpoint: string; evidence: number | null }>;
    };
    assert.ok(
      evidence.endpointsBeyondTheForm.some((e) => e.endpoint === 'saveItemComposition'),
      JSON.stringify(evidence.endpointsBeyondTheForm),
    );
    assert.deepEqual(
      evidence.calls.map((c) => c.seq),
      evidence.calls.map((_, i) => i + 1),
    );
    for (const e of [...evidence.endpoints, ...evidence.endpointsBeyondTheForm]) {
      const call = evidence.calls[e.evidence! - 1]!;
      assert.equal(call.endpoint, e.endpoint);
      assert.ok(call.resultCd === '000' || call.resultCd === '001', `${e.endpoint}: ${call.resultCd}`);
      assert.ok(call.answeredAt! >= call.sentAt);
    }
    // The purchase captured by hand reached the VSDC as the checklist asks: regTyCd M.
    assert.ok(evidence.calls.some((c) => c.endpoint === 'savePurchase' && c.request.regTyCd === 'M' && c.resultCd === '000'));
    assert.ok(existsSync(join(out, 'gateway.log')));
  });

  test('a VSDC that cannot be reached fails the run (exit 6), and the report says why', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const out = join(root, 'unreachable');
    const run = await runCli(
      ['certify', '--vsdc', `http://127.0.0.1:${closed}`, '--tpin', '2000000001', '--out', out, '--timeout', '5'],
      env,
    );
    assert.equal(run.code, 6, run.stderr + run.stdout);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    assert.match(report, /\*\*Result: NOT PASSED\*\*/);
    assert.match(report, /- \*\*1\. Initialise the device\*\*: .*initialize answered 503/);
    assert.match(report, /needs item 1, which failed/);
    assert.match(run.stdout, /NOT PASSED/);
  });

  test('usage mistakes exit 2 and say what to send', async () => {
    const noTpin = await runCli(['certify', '--vsdc', 'http://127.0.0.1:9'], env);
    assert.equal(noTpin.code, 2);
    assert.match(noTpin.stderr, /--vsdc needs --tpin/);
    const badTpin = await runCli(['certify', '--tpin', '12'], env);
    assert.equal(badTpin.code, 2);
    assert.match(badTpin.stderr, /10-digit TPIN/);
    const unknown = await runCli(['certify', '--nope'], env);
    assert.equal(unknown.code, 2);
  });

  test('a KRA merchant: certify says plainly that it walks ZRA’s checklist and which KRA endpoints it does not cover', async () => {
    for (const args of [
      ['--authority', 'kra'],
      ['--tpin', 'P051234567X'],
    ]) {
      const kra = await runCli(['certify', ...args], env);
      assert.equal(kra.code, 2, kra.stderr);
      assert.match(kra.stderr, /ZRA's developer self-checklist/);
      assert.match(kra.stderr, /selectInitOsdcInfo.*saveTrnsSalesOsdc.*selectInvoiceDetails/);
      assert.match(kra.stderr, /docs\/kenya\.md/);
    }
  });
});
