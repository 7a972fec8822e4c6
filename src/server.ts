import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { closeContext, createContext, type AppContext } from './context.ts';
import { openDatabase } from './db/database.ts';
import { moduleWorkers, provideModuleMembers } from './modules/index.ts';
import { startWorkers } from './workers/index.ts';

export interface ServeOptions {
  api: boolean;
  workers: boolean;
  json?: boolean;
  /** Runs once the API listens (the development start: src/dev/index.ts); may return a cleanup. */
  developmentStart?: DevelopmentStart;
}

export interface RunningGateway {
  ctx: AppContext;
  app: App | undefined;
  url: string | undefined;
  stop(): Promise<void>;
}

const SHUTDOWN_TIMEOUT_MS = 15_000;

/** What runs after start-up in development (the built-in simulator and demo data). */
export type DevelopmentStart = (gateway: RunningGateway) => Promise<(() => Promise<void>) | void>;

export async function startGateway(config: Config, options: ServeOptions): Promise<RunningGateway> {
  const startedAt = Date.now();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command: 'serve' });
  const ctx = createContext(config, database);
  provideModuleMembers(ctx); // the sale signals and the catalogue, shared by the app and the workers
  let app: App | undefined;
  let url: string | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  try {
    if (options.api) {
      app = await buildApp(ctx);
      url = await app.listen({ port: config.port, host: config.host });
    }
  } catch (err) {
    await app?.close().catch(() => {});
    await database.close();
    throw err;
  }
  const workers = options.workers ? startWorkers(ctx, moduleWorkers) : undefined;

  let stopping: Promise<void> | undefined;
  const gateway: RunningGateway = {
    ctx,
    app,
    url,
    stop() {
      stopping ??= (async () => {
        await app?.close(); // stops accepting, lets in-flight requests finish
        await workers?.stop();
        for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
        await closeContext(ctx);
        await database.close();
      })();
      return stopping;
    },
  };
  if (options.developmentStart && options.api) {
    const cleanup = await options.developmentStart(gateway);
    if (cleanup) cleanups.push(cleanup);
  }
  const started = { database: database.kind, workers: workers?.workers.map((w) => w.name) ?? [], ms: Date.now() - startedAt };
  if (app) ctx.log.info({ url, ...started }, 'ready');
  // Without the API there is no /readyz: this line is how a supervisor (or a test) sees the
  // process up, so it is written whatever LOG_LEVEL says, as it always was.
  else ctx.log.child({}, { level: 'info' }).info(started, 'workers running');
  return gateway;
}

/** `fiscal-gateway serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const gateway = await startGateway(config, options);
  const shutdown = (signal: string) => {
    const { log } = gateway.ctx;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ ms: SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out, exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
