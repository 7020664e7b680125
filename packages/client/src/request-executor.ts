import type { Status } from "@informer-ts/apimachinery";
import { fromStatus, isConnectionReset, isProbableEOF } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import type { EventStream } from "@informer-ts/instrumentation";
import type { AgentPool } from "./agent-pool.js";
import { attemptCredentials } from "./auth-headers.js";
import type { ClientConfig } from "./client-config.js";
import type { RequestLog } from "./request-log.js";
import { type HttpResponse, readText } from "./response-body.js";
import {
  isTextResponse,
  MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES,
  parseFailureStatus,
  type RequestDescription,
  statusErrorFromResponse,
} from "./response-errors.js";
import type { RestClientEvent, RestClientMetrics } from "./rest-client-metrics.js";
import type { RateLimiter } from "./throttle.js";
import { DEFAULT_HEADERS_TIMEOUT_MS } from "./transport.js";
import { checkWait, type ResponseHeaders, type RetryAfter, WithRetry } from "./with-retry.js";

/** HTTP methods the client sends. */
export type Verb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request, fully built: nothing in it is validated again. */
export interface RequestSpec {
  readonly verb: Verb;
  readonly url: URL;
  readonly body?: string;
  readonly contentType?: string;
  /** `Accept` header; default `application/json, *\/*`. */
  readonly accept?: string;
  readonly desc: RequestDescription;
  readonly signal: AbortSignal | undefined;
  /** Decodes a JSON body's text (default `JSON.parse`); it throws on a body that is not JSON, as `JSON.parse` does. */
  readonly parse?: (text: string) => unknown;
}

/** How the retry loop ended without a 2xx: only when the last error was a retryable transport error. */
export type ExecuteOutcome = { kind: "ok"; response: HttpResponse } | { kind: "exhausted"; error: unknown };

/** Error bodies beyond this size are not read into memory (Status bodies are tiny). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Thrown (as the signal reason) when {@link ClientConfig.timeoutMs} elapses. */
export class RequestTimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`request to ${url} did not complete within ${timeoutMs} ms (client timeout)`);
  }
}

/** Everything the executor needs from its client. */
export interface RequestExecutorDeps {
  readonly config: ClientConfig;
  readonly host: string;
  readonly clock: Clock;
  readonly metrics: RestClientMetrics;
  readonly rateLimiter: RateLimiter | undefined;
  readonly maxRetries: number;
  readonly userAgent: string;
  readonly pool: AgentPool;
  readonly events: EventStream<RestClientEvent>;
  /** Where retries, final failures and long throttling waits are logged; none when the client is quiet. */
  readonly log?: RequestLog;
}

/**
 * Sends requests the way client-go's `rest.Request` does (`request.go`: `Do`/`request`/`Watch`, with
 * `with_retry.go` and `tryThrottle`): client-side throttling before the first attempt (not for a watch's first
 * attempt) and before every retry, the `Retry-After` retry loop, the overall client timeout of non-watch requests
 * on the clock, per-attempt credentials and connection pool, metrics and events. It knows nothing of resources or
 * verbs' semantics; {@link KubeClient} builds the {@link RequestSpec}s.
 */
export class RequestExecutor {
  constructor(private readonly d: RequestExecutorDeps) {}

  /** Emits a client event when someone listens. */
  emit(e: RestClientEvent): void {
    if (this.d.events.observed) this.d.events.emit(e);
  }

  /**
   * `Request.Do` + decode: throttle, retries, error mapping, then the JSON body. A `Failure` Status in a 2xx
   * body is thrown as its `StatusError`. `callTimeoutMs` overrides the config's `timeoutMs`.
   */
  async doJSON<T>(spec: RequestSpec, callTimeoutMs?: number): Promise<T> {
    const { clock, config } = this.d;
    const start = clock.now();
    try {
      // Throttle the first attempt before any timeout starts, as client-go does.
      await this.throttle(spec);
      const timeoutMs =
        callTimeoutMs ?? (config.timeoutMs !== undefined && config.timeoutMs > 0 ? config.timeoutMs : 0);
      const scoped = this.withTimeout(spec, timeoutMs);
      try {
        const retryable = (err: unknown) => spec.verb === "GET" && (isConnectionReset(err) || isProbableEOF(err));
        const outcome = await this.execute({ ...spec, signal: scoped.signal }, false, retryable);
        if (outcome.kind === "exhausted") throw outcome.error;
        const res = outcome.response;
        const text = await readText(res, Number.POSITIVE_INFINITY, scoped.signal);
        let parsed: unknown;
        try {
          parsed = spec.parse !== undefined ? spec.parse(text) : JSON.parse(text);
        } catch (err) {
          throw new Error(
            `${spec.verb} ${spec.url.pathname}: cannot decode the ${res.statusCode} response as JSON: ${
              err instanceof Error ? err.message : String(err)
            }`,
          );
        }
        if (isFailureStatus(parsed)) throw fromStatus(parsed);
        return parsed as T;
      } catch (err) {
        throw scoped.reason() ?? err;
      } finally {
        scoped.dispose();
      }
    } finally {
      this.d.metrics.requestLatency(spec.verb, this.d.host, clock.since(start) / 1000);
    }
  }

  /**
   * The retry loop shared by `Do` and `Watch`: attempts until a 2xx, a final error answer (thrown as a
   * StatusError), or a final transport error (thrown, or `exhausted` when it was retryable). A watch's first
   * attempt is not throttled (the caller throttles a non-watch's first attempt); every retry is.
   */
  async execute(
    spec: RequestSpec,
    watch: boolean,
    isErrorRetryable: (err: unknown) => boolean,
  ): Promise<ExecuteOutcome> {
    const { clock, config, metrics, host } = this.d;
    const retry = new WithRetry(this.d.maxRetries, isErrorRetryable);
    let next: RetryAfter | undefined;
    const urlText = spec.url.toString();
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(spec.signal);
      if (next !== undefined) {
        await clock.sleep(Math.max(0, next.waitSeconds) * 1000, spec.signal);
        await this.throttle(spec);
      }
      const creds = await attemptCredentials(config, {
        userAgent: this.d.userAgent,
        ...(spec.contentType !== undefined && { contentType: spec.contentType }),
        ...(spec.accept !== undefined && { accept: spec.accept }),
      });
      const dispatcher = this.d.pool.dispatcherFor(creds.cert, creds.key);
      throwIfAborted(spec.signal);
      this.emit({ type: "request", verb: spec.verb, url: urlText, attempt, watch });
      const sent = clock.now();
      let res: HttpResponse;
      try {
        res = await dispatcher.request({
          origin: spec.url.origin,
          path: spec.url.pathname + spec.url.search,
          method: spec.verb,
          headers: creds.headers,
          body: spec.body ?? null,
          signal: spec.signal ?? null,
          headersTimeout: config.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
          ...(watch && { bodyTimeout: 0 }),
        });
      } catch (err) {
        throwIfAborted(spec.signal);
        this.emit({
          type: "transport-error",
          verb: spec.verb,
          url: urlText,
          attempt,
          error: err,
          durationMs: clock.since(sent),
        });
        next = retry.isNextRetry({ error: err });
        if (next !== undefined) {
          metrics.requestRetry(undefined, spec.verb, host);
          this.retried(spec.verb, urlText, attempt, next);
          continue;
        }
        metrics.requestResult(undefined, spec.verb, host);
        this.d.log?.transportFailure(spec.verb, urlText, attempt, err);
        if (isErrorRetryable(err)) return { kind: "exhausted", error: err };
        throw err;
      }
      this.emit({
        type: "response",
        verb: spec.verb,
        url: urlText,
        attempt,
        code: res.statusCode,
        durationMs: clock.since(sent),
        watch,
      });
      if (res.statusCode >= 200 && res.statusCode < 300) {
        metrics.requestResult(res.statusCode, spec.verb, host);
        return { kind: "ok", response: res };
      }
      // An answer asking for a retry is read for the server's reason (named in the retry's log line and event).
      const askedText =
        checkWait(res.statusCode, res.headers) === undefined
          ? undefined
          : await readText(res, MAX_ERROR_BODY_BYTES, spec.signal);
      next = retry.isNextRetry({
        statusCode: res.statusCode,
        headers: res.headers,
        ...(askedText !== undefined && { message: serverMessage(res.headers, askedText) }),
      });
      if (next !== undefined) {
        metrics.requestRetry(res.statusCode, spec.verb, host);
        this.retried(spec.verb, urlText, attempt, next);
        continue;
      }
      metrics.requestResult(res.statusCode, spec.verb, host);
      if (res.statusCode >= 500) this.d.log?.serverError(spec.verb, urlText, attempt, res.statusCode);
      const text = askedText ?? (await readText(res, MAX_ERROR_BODY_BYTES, spec.signal));
      throw statusErrorFromResponse(res.statusCode, res.headers, text, spec.desc);
    }
  }

  /** Accounts for a retry about to be made: the event and the log line. */
  private retried(verb: Verb, url: string, attempt: number, next: RetryAfter): void {
    const waitMs = next.waitSeconds * 1000;
    this.emit({ type: "retry", verb, url, attempt, waitMs, reason: next.reason });
    this.d.log?.retry(verb, url, attempt, waitMs, next.reason);
  }

  /** `tryThrottle`: waits for the rate limiter, recording the wait. */
  private async throttle(spec: RequestSpec): Promise<void> {
    const limiter = this.d.rateLimiter;
    if (limiter === undefined) return;
    const { clock } = this.d;
    const start = clock.now();
    await limiter.wait(spec.signal);
    const waited = clock.since(start);
    this.d.metrics.rateLimiterLatency(spec.verb, this.d.host, waited / 1000);
    if (waited > 0) {
      this.emit({ type: "throttled", verb: spec.verb, url: spec.url.toString(), waitedMs: waited });
      this.d.log?.throttled(waited, spec.verb, spec.url);
    }
  }

  private withTimeout(
    spec: RequestSpec,
    timeoutMs: number,
  ): { signal: AbortSignal | undefined; reason(): unknown; dispose(): void } {
    if (timeoutMs <= 0) return { signal: spec.signal, reason: () => undefined, dispose() {} };
    const ac = new AbortController();
    let timedOut: RequestTimeoutError | undefined;
    const timer = this.d.clock.afterFunc(timeoutMs, () => {
      timedOut = new RequestTimeoutError(spec.url.toString(), timeoutMs);
      ac.abort(timedOut);
    });
    const outer = spec.signal;
    const onAbort = () => ac.abort(outer?.reason);
    if (outer?.aborted) ac.abort(outer.reason);
    else outer?.addEventListener("abort", onAbort, { once: true });
    return {
      signal: ac.signal,
      reason: () => timedOut,
      dispose: () => {
        timer.stop();
        outer?.removeEventListener("abort", onAbort);
      },
    };
  }
}

function isFailureStatus(v: unknown): v is Status {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { kind?: unknown }).kind === "Status" &&
    (v as { status?: unknown }).status === "Failure"
  );
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/** Beyond this many characters a server's reason is cut in a retry's log line. */
const MAX_REASON_CHARS = 200;

/** The server's own reason in an error answer: a Status's `message`, or a short plain-text body; else undefined. */
function serverMessage(headers: ResponseHeaders, body: string): string | undefined {
  const status = parseFailureStatus(body);
  const text = status !== undefined ? (status.message ?? "") : isTextResponse(headers) ? body.trim() : "";
  if (text === "") return undefined;
  const cut = text.slice(0, Math.min(MAX_REASON_CHARS, MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES));
  return cut.length < text.length ? `${cut}…` : cut;
}
