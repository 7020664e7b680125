import type { Gauge, MetricsProvider } from "@informer-ts/instrumentation";

/**
 * The one request metric the HTTP face records itself: `apiserver_longrunning_requests{verb,resource}` (watches
 * currently streaming), as kube-apiserver's handler chain does. Request counters, latency and sizes
 * (`apiserver_request_total` with `served_from`, `apiserver_request_duration_seconds`, `apiserver_response_sizes`)
 * are the backend's accounting (the engine's `RequestAccounting`), so each request is counted exactly once and the
 * HTTP face and the engine can share one metrics registry.
 */
export class RequestMetrics {
  private readonly longRunning: Gauge;

  constructor(provider: MetricsProvider) {
    this.longRunning = provider.gauge({
      name: "apiserver_longrunning_requests",
      help: "Gauge of all active long-running apiserver requests (watches) by verb and resource.",
      labelNames: ["verb", "resource"],
    });
  }

  watchStarted(resource: string): void {
    this.longRunning.inc({ verb: "WATCH", resource });
  }

  watchEnded(resource: string): void {
    this.longRunning.dec({ verb: "WATCH", resource });
  }
}
