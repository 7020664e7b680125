import { STATUS_CODES } from "node:http";

/** `Request.maxRetries` default: retries after a `Retry-After` answer before the error is returned. */
export const DEFAULT_MAX_RETRIES = 10;

/** Response header names are lower-case (undici); values may repeat. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * `retryAfterSeconds`: the `Retry-After` header as whole seconds, or `undefined` when it is missing or not an
 * integer (an HTTP date is not accepted, as in client-go's `strconv.Atoi`).
 */
export function retryAfterSeconds(headers: ResponseHeaders): number | undefined {
  const h = header(headers, "retry-after")?.trim();
  if (h === undefined || !/^[+-]?\d{1,9}$/.test(h)) return undefined;
  return Number.parseInt(h, 10);
}

/**
 * `checkWait`: whether an answer asks the client to retry, and after how many seconds. Only 429 and 5xx
 * answers that carry a valid `Retry-After` qualify.
 */
export function checkWait(statusCode: number, headers: ResponseHeaders): number | undefined {
  if (statusCode !== 429 && statusCode < 500) return undefined;
  return retryAfterSeconds(headers);
}

/** Why and how long the next attempt waits (`RetryAfter`). */
export interface RetryAfter {
  /** Seconds to sleep before the next attempt (negative values sleep 0). */
  readonly waitSeconds: number;
  /** The attempt (1-based) whose result asked for the retry. */
  readonly attempt: number;
  /**
   * Why, in a few words (client-go's `getRetryReason`, without its `retries: n, retry-after: ns - retry-reason:`
   * prefix, which the log line and the event already carry as fields): the transport error's message, or the status
   * line with the server's own message (`503 Service Unavailable: etcdserver: leader changed`) and, for a 429, the
   * APF flow schema that rejected it.
   */
  readonly reason: string;
}

/** What one attempt produced: an HTTP answer, or a transport error with no answer. */
export type AttemptResult =
  | {
      readonly statusCode: number;
      readonly headers: ResponseHeaders;
      /** The server's message (a Status body's `message`, or a short text body), when it gave one. */
      readonly message?: string;
      readonly error?: undefined;
    }
  | { readonly error: unknown; readonly statusCode?: undefined };

/**
 * Decides whether a failed attempt is retried (`rest.WithRetry` / `withRetry.IsNextRetry`).
 *
 * An attempt is retried when fewer than `maxRetries` retries were made and either
 * - the server answered 429 or 5xx **with** a `Retry-After` header (any verb, since the server asked), or
 * - there was no answer and `isErrorRetryable(error)` says the transport error is transient; client-go then
 *   behaves as if it got `500` with `Retry-After: 1`.
 *
 * Not safe for two requests: one instance per request.
 */
export class WithRetry {
  private attempts = 0;

  constructor(
    readonly maxRetries: number = DEFAULT_MAX_RETRIES,
    private readonly isErrorRetryable: (err: unknown) => boolean = () => false,
  ) {}

  /** How many attempts were judged so far. */
  get attemptCount(): number {
    return this.attempts;
  }

  /** Judges one attempt's result; returns the retry parameters, or `undefined` to stop and report it. */
  isNextRetry(result: AttemptResult): RetryAfter | undefined {
    this.attempts++;
    const attempt = this.attempts;
    if (attempt > this.maxRetries) return undefined;
    if (result.error !== undefined || result.statusCode === undefined) {
      if (!this.isErrorRetryable(result.error)) return undefined;
      const message = result.error instanceof Error ? result.error.message : String(result.error);
      return { waitSeconds: 1, attempt, reason: message };
    }
    const seconds = checkWait(result.statusCode, result.headers);
    if (seconds === undefined) return undefined;
    const code = result.statusCode;
    let reason = `${code} ${STATUS_CODES[code] ?? "error"}`;
    const flowSchema = code === 429 ? header(result.headers, "x-kubernetes-pf-flowschema-uid") : undefined;
    if (flowSchema !== undefined && flowSchema !== "") reason += ` (flow schema UID ${flowSchema})`;
    if (result.message !== undefined && result.message !== "") reason += `: ${result.message}`;
    return { waitSeconds: seconds, attempt, reason };
  }
}
