// The processes a benchmark runs: gateway `serve` processes (from any source tree, so that an
// older checkout can be measured with the same harness), and small servers in child processes.
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

export const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything started here, killed if the benchmark itself is stopped (Ctrl-C) or fails. */
const running = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGKILL');
    process.exit(130);
  });
}
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** Peak and current resident memory, and CPU seconds used, of a live process (Linux /proc). */
export function processStats(pid: number): {
  peakRssMb: number;
  rssMb: number;
  cpuSeconds: number;
  userSeconds: number;
  systemSeconds: number;
} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name) are utime and stime in ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]) / 100;
  const system = Number(fields[12]) / 100;
  return {
    peakRssMb: Math.round(kb('VmHWM') / 1024),
    rssMb: Math.round(kb('VmRSS') / 1024),
    cpuSeconds: user + system,
    userSeconds: user,
    systemSeconds: system,
  };
}

export interface GatewayOptions {
  /** Source tree to run (`<root>/src/main.ts`). */
  root: string;
  /** DATABASE_URL or DATA_DIR, and anything else. */
  env: Record<string, string>;
  args?: string[];
  /** Directory for the process's log file (and its CPU profile, with `profile`). */
  workDir: string;
  profile?: boolean;
  label?: string;
  /** false: run the tree's dist/ as it is (a caller that compiled it already, e.g. the test runner). */
  build?: boolean;
}

export interface GatewayProcess {
  url: string;
  pid: number;
  /** The process's log (stdout and stderr). */
  logPath: string;
  /** From spawn to the first 200 on /readyz (API) or the "workers running" line (workers only). */
  readyMs: number;
  stats(): ReturnType<typeof processStats>;
  /** How the process ended, if it has: its exit code or the signal that ended it. */
  exited(): string | undefined;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

let started = 0;
const built = new Set<string>();

/**
 * How production starts the gateway of `root`: its compiled build (`npm start` runs
 * `node dist/main.js serve`), built once per run here so the figures are of the sources as they
 * are. A tree from before the build step runs through tsx, as it did then.
 */
function gatewayEntry(root: string, build = true): string[] {
  if (!existsSync(join(root, 'tsconfig.build.json'))) return ['--import', 'tsx', join(root, 'src/main.ts')];
  if (build && !built.has(root)) {
    // The workspace packages dist/main.js imports by name (in a tree that has them) first, in
    // the order they import one another.
    for (const project of ['packages/vsdc-protocol/tsconfig.build.json', 'packages/simulator/tsconfig.build.json', 'tsconfig.build.json']) {
      if (!existsSync(join(root, project))) continue;
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: root, stdio: 'inherit' });
    }
    built.add(root);
  }
  return [...startFlags(root), join(root, 'dist/main.js')];
}

/** The Node flags of `npm start` (package.json), so a benchmarked gateway runs as production does. */
function startFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  return (pkg.scripts?.start ?? '').split(/\s+/).filter((word) => word.startsWith('--'));
}

/** Starts `fiscal-gateway serve` and resolves once it is ready. Logs go to a file (as in production). */
export async function startGateway(options: GatewayOptions): Promise<GatewayProcess> {
  const port = await freePort();
  const args = options.args ?? [];
  const label = options.label ?? `gateway-${++started}`;
  const logPath = join(options.workDir, `${label}.log`);
  const log = openSync(logPath, 'a');
  // One directory per process: the main thread's profile is the CPU.*.0.*.cpuprofile in it.
  const profile = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(options.workDir, 'profiles', label)}`] : [];
  const entry = gatewayEntry(options.root, options.build); // compiled before the clock starts
  const began = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...profile, ...entry, 'serve', ...args], {
    cwd: options.root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_ENV: 'production',
      SECRET_KEY,
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      BUILTIN_SIMULATOR: '0',
      // For experiments with V8 or allocator settings, e.g. BENCH_GATEWAY_NODE_OPTIONS=--max-old-space-size=128.
      ...(process.env.BENCH_GATEWAY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_GATEWAY_NODE_OPTIONS } : {}),
      ...options.env,
    },
    stdio: ['ignore', log, log],
  });
  track(child);
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const workersOnly = args.includes('--workers-only');
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}:\n${readFileSync(logPath, 'utf8').slice(-3000)}`);
    const ready = workersOnly
      ? readFileSync(logPath, 'utf8').includes('workers running')
      : await request(`${url}/readyz`).then(
          (r) => (r.body.dump(), r.statusCode === 200),
          () => false,
        );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`${label} was not ready in 120 s`);
    await sleep(20);
  }
  const readyMs = Math.round(performance.now() - began);
  const pid = child.pid!;
  const exited = once(child, 'exit');
  return {
    url,
    pid,
    logPath,
    readyMs,
    stats: () => processStats(pid),
    exited: () =>
      child.exitCode !== null ? `exit code ${child.exitCode}` : child.signalCode !== null ? `signal ${child.signalCode}` : undefined,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export type ChildKind = 'simulator' | 'fastify' | 'receivers';

export interface ChildServer {
  urls: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./child-servers.ts', import.meta.url));

/** Starts one of the small servers of child-servers.ts in its own process (its own event loop). */
export async function startChild(kind: ChildKind): Promise<ChildServer> {
  const child = fork(CHILD, [kind], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(child);
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Record<string, string>));
    child.once('exit', (code) => reject(new Error(`${kind} child exited with ${String(code)}`)));
  });
  const exited = once(child, 'exit');
  return {
    urls,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

const FLOORS = {
  naive: fileURLToPath(new URL('./naive-floor.ts', import.meta.url)),
  stack: fileURLToPath(new URL('./stack-floor.ts', import.meta.url)),
};

/**
 * A floor of the sale path on `databaseUrl`, in its own process: the naive floor (naive-floor.ts)
 * or the same steps on the gateway's stack (stack-floor.ts, logging to `logPath`).
 */
export async function startFloor(databaseUrl: string, kind: keyof typeof FLOORS = 'naive', logPath = '/dev/null'): Promise<ChildServer> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl, LOG_PATH: logPath };
  const child = fork(FLOORS[kind], [], { execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(child);
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Record<string, string>));
    child.once('exit', (code) => reject(new Error(`the ${kind} floor exited with ${String(code)}`)));
  });
  const exited = once(child, 'exit');
  return {
    urls,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
