import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ERROR_CODES, isErrorCode, type ErrorCode } from '../../src/platform/errors/codes.ts';
import { ApiError } from '../../src/platform/errors/errors.ts';
import { renderError } from '../../src/platform/http/error-handler.ts';
import { errorsOfRoute } from '../../src/domain/kernel/access/route-errors.ts';
import { routeReach } from '../helpers/throw-sites.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

// The closed error model: every coded error is in one table (src/platform/errors/codes.ts; a code not
// there does not compile, and its status is read from there), a framework's 4xx leaves with a code
// of the table and that code's status, and docs/errors.md lists exactly the table.

const ROOT = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('the error model is closed', () => {
  test('every coded error in src/ names a code of the table', () => {
    const thrown: Array<{ where: string; code: string }> = [];
    for (const file of sources(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:ApiError|coded)\(\s*'([a-z_]+)'/g)) thrown.push({ where: file.slice(ROOT.length), code: m[1]! });
      for (const m of text.matchAll(/\{ code: '([a-z_]+)', message:/g)) thrown.push({ where: file.slice(ROOT.length), code: m[1]! });
    }
    assert.ok(thrown.length > 30, `found ${thrown.length} throws`);
    for (const { where, code } of thrown) assert.ok(isErrorCode(code), `${where}: ${code} is not in src/platform/errors/codes.ts`);
  });

  test('an ApiError answers with the status of its code in the table', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) assert.equal(new ApiError(code, 'x').status, ERROR_CODES[code].status, code);
  });

  test("a framework's 4xx the handler does not name leaves with a code of the table and that code's status", () => {
    const request = { id: 'req-1' } as FastifyRequest;
    const framework = (statusCode: number) => Object.assign(new Error('framework said no'), { statusCode, code: 'FST_ERR_SOMETHING' });
    for (const statusCode of [405, 408, 409, 413, 415, 418, 431]) {
      const rendered = renderError(framework(statusCode), request);
      const body = rendered.body as { error: { code: ErrorCode } };
      assert.ok(isErrorCode(body.error.code), `${statusCode}: ${body.error.code}`);
      assert.equal(rendered.status, ERROR_CODES[body.error.code].status, `${statusCode} left as ${rendered.status} ${body.error.code}`);
    }
    assert.equal((renderError(framework(413), request).body as { error: { code: string } }).error.code, 'payload_too_large');
    assert.equal((renderError(framework(405), request).body as { error: { code: string } }).error.code, 'bad_request');
    assert.deepEqual(renderError(framework(404), request), { status: 404, body: { message: 'Not found.' } });
  });

  test('docs/errors.md lists exactly the table, with the same statuses', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const listed = new Map([...doc.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2]!, Number(m[1])]));
    assert.deepEqual([...listed.keys()].sort(), Object.keys(ERROR_CODES).sort());
    for (const [code, status] of listed) assert.equal(status, ERROR_CODES[code as keyof typeof ERROR_CODES].status, code);
  });
});

/**
 * Codes the static analysis finds on a path that the arguments never take, or that a caller
 * catches (it follows calls, not values or catch blocks): operation → code → why it is never answered.
 */
const NEVER_ANSWERED: Record<string, Record<string, string>> = {
  ...Object.fromEntries(
    ['POST /api/v1/sales/:sale/reissue', 'POST /api/v1/tenants/:tenant/sales/:sale/reissue'].map((op) => [
      op,
      { branch_required: 'a reissue files on the failed document\'s own device: createSale takes the branch rule only without `replaces`', branch_not_found: 'the same' },
    ]),
  ),
  ...Object.fromEntries(
    ['POST /api/v1/sales/:sale/resolve', 'POST /api/v1/tenants/:tenant/sales/:sale/resolve'].map((op) => [op, { not_a_sale: 'lockFailed refuses a note only for a reissue' }]),
  ),
  ...Object.fromEntries(
    ['POST /api/v1/sales/:sale/credit-note', 'POST /api/v1/sales/:sale/debit-note'].map((op) => [op, { branch_not_initialized: "a note files on its sale's device, initialised since the sale was filed" }]),
  ),
  'POST /zm/api/Invoice': {
    idempotency_key_reused: 'fileLegacyInvoice catches it and answers the original invoice',
    branch_required: "a till files on its X-SdcId's branch, named to createSale",
    branch_not_found: 'the same',
    branch_not_initialized: 'an X-SdcId names an initialised device only',
  },
  ...Object.fromEntries(
    ['POST /api/v1/account/signin', 'GET /api/v1/account/me'].map((op) => [
      op,
      Object.fromEntries(['tenant_suspended', 'subscription_blocked', 'quota_exhausted'].map((code) => [code, 'standingOf catches the refusal and presents it as the standing'])),
    ]),
  ),
};

describe('every throw site is declared by the operations that reach it', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test("each operation's route declares (or its auth implies) every code its handler can reach", () => {
    const reach = routeReach(ROOT);
    const byKey = new Map(reach.map((r) => [r.key, r]));
    let matched = 0;
    const undeclared: string[] = [];
    for (const route of h.t.app.routeCatalog) {
      const key = `${route.method} ${route.url}`;
      const found = byKey.get(key) ?? byKey.get(key.replace(' /admin/v1/', ' /'));
      if (!found) continue;
      matched++;
      const declared = errorsOfRoute(route);
      for (const [code, path] of found.codes) {
        if (declared.has(code as ErrorCode) || NEVER_ANSWERED[key]?.[code]) continue;
        undeclared.push(`${key} can answer ${code} (${path}) but neither implies nor lists it in config.errors`);
      }
    }
    assert.ok(matched >= 120, `the analysis found the handlers of ${matched} operations`);
    assert.deepEqual(undeclared, []);
  });

  test('the exceptions still name codes the analysis finds (none outlives its reason)', () => {
    const byKey = new Map(routeReach(ROOT).map((r) => [r.key, r]));
    for (const [key, codes] of Object.entries(NEVER_ANSWERED)) {
      for (const code of Object.keys(codes)) assert.ok(byKey.get(key)?.codes.has(code), `${key} ${code}: no longer reached; drop the exception`);
    }
  });
});
