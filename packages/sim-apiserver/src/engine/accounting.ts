import {
  type Counter,
  exponentialBuckets,
  type Gauge,
  type Histogram,
  type MetricsProvider,
  noopMetrics,
} from "@informer-ts/instrumentation";

/** One finished request as the accounting sees it. */
export interface RequestRecord {
  /** Kubernetes verb: list, watch, get, create, update, patch, delete. */
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly userAgent: string;
  /** HTTP status code (a watch that started is 200, whatever happened later). */
  readonly code: number;
  /** "cache" (watch cache), "storage" (etcd stand-in), or "" (writes, rejected requests). */
  readonly servedFrom: "cache" | "storage" | "";
  readonly latencyMs: number;
  /** Response bytes (0 in-process: nothing is serialized). */
  readonly bytes: number;
}

/** Aggregated counters of one (verb, resource, user agent, code, served-from) series. */
export interface AccountingRow {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly userAgent: string;
  readonly code: number;
  readonly servedFrom: string;
  count: number;
  latencyMsSum: number;
  bytes: number;
}

const SEP = "\u0000";

/**
 * Request accounting: every request counted by verb, resource, user agent, response code and where it was served
 * from, with latency and bytes. Readable programmatically ({@link rows}, {@link count}) and exported as Prometheus
 * metrics with kube-apiserver's names (`apiserver_request_total`, `apiserver_request_duration_seconds`,
 * `apiserver_response_sizes`) plus `served_from` and `user_agent` labels (simulator additions).
 */
export class RequestAccounting {
  private readonly series = new Map<string, AccountingRow>();
  private readonly total: Counter;
  private readonly duration: Histogram;
  private readonly sizes: Histogram;
  /** Optional sink for one JSON line per request (httplog / audit style). */
  log: ((line: string) => void) | undefined;

  constructor(metrics: MetricsProvider = noopMetrics) {
    const labelNames = ["verb", "group", "version", "resource", "code", "served_from", "user_agent"];
    this.total = metrics.counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, group, version, resource, code, served_from and user_agent.",
      labelNames,
    });
    this.duration = metrics.histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, group, version, resource and served_from.",
      labelNames: ["verb", "group", "version", "resource", "served_from"],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    });
    this.sizes = metrics.histogram({
      name: "apiserver_response_sizes",
      help: "Response size distribution in bytes for each verb, group, version and resource.",
      labelNames: ["verb", "group", "version", "resource"],
      buckets: exponentialBuckets(1000, 10, 8),
    });
  }

  record(r: RequestRecord): void {
    const key = [r.verb, r.group, r.resource, r.userAgent, r.code, r.servedFrom].join(SEP);
    let row = this.series.get(key);
    if (row === undefined) {
      row = {
        verb: r.verb,
        group: r.group,
        resource: r.resource,
        userAgent: r.userAgent,
        code: r.code,
        servedFrom: r.servedFrom,
        count: 0,
        latencyMsSum: 0,
        bytes: 0,
      };
      this.series.set(key, row);
    }
    row.count++;
    row.latencyMsSum += r.latencyMs;
    row.bytes += r.bytes;
    const base = { verb: r.verb, group: r.group, version: r.version, resource: r.resource };
    this.total.inc({ ...base, code: String(r.code), served_from: r.servedFrom, user_agent: r.userAgent });
    this.duration.observe(r.latencyMs / 1000, { ...base, served_from: r.servedFrom });
    if (r.bytes > 0) this.sizes.observe(r.bytes, base);
    this.log?.(JSON.stringify({ kind: "Event", stage: "ResponseComplete", ...r }));
  }

  /** Snapshot of every series. */
  rows(): AccountingRow[] {
    return [...this.series.values()].map((r) => ({ ...r }));
  }

  /** Number of requests matching every given field. */
  count(filter: Partial<Pick<AccountingRow, "verb" | "resource" | "userAgent" | "code" | "servedFrom">> = {}): number {
    let n = 0;
    for (const r of this.series.values()) {
      if (filter.verb !== undefined && r.verb !== filter.verb) continue;
      if (filter.resource !== undefined && r.resource !== filter.resource) continue;
      if (filter.userAgent !== undefined && r.userAgent !== filter.userAgent) continue;
      if (filter.code !== undefined && r.code !== filter.code) continue;
      if (filter.servedFrom !== undefined && r.servedFrom !== filter.servedFrom) continue;
      n += r.count;
    }
    return n;
  }

  reset(): void {
    this.series.clear();
  }
}

/** Watch-cache metrics with kube-apiserver's names. */
export class CacheMetrics {
  readonly registeredWatchers: Gauge;
  readonly terminatedWatchers: Counter;
  readonly dispatchedEvents: Counter;

  constructor(metrics: MetricsProvider = noopMetrics) {
    this.registeredWatchers = metrics.gauge({
      name: "apiserver_registered_watchers",
      help: "Number of currently registered watchers for a given resource",
      labelNames: ["group", "resource"],
    });
    this.terminatedWatchers = metrics.counter({
      name: "apiserver_terminated_watchers_total",
      help: "Counter of watchers closed due to unresponsiveness broken by resource type.",
      labelNames: ["group", "resource"],
    });
    this.dispatchedEvents = metrics.counter({
      name: "apiserver_watch_events_total",
      help: "Number of events sent in watch clients",
      labelNames: ["group", "resource"],
    });
  }
}
