import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  };
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
