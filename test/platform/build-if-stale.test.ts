// `npm start` builds only what is out of date (scripts/build-if-stale.mjs, its prestart): run
// for real, with the real compiler, on a small project of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';

const SCRIPT = new URL('../../scripts/build-if-stale.mjs', import.meta.url).pathname;

describe('npm start builds only what is out of date', () => {
  const root = mkdtempSync(join(tmpdir(), 'fg-build-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  const run = (...args: string[]) => {
    const res = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: root, encoding: 'utf8' });
    return { code: res.status, out: res.stdout + res.stderr };
  };
  const mtime = (path: string) => statSync(join(root, path)).mtimeMs;
  /** Dates `path` `secondsAgo` in the past (no waiting on the clock). */
  const dateBack = (path: string, secondsAgo: number) => {
    const at = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(join(root, path), at, at);
  };

  test('not built → build; up to date → nothing; a source changed or an output missing → build; a failed build is tried again', () => {
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'main.ts'), 'export const answer: number = 42;\n');
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [], noEmit: true },
        include: ['src'],
      }),
    );
    writeFileSync(
      join(root, 'tsconfig.build.json'),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist' }, include: ['src'] }),
    );

    assert.match(run('--dry-run').out, /^gateway: would build \(not built yet\)$/m);
    assert.doesNotMatch(run('--dry-run').out, /console/, 'a target without sources here is left alone');
    const first = run();
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /gateway: building/);
    assert.ok(existsSync(join(root, 'dist', 'main.js')));

    // Up to date: the start compiles nothing and rewrites nothing.
    const compiledAt = mtime('dist/main.js');
    assert.match(run('--dry-run').out, /^gateway: up to date$/m);
    const again = run();
    assert.equal(again.code, 0, again.out);
    assert.doesNotMatch(again.out, /building/);
    assert.equal(mtime('dist/main.js'), compiledAt, 'dist/main.js was not written again');

    // A source saved after the build: built again.
    dateBack('dist/.build-stamp', 100);
    dateBack('src/main.ts', 90);
    assert.match(run('--dry-run').out, /^gateway: would build \(src\/main\.ts changed since the last build\)$/m);
    const rebuilt = run();
    assert.equal(rebuilt.code, 0, rebuilt.out);
    assert.match(rebuilt.out, /gateway: building/);
    assert.match(run('--dry-run').out, /^gateway: up to date$/m);

    // An output deleted by hand: built again.
    rmSync(join(root, 'dist', 'main.js'));
    assert.match(run('--dry-run').out, /^gateway: would build \(dist\/main\.js is missing\)$/m);
    assert.equal(run().code, 0);
    assert.ok(existsSync(join(root, 'dist', 'main.js')));

    // A build that fails stops the start, and the next start tries again.
    writeFileSync(join(root, 'src', 'main.ts'), 'export const answer: number = "forty-two";\n');
    const failed = run();
    assert.notEqual(failed.code, 0, failed.out);
    assert.match(run('--dry-run').out, /^gateway: would build \(src\/main\.ts changed since the last build\)$/m);

    assert.equal(run('--frobnicate').code, 2);
  });

  test('a target builds what it needs first, when that is out of date: the gateway after the workspace packages it imports', () => {
    const tree = mkdtempSync(join(tmpdir(), 'fg-build-packages-'));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(tree, path)), { recursive: true });
        writeFileSync(join(tree, path), text);
      };
      const runIn = (...args: string[]) => {
        const res = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: tree, encoding: 'utf8' });
        return { code: res.status, out: res.stdout + res.stderr };
      };
      write(
        'tsconfig.json',
        JSON.stringify({
          compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [], noEmit: true },
          include: ['src'],
        }),
      );
      write(
        'tsconfig.build.json',
        JSON.stringify({
          extends: './tsconfig.json',
          compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist' },
          include: ['src'],
        }),
      );
      write('src/main.ts', 'export const answer: number = 42;\n');
      for (const name of ['vsdc-protocol', 'simulator']) {
        write(`packages/${name}/package.json`, JSON.stringify({ name: `@fiscal-gateway/${name}`, type: 'module' }));
        write(`packages/${name}/tsconfig.json`, JSON.stringify({ extends: '../../tsconfig.json', include: ['src'] }));
        write(
          `packages/${name}/tsconfig.build.json`,
          JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist' } }),
        );
        write(`packages/${name}/src/index.ts`, `export const name: string = '${name}';\n`);
      }

      const first = runIn('gateway');
      assert.equal(first.code, 0, first.out);
      assert.match(first.out, /vsdc-protocol: building[\s\S]*simulator: building[\s\S]*gateway: building/);
      assert.ok(existsSync(join(tree, 'packages', 'simulator', 'dist', 'index.js')));

      // --force forces the target named, not the packages that are up to date.
      const forced = runIn('--force', 'gateway');
      assert.equal(forced.code, 0, forced.out);
      assert.match(forced.out, /^gateway: building \(forced\)$/m);
      assert.doesNotMatch(forced.out, /simulator: building/);

      // A package's source saved after its build: built again before the gateway starts.
      const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000);
      utimesSync(join(tree, 'packages', 'simulator', 'dist', '.build-stamp'), at(100), at(100));
      utimesSync(join(tree, 'packages', 'simulator', 'src', 'index.ts'), at(90), at(90));
      const dry = runIn('--dry-run', 'gateway').out;
      assert.match(dry, /^simulator: would build \(packages\/simulator\/src\/index\.ts changed since the last build\)$/m);
      assert.match(dry, /^vsdc-protocol: up to date$/m);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
