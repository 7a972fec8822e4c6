import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { closeContext, createContext, type AppContext } from './context.ts';
import { openDatabase } from './db/database.ts';
import { moduleWorkers } from './modules/index.ts';
import { startWorkers } from './workers/index.ts';

export interface ServeOptions {
  api: boolean;
  workers: boolean;
  json?: boolean;
}

export interface RunningGateway {
  ctx: AppContext;
  app: App | undefined;
  url: string | undefined;
  stop(): Promise<void>;
}

const SHUTDOWN_TIMEOUT_MS = 15_000;

/** Hooks that run after start-up in development (the built-in simulator and demo data). */
export type DevelopmentHook = (gateway: RunningGateway) => Promise<(() => Promise<void>) | void>;
const developmentHooks: DevelopmentHook[] = [];
export function onDevelopmentStart(hook: DevelopmentHook): void {
  developmentHooks.push(hook);
}

export async function startGateway(config: Config, options: ServeOptions): Promise<RunningGateway> {
  const startedAt = Date.now();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command: 'serve' });
  const ctx = createContext(config, database);
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
  if (config.env === 'development' && options.api) {
    for (const hook of developmentHooks) {
      const cleanup = await hook(gateway);
      if (cleanup) cleanups.push(cleanup);
    }
  }
  const log = app?.log;
  log?.info({ url, database: database.kind, workers: Boolean(workers), ms: Date.now() - startedAt }, 'ready');
  if (!app) process.stdout.write(`fiscal-gateway workers running on the ${database.kind} database\n`);
  return gateway;
}

/** `fiscal-gateway serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const gateway = await startGateway(config, options);
  const shutdown = (signal: string) => {
    gateway.app?.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      process.stderr.write('fiscal-gateway: shutdown timed out, exiting\n');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`fiscal-gateway: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
