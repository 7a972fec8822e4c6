// Builds the console for tests that serve it, when the build is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_DIST } from '../../src/modules/console/static.ts';

const CONSOLE_ROOT = join(CONSOLE_DIST, '..');

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    if (name === 'dist' || name === 'node_modules') continue;
    const path = join(dir, name);
    const stat = statSync(path);
    newest = Math.max(newest, stat.isDirectory() ? newestSource(path) : stat.mtimeMs);
  }
  return newest;
}

export function ensureConsoleBuilt(): void {
  const index = join(CONSOLE_DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource(CONSOLE_ROOT)) return;
  const result = spawnSync(process.execPath, [join(CONSOLE_ROOT, 'build.mjs')], { env: { ...process.env, CONSOLE_BUILD_QUIET: '1' }, encoding: 'utf8' });
  if (result.status !== 0 || !existsSync(index)) throw new Error(`building the console failed:\n${result.stdout}\n${result.stderr}`);
}
