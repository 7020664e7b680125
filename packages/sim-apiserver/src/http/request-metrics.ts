import type { Counter, Gauge, Histogram, MetricsProvider } from "@informer-ts/instrumentation";

/** Buckets of `apiserver_request_duration_seconds` (a subset of upstream's). */
const DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/**
 * The request metrics kube-apiserver's handler chain records (`pkg/endpoints/metrics`), with a subset of its labels:
 * `apiserver_request_total{verb,group,version,resource,code}`, `apiserver_request_duration_seconds{verb,resource}`
 * (non-long-running requests) and `apiserver_longrunning_requests{verb,resource}` (open watches). Verbs are
 * upper-case as upstream reports them (`LIST`, `WATCH`, `GET`, `POST`…).
 */
export class RequestMetrics {
  private readonly total: Counter;
  private readonly duration: Histogram;
  private readonly longRunning: Gauge;

  constructor(provider: MetricsProvider) {
    this.total = provider.counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, group, version, resource and HTTP response code.",
      labelNames: ["verb", "group", "version", "resource", "code"],
    });
    this.duration = provider.histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb and resource (long-running requests excluded).",
      labelNames: ["verb", "resource"],
      buckets: DURATION_BUCKETS,
    });
    this.longRunning = provider.gauge({
      name: "apiserver_longrunning_requests",
      help: "Gauge of all active long-running apiserver requests (watches) by verb and resource.",
      labelNames: ["verb", "resource"],
    });
  }

  /** A finished request. `seconds` is ignored for long-running requests. */
  observe(
    verb: string,
    group: string,
    version: string,
    resource: string,
    code: number,
    seconds: number,
    longRunning: boolean,
  ) {
    const v = verb.toUpperCase();
    this.total.inc({ verb: v, group, version, resource, code: String(code) });
    if (!longRunning) this.duration.observe(seconds, { verb: v, resource });
  }

  watchStarted(resource: string): void {
    this.longRunning.inc({ verb: "WATCH", resource });
  }

  watchEnded(resource: string): void {
    this.longRunning.dec({ verb: "WATCH", resource });
  }
}
