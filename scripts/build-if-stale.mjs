#!/usr/bin/env node
// Builds what `npm start` runs only when it is out of date: the workspace packages the gateway
// imports (packages/<name>/src → packages/<name>/dist, by tsc), the gateway (src/ → dist/, by tsc)
// and the console (console/ → console/dist/, by Vite). `npm start` runs it first (prestart), so
// a start after no change compiles nothing; `npm ci` (prepare) and `npm run build` force it.
//
//   node scripts/build-if-stale.mjs [--force] [--dry-run] [vsdc-protocol|simulator|gateway|console …]
//
// A target named on the command line first builds the targets it needs (`needs`) that are out of
// date; --force forces only the named ones (all of them when none is named).
//
// A target is up to date when its stamp (written after a build that succeeded, dated when that
// build began) is newer than every source file and every expected output exists. Dating the
// stamp at the start means a file saved during a build is built again next time, and a failed
// build leaves the old stamp, so the next start tries again. Paths are relative to the working
// directory (npm runs scripts in the package root).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const require = createRequire(import.meta.url);

/** Every file under `path` (or `path` itself), skipping `skip` directories. */
function filesUnder(path, skip = new Set()) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => (skip.has(name) ? [] : filesUnder(join(path, name), skip)));
}

function tsc() {
  try {
    return require.resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

function tscCommand(project) {
  const compiler = tsc();
  if (!compiler)
    throw new Error(
      'the TypeScript compiler is not installed (it is a dev dependency: build before `npm prune --omit=dev`, or run `npm ci`)',
    );
  return [process.execPath, compiler, '-p', project];
}

/** A workspace package compiled by tsc from packages/<name>/src to packages/<name>/dist. */
function workspacePackage(name, needs = []) {
  const dir = join('packages', name);
  const src = join(dir, 'src');
  return {
    needs,
    // The root tsconfig.json too: the package's extends it.
    sources: () =>
      existsSync(src)
        ? [...filesUnder(src), join(dir, 'package.json'), join(dir, 'tsconfig.json'), join(dir, 'tsconfig.build.json'), 'tsconfig.json']
        : [],
    outputs: () =>
      filesUnder(src)
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
        .map((file) => join(dir, 'dist', relative(src, file)).replace(/\.ts$/, '.js')),
    stamp: join(dir, 'dist', '.build-stamp'),
    command: () => tscCommand(join(dir, 'tsconfig.build.json')),
  };
}

const TARGETS = {
  'vsdc-protocol': workspacePackage('vsdc-protocol'),
  simulator: workspacePackage('simulator', ['vsdc-protocol']),
  gateway: {
    // dist/main.js imports these by package name, so they are built (when stale) before it.
    needs: ['vsdc-protocol', 'simulator'],
    sources: () => [...filesUnder('src'), 'tsconfig.json', 'tsconfig.build.json'],
    // Every module compiles to its own file: one that is missing (deleted by hand) means a build.
    outputs: () =>
      filesUnder('src')
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
        .map((file) => join('dist', relative('src', file)).replace(/\.ts$/, '.js')),
    stamp: join('dist', '.build-stamp'),
    command: () => tscCommand('tsconfig.build.json'),
  },
  console: {
    // The console's bundle also holds the one gateway module it imports values from (the
    // authority's code labels); its other imports from src/ are types, gone from the bundle.
    sources: () => {
      const own = filesUnder('console', new Set(['dist', 'node_modules']));
      return own.length === 0 ? [] : [...own, ...filesUnder(join('src', 'vsdc', 'codes.ts'))];
    },
    outputs: () => [join('console', 'dist', 'index.html')],
    stamp: join('console', 'dist', '.build-stamp'),
    command: () => [process.execPath, join('console', 'build.mjs')],
  },
};

/** Why `name` needs a build, or undefined when it is up to date. */
function staleReason(name, sources) {
  const target = TARGETS[name];
  if (!existsSync(target.stamp)) return 'not built yet';
  const missing = target.outputs().find((file) => !existsSync(file));
  if (missing) return `${missing} is missing`;
  const builtAt = statSync(target.stamp).mtimeMs;
  const changed = sources.find((file) => statSync(file).mtimeMs > builtAt);
  return changed ? `${changed} changed since the last build` : undefined;
}

function build(name) {
  const target = TARGETS[name];
  const began = new Date();
  const [program, ...args] = target.command();
  const result = spawnSync(program, args, { stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  // A build that produced nothing (the console without Vite: it says so) is not stamped.
  if (target.outputs().every((file) => existsSync(file))) {
    writeFileSync(target.stamp, `${began.toISOString()}\n`);
    utimesSync(target.stamp, began, began);
  }
  return 0;
}

function main(argv) {
  const force = argv.includes('--force');
  const dryRun = argv.includes('--dry-run');
  const names = argv.filter((arg) => !arg.startsWith('--'));
  const unknown = argv
    .filter((arg) => arg.startsWith('--') && arg !== '--force' && arg !== '--dry-run')
    .concat(names.filter((n) => !(n in TARGETS)));
  if (unknown.length > 0) {
    console.error(`build-if-stale: unknown ${unknown.join(', ')} (targets: ${Object.keys(TARGETS).join(', ')}; flags: --force, --dry-run)`);
    return 2;
  }
  const named = names.length > 0 ? names : Object.keys(TARGETS);
  const withNeeds = (name) => [...(TARGETS[name].needs ?? []).flatMap(withNeeds), name];
  for (const name of new Set(named.flatMap(withNeeds))) {
    const sources = TARGETS[name].sources().filter((file) => existsSync(file));
    if (sources.length === 0) continue; // not in this tree
    const reason = force && named.includes(name) ? 'forced' : staleReason(name, sources);
    if (reason === undefined) {
      if (dryRun) console.log(`${name}: up to date`);
      continue;
    }
    console.log(`${name}: ${dryRun ? 'would build' : 'building'} (${reason})`);
    if (dryRun) continue;
    let code;
    try {
      code = build(name);
    } catch (err) {
      console.error(`${name}: cannot build: ${err.message}`);
      return 1;
    }
    if (code !== 0) return code;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
