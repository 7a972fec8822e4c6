import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DatabaseAvailability } from '../db/availability.ts';

// Prometheus metrics. Counters and histograms are per process (Prometheus sums them across
// processes); the fiscal state (documents, backlog, deliveries) is read from the database at
// scrape time, so every process reports the same truth.

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  vsdcCalls: Counter<'endpoint' | 'outcome'>;
  vsdcDuration: Histogram<'endpoint'>;
  queueClaimDuration: Histogram<'queue'>;
  /** The merchants' mail this process sent, failed to send, gave up (src/domain/kernel/mail/worker.ts). */
  mailSent: Counter<'kind'>;
  mailFailures: Counter<'reason'>;
  mailGivenUp: Counter<'reason'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'fiscal_gateway_process_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'fiscal_gateway_http_requests_total',
      help: 'HTTP requests by route pattern, method and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'fiscal_gateway_http_request_duration_seconds',
      help: 'HTTP request latency by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    vsdcCalls: new Counter({
      name: 'fiscal_gateway_vsdc_calls_total',
      help: 'VSDC calls by endpoint and outcome class (ok, empty, already_installed, duplicate, rejected, unreachable)',
      labelNames: ['endpoint', 'outcome'],
      registers: [registry],
    }),
    vsdcDuration: new Histogram({
      name: 'fiscal_gateway_vsdc_call_duration_seconds',
      help: 'VSDC call latency by endpoint',
      labelNames: ['endpoint'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers: [registry],
    }),
    queueClaimDuration: new Histogram({
      name: 'fiscal_gateway_queue_claim_duration_seconds',
      help: 'Time to claim the next unit of work from a database-backed queue',
      labelNames: ['queue'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    mailSent: new Counter({
      name: 'fiscal_gateway_mail_sent_total',
      help: "Merchants' mails this process handed to the SMTP server, by kind",
      labelNames: ['kind'],
      registers: [registry],
    }),
    mailFailures: new Counter({
      name: 'fiscal_gateway_mail_failures_total',
      help: "Attempts to send a merchant's mail that failed, by reason class (unreachable, timeout, tls, auth, refused, unreadable, not_configured, other); each is retried unless given up",
      labelNames: ['reason'],
      registers: [registry],
    }),
    mailGivenUp: new Counter({
      name: 'fiscal_gateway_mail_given_up_total',
      help: "Merchants' mails given up, never sent, by reason (link_expired, retry_window, refused, unreadable)",
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

/**
 * `fiscal_gateway_database_up` (0 while this process cannot reach the database) and
 * `fiscal_gateway_database_outages_total`: an outage seen from each process, for an alert that
 * tells the gateway's own database from a VSDC's.
 */
export function observeDatabaseAvailability(metrics: Metrics, availability: DatabaseAvailability): () => void {
  new Gauge({
    name: 'fiscal_gateway_database_up',
    help: '1 while this process reaches its database, 0 from a failed connection attempt until one succeeds',
    registers: [metrics.registry],
    collect() {
      this.set(availability.isDown ? 0 : 1);
    },
  });
  const outages = new Counter({
    name: 'fiscal_gateway_database_outages_total',
    help: 'Database outages this process has met (a failed connection attempt after the database answered)',
    registers: [metrics.registry],
  });
  return availability.observe({ down: () => outages.inc(), up: () => {} });
}

/** The embedded database's disk, as its free-space floor sees it (platform/db/storage-floor.ts). */
interface StorageReading {
  readonly freeBytes: number;
  readonly minFreeBytes: number;
  readonly refusing: boolean;
}

/** The gauges of the embedded database's disk: only a `serve` on the embedded database has them. */
export function registerStorageGauges(metrics: Metrics, storage: StorageReading): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'fiscal_gateway_data_dir_free_bytes',
    help: "Free bytes on the embedded database's disk (DATA_DIR), as last read (every second)",
    registers,
    collect() {
      this.set(storage.freeBytes);
    },
  });
  new Gauge({
    name: 'fiscal_gateway_data_dir_min_free_bytes',
    help: 'DATA_DIR_MIN_FREE_MB in bytes: below this much free space writes are refused',
    registers,
    collect() {
      this.set(storage.minFreeBytes);
    },
  });
  new Gauge({
    name: 'fiscal_gateway_data_dir_writes_refused',
    help: "1 while writes are refused (507 storage_full) because the embedded database's disk has less than DATA_DIR_MIN_FREE_MB free, else 0",
    registers,
    collect() {
      this.set(storage.refusing ? 1 : 0);
    },
  });
}
