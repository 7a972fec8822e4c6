import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ERROR_CODES, isErrorCode } from '../../src/platform/errors/codes.ts';

// The closed error model: every coded error is in one table (src/platform/errors/codes.ts; a code not
// there does not compile), every throw uses its code's status, and docs/errors.md lists exactly
// the table.

const ROOT = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('the error model is closed', () => {
  test('every coded error in src/ is thrown with the status of its code in the table', () => {
    const thrown: Array<{ where: string; status: number; code: string }> = [];
    for (const file of sources(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:ApiError|coded)\(\s*(\d{3}),\s*'([a-z_]+)'/g)) thrown.push({ where: file.slice(ROOT.length), status: Number(m[1]), code: m[2]! });
      for (const m of text.matchAll(/forbidden\(\s*'([a-z_]+)'/g)) thrown.push({ where: file.slice(ROOT.length), status: 403, code: m[1]! });
      for (const m of text.matchAll(/\{ code: '([a-z_]+)', message:/g)) thrown.push({ where: file.slice(ROOT.length), status: NaN, code: m[1]! });
    }
    assert.ok(thrown.length > 30, `found ${thrown.length} throws`);
    for (const { where, status, code } of thrown) {
      assert.ok(isErrorCode(code), `${where}: ${code} is not in src/platform/errors/codes.ts`);
      if (!Number.isNaN(status)) assert.equal(status, ERROR_CODES[code].status, `${where}: ${code} is thrown with ${status}, the table says ${ERROR_CODES[code].status}`);
    }
  });

  test('docs/errors.md lists exactly the table, with the same statuses', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const listed = new Map([...doc.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2]!, Number(m[1])]));
    assert.deepEqual([...listed.keys()].sort(), Object.keys(ERROR_CODES).sort());
    for (const [code, status] of listed) assert.equal(status, ERROR_CODES[code as keyof typeof ERROR_CODES].status, code);
  });
});
