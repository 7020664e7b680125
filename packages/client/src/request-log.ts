import type { Clock } from "@informer-ts/clock";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import type { ClientConfig } from "./client-config.js";
import { LONG_THROTTLE_LATENCY_MS, ThrottleWarning } from "./throttle-warning.js";

/** At most one "waited for client-side throttling" line per this many ms (client-go's throttled logger: 1 s). */
export const THROTTLE_LOG_INTERVAL_MS = 1000;

/**
 * What a `KubeClient` logs about its requests, so that a client outside a Manager is not silent by accident:
 *
 * - a retry (`info`): a `Retry-After` answer (429, or a 5xx with the header) or a retryable transport error, with
 *   the attempt, the wait and the reason — client-go logs the same at `V(4)` (`rest/with_retry.go`), so it shows
 *   only with `-v=4`; here it is visible by default because a retried request is slow for a reason worth seeing;
 * - a request that failed for good (`warn`): a transport error after its last attempt, or a 5xx answer — a 4xx
 *   answer (404 NotFound, 409 Conflict…) is a result the caller handles, and is not logged;
 * - client-side throttling (`info`): a rate-limiter wait longer than {@link LONG_THROTTLE_LATENCY_MS}, at most once
 *   per {@link THROTTLE_LOG_INTERVAL_MS} (client-go's `request.go` `tryThrottle` through its throttled logger), the
 *   first one as the {@link ThrottleWarning} naming the setting to change.
 *
 * Lines go through `safeLog`: a throwing logger is ignored.
 */
export class RequestLog {
  private readonly warning: ThrottleWarning;
  private lastThrottleLine = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    config: ClientConfig,
    customLimiter: boolean,
  ) {
    this.warning = new ThrottleWarning(logger, config, customLimiter);
  }

  /**
   * Attempt `attempt` will be repeated after `waitMs`: one line naming the verb, the URL, the attempt, the wait and
   * the reason (`GET https://…/configmaps attempt 1 failed, retrying in 1.0 s: 503 Service Unavailable: etcd is down`).
   */
  retry(verb: string, url: string, attempt: number, waitMs: number, reason: string): void {
    safeLog(
      this.logger,
      "info",
      `${verb} ${url} attempt ${attempt} failed, retrying in ${formatSeconds(waitMs)}: ${reason}`,
      {
        verb,
        url,
        attempt,
        waitMs,
      },
    );
  }

  /** The request failed without an HTTP answer after `attempts` attempts. */
  transportFailure(verb: string, url: string, attempts: number, error: unknown): void {
    safeLog(this.logger, "warn", `${verb} failed: ${errorMessage(error)}`, { verb, url, attempts });
  }

  /** The server answered `code` (5xx) and no retry is left. */
  serverError(verb: string, url: string, attempts: number, code: number): void {
    safeLog(this.logger, "warn", `${verb} failed: the server answered ${code}`, { verb, url, attempts, code });
  }

  /** The rate limiter delayed a request by `waitedMs`. */
  throttled(waitedMs: number, verb: string, url: URL): void {
    if (waitedMs <= LONG_THROTTLE_LATENCY_MS) return;
    const now = this.clock.now();
    if (now - this.lastThrottleLine < THROTTLE_LOG_INTERVAL_MS) return;
    this.lastThrottleLine = now;
    if (this.warning.throttled(waitedMs, verb, url)) return;
    safeLog(
      this.logger,
      "info",
      `waited ${formatSeconds(waitedMs)} due to client-side throttling, not API priority and fairness`,
      { verb, url: url.toString(), waitedMs },
    );
  }
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
