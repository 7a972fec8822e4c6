// The client's committed types are what the generator makes of the committed OpenAPI document,
// so a build never needs the app and a changed API cannot leave the client behind unnoticed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = join(ROOT, 'packages/client');
const DOCUMENT = join(ROOT, 'docs/openapi.json');
const COMMITTED = join(PACKAGE, 'src/schema.ts');

test('packages/client/src/schema.ts is what openapi-typescript generates from docs/openapi.json', () => {
  // The generator the package's `generate` script runs, resolved from the package.
  const generator = join(dirname(createRequire(join(PACKAGE, 'package.json')).resolve('openapi-typescript')), '..', 'bin', 'cli.js');
  const dir = mkdtempSync(join(tmpdir(), 'client-schema-'));
  try {
    const output = join(dir, 'schema.ts');
    execFileSync(process.execPath, [generator, DOCUMENT, '--output', output], { stdio: 'pipe' });
    assert.ok(
      readFileSync(output, 'utf8') === readFileSync(COMMITTED, 'utf8'),
      'packages/client/src/schema.ts is out of date with docs/openapi.json: run `npm run generate -w @fiscal-gateway/client` ' +
        '(after `npm run openapi` when the API changed) and commit both files.',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
