import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { type ClientConfig, rateLimitOf } from "./client-config.js";

/** A limiter wait longer than this is worth a warning (client-go's `longThrottleLatency`). */
export const LONG_THROTTLE_LATENCY_MS = 1000;

/**
 * Logs, once per client, that client-side throttling delayed a request by more than
 * {@link LONG_THROTTLE_LATENCY_MS}, naming the setting and how to change it (client-go logs "Waited for … due to
 * client-side throttling, not priority and fairness" at verbosity 1; a default of 5 qps silently makes 40 creates
 * take 6 s). Logged through the repo's `Logger`; a throwing logger is ignored.
 */
export class ThrottleWarning {
  private warned = false;

  constructor(
    private readonly logger: Logger,
    private readonly config: ClientConfig,
    /** The limiter was given in `KubeClientOptions.rateLimiter` rather than built from qps/burst. */
    private readonly customLimiter: boolean,
  ) {}

  /** Told of every limiter wait; warns the first time one exceeds the threshold (then true: it logged). */
  throttled(waitedMs: number, verb: string, url: URL): boolean {
    if (this.warned || waitedMs <= LONG_THROTTLE_LATENCY_MS) return false;
    this.warned = true;
    const rl = rateLimitOf(this.config);
    const setting = this.customLimiter
      ? "the rate limiter given in KubeClientOptions.rateLimiter"
      : `client-side rate limit qps=${rl?.qps ?? "?"} burst=${rl?.burst ?? "?"}`;
    const how = this.customLimiter
      ? "pass a faster limiter, or rateLimiter: null to disable client-side throttling"
      : "raise ClientConfig.qps and burst (loadClientConfig({ qps, burst }) or new KubeClient({ ...config, qps, burst })), or set qps to a negative value to disable client-side throttling";
    safeLog(
      this.logger,
      "warn",
      `client-side throttling delayed a request by ${(waitedMs / 1000).toFixed(1)} s (${setting}); ${how}. Logged once per client.`,
      {
        verb,
        url: url.toString(),
        waitedMs,
        ...(rl !== undefined && !this.customLimiter && { qps: rl.qps, burst: rl.burst }),
      },
    );
    return true;
  }
}
