import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ERROR_CODES, isErrorCode, type ErrorCode } from '../../src/platform/errors/codes.ts';
import { ApiError } from '../../src/platform/errors/errors.ts';
import { renderError } from '../../src/platform/http/error-handler.ts';

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
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[])
      assert.equal(new ApiError(code, 'x').status, ERROR_CODES[code].status, code);
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
    assert.equal((renderError(framework(405), request).body as { error: { code: string } }).error.code, 'method_not_allowed');
    assert.deepEqual(renderError(framework(404), request), { status: 404, body: { message: 'Not found.' } });
  });

  test('docs/errors.md lists exactly the table, with the same statuses', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const listed = new Map([...doc.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2]!, Number(m[1])]));
    assert.deepEqual([...listed.keys()].sort(), Object.keys(ERROR_CODES).sort());
    for (const [code, status] of listed) assert.equal(status, ERROR_CODES[code as keyof typeof ERROR_CODES].status, code);
  });
});
