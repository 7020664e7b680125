import { createGunzip } from "node:zlib";
import type { KubeList, KubeObject, ListOptions, Status } from "@informer-ts/apimachinery";
import { fromStatus, isConnectionReset, isNetworkTimeout, isProbableEOF } from "@informer-ts/apimachinery";
import type { Watch } from "@informer-ts/cache";
import { type Clock, realClock } from "@informer-ts/clock";
import { EventStream, type MetricsProvider, noopMetrics } from "@informer-ts/instrumentation";
import type { Observable } from "rxjs";
import type { Dispatcher } from "undici";
import { BodyBuffer } from "./body-buffer.js";
import { type ClientConfig, type PemData, rateLimitOf, validateClientConfig } from "./client-config.js";
import {
  listOptionsQuery,
  RequestConstructionError,
  type ResourceDescriptor,
  type ResourceLocation,
  resourceURL,
} from "./resources.js";
import { type RequestDescription, statusErrorFromResponse } from "./response-errors.js";
import { type RestClientEvent, RestClientMetrics } from "./rest-client-metrics.js";
import { emptyWatch, StreamWatcher, type WatchBody } from "./stream-watcher.js";
import { type RateLimiter, TokenBucketRateLimiter } from "./throttle.js";
import { DEFAULT_HEADERS_TIMEOUT_MS, newAgent, tlsMaterialFor } from "./transport.js";
import { defaultUserAgent } from "./version.js";
import type { WatchDecoderOptions } from "./watch-decoder.js";
import { DEFAULT_MAX_RETRIES, type ResponseHeaders, type RetryAfter, WithRetry } from "./with-retry.js";

/** Options of a {@link KubeClient} beyond its {@link ClientConfig}. */
export interface KubeClientOptions {
  /** Clock for Retry-After sleeps, the rate limiter, timeouts and durations. Default: real time. */
  readonly clock?: Clock;
  /** Metrics sink (client-go names). Default: none. */
  readonly metrics?: MetricsProvider;
  /**
   * Client-side rate limiter. Default: a token bucket of the config's qps/burst (5/10), or none when the config's
   * qps is negative. `null` disables client-side rate limiting.
   */
  readonly rateLimiter?: RateLimiter | null;
  /** Retries after a Retry-After answer or a retryable transport error (`MaxRetries`); default 10. */
  readonly maxRetries?: number;
  /** Use this undici dispatcher instead of building agents from the config's TLS settings (tests, proxies). */
  readonly dispatcher?: Dispatcher;
  /** Watch decoding limits. */
  readonly watchDecoder?: WatchDecoderOptions;
}

/** Options of a list or watch: `metav1.ListOptions` plus the namespace (unset = all namespaces). */
export interface ListCallOptions extends ListOptions {
  readonly namespace?: string;
}

/** Namespace of a single-object request (required for namespaced resources). */
export interface ObjectCallOptions {
  readonly namespace?: string;
}

/** Options of create/update/patch (`metav1.CreateOptions` / `UpdateOptions` / `PatchOptions`). */
export interface WriteOptions extends ObjectCallOptions {
  readonly fieldManager?: string;
  readonly fieldValidation?: "Strict" | "Warn" | "Ignore";
  readonly dryRun?: boolean;
}

/** Patch content types (`types.PatchType`). */
export type PatchType = "merge" | "strategic-merge" | "json" | "apply";

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  "strategic-merge": "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
};

/** Options of patch. */
export interface PatchOptions extends WriteOptions {
  /** Default `merge` (JSON merge patch, RFC 7386). */
  readonly patchType?: PatchType;
  /** Server-side apply: take ownership of conflicting fields. */
  readonly force?: boolean;
}

/** Options of delete (`metav1.DeleteOptions`). */
export interface DeleteCallOptions extends ObjectCallOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: "Orphan" | "Background" | "Foreground";
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
}

type Verb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface RequestSpec {
  readonly verb: Verb;
  readonly url: URL;
  readonly body?: string;
  readonly contentType?: string;
  readonly desc: RequestDescription;
  readonly signal: AbortSignal | undefined;
}

interface Response {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  readonly body: Dispatcher.ResponseData["body"];
}

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

/**
 * A client for one Kubernetes API server (client-go `rest.RESTClient` + the typed clients' verbs) over undici.
 *
 * Every request:
 * - carries `User-Agent`, `Accept: application/json, *\/*`, `Accept-Encoding: gzip` (unless disabled) and the
 *   credentials of the config (bearer token, token/auth provider, basic auth, client certificate);
 * - is throttled by the client-side rate limiter (token bucket, default 5 QPS / burst 10) before its first
 *   attempt, except watches, whose first attempt is not throttled (client-go's `Request.Watch`); every retry
 *   is throttled;
 * - is retried up to `maxRetries` (10) times when the server answers 429 or 5xx **with** `Retry-After`,
 *   sleeping that many seconds on the clock; GET requests also after a connection reset or unexpected EOF, and
 *   watches after an EOF or timeout, as if told `Retry-After: 1`;
 * - fails with the server's `StatusError` (or a synthesized one, see `statusErrorFromResponse`) for a non-2xx
 *   answer, with the transport error when there was no answer, with `signal.reason` when aborted, and with a
 *   {@link RequestConstructionError} before sending anything when the request is malformed.
 *
 * Differences from client-go: no client-side exponential backoff manager (client-go's default is a no-op too);
 * errors of several attempts are not chained (`WrapPreviousError`); HTTP/1.1 only; JSON only (no protobuf/CBOR).
 */
export class KubeClient {
  private readonly eventStream = new EventStream<RestClientEvent>({ name: "client events$" });
  /**
   * Request accounting: one event per attempt, retry, throttle and watch end. Read-only, hot, no replay;
   * completes on `close()`; a throwing subscriber is reported (logged), never re-thrown into the host.
   */
  readonly events$: Observable<RestClientEvent> = this.eventStream.events$;
  readonly config: ClientConfig;
  private readonly server: URL;
  private readonly host: string;
  private readonly clock: Clock;
  private readonly metrics: RestClientMetrics;
  private readonly rateLimiter: RateLimiter | undefined;
  private readonly maxRetries: number;
  private readonly userAgent: string;
  private readonly customDispatcher: Dispatcher | undefined;
  private readonly agents = new Map<string, Dispatcher>();
  private readonly decoderOptions: WatchDecoderOptions;
  private closed = false;

  constructor(config: ClientConfig, options: KubeClientOptions = {}) {
    this.server = validateClientConfig(config);
    this.config = config;
    this.host = this.server.host;
    this.clock = options.clock ?? realClock;
    this.metrics = new RestClientMetrics(options.metrics ?? noopMetrics);
    if (options.rateLimiter === null) this.rateLimiter = undefined;
    else if (options.rateLimiter !== undefined) this.rateLimiter = options.rateLimiter;
    else {
      const rl = rateLimitOf(config);
      this.rateLimiter = rl === undefined ? undefined : new TokenBucketRateLimiter(rl.qps, rl.burst, this.clock);
    }
    this.maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.userAgent = config.userAgent ?? defaultUserAgent();
    this.customDispatcher = options.dispatcher;
    this.decoderOptions = options.watchDecoder ?? {};
  }

  /** Lists objects (`GET` collection). A `Failure` Status in a 2xx body is thrown as a `StatusError`. */
  async list<T = KubeObject>(
    resource: ResourceDescriptor,
    options: ListCallOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T>> {
    const { namespace, ...listOptions } = options;
    const url = resourceURL(this.server, resource, { namespace }, listOptionsQuery(listOptions, false));
    const timeoutMs =
      listOptions.timeoutSeconds !== undefined && listOptions.timeoutSeconds > 0
        ? listOptions.timeoutSeconds * 1000
        : undefined;
    const list = await this.doJSON<KubeList<T>>(
      { verb: "GET", url, desc: { verb: "GET", group: resource.group, resource: resource.resource }, signal },
      timeoutMs,
    );
    if (typeof list !== "object" || list === null || !Array.isArray((list as KubeList<T>).items)) {
      throw new Error(`list ${url.pathname}: the response is not a list (no items array)`);
    }
    list.metadata ??= {};
    return list;
  }

  /** Reads one object (`GET` name). */
  async get<T = KubeObject>(
    resource: ResourceDescriptor,
    name: string,
    options: ObjectCallOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const loc = this.objectLocation(resource, "GET", name, options.namespace);
    return this.doJSON<T>({
      verb: "GET",
      url: resourceURL(this.server, resource, loc),
      desc: { verb: "GET", group: resource.group, resource: resource.resource, name },
      signal,
    });
  }

  /** Creates `object` (`POST`); the namespace defaults to `object.metadata.namespace`. */
  async create<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    object: T,
    options: WriteOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const namespace = options.namespace ?? object.metadata?.namespace;
    if (resource.namespaced && (namespace === undefined || namespace === "")) {
      throw new RequestConstructionError("an empty namespace may not be set during creation");
    }
    const url = resourceURL(this.server, resource, { namespace }, writeQuery(options));
    return this.doJSON<T>({
      verb: "POST",
      url,
      body: JSON.stringify(object),
      contentType: "application/json",
      desc: { verb: "POST", group: resource.group, resource: resource.resource },
      signal,
    });
  }

  /** Replaces `object` (`PUT`), addressed by its `metadata.name` and namespace. */
  async update<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    object: T,
    options: WriteOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const name = object.metadata?.name;
    if (name === undefined || name === "") throw new RequestConstructionError("update: object has no metadata.name");
    const loc = this.objectLocation(resource, "PUT", name, options.namespace ?? object.metadata?.namespace);
    return this.doJSON<T>({
      verb: "PUT",
      url: resourceURL(this.server, resource, loc, writeQuery(options)),
      body: JSON.stringify(object),
      contentType: "application/json",
      desc: { verb: "PUT", group: resource.group, resource: resource.resource, name },
      signal,
    });
  }

  /** Patches an object (`PATCH`); JSON merge patch unless `patchType` says otherwise. */
  async patch<T = KubeObject>(
    resource: ResourceDescriptor,
    name: string,
    patch: unknown,
    options: PatchOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const loc = this.objectLocation(resource, "PATCH", name, options.namespace);
    const query = writeQuery(options);
    if (options.force === true) query.set("force", "true");
    const patchType = options.patchType ?? "merge";
    return this.doJSON<T>({
      verb: "PATCH",
      url: resourceURL(this.server, resource, loc, sortParams(query)),
      body: typeof patch === "string" ? patch : JSON.stringify(patch),
      contentType: PATCH_CONTENT_TYPES[patchType],
      desc: { verb: "PATCH", group: resource.group, resource: resource.resource, name },
      signal,
    });
  }

  /**
   * Deletes an object (`DELETE`). Resolves with what the server returned: a `Success` Status for most kinds, the
   * object for kinds that return it (Pods) or while finalizers run (202).
   */
  async delete(
    resource: ResourceDescriptor,
    name: string,
    options: DeleteCallOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeObject | Status> {
    const loc = this.objectLocation(resource, "DELETE", name, options.namespace);
    const { namespace: _ns, ...rest } = options;
    const body: Record<string, unknown> = {};
    if (rest.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = rest.gracePeriodSeconds;
    if (rest.propagationPolicy !== undefined) body.propagationPolicy = rest.propagationPolicy;
    if (rest.preconditions !== undefined) body.preconditions = rest.preconditions;
    if (rest.dryRun === true) body.dryRun = ["All"];
    const hasBody = Object.keys(body).length > 0;
    return this.doJSON<KubeObject | Status>({
      verb: "DELETE",
      url: resourceURL(this.server, resource, loc),
      ...(hasBody && {
        body: JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", ...body }),
        contentType: "application/json",
      }),
      desc: { verb: "DELETE", group: resource.group, resource: resource.resource, name },
      signal,
    });
  }

  /**
   * Starts a watch (`GET ...?watch=true`) and resolves once the server answered `200` with its headers; the
   * returned {@link Watch} decodes the stream as it is iterated. Aborting `signal` cancels the request, or stops
   * the watch once it runs. Non-200 answers reject like other requests (after Retry-After retries). If every
   * retry of an EOF/timeout is used up, an already-ended watch is returned, as client-go does.
   */
  async watch<T = KubeObject>(
    resource: ResourceDescriptor,
    options: ListCallOptions = {},
    signal?: AbortSignal,
  ): Promise<Watch<T>> {
    const { namespace, ...listOptions } = options;
    const url = resourceURL(this.server, resource, { namespace }, listOptionsQuery(listOptions, true));
    const spec: RequestSpec = {
      verb: "GET",
      url,
      desc: { verb: "GET", group: resource.group, resource: resource.resource },
      signal,
    };
    const retryable = (err: unknown) => isProbableEOF(err) || isNetworkTimeout(err);
    const outcome = await this.execute(spec, true, retryable);
    if (outcome.kind === "exhausted") return emptyWatch<T>();
    const res = outcome.response;
    if (res.statusCode !== 200) {
      await discard(res.body);
      throw new Error(`for request ${url.toString()}, got status: ${res.statusCode}`);
    }
    const started = this.clock.now();
    const body = decodedBody(res);
    const urlText = url.toString();
    return new StreamWatcher<T>(body, {
      ...this.decoderOptions,
      ...(signal !== undefined && { signal }),
      onDone: (r) =>
        this.emit({
          type: "watch-closed",
          url: urlText,
          events: r.events,
          durationMs: this.clock.since(started),
          stopped: r.stopped,
          ...(r.error !== undefined && { error: r.error }),
        }),
    });
  }

  /** Closes every connection pool the client created (not a dispatcher passed in options). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    this.eventStream.complete();
  }

  // ---------------------------------------------------------------------------------------------------------

  private objectLocation(r: ResourceDescriptor, verb: Verb, name: string, namespace?: string): ResourceLocation {
    if (name === "") throw new RequestConstructionError("resource name may not be empty");
    if (!r.namespaced) return { name };
    if (namespace === undefined || namespace === "") {
      throw new RequestConstructionError(
        `an empty namespace may not be set when a resource name is provided (${verb.toLowerCase()} ${r.resource} ${JSON.stringify(name)})`,
      );
    }
    return { namespace, name };
  }

  private emit(e: RestClientEvent): void {
    if (this.eventStream.observed) this.eventStream.emit(e);
  }

  /** `Request.Do` + decode: throttle, retries, error mapping, then the JSON body. */
  private async doJSON<T>(spec: RequestSpec, callTimeoutMs?: number): Promise<T> {
    const start = this.clock.now();
    try {
      // Throttle the first attempt before any timeout starts, as client-go does.
      await this.throttle(spec, undefined);
      const timeoutMs =
        callTimeoutMs ?? (this.config.timeoutMs !== undefined && this.config.timeoutMs > 0 ? this.config.timeoutMs : 0);
      const scoped = this.withTimeout(spec, timeoutMs);
      try {
        const retryable = (err: unknown) => spec.verb === "GET" && (isConnectionReset(err) || isProbableEOF(err));
        const outcome = await this.execute({ ...spec, signal: scoped.signal }, false, retryable);
        if (outcome.kind === "exhausted") throw outcome.error;
        const res = outcome.response;
        const text = await readText(res, Number.POSITIVE_INFINITY, scoped.signal);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
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
      this.metrics.requestLatency(spec.verb, this.host, this.clock.since(start) / 1000);
    }
  }

  /**
   * The retry loop shared by `request()` and `Watch()`: attempts until a 2xx, a final error answer (thrown as a
   * StatusError), or a final transport error (thrown, or `exhausted` when it was retryable).
   */
  private async execute(
    spec: RequestSpec,
    watch: boolean,
    isErrorRetryable: (err: unknown) => boolean,
  ): Promise<{ kind: "ok"; response: Response } | { kind: "exhausted"; error: unknown }> {
    const retry = new WithRetry(this.maxRetries, isErrorRetryable);
    let next: RetryAfter | undefined;
    const urlText = spec.url.toString();
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(spec.signal);
      if (next !== undefined) {
        await this.clock.sleep(Math.max(0, next.waitSeconds) * 1000, spec.signal);
        await this.throttle(spec, next.reason);
      }
      const headers = await this.requestHeaders(spec);
      const dispatcher = await this.dispatcherFor(headers.cert, headers.key);
      throwIfAborted(spec.signal);
      this.emit({ type: "request", verb: spec.verb, url: urlText, attempt, watch });
      const sent = this.clock.now();
      let res: Response;
      try {
        res = await dispatcher.request({
          origin: spec.url.origin,
          path: spec.url.pathname + spec.url.search,
          method: spec.verb,
          headers: headers.headers,
          body: spec.body ?? null,
          signal: spec.signal ?? null,
          headersTimeout: this.config.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
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
          durationMs: this.clock.since(sent),
        });
        next = retry.isNextRetry({ error: err });
        if (next !== undefined) {
          this.metrics.requestRetry(undefined, spec.verb, this.host);
          this.emit({
            type: "retry",
            verb: spec.verb,
            url: urlText,
            attempt,
            waitMs: next.waitSeconds * 1000,
            reason: next.reason,
          });
          continue;
        }
        this.metrics.requestResult(undefined, spec.verb, this.host);
        if (isErrorRetryable(err)) return { kind: "exhausted", error: err };
        throw err;
      }
      this.emit({
        type: "response",
        verb: spec.verb,
        url: urlText,
        attempt,
        code: res.statusCode,
        durationMs: this.clock.since(sent),
        watch,
      });
      if (res.statusCode >= 200 && res.statusCode < 300) {
        this.metrics.requestResult(res.statusCode, spec.verb, this.host);
        return { kind: "ok", response: res };
      }
      next = retry.isNextRetry({ statusCode: res.statusCode, headers: res.headers });
      if (next !== undefined) {
        await discard(res.body);
        this.metrics.requestRetry(res.statusCode, spec.verb, this.host);
        this.emit({
          type: "retry",
          verb: spec.verb,
          url: urlText,
          attempt,
          waitMs: next.waitSeconds * 1000,
          reason: next.reason,
        });
        continue;
      }
      this.metrics.requestResult(res.statusCode, spec.verb, this.host);
      const text = await readText(res, MAX_ERROR_BODY_BYTES, spec.signal);
      throw statusErrorFromResponse(res.statusCode, res.headers, text, spec.desc);
    }
  }

  /** `tryThrottle`: waits for the rate limiter, recording the wait. */
  private async throttle(spec: RequestSpec, _retryInfo: string | undefined): Promise<void> {
    const limiter = this.rateLimiter;
    if (limiter === undefined) return;
    const start = this.clock.now();
    await limiter.wait(spec.signal);
    const waited = this.clock.since(start);
    this.metrics.rateLimiterLatency(spec.verb, this.host, waited / 1000);
    if (waited > 0) this.emit({ type: "throttled", verb: spec.verb, url: spec.url.toString(), waitedMs: waited });
  }

  private withTimeout(
    spec: RequestSpec,
    timeoutMs: number,
  ): { signal: AbortSignal | undefined; reason(): unknown; dispose(): void } {
    if (timeoutMs <= 0) return { signal: spec.signal, reason: () => undefined, dispose() {} };
    const ac = new AbortController();
    let timedOut: RequestTimeoutError | undefined;
    const timer = this.clock.afterFunc(timeoutMs, () => {
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

  private async requestHeaders(
    spec: RequestSpec,
  ): Promise<{ headers: Record<string, string>; cert?: PemData; key?: PemData }> {
    const c = this.config;
    const h: Record<string, string> = {
      "user-agent": this.userAgent,
      accept: "application/json, */*",
    };
    if (c.disableCompression !== true) h["accept-encoding"] = "gzip";
    if (spec.contentType !== undefined) h["content-type"] = spec.contentType;
    for (const [k, v] of Object.entries(c.headers ?? {})) h[k.toLowerCase()] = v;
    if (c.username !== undefined) {
      h.authorization = `Basic ${Buffer.from(`${c.username}:${c.password ?? ""}`).toString("base64")}`;
    }
    if (c.token !== undefined && c.token !== "") h.authorization = `Bearer ${c.token}`;
    if (c.tokenProvider !== undefined) {
      const token = await c.tokenProvider();
      if (token !== "") h.authorization = `Bearer ${token}`;
    }
    let cert: PemData | undefined;
    let key: PemData | undefined;
    if (c.authProvider !== undefined) {
      const creds = await c.authProvider();
      for (const [k, v] of Object.entries(creds.headers ?? {})) h[k.toLowerCase()] = v;
      cert = creds.clientCert;
      key = creds.clientKey;
    }
    return { headers: h, ...(cert !== undefined && { cert }), ...(key !== undefined && { key }) };
  }

  private async dispatcherFor(cert: PemData | undefined, key: PemData | undefined): Promise<Dispatcher> {
    if (this.customDispatcher !== undefined) return this.customDispatcher;
    if (this.closed) throw new Error("KubeClient is closed");
    const id = cert === undefined ? "" : `${pemText(cert)}\u0000${key === undefined ? "" : pemText(key)}`;
    let agent = this.agents.get(id);
    if (agent === undefined) {
      // An auth provider rotated its client certificate: drop pools of older certificates once idle.
      if (id !== "") {
        for (const [k, a] of this.agents) {
          if (k !== "") {
            this.agents.delete(k);
            void a.close().catch(() => undefined);
          }
        }
      }
      agent = newAgent(tlsMaterialFor(this.config, cert, key), this.config.headersTimeoutMs);
      this.agents.set(id, agent);
    }
    return agent;
  }
}

function pemText(p: PemData): string {
  return typeof p === "string" ? p : Buffer.from(p).toString("utf8");
}

function writeQuery(options: WriteOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (options.dryRun === true) q.set("dryRun", "All");
  if (options.fieldManager !== undefined && options.fieldManager !== "") q.set("fieldManager", options.fieldManager);
  if (options.fieldValidation !== undefined) q.set("fieldValidation", options.fieldValidation);
  return sortParams(q);
}

function sortParams(q: URLSearchParams): URLSearchParams {
  q.sort();
  return q;
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

function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isGzip(res: Response): boolean {
  return headerValue(res.headers, "content-encoding")?.trim().toLowerCase() === "gzip";
}

function ignoreError(): void {}

/** The response body as chunks, gunzipped as a stream when the server compressed it. */
function decodedBody(res: Response): WatchBody {
  const body = res.body;
  // Destroying a body that is not being iterated emits 'error' (AbortError); iteration reports errors itself,
  // so an unobserved one must not become an uncaught exception.
  body.on("error", ignoreError);
  if (!isGzip(res)) {
    return {
      [Symbol.asyncIterator]: () => body[Symbol.asyncIterator](),
      destroy: () => {
        body.destroy();
      },
    };
  }
  const gunzip = createGunzip();
  gunzip.on("error", ignoreError);
  body.on("error", (err) => gunzip.destroy(err));
  body.pipe(gunzip);
  return {
    [Symbol.asyncIterator]: () => gunzip[Symbol.asyncIterator](),
    destroy: () => {
      body.destroy();
      gunzip.destroy();
    },
  };
}

/** The body size announced by `Content-Length` for an uncompressed body, else undefined. */
function announcedLength(res: Response): number | undefined {
  if (isGzip(res)) return undefined;
  const v = headerValue(res.headers, "content-length");
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Reads a whole body as UTF-8 (gunzipping if needed), keeping at most `limit` bytes and draining the rest.
 *
 * With a `Content-Length` (uncompressed bodies) every chunk is copied into one buffer of that size as it arrives
 * (see {@link BodyBuffer}), so the chunks are released at once and the body is held about twice at most (bytes,
 * then text; or, for a body past the 256 MiB up-front cap, the capped buffer and the full-size one during the
 * one copy) instead of three times (chunks, their concatenation, text) — a 100 MB LIST costs 100 MB less peak
 * memory. Without one, the chunks are concatenated at the end.
 */
async function readText(res: Response, limit: number, signal: AbortSignal | undefined): Promise<string> {
  const source = decodedBody(res);
  const body = new BodyBuffer(announcedLength(res), limit);
  const onAbort = () => source.destroy();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunk of source) {
      if (!body.full) body.append(chunk);
    }
  } catch (err) {
    throwIfAborted(signal);
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return body.text();
}

/** Drains a body so its connection can be reused (client-go `readAndCloseResponseBody`). */
async function discard(body: Response["body"]): Promise<void> {
  try {
    await body.dump({ limit: 4096 });
  } catch {
    // The connection will be closed instead.
  }
}
