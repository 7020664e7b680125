import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import type { Authorizer } from "../engine/authorization/index.js";
import type { PodLogOptions, PodLogResponse } from "../engine/containers/pod-log.js";
import type { HttpFault, HttpRequestDescriptor, RequestRecord } from "../engine/filters/index.js";
import type { AggregatedDiscoveryVersion } from "../engine/kube-version.js";
import type { DeleteOptions } from "../engine/registry/index.js";
import type { RequestOutcome, RequestTraceConnection } from "../engine/request-models.js";
import type { ServedResource } from "../engine/served-resource.js";
import type { TokenAuthentication } from "../engine/serviceaccount/service-account-tokens.js";
import type { WatchStreamSource } from "./watch-server.js";

/** Per-request context handed to the backend: cancellation and who is asking. */
export interface BackendRequestContext {
  /** Aborted when the client disconnects (or the server stops). */
  readonly signal: AbortSignal;
  /** Authenticated user name (for accounting/logs). */
  readonly user: string;
  /** The groups the authenticator gave the user. */
  readonly groups?: readonly string[] | undefined;
  /** The user's uid and extra attributes (a service account's, a token line's uid, `Impersonate-Uid`/`-Extra-*`). */
  readonly uid?: string | undefined;
  readonly extra?: Readonly<Record<string, readonly string[]>> | undefined;
  /** `User-Agent`, for accounting. */
  readonly userAgent: string;
  /** Query parameters of writes (`dryRun`, `fieldManager`, `force`). */
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly force?: boolean;
  /** `fieldValidation` as given, and the duplicate fields of a JSON body (the engine's admission reads both). */
  readonly fieldValidation?: string;
  readonly duplicateFields?: readonly string[];
  /** Filled by the engine: the write's warnings (sent as `Warning: 299` headers). */
  readonly warnings?: string[];
  /** `"status"` for a request on the status subresource. */
  subresource?: string;
  /** Set by the backend on a delete: false when finalizers keep the object (the answer is then the object). */
  deleted?: boolean;
  /** Set by the backend: the apply created the object (the answer is 201). */
  created?: boolean;
  /** Set by the backend: where a read was served from (the accounting's `served_from`). */
  servedFrom?: "cache" | "storage";
  /** Set by the backend when the engine's request models are on: audit ID and cost, for the accounting record. */
  outcome?: RequestOutcome;
  /** What the engine's trace log shows of the connection (path, Accept, client, protocol); read only when tracing. */
  readonly trace?: RequestTraceConnection;
  /**
   * Set by the HTTP face for a watch: stops it when the request is cancelled (server shutdown). Cheaper than a
   * listener on {@link signal}, which an idle watch would otherwise keep (an `AbortController` per watch).
   */
  onAbort?: () => void;
  /**
   * Set by the HTTP face: a watch forced by a deprecated `/watch/` path without `watch=true`. The backend defaults and
   * validates its options as a list's (no WatchList defaulting, no watch rows of the 422 matrix), as kube-apiserver
   * does, and then serves a watch.
   */
  legacyWatchPath?: boolean;
}

/**
 * A finished resource request as the HTTP face saw it (for the backend's accounting): the engine's
 * {@link RequestRecord}, with `bytes` = bytes written to the socket (headers included) and `user` the authenticated
 * user name.
 */
export type CompletedRequest = RequestRecord;

/** Preconditions of a delete (`DeleteOptions.preconditions`). */
export interface DeletePreconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/**
 * Everything the HTTP face needs from the simulated server's engine. `server.ts` is written against this port;
 * `engine-backend.ts` implements it on the engine's `SimApiServer`. Every method throws a `StatusError` for an API
 * error (404, 409, 410, 422, 429, 504 …); anything else thrown becomes a 500.
 */
export interface ApiBackend {
  /** Currently served resources (discovery, OpenAPI, routing). */
  resources(): readonly ServedResource[];
  /**
   * Lists. `opts` are the decoded query only (typed; the object-name fold applied): the backend owns defaulting,
   * validation (422), the field-label check and their order (reference/apiserver.md §2).
   */
  list(r: ServedResource, namespace: string, opts: ListOptions, ctx: BackendRequestContext): Promise<KubeList>;
  get(
    r: ServedResource,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    ctx: BackendRequestContext,
  ): Promise<KubeObject>;
  create(r: ServedResource, namespace: string, obj: KubeObject, ctx: BackendRequestContext): Promise<KubeObject>;
  update(
    r: ServedResource,
    namespace: string,
    name: string,
    obj: KubeObject,
    ctx: BackendRequestContext,
  ): Promise<KubeObject>;
  /**
   * PATCH: applies `body` (of content type `patchType`) to the stored object (or its status, `ctx.subresource`) and
   * stores the result.
   */
  patch(
    r: ServedResource,
    namespace: string,
    name: string,
    patchType: string,
    body: string,
    ctx: BackendRequestContext,
  ): Promise<KubeObject>;
  /**
   * Deletes with `DeleteOptions` (preconditions, propagation policy, dry run) and returns the last state of the
   * object; sets `ctx.deleted` to false when finalizers keep it.
   */
  delete(
    r: ServedResource,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    ctx: BackendRequestContext,
  ): Promise<KubeObject>;
  /**
   * DELETE on a collection: deletes what the list options select (each through the delete path with `options`)
   * and returns the list as selected. Absent: the server answers 405 (deletecollection not served).
   */
  deleteCollection?(
    r: ServedResource,
    namespace: string,
    opts: ListOptions,
    options: DeleteOptions | undefined,
    ctx: BackendRequestContext,
  ): Promise<KubeList>;
  /**
   * Starts a watch. `opts` are decoded only, as for {@link list}: the backend defaults them (WatchList, unless
   * `ctx.legacyWatchPath`), validates them and picks the timeout when `timeoutSeconds` is absent (`--min-request-timeout`
   * ·(1+rand)). Errors detected before streaming (429 cache not ready, 400 bad RV or selector, 422) are thrown; errors
   * after that arrive as ERROR events.
   */
  watch(
    r: ServedResource,
    namespace: string,
    opts: ListOptions,
    ctx: BackendRequestContext,
  ): Promise<WatchStreamSource>;
  /**
   * `GET pods/<name>/log` (a connect subresource answering `text/plain`): the log now and, for `follow` on a running
   * container, a wait that resolves when the stream should end. Absent: the route does not exist (404).
   */
  podLog?(namespace: string, name: string, options: PodLogOptions, ctx: BackendRequestContext): Promise<PodLogResponse>;
  /**
   * The engine's authorizer, asked about non-resource paths (`/api`, `/openapi/v2`, `/healthz` …) when it is not
   * AlwaysAllow. Absent: every path is allowed.
   */
  authorizer?(): Authorizer;
  /**
   * The service-account token authenticator: the user a bearer token the backend issued stands for, or why not
   * (tried after the server's static `--token`s).
   */
  authenticateToken?(token: string): TokenAuthentication;
  /** The service-account issuer's discovery documents, the key set's URI under `baseUrl`. */
  serviceAccountIssuerDiscovery?(baseUrl: string): {
    readonly configuration: Record<string, unknown>;
    readonly jwks: { readonly keys: readonly Record<string, string>[] };
  };
  /** Called once per finished resource request (after the response ended or the client went away). */
  recordRequest?(rec: CompletedRequest): void;
  /** The `/version` answer (absent: `SIM_VERSION_INFO`, v1.34). */
  versionInfo?(): Readonly<Record<string, string>>;
  /**
   * The `apidiscovery.k8s.io` versions `/api` and `/apis` answer as aggregated discovery (absent: v2 and v2beta1, as
   * 1.34 does; empty: legacy documents only).
   */
  aggregatedDiscoveryVersions?(): readonly AggregatedDiscoveryVersion[];
  /** Fault hook consulted for every resource request before it is served; `undefined` = no fault. */
  faultFor?(req: HttpRequestDescriptor): HttpFault | undefined;
}
