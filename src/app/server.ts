import type { Server } from 'node:http';
import { buildApp, type App } from './app.ts';
import type { Config } from '../platform/config.ts';
import { closeContext, createContext, type AppContext, type ContextOptions } from '../domain/kernel/context.ts';
import { openDatabase } from '../platform/db/database.ts';
import { portProblem } from '../platform/lib/ports.ts';
import { moduleWorkers, provideModuleMembers } from './modules.ts';
import { verifySecretKey } from './secret-key.ts';
import { startWorkers, type RunningWorkers, type WorkerStopReport } from '../platform/workers/index.ts';

export interface ServeOptions {
  api: boolean;
  workers: boolean;
  json?: boolean;
  /** Runs once the API listens and before the workers start (the development start: src/app/dev/index.ts); may return a cleanup. */
  developmentStart?: DevelopmentStart;
  /** What the context is built with instead of the defaults (`certify` logs to its report directory). */
  context?: ContextOptions;
}

/** What a stop cut short, for the shutdown's last log line. */
interface ShutdownReport {
  /** HTTP requests under way when the stop began, and how many of them had not finished when it ended. */
  requests: { inFlight: number; cut: number };
  /** Each worker's report (WorkerStopReport), by name. */
  workers: Record<string, WorkerStopReport>;
}

export interface RunningGateway {
  ctx: AppContext;
  app: App | undefined;
  url: string | undefined;
  stop(): Promise<ShutdownReport>;
  /** What a stop still waits for: requests not finished, workers not stopped (for a forced exit's line). */
  unfinished(): { requests: number; workers: string[] };
}

const SHUTDOWN_TIMEOUT_MS = 15_000;

/** What runs after start-up in development (the built-in simulator and demo data). */
type DevelopmentStart = (gateway: RunningGateway) => Promise<(() => Promise<void>) | void>;

/** Requests whose response has not closed yet (answered, or the client gone). */
function countRequestsInFlight(server: Server): () => number {
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
  return () => inFlight;
}

export async function startGateway(config: Config, options: ServeOptions): Promise<RunningGateway> {
  const startedAt = Date.now();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command: 'serve' });
  const ctx = createContext(config, database, options.context);
  try {
    // Before anything listens or works: a key other than the one that sealed the database's
    // secrets stops the start (exit 3); the first start records its key.
    const secretKey = await verifySecretKey(ctx, 'serve', { claim: true });
    if (secretKey === 'recorded' || secretKey === 'adopted') ctx.log.info({ fingerprint: ctx.secretBox.fingerprint.slice(0, 12) }, `the database now records which SECRET_KEY seals its secrets (${secretKey === 'recorded' ? 'this one' : 'this one, which opens the secrets it holds'})`);
  } catch (err) {
    await closeContext(ctx).catch(() => {});
    await database.close();
    throw err;
  }
  provideModuleMembers(ctx); // the sale signals and the catalogue, shared by the app and the workers
  let app: App | undefined;
  let url: string | undefined;
  let requestsInFlight = () => 0;
  try {
    if (options.api) {
      app = await buildApp(ctx);
      requestsInFlight = countRequestsInFlight(app.server);
      url = await app.listen({ port: config.port, host: config.host });
    }
  } catch (err) {
    await app?.close().catch(() => {});
    await closeContext(ctx).catch(() => {});
    await database.close();
    throw portProblem(err, 'PORT', config.host, config.port, 'stop what holds it (another gateway?) or set PORT to a free port') ?? err;
  }

  let workers: RunningWorkers | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  let stopping: Promise<ShutdownReport> | undefined;
  const gateway: RunningGateway = {
    ctx,
    app,
    url,
    stop() {
      stopping ??= (async () => {
        const inFlight = requestsInFlight();
        await app?.close(); // stops accepting, lets in-flight requests finish
        const stopped = (await workers?.stop()) ?? {};
        for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
        await closeContext(ctx);
        await database.close();
        return { requests: { inFlight, cut: requestsInFlight() }, workers: stopped };
      })();
      return stopping;
    },
    unfinished: () => ({ requests: requestsInFlight(), workers: workers?.stillStopping() ?? [] }),
  };
  // Before the workers: a development start that fails (a busy SIMULATOR_PORT) stops the start
  // before any document is filed to the demo device's address.
  if (options.developmentStart && options.api) {
    try {
      const cleanup = await options.developmentStart(gateway);
      if (cleanup) cleanups.push(cleanup);
    } catch (err) {
      await gateway.stop();
      throw err;
    }
  }
  if (options.workers) workers = startWorkers(ctx, moduleWorkers);
  const started = { database: database.kind, workers: workers?.workers.map((w) => w.name) ?? [], ms: Date.now() - startedAt };
  if (app) ctx.log.info({ url, ...started }, 'ready');
  // Without the API there is no /readyz: this line is how a supervisor (or a test) sees the
  // process up, so it is written whatever LOG_LEVEL says, as it always was.
  else ctx.log.child({}, { level: 'info' }).info(started, 'workers running');
  return gateway;
}

/**
 * `fiscal-gateway serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. The last line
 * it logs says how long the shutdown took and what it cut: `shut down` (exit 0), or `shutdown
 * timed out` after SHUTDOWN_TIMEOUT_MS (exit 1), when whatever still runs is cut by the exit.
 */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const gateway = await startGateway(config, options);
  const shutdown = (signal: string) => {
    const { log } = gateway.ctx;
    const began = Date.now();
    const inFlight = gateway.unfinished().requests;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      const left = gateway.unfinished();
      log.error(
        { signal, ms: Date.now() - began, requests: { inFlight, cut: left.requests }, workersUnfinished: left.workers },
        'shutdown timed out: exiting with requests and worker steps unfinished (their leases run out, then other processes take them over)',
      );
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    gateway.stop().then(
      (report) => {
        clearTimeout(timer);
        const cut = report.requests.cut + Object.values(report.workers).reduce((sum, w) => sum + w.cut, 0);
        log[cut > 0 ? 'warn' : 'info']({ signal, ms: Date.now() - began, ...report }, 'shut down');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err, signal, ms: Date.now() - began }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
