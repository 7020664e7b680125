import type { KubeList, KubeObject, ListOptions, Status } from "@informer-ts/apimachinery";
import { isNetworkTimeout, isProbableEOF } from "@informer-ts/apimachinery";
import type { Watch } from "@informer-ts/cache";
import { type Clock, realClock } from "@informer-ts/clock";
import { EventStream, type MetricsProvider, noopMetrics } from "@informer-ts/instrumentation";
import type { Dispatcher } from "undici";
import { AgentPool } from "./agent-pool.js";
import { type ClientConfig, rateLimitOf, validateClientConfig } from "./client-config.js";
import { RequestExecutor, type RequestSpec, type Verb } from "./request-executor.js";
import {
  listOptionsQuery,
  RequestConstructionError,
  type ResourceDescriptor,
  type ResourceLocation,
  resourceURL,
} from "./resources.js";
import { decodedBody, discard } from "./response-body.js";
import { type RestClientEvent, RestClientMetrics } from "./rest-client-metrics.js";
import { emptyWatch, StreamWatcher } from "./stream-watcher.js";
import { type RateLimiter, TokenBucketRateLimiter } from "./throttle.js";
import { defaultUserAgent } from "./version.js";
import type { WatchDecoderOptions } from "./watch-decoder.js";
import { DEFAULT_MAX_RETRIES } from "./with-retry.js";

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
  /** Request accounting: one event per attempt, retry, throttle and watch end. */
  readonly events = new EventStream<RestClientEvent>();
  readonly config: ClientConfig;
  private readonly server: URL;
  private readonly clock: Clock;
  private readonly pool: AgentPool;
  private readonly executor: RequestExecutor;
  private readonly decoderOptions: WatchDecoderOptions;
  private closed = false;

  constructor(config: ClientConfig, options: KubeClientOptions = {}) {
    this.server = validateClientConfig(config);
    this.config = config;
    this.clock = options.clock ?? realClock;
    let rateLimiter: RateLimiter | undefined;
    if (options.rateLimiter === null) rateLimiter = undefined;
    else if (options.rateLimiter !== undefined) rateLimiter = options.rateLimiter;
    else {
      const rl = rateLimitOf(config);
      rateLimiter = rl === undefined ? undefined : new TokenBucketRateLimiter(rl.qps, rl.burst, this.clock);
    }
    this.pool = new AgentPool(config, options.dispatcher);
    this.executor = new RequestExecutor({
      config,
      host: this.server.host,
      clock: this.clock,
      metrics: new RestClientMetrics(options.metrics ?? noopMetrics),
      rateLimiter,
      maxRetries: Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES),
      userAgent: config.userAgent ?? defaultUserAgent(),
      pool: this.pool,
      events: this.events,
    });
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
    const list = await this.executor.doJSON<KubeList<T>>(
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
    return this.executor.doJSON<T>({
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
    return this.executor.doJSON<T>({
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
    return this.executor.doJSON<T>({
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
    return this.executor.doJSON<T>({
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
    return this.executor.doJSON<KubeObject | Status>({
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
    const outcome = await this.executor.execute(spec, true, retryable);
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
        this.executor.emit({
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
    await this.pool.close();
    this.events.complete();
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
