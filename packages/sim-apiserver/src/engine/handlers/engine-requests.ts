import { type KubeList, type KubeObject, type ListOptions, newMethodNotSupported } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import type { AdmissionWebhooks } from "../admission/webhook/admission-webhooks.js";
import { type Authorizer, checkAuthorized } from "../authorization/index.js";
import type { WatcherFaults } from "../cacher/index.js";
import type { RequestLatency } from "../filters/index.js";
import { type DeleteOptions, type PatchContentType, type ResourceTable, reviewUserOf } from "../registry/index.js";
import type { EngineRequest, ResourceRef, Served } from "../request-context.js";
import type { RequestModels } from "../request-models.js";
import type { SimResource } from "../resources.js";
import type { SimWatch } from "../sim-watch.js";
import type { MvccStorage } from "../storage/index.js";
import { type ListOptionGates, serveGet, serveList } from "./list-serving.js";
import { nameOf, queryOptionsOf, type ResourceRequest, type ResultOf } from "./resource-request.js";
import { serveWatch } from "./watch-serving.js";
import { deleteWithWebhooks, writeWithWebhooks } from "./webhook-writes.js";
import { isApplyPatch, type WriteServing } from "./write-serving.js";

/** What {@link EngineRequests} is built from (the engine's parts). */
export interface EngineRequestsDeps {
  readonly table: ResourceTable;
  readonly writes: WriteServing;
  readonly latency: RequestLatency;
  readonly watcherFaults: WatcherFaults;
  readonly rand: Rand;
  /** The WatchList gate and whether `sendInitialEvents` exists. */
  readonly gates: ListOptionGates;
  readonly minRequestTimeoutSeconds: number;
  readonly defaultUserAgent: string;
  /** The cost model and the trace log around each request (see {@link RequestModels}); off by default. */
  readonly models: RequestModels;
  readonly clock: Clock;
  /** Under `authorization: "RBAC"`: the authorizer every request passes after its resource's lookup. */
  readonly authorizer?: Authorizer;
  /** The admission webhooks writes are sent to (absent: none), with the storage deletes read the object from. */
  readonly webhooks?: AdmissionWebhooks;
  readonly storage?: MvccStorage;
}

/**
 * The engine's request API as both faces call it: {@link serve} takes one {@link ResourceRequest} (verb, resource,
 * namespace, name, options, body, and the {@link EngineRequest} context) and resolves to a {@link Served} result
 * (the object plus where it was served from, whether a delete finished, whether an apply created); the per-verb
 * methods are that request written out. Errors are data: an unknown resource, bad options and API errors reject
 * with a `StatusError` naming what was wrong; nothing throws synchronously. Each request passes the engine's half
 * of the filter chain — the injected latency (cancelled by the request's signal or the engine's stop), then the
 * request models (APF seats and cost, trace) when they are on — before its verb's handler.
 *
 * The outer filters (the request fault, the accounting record) are `RequestFilters`, run by each face at its edge:
 * the HTTP face before it reads the body and once the response is written (with its bytes), the in-process face
 * ({@link InProcessRequests}) around this call.
 */
export class EngineRequests {
  constructor(private readonly deps: EngineRequestsDeps) {}

  /**
   * Serves one request, whatever its verb and whichever face built it: the resource's lookup, the 405 of a verb it
   * does not serve, the latency wait and the request models, then the verb's handler (the only place each verb is
   * written).
   */
  serve<R extends ResourceRequest>(request: R): Promise<Served<ResultOf<R>>>;
  serve(request: ResourceRequest): Promise<Served<unknown>> {
    const { namespace, context: req } = request;
    const { table, writes, gates, webhooks } = this.deps;
    switch (request.verb) {
      case "list":
        return this.run("list", request, (r) => serveList(table.cacher(r), namespace, request.options, gates));
      case "get": {
        const rv = request.options.resourceVersion;
        return this.run("get", request, (r) =>
          serveGet(table.cacher(r), namespace, request.name, rv ?? "", req.subresource),
        );
      }
      case "create":
        return this.run("create", request, (r) =>
          writeWithWebhooks(webhooks, r, namespace, req, (rq, pass) =>
            writes.create(r, namespace, request.body, rq, pass),
          ),
        );
      case "update":
        return this.run("update", request, (r) =>
          writeWithWebhooks(webhooks, r, namespace, req, (rq, pass) =>
            writes.update(r, namespace, request.name, request.body, rq, pass),
          ),
        );
      case "patch":
        return this.run(isApplyPatch(request.patchType) ? "apply" : "patch", request, (r) =>
          writeWithWebhooks(webhooks, r, namespace, req, (rq, pass) =>
            writes.patch(r, namespace, request.name, request.patchType, request.body, rq, pass),
          ),
        );
      case "delete":
        return this.run("delete", request, (r) =>
          deleteWithWebhooks(
            webhooks,
            r,
            namespace,
            request.name,
            webhooks === undefined ? undefined : this.deps.storage?.get(r, namespace, request.name),
            req,
            req.dryRun === true || request.deleteOptions?.dryRun === true,
            () => writes.delete(r, namespace, request.name, request.deleteOptions, req),
          ),
        );
      case "deletecollection":
        return this.run("deletecollection", request, (r) =>
          writes.deleteCollection(r, namespace, request.options, request.deleteOptions, req),
        );
      case "watch":
        // The watch is not tied to the signal: the face stops it (the HTTP face when the client goes away, the
        // in-process face when the caller's signal aborts).
        return this.run("watch", request, async (r) => {
          const res = await serveWatch(
            this.deps,
            table.cacher(r),
            namespace,
            request.options,
            req.legacyWatchPath === true,
          );
          this.deps.watcherFaults.watchOpened(r, res.object, req.userAgent ?? this.deps.defaultUserAgent);
          return res;
        });
    }
  }

  /** LIST: `opts` are the decoded query; defaulting, validation and routing (cache or storage) happen here. */
  list(ref: ResourceRef, namespace: string, opts: ListOptions, req: EngineRequest): Promise<Served<KubeList>> {
    return this.serve({ verb: "list", resource: ref, namespace, options: opts, context: req });
  }

  /** GET one object (RV unset: storage; "0": cache; N: cache once fresh); 404 when absent. */
  get(
    ref: ResourceRef,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.serve({ verb: "get", resource: ref, namespace, name, options: opts, context: req });
  }

  /** CREATE through the registry. */
  create(ref: ResourceRef, namespace: string, obj: KubeObject, req: EngineRequest): Promise<Served<KubeObject>> {
    return this.serve({ verb: "create", resource: ref, namespace, body: obj, context: req });
  }

  /** UPDATE (PUT) of an object, its status or its Scale. */
  update(
    ref: ResourceRef,
    namespace: string,
    name: string,
    obj: KubeObject,
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.serve({ verb: "update", resource: ref, namespace, name, body: obj, context: req });
  }

  /** PATCH (JSON, merge, strategic merge, apply) of an object, its status or its Scale. */
  patch(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchContentType | string,
    body: string,
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.serve({ verb: "patch", resource: ref, namespace, name, patchType: type, body, context: req });
  }

  /** DELETE with `DeleteOptions`; `deleted` of the result is false while finalizers hold the object. */
  delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.serve({ verb: "delete", resource: ref, namespace, name, deleteOptions: options, context: req });
  }

  /** DELETE on a collection: the objects `listOpts` select, one after the other; answers the list as selected. */
  deleteCollection(
    ref: ResourceRef,
    namespace: string,
    listOpts: ListOptions,
    options: DeleteOptions | undefined,
    req: EngineRequest,
  ): Promise<Served<KubeList>> {
    return this.serve({
      verb: "deletecollection",
      resource: ref,
      namespace,
      options: listOpts,
      deleteOptions: options,
      context: req,
    });
  }

  /** WATCH, served by the watch cache; the face stops it. */
  watch(ref: ResourceRef, namespace: string, opts: ListOptions, req: EngineRequest): Promise<Served<SimWatch>> {
    return this.serve({ verb: "watch", resource: ref, namespace, options: opts, context: req });
  }

  /**
   * The resource's lookup and the latency wait, then the handler — under the request models (cost, trace) when they
   * are on; everything that fails rejects. `verb` is `apply` for a server-side apply patch.
   */
  private async run<T>(
    verb: string,
    request: ResourceRequest,
    handler: (r: SimResource) => Promise<Served<T>> | Served<T>,
  ): Promise<Served<T>> {
    const req = request.context;
    const r = this.deps.table.resolve(request.resource);
    const kubeVerb = verb === "apply" ? "patch" : verb;
    // The authorization filter runs before routing, so a user who may not make the request is refused (403) even
    // where the verb has no route; verbs a resource does not serve (a review's list, a namespace's
    // deletecollection) are then go-restful's 405.
    if (this.deps.authorizer !== undefined) authorizeRequest(this.deps.authorizer, kubeVerb, r, request);
    if (!r.verbs.includes(kubeVerb)) throw newMethodNotSupported({ group: r.group, resource: r.resource }, kubeVerb);
    const start = this.deps.clock.now();
    await this.deps.latency.wait(kubeVerb, r, () => req.signal);
    const models = this.deps.models;
    if (!models.enabled) return handler(r);
    const options = modelOptionsOf(request);
    return models.serve(
      {
        verb,
        resource: r,
        namespace: request.namespace,
        name: nameOf(request),
        ...(req.subresource !== undefined && { subresource: req.subresource }),
        ...(options !== undefined && { options }),
        userAgent: req.userAgent ?? this.deps.defaultUserAgent,
        ...(req.signal !== undefined && { signal: req.signal }),
        ...(req.trace !== undefined && req.trace),
      },
      start,
      () => handler(r),
    );
  }
}

/** The list options the request models see: a collection's, or a GET's resourceVersion (`{}` when it has none). */
function modelOptionsOf(request: ResourceRequest): ListOptions | undefined {
  if (request.verb !== "get") return queryOptionsOf(request);
  const rv = request.options.resourceVersion;
  return rv === undefined ? {} : { resourceVersion: rv };
}

/**
 * The authorization filter (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/authorization.go`): the request's
 * attributes (an unnamed GET is a `list`), then 403 with `forbiddenMessage` unless the authorizer allows it.
 */
function authorizeRequest(authorizer: Authorizer, verb: string, r: SimResource, request: ResourceRequest): void {
  const req = request.context;
  const name = nameOf(request);
  const attrs = {
    user: reviewUserOf(req.user, req.groups, req.uid, req.extra),
    resourceRequest: true as const,
    verb,
    apiGroup: r.group,
    resource: r.resource,
    subresource: req.subresource ?? "",
    namespace: request.namespace,
    name,
  };
  checkAuthorized(authorizer, attrs);
}
