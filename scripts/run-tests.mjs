#!/usr/bin/env node
// Runs the whole suite with node:test. Node 20 neither globs nor discovers .ts files, so the
// files are listed here. Extra arguments are file filters (substring match on the path).
// TEST_DATABASE_URL=postgres://… runs every database test against that PostgreSQL server
// instead of the embedded database; the files that never reach the test database (they import
// nothing that leads to test/helpers/db.ts) already ran on the embedded pass and are left out, and
// so are the files whose header says `// test-database: embedded only` (the console in a real
// browser: what it shows does not depend on the engine, and the API under it runs on both). Files
// whose header says `// test-database: postgres only` run on the PostgreSQL pass alone (several
// gateway processes on one database: the soak). Files whose header says `// test-runtime: long`
// are started first.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const DATABASE_HELPER = normalize('test/helpers/db.ts');

/** Whether `file` imports, directly or through other test files, the test database helper. */
function reachesDatabase(file, seen = new Set()) {
  if (file === DATABASE_HELPER) return true;
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const imports = [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].map((m) => normalize(join(dirname(file), m[1])));
  return imports.some((target) => target.startsWith('test/') && reachesDatabase(target, seen));
}

/** Whether the file's header (its leading comment lines) holds `marker`. */
function headerSays(file, marker) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const header = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('//')),
  );
  return header.some((line) => line.includes(marker));
}

/** The file's header opts out of the PostgreSQL pass. */
const embeddedOnly = (file) => headerSays(file, 'test-database: embedded only');

/** The file's header opts out of the embedded pass. */
const postgresOnly = (file) => headerSays(file, 'test-database: postgres only');

/**
 * The file's header says it runs for minutes (`test-runtime: long`): such files start first, so
 * that the last minutes of a run are not one long file running alone while the other slots idle.
 */
const runsLong = (file) => headerSays(file, 'test-runtime: long');

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('--'));
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const files = collect('test')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => (onPostgres ? reachesDatabase(f) && !embeddedOnly(f) : !postgresOnly(f)));
files.sort((a, b) => Number(runsLong(b)) - Number(runsLong(a)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests that run the gateway as a child process run the compiled dist/ (test/helpers/process.ts):
// compile it first when a source changed, as `npm start` does.
const build = spawnSync(process.execPath, ['scripts/build-if-stale.mjs', 'gateway'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error('compiling dist/ failed: the tests that run the gateway as a process need it');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// `--liftoff-only`: V8 compiles the embedded database's WebAssembly (PGlite, in most test
// processes) with its baseline compiler only. Optimising it again in the background cost about a
// quarter of the suite's CPU, more than the tests' statements ever win back (docs/decisions.md,
// "CI time"). The code that runs is the same.
const args = ['--liftoff-only', '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...passThrough, ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
