#!/usr/bin/env node
// Runs the whole suite with node:test. Node 20 neither globs nor discovers .ts files, so the
// files are listed here. Extra arguments are file filters (substring match on the path).
// TEST_DATABASE_URL=postgres://… runs every database test against that PostgreSQL server
// instead of the embedded database.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = collect('test').sort().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...passThrough, ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
