import type { ServedFrom } from "./cacher/index.js";
import type { RequestOutcome, RequestTraceConnection } from "./request-models.js";
import type { SimResource } from "./resources.js";

/** A resource given by object or by name: `configmaps`, `deployments.apps`, `leases.coordination.k8s.io`. */
export type ResourceRef = SimResource | string;

/**
 * What a request to the engine carries besides its arguments: who asks (accounting, fault matching, field managers),
 * cancellation, and the write parameters. The engine only reads it. Both faces pass one: the HTTP face its
 * per-request context, in-process callers a {@link RequestContext}.
 */
export interface EngineRequest {
  readonly userAgent?: string;
  /**
   * The authenticated user name (the HTTP face's; `system:anonymous` without credentials). Absent in-process: the
   * request is the superuser's (`system:admin` in `system:masters`), for the review kinds and the authorizer.
   */
  readonly user?: string;
  /**
   * The groups the authenticator gave `user` (besides `system:authenticated`/`system:unauthenticated`, which the
   * engine adds). Read by the review kinds and, under `authorization: "RBAC"`, the authorization step.
   */
  readonly groups?: readonly string[];
  /** The user's uid and extra attributes, as the authenticator (or impersonation) gave them (SelfSubjectReview). */
  readonly uid?: string | undefined;
  readonly extra?: Readonly<Record<string, readonly string[]>> | undefined;
  /**
   * Cancels the request while it waits for injected latency (the wait ends and the request rejects with the
   * signal's reason). Read only when there is such a wait, so a lazily created signal (the HTTP face's) is not
   * created for nothing. In-process watches also stop when it aborts.
   */
  readonly signal?: AbortSignal;
  /**
   * The request came through a deprecated `/watch/` path without `watch=true`. kube-apiserver defaults and
   * validates such a request's options as a list's (its `watch` parameter is false) and only then forces the watch,
   * so the WatchList defaulting (legacy RV ""/"0" → `sendInitialEvents`) and the watch rows of the 422 matrix do not
   * apply to it. The HTTP face sets it; in-process callers have no such path.
   */
  readonly legacyWatchPath?: boolean;
  /** Writes: `dryRun=All` (validated, nothing stored). */
  readonly dryRun?: boolean;
  /** Writes: the field manager (`fieldManager` query parameter). */
  readonly fieldManager?: string;
  /** Apply patches: `force=true`. */
  readonly force?: boolean;
  /** Writes: `fieldValidation` (`Strict`, `Warn`, `Ignore`; absent: the server's default, `Warn` since v1.25). */
  readonly fieldValidation?: string;
  /** Writes over HTTP: duplicate fields the face found in the JSON body (reported as `fieldValidation` says). */
  readonly duplicateFields?: readonly string[];
  /**
   * Writes: the engine appends the request's warnings here (unknown fields under `fieldValidation=Warn`); the HTTP
   * face sends them as `Warning: 299 - "…"` headers. Pass an empty array to collect them in-process.
   */
  readonly warnings?: string[];
  /** Writes and GET: `"status"` or `"scale"` addresses that subresource (404 for resources without one). */
  readonly subresource?: string;
  /** Over HTTP: what the trace log shows of the connection (read only when the trace log is on). */
  readonly trace?: RequestTraceConnection;
}

/**
 * What the engine answers to a request: the object (or list, or watch) and what the face needs to describe the
 * answer. Failed requests reject; where a failed read was answered is {@link servedFromOfError} of the error.
 */
export interface Served<T> {
  readonly object: T;
  /** Reads and watches: where the answer came from (the accounting's `served_from`); absent for writes. */
  readonly servedFrom?: ServedFrom;
  /** Deletes: whether the object is gone (false: finalizers hold it and `object` carries its deletionTimestamp). */
  readonly deleted?: boolean;
  /** Patches: whether the (server-side apply) patch created the object (the HTTP answer is then 201). */
  readonly created?: boolean;
  /** Lists: the keys the read examined, matching or not (the cost model's keys scanned). */
  readonly scanned?: number;
  /**
   * What the engine's request models added (audit ID, response size, cost); absent when they are off. A failed
   * request's is {@link outcomeOfError} of its error.
   */
  readonly outcome?: RequestOutcome;
}

/**
 * The context of an in-process request ({@link SimApiServer.list} and the other verbs): an {@link EngineRequest}
 * whose outcome fields the engine fills in when the request succeeds or is answered, for callers that want them.
 */
export interface RequestContext extends EngineRequest {
  /** Set by the engine: where a read was served from (reset at the start of every call). */
  servedFrom?: ServedFrom;
  /** Set by {@link SimApiServer.delete}: false while finalizers hold the object. */
  deleted?: boolean;
  /** Set by {@link SimApiServer.patch}: the (server-side apply) patch created the object. */
  created?: boolean;
}
