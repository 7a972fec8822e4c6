// Builds the console for tests that serve it, when the build is missing or older than its
// sources: the same check and build as `npm start` (scripts/build-if-stale.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_DIST } from '../../../src/domain/partner/console/static.ts';

const REPO_ROOT = join(CONSOLE_DIST, '..', '..');

export function ensureConsoleBuilt(): void {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-if-stale.mjs'), 'console'], {
    cwd: REPO_ROOT,
    env: { ...process.env, CONSOLE_BUILD_QUIET: '1' },
    encoding: 'utf8',
  });
  if (result.status !== 0 || !existsSync(join(CONSOLE_DIST, 'index.html')))
    throw new Error(`building the console failed:\n${result.stdout}\n${result.stderr}`);
}
