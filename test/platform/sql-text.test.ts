// test-database: embedded only (scripts/run-tests.mjs): the statements are compiled, not run.
// docs/sql/*.sql is the compiled text of the hot statements (scripts/sql-text.ts); it must be
// what the code compiles now, so a change to a statement shows in the review as text.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SQL_FILES, sqlFileText } from '../../scripts/sql-text.ts';

const DIR = new URL('../../docs/sql/', import.meta.url);
const RUN = 'run `npm run sql` and commit docs/sql/';

test('docs/sql/*.sql is the text the code compiles for each hot statement (run `npm run sql` after changing one)', () => {
  for (const file of SQL_FILES) {
    const path = new URL(file.name, DIR);
    assert.ok(existsSync(path), `docs/sql/${file.name} is missing: ${RUN}.`);
    const committed = readFileSync(path, 'utf8');
    const compiled = sqlFileText(file);
    if (committed === compiled) continue;
    const a = committed.split('\n');
    const b = compiled.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    const at = line === -1 ? b.length : line;
    assert.fail(
      `docs/sql/${file.name} differs from what the code compiles now (first at line ${at + 1}: committed ${JSON.stringify(a[at] ?? '')}, compiled ${JSON.stringify(b[at] ?? '')}): ${RUN}.`,
    );
  }
  const listed = new Set(SQL_FILES.map((file) => file.name));
  const stale = readdirSync(DIR).filter((name) => name.endsWith('.sql') && !listed.has(name));
  assert.deepEqual(stale, [], `docs/sql/ holds files no statement writes: ${RUN}.`);
});
