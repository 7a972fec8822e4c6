import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

describe('configuration', () => {
  test('defaults follow the operator contract', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.dataDir, './data');
    assert.equal(c.env, 'development');
    assert.equal(c.vsdcTimeoutMs, 20000);
    assert.equal(c.webhookTimeoutMs, 10000);
    assert.deepEqual(c.webhookRetryDelaysSec, [60, 300, 1800, 7200, 21600]);
    assert.equal(c.importPullIntervalSec, 3600);
    assert.equal(c.purchasePullIntervalSec, 3600);
    assert.equal(c.noticePullIntervalSec, 3600);
    assert.equal(c.principalPullIntervalSec, 3600);
    assert.equal(c.stockPullIntervalSec, 3600);
    assert.equal(c.branchSyncIntervalSec, 86400);
    assert.equal(c.keyRotationGraceSec, 86400);
    assert.equal(c.shutdownTimeoutMs, 15000);
    assert.equal(c.adminToken, undefined);
    assert.equal(c.filingConcurrency, 2000);
    assert.equal(c.vsdcHostConnections, 0, 'no cap per VSDC host');
    assert.equal(c.vsdcHostRate, 0, 'no rate cap per VSDC host');
    assert.equal(c.webhookEndpointConcurrency, 16, 'attempts in flight per webhook endpoint');
    assert.equal(c.dataDirMinFreeBytes, 128 * 1024 * 1024, "the embedded database's free-space floor");
  });

  test("the embedded database's free-space floor is read in MB, at least two log segments (32 MB)", () => {
    assert.equal(loadConfig({ DATA_DIR_MIN_FREE_MB: '32' }).dataDirMinFreeBytes, 32 * 1024 * 1024);
    assert.throws(
      () => loadConfig({ DATA_DIR_MIN_FREE_MB: '16' }),
      /^ConfigError: DATA_DIR_MIN_FREE_MB: must be between 32 and 1048576, got 16$/,
    );
  });

  test('the webhook endpoint concurrency is read', () => {
    assert.equal(loadConfig({ WEBHOOK_ENDPOINT_CONCURRENCY: '64' }).webhookEndpointConcurrency, 64);
  });

  test('the fleet settings are read', () => {
    const c = loadConfig({ FILING_CONCURRENCY: '5000', VSDC_HOST_CONNECTIONS: '200', VSDC_HOST_RATE: '50' });
    assert.deepEqual([c.filingConcurrency, c.vsdcHostConnections, c.vsdcHostRate], [5000, 200, 50]);
  });

  test('every variable is read', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@h/db',
      DATA_DIR: '/tmp/x',
      GATEWAY_ENV: 'production',
      LOG_LEVEL: 'warn',
      REDIS_URL: 'redis://127.0.0.1:6379',
      SECRET_KEY: 's'.repeat(32),
      VSDC_TIMEOUT_MS: '1500',
      SALE_WAIT_MS: '250',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_DELAYS: '1,2,3',
      IMPORT_PULL_INTERVAL: '60',
      KEY_ROTATION_GRACE: '10',
      FILING_RETRY_MS: '100',
      SHUTDOWN_TIMEOUT_MS: '30000',
      ADMIN_TOKEN: 'a'.repeat(20),
    });
    assert.equal(c.shutdownTimeoutMs, 30000);
    assert.deepEqual(
      [
        c.port,
        c.host,
        c.databaseUrl,
        c.dataDir,
        c.env,
        c.logLevel,
        c.redisUrl,
        c.vsdcTimeoutMs,
        c.saleWaitMs,
        c.webhookTimeoutMs,
        c.importPullIntervalSec,
        c.keyRotationGraceSec,
        c.filingRetryMs,
      ],
      [9000, '0.0.0.0', 'postgres://u@h/db', '/tmp/x', 'production', 'warn', 'redis://127.0.0.1:6379', 1500, 250, 2000, 60, 10, 100],
    );
    assert.deepEqual(c.webhookRetryDelaysSec, [1, 2, 3]);
    assert.equal(c.adminToken, 'a'.repeat(20));
  });

  test('METRICS_PORT: unset opens no metrics port; 0 a free one; PUBLIC_URL unset is noted', () => {
    assert.equal(loadConfig({}).metricsPort, undefined);
    assert.equal(loadConfig({ METRICS_PORT: ' ' }).metricsPort, undefined);
    assert.equal(loadConfig({ METRICS_PORT: '0' }).metricsPort, 0);
    assert.equal(loadConfig({ METRICS_PORT: '9464' }).metricsPort, 9464);
    assert.equal(loadConfig({}).publicUrlDefaulted, true);
    assert.equal(loadConfig({ PUBLIC_URL: 'https://gateway.example' }).publicUrlDefaulted, false);
  });

  const bad: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['METRICS_PORT', { METRICS_PORT: 'metrics' }],
    ['METRICS_PORT', { METRICS_PORT: '65536' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://gateway@/fiscal' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://db.internal:99999/fiscal' }],
    ['GATEWAY_ENV', { GATEWAY_ENV: 'staging' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['REDIS_URL', { REDIS_URL: 'http://x' }],
    ['SECRET_KEY', { SECRET_KEY: 'short' }],
    ['SECRET_KEY', { GATEWAY_ENV: 'production' }],
    ['VSDC_TIMEOUT_MS', { VSDC_TIMEOUT_MS: '-1' }],
    ['SALE_WAIT_MS', { SALE_WAIT_MS: '1.5' }],
    ['WEBHOOK_TIMEOUT_MS', { WEBHOOK_TIMEOUT_MS: 'x' }],
    ['WEBHOOK_RETRY_DELAYS', { WEBHOOK_RETRY_DELAYS: '1,,x' }],
    ['IMPORT_PULL_INTERVAL', { IMPORT_PULL_INTERVAL: '0' }],
    ['PURCHASE_PULL_INTERVAL', { PURCHASE_PULL_INTERVAL: '0' }],
    ['NOTICE_PULL_INTERVAL', { NOTICE_PULL_INTERVAL: '1h' }],
    ['BRANCH_SYNC_INTERVAL', { BRANCH_SYNC_INTERVAL: '0' }],
    ['KEY_ROTATION_GRACE', { KEY_ROTATION_GRACE: 'soon' }],
    ['FILING_RETRY_MS', { FILING_RETRY_MS: '0' }],
    ['FILING_CONCURRENCY', { FILING_CONCURRENCY: '0' }],
    ['FILING_CONCURRENCY', { FILING_CONCURRENCY: '30000' }],
    ['VSDC_HOST_CONNECTIONS', { VSDC_HOST_CONNECTIONS: '-1' }],
    ['VSDC_HOST_RATE', { VSDC_HOST_RATE: '2.5' }],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', { WEBHOOK_ENDPOINT_CONCURRENCY: '0' }],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', { WEBHOOK_ENDPOINT_CONCURRENCY: '257' }],
    ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '0' }],
    ['DATA_DIR_MIN_FREE_MB', { DATA_DIR_MIN_FREE_MB: '0' }],
    ['DATA_DIR_MIN_FREE_MB', { DATA_DIR_MIN_FREE_MB: '1.5' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'abc' }],
  ];
  test('an incomplete DATABASE_URL says what it lacks and the form to use, without its password', () => {
    const problem = (url: string) => {
      try {
        loadConfig({ DATABASE_URL: url });
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    assert.equal(
      problem('postgres://'),
      'DATABASE_URL: names no host: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE, got "postgres://"',
    );
    assert.equal(
      problem('postgres://gateway:hunter2@/fiscal'),
      'DATABASE_URL: names no host: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE, got "postgres://gateway:…@/fiscal"',
    );
    assert.match(problem('postgres://db.internal:99999/fiscal'), /^DATABASE_URL: is not a valid URL/);
    // What libpq accepts stays accepted: a Unix socket directory as ?host=, parameters after the database.
    assert.equal(problem('postgres:///fiscal?host=/var/run/postgresql'), 'accepted');
    assert.equal(problem('postgresql://gateway:p%40ss@db.internal/fiscal?sslmode=require'), 'accepted');
    // No database: libpq uses the user's name, as psql does.
    assert.equal(problem('postgresql://gateway:hunter2@db.internal:5432'), 'accepted');
  });

  for (const [variable, env] of bad) {
    test(`a bad ${variable} stops the start with a message naming it (${JSON.stringify(env)})`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(variable),
      );
    });
  }
});
