import type { Server, ServerResponse } from 'node:http';
import { buildApp, type App } from './app.ts';
import { buildMetricsApp } from './observability-routes.ts';
import { ConfigError, type Config } from '../platform/config.ts';
import { closeContext, createContext, type AppContext, type ContextOptions } from '../domain/kernel/context.ts';
import { openDatabase, SERVER_START_WAIT_MS, type OpenProgress } from '../platform/db/database.ts';
import { createLogger } from '../platform/observability/log.ts';
import { portProblem } from '../platform/lib/ports.ts';
import { moduleWorkers, provideModuleMembers } from './modules.ts';
import { verifyDevelopmentKeyFile, verifySecretKey } from './secret-key.ts';
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

/** What runs after start-up in development (the built-in simulator and demo data). */
type DevelopmentStart = (gateway: RunningGateway) => Promise<(() => Promise<void>) | void>;

/** The requests a listener has under way, and how a stop ends their connections. */
interface RequestsInFlight {
  /** Requests whose response has not closed yet (answered, or the client gone). */
  count(): number;
  /**
   * At a stop: each request under way is answered with `Connection: close`, so its connection
   * ends with the answer. A keep-alive connection left open would hold the listener's close
   * until the client closes it, and a load balancer (or any HTTP client's pool) keeps one idle
   * for a minute or more: past SHUTDOWN_TIMEOUT_MS.
   */
  closeConnectionsWhenAnswered(): void;
}

function trackRequestsInFlight(server: Server): RequestsInFlight {
  const open = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  return {
    count: () => open.size,
    closeConnectionsWhenAnswered() {
      for (const res of open) {
        if (!res.headersSent) res.setHeader('connection', 'close');
        // Already streaming its answer: its connection is idle once it is sent.
        else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
      }
    },
  };
}

/**
 * Opens `port` for `app`. Fastify logs `Server listening at …` as soon as a port opens; that line
 * is left out (its own logger, quieter for the listen only), because the start's one line
 * (`ready`, or `workers running`) is written once every port is open and nothing can stop the
 * start any more: a start that fails after opening a port (a busy METRICS_PORT or SIMULATOR_PORT,
 * exit 3) never claims to be listening. A busy port is the configuration error naming `variable`.
 */
async function listenOn(app: App, variable: string, host: string, port: number, remedy: string): Promise<string> {
  const log = app.log; // Fastify's child of the process's logger: quieting it quiets nothing else
  const level = log.level;
  if (['trace', 'debug', 'info'].includes(level)) log.level = 'warn';
  try {
    return await app.listen({ port, host });
  } catch (err) {
    throw portProblem(err, variable, host, port, remedy) ?? err;
  } finally {
    log.level = level;
  }
}

/**
 * What a production process serving the API says at start about the merchants' mail: without
 * SMTP_URL every mail is dropped, without PUBLIC_URL the links in them point at HOST:PORT.
 * Once, at warn level, naming the variables (undefined when there is nothing to say).
 */
export function mailWarning(config: Config): { missing: string[]; message: string } | undefined {
  if (config.env !== 'production') return undefined;
  const problems: Array<[string, string]> = [];
  if (!config.smtpUrl)
    problems.push([
      'SMTP_URL',
      'merchant mails (address verification, password reset, invitations) are dropped, not sent, so sign-up, reset and invitations cannot be completed; set SMTP_URL=smtps://user:password@mail.example.com:465',
    ]);
  if (config.publicUrlDefaulted)
    problems.push([
      'PUBLIC_URL',
      `the links in merchant mails point at ${config.publicUrl} (HOST:PORT); set PUBLIC_URL to the https:// address merchants reach the gateway at`,
    ]);
  if (problems.length === 0) return undefined;
  return {
    missing: problems.map(([variable]) => variable),
    message: problems.map(([variable, what]) => `${variable} is not set: ${what}`).join('; '),
  };
}

export async function startGateway(config: Config, options: ServeOptions): Promise<RunningGateway> {
  const startedAt = Date.now();
  // The context's logger, made first: a first start creates the database and migrates it, which
  // takes a while, and says so as it goes.
  const log = options.context?.log ?? createLogger(config.logLevel);
  const onProgress = (progress: OpenProgress) => log.info(progress.fields, progress.line);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    command: 'serve',
    onProgress,
    minFreeBytes: config.dataDirMinFreeBytes,
    waitForServerMs: SERVER_START_WAIT_MS,
  });
  try {
    await verifyDevelopmentKeyFile(config, database.db, 'serve');
  } catch (err) {
    await database.close();
    throw err;
  }
  const ctx = createContext(config, database, { ...options.context, log });
  try {
    // Before anything listens or works: a key other than the one that sealed the database's
    // secrets stops the start (exit 3); the first start records its key.
    const secretKey = await verifySecretKey(ctx, 'serve', { claim: true });
    if (secretKey === 'recorded' || secretKey === 'adopted')
      ctx.log.info(
        { fingerprint: ctx.secretBox.fingerprint.slice(0, 12) },
        `the database now records which SECRET_KEY seals its secrets (${secretKey === 'recorded' ? 'this one' : 'this one, which opens the secrets it holds'})`,
      );
  } catch (err) {
    await closeContext(ctx).catch(() => {});
    await database.close();
    throw err;
  }
  provideModuleMembers(ctx); // the sale signals and the catalogue, shared by the app and the workers
  let app: App | undefined;
  let url: string | undefined;
  let metricsApp: App | undefined;
  let metricsUrl: string | undefined;
  let requests: RequestsInFlight | undefined;
  let scrapes: RequestsInFlight | undefined;
  const requestsInFlight = () => requests?.count() ?? 0;
  try {
    if (options.api) {
      app = await buildApp(ctx);
      requests = trackRequestsInFlight(app.server);
      url = await listenOn(app, 'PORT', config.host, config.port, 'stop what holds it (another gateway?) or set PORT to a free port');
    }
    if (config.metricsPort !== undefined) {
      if (options.api && config.metricsPort !== 0 && config.metricsPort === config.port) {
        throw new ConfigError(
          'METRICS_PORT',
          `is PORT (${config.port}); the API port serves GET /metrics already: set METRICS_PORT to another port, or unset it`,
        );
      }
      metricsApp = await buildMetricsApp(ctx);
      scrapes = trackRequestsInFlight(metricsApp.server);
      metricsUrl = `${await listenOn(metricsApp, 'METRICS_PORT', config.host, config.metricsPort, 'stop what holds it (another gateway process on this host?) or set METRICS_PORT to a free port (each process on a host needs its own)')}/metrics`;
    }
  } catch (err) {
    await metricsApp?.close().catch(() => {});
    await app?.close().catch(() => {});
    await closeContext(ctx).catch(() => {});
    await database.close();
    throw err;
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
        requests?.closeConnectionsWhenAnswered();
        await app?.close(); // stops accepting, lets in-flight requests finish
        const stopped = (await workers?.stop()) ?? {};
        scrapes?.closeConnectionsWhenAnswered();
        await metricsApp?.close(); // scraped until the workers have stopped
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
  const mail = options.api ? mailWarning(config) : undefined;
  if (mail) ctx.log.warn({ missing: mail.missing }, mail.message);
  const started = {
    database: database.kind,
    workers: workers?.workers.map((w) => w.name) ?? [],
    ...(metricsUrl ? { metrics: metricsUrl } : {}),
    ms: Date.now() - startedAt,
  };
  if (app) ctx.log.info({ url, ...started }, 'ready');
  // Without the API there is no /readyz: this line is how a supervisor (or a test) sees the
  // process up, so it is written whatever LOG_LEVEL says, as it always was.
  else ctx.log.child({}, { level: 'info' }).info(started, 'workers running');
  // After the start line and not awaited: an unreachable SMTP_URL is one warn line, never a slower
  // start nor an unready process (mails wait in the outbox until it answers).
  void ctx.mailer.checkServer();
  return gateway;
}

/**
 * `fiscal-gateway serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. The last line
 * it logs says how long the shutdown took and what it cut: `shut down` (exit 0), or `shutdown
 * timed out` after SHUTDOWN_TIMEOUT_MS (exit 1), when whatever still runs is cut by the exit.
 */
export async function serve(config: Config, options: ServeOptions): Promise<void> {
  // The handlers are in place before the start, so a signal sent the moment the start line is
  // read (it may be written before this function resumes) is never met by the default action.
  // During the start a signal still has its default effect: the process ends at once (a lock
  // it leaves is reaped by the next start).
  let gateway: RunningGateway | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (gateway) shutdown(gateway, signal);
    else process.kill(process.pid, signal); // its listener is gone (once): the default action
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    gateway = await startGateway(config, options);
  } catch (err) {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    throw err;
  }
}

/** The graceful stop of a started `serve`, on SIGTERM or SIGINT. */
function shutdown(gateway: RunningGateway, signal: string): void {
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
  }, gateway.ctx.config.shutdownTimeoutMs);
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
}
