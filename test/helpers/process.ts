import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface SpawnedGateway {
  proc: ChildProcess;
  url: string;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The compiled gateway, as `npm start` and the `fiscal-gateway` bin run it (the test runner,
 * scripts/run-tests.mjs, compiles dist/ first when a source changed). Compiled, a child starts
 * in a fraction of the time tsx needs to transform the sources on every spawn.
 */
export const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;

/**
 * V8 flags of every `serve` a test starts: the embedded database's WebAssembly compiled by the
 * baseline compiler only, as the one-shot commands do themselves (src/main.ts). A test's gateway
 * lives seconds, not the hours a deployed one does, and optimising PGlite in the background was
 * about a third of each child's CPU: the same code runs, in less of the suite's time.
 */
const SERVE_FLAGS = ['--liftoff-only'];

export function baseEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    BUILTIN_SIMULATOR: '0',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs `fiscal-gateway <args>` to completion (in `cwd`: where a relative DATA_DIR and the development key files are). */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(proc, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Starts `fiscal-gateway serve` and resolves once it logs that it is ready. */
export async function spawnGateway(env: NodeJS.ProcessEnv, args: string[] = [], timeoutMs = 60_000, cwd?: string): Promise<SpawnedGateway> {
  const proc = spawn(process.execPath, [...SERVE_FLAGS, MAIN, 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway not ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      for (const line of out.split('\n')) {
        if (!line.includes('"msg":"ready"')) continue;
        const parsed = JSON.parse(line) as { url?: string };
        clearTimeout(timer);
        resolve(parsed.url ?? '');
        return;
      }
      if (/workers running/.test(out)) {
        clearTimeout(timer);
        resolve('');
      }
    };
    proc.stdout.on('data', check);
    proc.stderr.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    proc,
    url,
    output: () => out,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill(signal);
      const [code] = (await once(proc, 'exit')) as [number | null];
      return code;
    },
  };
}
