// Every environment variable of the operator contract, parsed and validated in one place.

export type GatewayEnv = 'development' | 'production';

export interface Config {
  port: number;
  host: string;
  /**
   * METRICS_PORT: a second listener on HOST with only `GET /metrics` and `GET /healthz`, opened by
   * every `serve` (the way a `--workers-only` process, which opens no other port, shows its
   * metrics); 0 picks a free port, named in the start line. Undefined: none.
   */
  metricsPort: number | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * DATA_DIR_MIN_FREE_MB in bytes: below this much free space on the embedded database's disk,
   * `serve` refuses writes (507 `storage_full`) until there is room again (platform/db/storage-floor.ts).
   */
  dataDirMinFreeBytes: number;
  env: GatewayEnv;
  logLevel: string;
  redisUrl: string | undefined;
  /** Raw SECRET_KEY; undefined in development means a key file in the data directory. */
  secretKey: string | undefined;
  vsdcTimeoutMs: number;
  saleWaitMs: number;
  webhookTimeoutMs: number;
  /** Delivery attempts in flight at once to one endpoint, across every process (WEBHOOK_ENDPOINT_CONCURRENCY). */
  webhookEndpointConcurrency: number;
  webhookRetryDelaysSec: number[];
  importPullIntervalSec: number;
  /** Seconds between pulls of what suppliers sold to the merchant (selectTrnsPurchaseSales). */
  purchasePullIntervalSec: number;
  /** Seconds between pulls of each branch's principals, for RVAT agents (`selectPrincipals`). */
  principalPullIntervalSec: number;
  /** Seconds between pulls of each branch's stock ledger from its VSDC (`selectStockItems`), compared with the gateway's levels. */
  stockPullIntervalSec: number;
  /** Seconds between pulls of a tenant's authority notices (`selectNotices`). */
  noticePullIntervalSec: number;
  /** Seconds between pulls of a tenant's branches as the authority knows them (`selectBranches`). */
  branchSyncIntervalSec: number;
  keyRotationGraceSec: number;
  filingRetryMs: number;
  /**
   * The most branches one process files at once (FILING_CONCURRENCY): as many as have work, up to
   * this; a branch with more waiting hands its turn on after each batch while others wait.
   */
  filingConcurrency: number;
  /** VSDC calls (and connections) at once per VSDC host; 0: no cap but FILING_CONCURRENCY's. */
  vsdcHostConnections: number;
  /** VSDC calls started per second per VSDC host; 0: no cap. */
  vsdcHostRate: number;
  /** How often the VSDC of a backed-off branch is probed with a select call (never a sale). */
  vsdcProbeMs: number;
  adminToken: string | undefined;
  /** Port of the built-in simulator started by `serve` in development; fixed (8089) so the demo device's vsdcBaseUrl stays valid across restarts. */
  simulatorPort: number;
  /** Set to "0" to keep `serve` from starting the built-in simulator in development. */
  builtinSimulator: boolean;
  /** Ages (seconds, ascending) of a branch's oldest pending document that fire `branch.backlog`. */
  backlogAlarmAgesSec: number[];
  /** Reconciliation re-verifies pending documents stored at least this long ago (seconds). */
  reconcilePendingAfterSec: number;
  /** Reconciliation's pause between two VSDC calls, so it never crowds out live filing. */
  reconcilePaceMs: number;
  /** How long a shutdown may take before the process exits 1 with what it still waited for (SIGTERM, SIGINT). */
  shutdownTimeoutMs: number;
  /** SMTP server of the merchants' mail (smtp:// or smtps://); unset: the development outbox (src/mail). */
  smtpUrl: string | undefined;
  /** The From of every mail. */
  mailFrom: string;
  /** The gateway's address as merchants reach it: the base of the links in mails. */
  publicUrl: string;
  /** PUBLIC_URL was not set: `publicUrl` is http://HOST:PORT (a production start warns about it). */
  publicUrlDefaulted: boolean;
  /** log2 of scrypt's N for new password hashes (15 in every environment; tests lower it, never read from the environment). */
  passwordScryptLog2N: number;
  /**
   * A partner's requests a minute across its keys; unset: PARTNER_LIMIT_PER_MINUTE (1200, platform/http/rate-limit.ts).
   * Never read from the environment: a test that walks every partner route lifts it.
   */
  partnerRateLimitPerMinute: number | undefined;
  /**
   * How long `/readyz` waits for the database before answering 503 (a server that accepts the
   * connection and never answers must not hang the probe). Never read from the environment.
   */
  readinessTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Comma-separated whole seconds, strictly ascending, 1 to 10 of them. */
function secondsList(env: Env, name: string, fallback: string): number[] {
  const raw = text(env, name) ?? fallback;
  const values = raw.split(',').map((part) => {
    const p = part.trim();
    if (!/^\d+$/.test(p) || Number(p) < 1) throw new ConfigError(name, `expected comma-separated whole seconds ≥ 1, got "${raw}"`);
    return Number(p);
  });
  if (values.length > 10) throw new ConfigError(name, 'expected at most 10 ages');
  if (values.some((v, i) => i > 0 && v <= values[i - 1]!)) throw new ConfigError(name, `ages must be strictly ascending, got "${raw}"`);
  return values;
}

const POSTGRES_URL_FORM = 'postgres://USER:PASSWORD@HOST:PORT/DATABASE';

/**
 * A DATABASE_URL that names no host would reach PostgreSQL with the driver's defaults and come
 * back as a refused login: say what the URL lacks instead. The host may also be given as
 * `?host=` (a Unix socket directory), as libpq allows; without a database, the user's name is
 * the database's, as libpq and psql do.
 */
function checkPostgresUrl(raw: string): void {
  if (!/^postgres(ql)?:\/\//.test(raw))
    throw new ConfigError('DATABASE_URL', `must be a postgres:// or postgresql:// URL (${POSTGRES_URL_FORM})`);
  const shown = raw.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:…@');
  const noHost = () => new ConfigError('DATABASE_URL', `names no host: expected ${POSTGRES_URL_FORM}, got "${shown}"`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    if (/^postgres(ql)?:\/\/([^@/]*@)?([/?#]|$)/.test(raw)) throw noHost();
    throw new ConfigError(
      'DATABASE_URL',
      `is not a valid URL (a port above 65535, or a character to percent-encode in the password?): expected ${POSTGRES_URL_FORM}, got "${shown}"`,
    );
  }
  if (url.hostname === '' && !url.searchParams.get('host')) throw noHost();
}

/**
 * The least DATA_DIR_MIN_FREE_MB: the embedded engine allocates its write-ahead log 16 MB at a
 * time, and a segment it cannot allocate hangs it (docs/decisions.md, "When the embedded
 * database's disk fills"), so the floor keeps two segments' room at least.
 */
const MIN_FREE_MB_AT_LEAST = 32;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env): Config {
  const gatewayEnv = oneOf(env, 'GATEWAY_ENV', ['development', 'production'] as const, 'development');

  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) checkPostgresUrl(databaseUrl);
  const redisUrl = text(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }

  const secretKey = text(env, 'SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) {
    throw new ConfigError('SECRET_KEY', 'must be at least 32 characters (for example: openssl rand -hex 32)');
  }
  if (secretKey === undefined && gatewayEnv === 'production') {
    throw new ConfigError('SECRET_KEY', 'is required in production (it encrypts readable partner secret keys)');
  }

  const adminToken = text(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  }

  const delaysRaw = text(env, 'WEBHOOK_RETRY_DELAYS') ?? '60,300,1800,7200,21600';
  const webhookRetryDelaysSec = delaysRaw.split(',').map((part) => {
    const p = part.trim();
    if (!/^\d+(\.\d+)?$/.test(p)) throw new ConfigError('WEBHOOK_RETRY_DELAYS', `expected comma-separated seconds, got "${delaysRaw}"`);
    return Number(p);
  });
  if (webhookRetryDelaysSec.length === 0 || webhookRetryDelaysSec.length > 20) {
    throw new ConfigError('WEBHOOK_RETRY_DELAYS', 'expected between 1 and 20 delays');
  }

  const smtpUrl = text(env, 'SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/]/.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example.com:465');
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const metricsPort = text(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const publicUrl = (text(env, 'PUBLIC_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(publicUrl)) throw new ConfigError('PUBLIC_URL', `must be an http:// or https:// URL, got "${publicUrl}"`);

  const backlogAlarmAgesSec = secondsList(env, 'BACKLOG_ALARM_AGES', '3600,43200,86400');

  return {
    port,
    host,
    metricsPort,
    databaseUrl,
    dataDir: text(env, 'DATA_DIR') ?? './data',
    dataDirMinFreeBytes: integer(env, 'DATA_DIR_MIN_FREE_MB', 128, MIN_FREE_MB_AT_LEAST, 1_048_576) * 1024 * 1024,
    env: gatewayEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    redisUrl,
    secretKey,
    vsdcTimeoutMs: integer(env, 'VSDC_TIMEOUT_MS', 20_000, 1, 600_000),
    saleWaitMs: integer(env, 'SALE_WAIT_MS', 3_000, 0, 60_000),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 60_000),
    webhookEndpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 16, 1, 256),
    webhookRetryDelaysSec,
    importPullIntervalSec: integer(env, 'IMPORT_PULL_INTERVAL', 3_600, 1),
    purchasePullIntervalSec: integer(env, 'PURCHASE_PULL_INTERVAL', 3_600, 1),
    principalPullIntervalSec: integer(env, 'PRINCIPAL_PULL_INTERVAL', 3_600, 1),
    stockPullIntervalSec: integer(env, 'STOCK_PULL_INTERVAL', 3_600, 1),
    noticePullIntervalSec: integer(env, 'NOTICE_PULL_INTERVAL', 3_600, 1),
    branchSyncIntervalSec: integer(env, 'BRANCH_SYNC_INTERVAL', 86_400, 1),
    keyRotationGraceSec: integer(env, 'KEY_ROTATION_GRACE', 86_400, 0),
    filingRetryMs: integer(env, 'FILING_RETRY_MS', 5_000, 1, 300_000),
    filingConcurrency: integer(env, 'FILING_CONCURRENCY', 2_000, 1, 20_000),
    vsdcHostConnections: integer(env, 'VSDC_HOST_CONNECTIONS', 0, 0, 100_000),
    vsdcHostRate: integer(env, 'VSDC_HOST_RATE', 0, 0, 100_000),
    vsdcProbeMs: integer(env, 'VSDC_PROBE_MS', 5_000, 50, 300_000),
    adminToken,
    simulatorPort: integer(env, 'SIMULATOR_PORT', 8089, 0, 65535),
    builtinSimulator: text(env, 'BUILTIN_SIMULATOR') !== '0',
    backlogAlarmAgesSec,
    reconcilePendingAfterSec: integer(env, 'RECONCILE_PENDING_AFTER', 600, 0, 30 * 86_400),
    reconcilePaceMs: integer(env, 'RECONCILE_PACE_MS', 200, 0, 60_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 1, 600_000),
    smtpUrl,
    mailFrom: text(env, 'MAIL_FROM') ?? 'Fiscal Gateway <no-reply@localhost>',
    publicUrl,
    publicUrlDefaulted: text(env, 'PUBLIC_URL') === undefined,
    passwordScryptLog2N: 15,
    partnerRateLimitPerMinute: undefined,
    readinessTimeoutMs: 2_000,
  };
}
