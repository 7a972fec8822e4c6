// test-database: embedded only (scripts/run-tests.mjs): it reads the sources, not the database.
// House rules read from the sources. No file in src/ over 400 lines: a file that grows past it
// holds more than one job; split it by job (as fiscal/sales' document-insert.ts, backlog.ts and
// store.ts are). No issue number in a comment of src/: it rots; the why stays in the comment, the
// history goes to docs/decisions.md.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Lines as `wc -l` counts them: a last line without its newline still counts. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

test(`no file in src/ is over ${MAX_LINES} lines`, () => {
  const files = sourceFiles(join(ROOT, 'src'));
  assert.ok(files.length > 100, `only ${files.length} source files found under src/`);
  const over = files
    .map((file) => ({ file: relative(ROOT, file), lines: lineCount(readFileSync(file, 'utf8')) }))
    .filter((f) => f.lines > MAX_LINES)
    .sort((a, b) => b.lines - a.lines);
  assert.deepEqual(
    over,
    [],
    `files over ${MAX_LINES} lines (split each by job: one file per job, callers' imports updated):\n${over.map((f) => `  ${f.file}: ${f.lines}`).join('\n')}`,
  );
});

test('no comment in src/ names an issue by its number', () => {
  const named = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({ where: `${relative(ROOT, file)}:${i + 1}`, line }))
      .filter(({ line }) => /(\/\/|\/\*|^\s*\*|--).*\bissues? #?\d+/i.test(line)),
  );
  assert.deepEqual(
    named.map((n) => n.where),
    [],
    `comments naming an issue (keep the why, move the history to docs/decisions.md):\n${named.map((n) => `  ${n.where}: ${n.line.trim()}`).join('\n')}`,
  );
});
