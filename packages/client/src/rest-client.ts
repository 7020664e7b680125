import type { KubeList, KubeObject, Status, Watch } from "@informer-ts/apimachinery";
import { isNetworkTimeout, isProbableEOF, listOptionsQuery } from "@informer-ts/apimachinery";
import { type Clock, realClock } from "@informer-ts/clock";
import { EventStream, newRuntimeLogger, noopMetrics } from "@informer-ts/instrumentation";
import type { Observable } from "rxjs";
import { AgentPool } from "./agent-pool.js";
import {
  type ApplyOptions,
  checkSubresource,
  type DeleteCallOptions,
  type DeleteCollectionOptions,
  deleteOptionsBody,
  type GetCallOptions,
  type ListCallOptions,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  patchBody,
  validateWriteOptions,
  type WriteOptions,
  writeQuery,
} from "./call-options.js";
import { type ClientConfig, type KubeClientOptions, rateLimitOf, validateClientConfig } from "./client-config.js";
import { parseWithoutManagedFields } from "./managed-fields-skip.js";
import {
  asPartialObjectMetadata,
  METADATA_ACCEPT,
  METADATA_LIST_ACCEPT,
  type MetadataDecodeOptions,
  metadataWatch,
} from "./metadata-watch.js";
import type { DeepPartial, PartialObjectMetadata, PartialObjectMetadataList, Scale } from "./object-types.js";
import { RequestExecutor, type RequestSpec, type Verb } from "./request-executor.js";
import { RequestLog } from "./request-log.js";
import { applyBody, checkNamespaceMatch, metadataOf, objectLocation } from "./request-target.js";
import { RequestConstructionError, type ResourceDescriptor, resourceURL } from "./resources.js";
import { decodedBody, discard } from "./response-body.js";
import { type RestClientEvent, RestClientMetrics } from "./rest-client-metrics.js";
import { emptyWatch, StreamWatcher } from "./stream-watcher.js";
import { type RateLimiter, TokenBucketRateLimiter } from "./throttle.js";
import { defaultUserAgent } from "./version.js";
import type { WatchDecoderOptions } from "./watch-decoder.js";
import { DEFAULT_MAX_RETRIES } from "./with-retry.js";

// What this module declared before they moved to the files of their concepts stays importable from here.
export type { KubeClientOptions } from "./client-config.js";
export { METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "./metadata-watch.js";

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
 * Resource descriptors are typed ({@link ResourceDescriptor}`<T>`): `get`, `list`, `watch`, `create`, `update`,
 * `patch` and `apply` take and return the descriptor's object type, so `client.get(resources.configMaps, …)` is a
 * `ConfigMap`. Subresources (`/status`, `/scale`), server-side apply, JSON/merge/strategic merge patches,
 * `deleteCollection` and metadata-only lists and watches (client-go's `metadata` client) are verbs of the same
 * client. Options are validated before anything is sent ({@link RequestConstructionError} naming the field).
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
    const logger = options.quiet === true ? undefined : (options.logger ?? newRuntimeLogger({ name: "client" }));
    const log =
      logger === undefined ? undefined : new RequestLog(logger, this.clock, config, options.rateLimiter !== undefined);
    this.executor = new RequestExecutor({
      config,
      host: this.server.host,
      clock: this.clock,
      metrics: new RestClientMetrics(options.metrics ?? noopMetrics),
      rateLimiter,
      maxRetries: Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES),
      userAgent: config.userAgent ?? defaultUserAgent(),
      pool: this.pool,
      events: this.eventStream,
      ...(log !== undefined && { log }),
    });
    this.decoderOptions = options.watchDecoder ?? {};
  }

  /**
   * Lists objects (`GET` collection). No namespace = all namespaces. Rejects unless the body has an `items` array;
   * a `Failure` Status in a 2xx body is thrown as a `StatusError`. A list with `timeoutSeconds` is also timed out
   * by the client after that long.
   */
  async list<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: ListCallOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T>> {
    return this.listAs<T>(resource, options, signal, undefined, undefined);
  }

  /**
   * Lists objects' metadata only (client-go's metadata client, `metadata.Interface.Resource(gvr).List`): sends
   * `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`, so the server
   * answers a `PartialObjectMetadataList` — each item `{kind: "PartialObjectMetadata", apiVersion:
   * "meta.k8s.io/v1", metadata}` — and never sends specs, data or status. A server that ignores the `as=` parameter
   * and answers full objects gets them reduced to the same shape. With `decode.dropManagedFields` the objects'
   * `metadata.managedFields` are left out while the body is decoded (see {@link MetadataDecodeOptions}).
   */
  async listMetadata(
    resource: ResourceDescriptor<unknown>,
    options: ListCallOptions = {},
    signal?: AbortSignal,
    decode: MetadataDecodeOptions = {},
  ): Promise<PartialObjectMetadataList> {
    const parse = decode.dropManagedFields === true ? parseWithoutManagedFields : undefined;
    const list = await this.listAs<KubeObject>(resource, options, signal, METADATA_LIST_ACCEPT, parse);
    if (list.kind === "PartialObjectMetadataList") return list as PartialObjectMetadataList;
    return {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: list.metadata,
      items: list.items.map(asPartialObjectMetadata),
    };
  }

  /** Reads one object (`GET` name), or one of its subresources with `options.subresource`. */
  async get<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options: GetCallOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    checkSubresource(resource, options.subresource);
    const loc = objectLocation(resource, "GET", name, options.namespace, options.subresource);
    const query = new URLSearchParams();
    if (options.resourceVersion !== undefined && options.resourceVersion !== "") {
      query.set("resourceVersion", options.resourceVersion);
    }
    return this.executor.doJSON<T>({
      verb: "GET",
      url: resourceURL(this.server, resource, loc, query),
      desc: this.describe("GET", resource, name),
      signal,
    });
  }

  /** Reads one object's metadata only (`Accept: …;as=PartialObjectMetadata;…`, client-go's metadata client `Get`). */
  async getMetadata(
    resource: ResourceDescriptor<unknown>,
    name: string,
    options: Omit<GetCallOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<PartialObjectMetadata> {
    const loc = objectLocation(resource, "GET", name, options.namespace);
    const query = new URLSearchParams();
    if (options.resourceVersion !== undefined && options.resourceVersion !== "") {
      query.set("resourceVersion", options.resourceVersion);
    }
    const obj = await this.executor.doJSON<KubeObject>({
      verb: "GET",
      url: resourceURL(this.server, resource, loc, query),
      accept: METADATA_ACCEPT,
      desc: this.describe("GET", resource, name),
      signal,
    });
    return obj.kind === "PartialObjectMetadata" ? obj : asPartialObjectMetadata(obj);
  }

  /** Reads the `/status` subresource (the whole object, as the server serves it). */
  getStatus<T>(
    resource: ResourceDescriptor<T>,
    name: string,
    options: GetCallOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    return this.get(resource, name, { ...options, subresource: "status" }, signal);
  }

  /** Reads the `/scale` subresource: an `autoscaling/v1` {@link Scale}. */
  getScale(
    resource: ResourceDescriptor<unknown>,
    name: string,
    options: GetCallOptions = {},
    signal?: AbortSignal,
  ): Promise<Scale> {
    return this.get(resource as ResourceDescriptor<Scale>, name, { ...options, subresource: "scale" }, signal);
  }

  /** Creates `object` (`POST`); the namespace defaults to `object.metadata.namespace`. */
  async create<T>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options: Omit<WriteOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    validateWriteOptions(options);
    const meta = metadataOf(object, "create");
    const namespace = options.namespace ?? meta?.namespace;
    if (resource.namespaced && (namespace === undefined || namespace === "")) {
      throw new RequestConstructionError("an empty namespace may not be set during creation");
    }
    checkNamespaceMatch(resource, options.namespace, meta?.namespace, "create");
    const url = resourceURL(this.server, resource, { namespace }, writeQuery(options));
    return this.executor.doJSON<T>({
      verb: "POST",
      url,
      body: JSON.stringify(object),
      contentType: "application/json",
      desc: this.describe("POST", resource),
      signal,
    });
  }

  /**
   * Creates something below an object (`POST …/<name>/<subresource>`): a Pod `eviction` (`policy/v1` Eviction), a
   * ServiceAccount `token` (`TokenRequest`), a Pod `binding` — client-go's `Evict`, `CreateToken`, `Bind`. `body` is
   * sent as JSON; the answer is returned as decoded (`R`). The subresource is checked against the descriptor's list.
   */
  async createSubresource<R = KubeObject>(
    resource: ResourceDescriptor<unknown>,
    name: string,
    subresource: string,
    body: unknown,
    options: Omit<WriteOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<R> {
    validateWriteOptions(options);
    checkSubresource(resource, subresource);
    if (typeof subresource !== "string" || subresource === "") {
      throw new RequestConstructionError("createSubresource: subresource may not be empty");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new RequestConstructionError(`createSubresource: the ${subresource} body must be a JSON object`);
    }
    const loc = objectLocation(resource, "POST", name, options.namespace, subresource);
    return this.executor.doJSON<R>({
      verb: "POST",
      url: resourceURL(this.server, resource, loc, writeQuery(options)),
      body: JSON.stringify(body),
      contentType: "application/json",
      desc: this.describe("POST", resource, name),
      signal,
    });
  }

  /**
   * Replaces `object` (`PUT`), addressed by its `metadata.name` and namespace; with `options.subresource`, replaces
   * that subresource (`status`: only the status is written; the server ignores other changes).
   */
  async update<T>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options: WriteOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    validateWriteOptions(options);
    checkSubresource(resource, options.subresource);
    const meta = metadataOf(object, "update");
    const name = meta?.name;
    if (name === undefined || name === "") throw new RequestConstructionError("update: object has no metadata.name");
    checkNamespaceMatch(resource, options.namespace, meta?.namespace, "update");
    const loc = objectLocation(resource, "PUT", name, options.namespace ?? meta?.namespace, options.subresource);
    return this.executor.doJSON<T>({
      verb: "PUT",
      url: resourceURL(this.server, resource, loc, writeQuery(options)),
      body: JSON.stringify(object),
      contentType: "application/json",
      desc: this.describe("PUT", resource, name),
      signal,
    });
  }

  /** Replaces the `/status` subresource (`UpdateStatus`): the server keeps everything but the status. */
  updateStatus<T>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options: Omit<WriteOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    return this.update(resource, object, { ...options, subresource: "status" }, signal);
  }

  /** Replaces the `/scale` subresource (`UpdateScale`) with `scale` (its `metadata.name` names the object). */
  updateScale(
    resource: ResourceDescriptor<unknown>,
    scale: Scale,
    options: Omit<WriteOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<Scale> {
    return this.update(resource as ResourceDescriptor<Scale>, scale, { ...options, subresource: "scale" }, signal);
  }

  /**
   * Patches an object (`PATCH`), or a subresource with `options.subresource`. `patchType`: `merge` (default, RFC 7386
   * JSON merge patch), `strategic-merge` (built-in resources only), `json` (RFC 6902 operations) or `apply`
   * (server-side apply; prefer {@link KubeClient.apply}). The patch is checked before sending (see
   * `patchBody`): an object for merge patches, an operation array for JSON patch, `fieldManager` for apply.
   */
  async patch<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: unknown,
    options: PatchOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const body = patchBody(resource, patch, options);
    checkSubresource(resource, options.subresource);
    const loc = objectLocation(resource, "PATCH", name, options.namespace, options.subresource);
    return this.executor.doJSON<T>({
      verb: "PATCH",
      url: resourceURL(this.server, resource, loc, writeQuery(options)),
      body,
      contentType: PATCH_CONTENT_TYPES[options.patchType ?? "merge"],
      desc: this.describe("PATCH", resource, name),
      signal,
    });
  }

  /** Patches the `/status` subresource (`PatchStatus`). */
  patchStatus<T>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: unknown,
    options: Omit<PatchOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    return this.patch(resource, name, patch, { ...options, subresource: "status" }, signal);
  }

  /** Patches the `/scale` subresource, e.g. `{ spec: { replicas: 3 } }`. */
  patchScale(
    resource: ResourceDescriptor<unknown>,
    name: string,
    patch: unknown,
    options: Omit<PatchOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<Scale> {
    return this.patch(resource as ResourceDescriptor<Scale>, name, patch, { ...options, subresource: "scale" }, signal);
  }

  /**
   * Server-side apply (`PATCH` with `Content-Type: application/apply-patch+yaml`; controller-runtime
   * `Patch(obj, client.Apply)`, kube-rs `Patch::Apply`): sends the fields `object` sets, owned by
   * `options.fieldManager`; the server merges them and answers the result, or a 409 Conflict naming the fields
   * another manager owns unless `force` is set. The body is `object` as JSON (JSON is YAML). `metadata.name` names
   * the object; `apiVersion` and `kind` are filled in from the descriptor when missing and must match it when set.
   */
  async apply<T>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options: ApplyOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    const body = applyBody(resource, object, options, "apply");
    return this.patch(
      resource,
      body.name,
      body.text,
      { ...options, namespace: body.namespace, patchType: "apply" },
      signal,
    );
  }

  /** Server-side apply of the `/status` subresource (`ApplyStatus`): `object` carries the status fields to own. */
  async applyStatus<T>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options: ApplyOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    const body = applyBody(resource, object, options, "applyStatus");
    return this.patch(
      resource,
      body.name,
      body.text,
      { ...options, namespace: body.namespace, patchType: "apply", subresource: "status" },
      signal,
    );
  }

  /**
   * Deletes an object (`DELETE`) with `metav1.DeleteOptions` as the body when any is set (`gracePeriodSeconds`,
   * `propagationPolicy`, `preconditions` on uid/resourceVersion — a mismatch is a 409 Conflict — and `dryRun`).
   * Resolves with what the server returned: a `Success` Status for most kinds, the object for kinds that return it
   * (Pods) or while finalizers run (202).
   */
  async delete<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options: DeleteCallOptions = {},
    signal?: AbortSignal,
  ): Promise<T | Status> {
    const body = deleteOptionsBody(options);
    const loc = objectLocation(resource, "DELETE", name, options.namespace);
    return this.executor.doJSON<T | Status>({
      verb: "DELETE",
      url: resourceURL(this.server, resource, loc),
      ...(body !== undefined && { body, contentType: "application/json" }),
      desc: this.describe("DELETE", resource, name),
      signal,
    });
  }

  /**
   * Deletes every object the list options select (`DELETE` on the collection, client-go `DeleteCollection`): list
   * options (`labelSelector`, `fieldSelector`…) go in the query, delete options in the body. No namespace deletes
   * across all namespaces of a namespaced resource. Resolves with the server's answer: the list of deleted objects
   * (kube-apiserver's generic registry) or a Status.
   */
  async deleteCollection<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: DeleteCollectionOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T> | Status> {
    const { namespace, gracePeriodSeconds, propagationPolicy, preconditions, dryRun, ...listOptions } = options;
    const body = deleteOptionsBody({
      ...(gracePeriodSeconds !== undefined && { gracePeriodSeconds }),
      ...(propagationPolicy !== undefined && { propagationPolicy }),
      ...(preconditions !== undefined && { preconditions }),
      ...(dryRun !== undefined && { dryRun }),
    });
    if (listOptions.limit !== undefined && (!Number.isSafeInteger(listOptions.limit) || listOptions.limit < 0)) {
      throw new RequestConstructionError(`limit must be a non-negative integer, got ${String(listOptions.limit)}`);
    }
    const url = resourceURL(this.server, resource, { namespace }, listOptionsQuery(listOptions, false));
    return this.executor.doJSON<KubeList<T> | Status>({
      verb: "DELETE",
      url,
      ...(body !== undefined && { body, contentType: "application/json" }),
      desc: this.describe("DELETE", resource),
      signal,
    });
  }

  /**
   * Starts a watch (`GET ...?watch=true`) and resolves once the server answered `200` with its headers; the
   * returned {@link Watch} decodes the stream as it is iterated. Aborting `signal` cancels the request, or stops
   * the watch once it runs. Non-200 answers reject like other requests (after Retry-After retries). If every
   * retry of an EOF/timeout is used up, an already-ended watch is returned, as client-go does.
   */
  watch<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: ListCallOptions = {},
    signal?: AbortSignal,
  ): Promise<Watch<T>> {
    return this.watchAs<T>(resource, options, signal, undefined, false);
  }

  /**
   * Watches objects' metadata only (`Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,
   * application/json`, client-go's metadata client `Watch`): every event carries a `PartialObjectMetadata`
   * (ERROR events still carry a Status). Full objects from a server that ignores `as=` are reduced to that shape.
   * With `decode.dropManagedFields` each event's `metadata.managedFields` is left out while its line is decoded
   * (see {@link MetadataDecodeOptions}).
   */
  async watchMetadata(
    resource: ResourceDescriptor<unknown>,
    options: ListCallOptions = {},
    signal?: AbortSignal,
    decode: MetadataDecodeOptions = {},
  ): Promise<Watch<PartialObjectMetadata>> {
    const w = await this.watchAs<KubeObject>(
      resource,
      options,
      signal,
      METADATA_ACCEPT,
      decode.dropManagedFields === true,
    );
    return metadataWatch(w);
  }

  /**
   * `GET` of a path below the server's base URL (client-go `RESTClient().Get().AbsPath(path)`), decoded as JSON:
   * discovery documents, `/version`, aggregated APIs. `accept` overrides the `Accept` header. Same throttling,
   * retries and errors as every other request.
   */
  async getRaw<T = unknown>(path: string, options: { accept?: string } = {}, signal?: AbortSignal): Promise<T> {
    if (typeof path !== "string" || !path.startsWith("/")) {
      throw new RequestConstructionError(`getRaw: path must start with "/", got ${JSON.stringify(path)}`);
    }
    const q = path.indexOf("?");
    const pathname = q < 0 ? path : path.slice(0, q);
    for (const seg of pathname.split("/").slice(1)) {
      if (seg === "." || seg === "..")
        throw new RequestConstructionError(`getRaw: path may not contain ${JSON.stringify(seg)}`);
    }
    const base = this.server.pathname.replace(/\/+$/, "");
    const url = new URL(this.server.origin);
    url.pathname = base + pathname;
    if (q >= 0) url.search = path.slice(q);
    return this.executor.doJSON<T>({
      verb: "GET",
      url,
      ...(options.accept !== undefined && { accept: options.accept }),
      desc: { verb: "GET" },
      signal,
    });
  }

  /** Closes every connection pool the client created (not a dispatcher passed in options). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
    this.eventStream.complete();
  }

  // ---------------------------------------------------------------------------------------------------------

  private async listAs<T>(
    resource: ResourceDescriptor<unknown>,
    options: ListCallOptions,
    signal: AbortSignal | undefined,
    accept: string | undefined,
    parse: ((text: string) => unknown) | undefined,
  ): Promise<KubeList<T>> {
    const { namespace, ...listOptions } = options;
    const url = resourceURL(this.server, resource, { namespace }, listOptionsQuery(listOptions, false));
    const timeoutMs =
      listOptions.timeoutSeconds !== undefined && listOptions.timeoutSeconds > 0
        ? listOptions.timeoutSeconds * 1000
        : undefined;
    const list = await this.executor.doJSON<KubeList<T>>(
      {
        verb: "GET",
        url,
        ...(accept !== undefined && { accept }),
        ...(parse !== undefined && { parse }),
        desc: this.describe("GET", resource),
        signal,
      },
      timeoutMs,
    );
    if (typeof list !== "object" || list === null || !Array.isArray((list as KubeList<T>).items)) {
      throw new Error(`list ${url.pathname}: the response is not a list (no items array)`);
    }
    list.metadata ??= {};
    return list;
  }

  private async watchAs<T>(
    resource: ResourceDescriptor<unknown>,
    options: ListCallOptions,
    signal: AbortSignal | undefined,
    accept: string | undefined,
    dropManagedFields: boolean,
  ): Promise<Watch<T>> {
    const { namespace, ...listOptions } = options;
    const url = resourceURL(this.server, resource, { namespace }, listOptionsQuery(listOptions, true));
    const spec: RequestSpec = {
      verb: "GET",
      url,
      ...(accept !== undefined && { accept }),
      desc: this.describe("GET", resource),
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
      ...(dropManagedFields && { dropManagedFields }),
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

  private describe(verb: Verb, r: ResourceDescriptor<unknown>, name?: string) {
    return { verb, group: r.group, resource: r.resource, ...(name !== undefined && { name }) };
  }
}
