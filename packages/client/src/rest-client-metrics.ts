import type { Counter, Histogram, MetricsProvider } from "@informer-ts/instrumentation";

/** client-go's latency buckets for REST client histograms (`tools/metrics` registration in component-base). */
export const REST_CLIENT_LATENCY_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
];

/** Metric names, as client-go registers them. */
export const REST_CLIENT_METRICS = {
  requestsTotal: "rest_client_requests_total",
  requestRetriesTotal: "rest_client_request_retries_total",
  requestDurationSeconds: "rest_client_request_duration_seconds",
  rateLimiterDurationSeconds: "rest_client_rate_limiter_duration_seconds",
} as const;

/**
 * The REST client's metrics (client-go `tools/metrics` as wired by component-base):
 * - `rest_client_requests_total{code,method,host}`: one per request, with the final attempt's status code
 *   (`<error>` when there was no HTTP answer).
 * - `rest_client_request_retries_total{code,verb,host}`: one per attempt that was retried.
 * - `rest_client_request_duration_seconds{verb,host}`: non-watch requests, from before client-side throttling
 *   to the end of the last attempt (retries and their sleeps included).
 * - `rest_client_rate_limiter_duration_seconds{verb,host}`: time spent waiting for the client-side limiter.
 */
export class RestClientMetrics {
  private readonly requests: Counter;
  private readonly retries: Counter;
  private readonly latency: Histogram;
  private readonly limiterLatency: Histogram;

  constructor(provider: MetricsProvider) {
    this.requests = provider.counter({
      name: REST_CLIENT_METRICS.requestsTotal,
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"],
    });
    this.retries = provider.counter({
      name: REST_CLIENT_METRICS.requestRetriesTotal,
      help: "Number of request retries, partitioned by status code, verb, and host.",
      labelNames: ["code", "verb", "host"],
    });
    this.latency = provider.histogram({
      name: REST_CLIENT_METRICS.requestDurationSeconds,
      help: "Request latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: REST_CLIENT_LATENCY_BUCKETS,
    });
    this.limiterLatency = provider.histogram({
      name: REST_CLIENT_METRICS.rateLimiterDurationSeconds,
      help: "Client side rate limiter latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: REST_CLIENT_LATENCY_BUCKETS,
    });
  }

  /** The final result of a request (`RequestResult.Increment`). */
  requestResult(code: number | undefined, method: string, host: string): void {
    this.requests.inc({ code: code === undefined ? "<error>" : String(code), method, host });
  }

  /** One retried attempt (`RequestRetry.IncrementRetry`). */
  requestRetry(code: number | undefined, verb: string, host: string): void {
    this.retries.inc({ code: code === undefined ? "<error>" : String(code), verb, host });
  }

  /** Latency of a whole request in seconds (`RequestLatency.Observe`). */
  requestLatency(verb: string, host: string, seconds: number): void {
    this.latency.observe(seconds, { verb, host });
  }

  /** Wait on the client-side rate limiter in seconds (`RateLimiterLatency.Observe`). */
  rateLimiterLatency(verb: string, host: string, seconds: number): void {
    this.limiterLatency.observe(seconds, { verb, host });
  }
}

/**
 * What the REST client reports about its requests on `KubeClient.events`. `url` never contains
 * credentials (they travel in headers).
 */
export type RestClientEvent =
  /** An attempt is about to be sent. */
  | {
      readonly type: "request";
      readonly verb: string;
      readonly url: string;
      readonly attempt: number;
      readonly watch: boolean;
    }
  /** An attempt got response headers. */
  | {
      readonly type: "response";
      readonly verb: string;
      readonly url: string;
      readonly attempt: number;
      readonly code: number;
      readonly durationMs: number;
      readonly watch: boolean;
    }
  /** An attempt failed without an HTTP answer. */
  | {
      readonly type: "transport-error";
      readonly verb: string;
      readonly url: string;
      readonly attempt: number;
      readonly error: unknown;
      readonly durationMs: number;
    }
  /** The attempt will be repeated after `waitMs` (Retry-After, or 1 s after a retryable transport error). */
  | {
      readonly type: "retry";
      readonly verb: string;
      readonly url: string;
      readonly attempt: number;
      readonly waitMs: number;
      readonly reason: string;
    }
  /** The client-side rate limiter delayed a request. */
  | { readonly type: "throttled"; readonly verb: string; readonly url: string; readonly waitedMs: number }
  /** A watch stream ended, failed or was stopped. */
  | {
      readonly type: "watch-closed";
      readonly url: string;
      readonly events: number;
      readonly durationMs: number;
      readonly stopped: boolean;
      readonly error?: unknown;
    };
