import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import type { WatcherFaults } from "../cacher/index.js";
import type { RequestLatency } from "../filters/index.js";
import type { DeleteOptions, PatchType, ResourceTable } from "../registry/index.js";
import type { EngineRequest, ResourceRef, Served } from "../request-context.js";
import type { RequestModels } from "../request-models.js";
import type { SimResource } from "../resources.js";
import type { SimWatch } from "../sim-watch.js";
import { type ListOptionGates, serveGet, serveList } from "./list-serving.js";
import { serveWatch } from "./watch-serving.js";
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
}

/**
 * The engine's request API as a face calls it: every verb takes the resource, its arguments and an
 * {@link EngineRequest}, and resolves to a {@link Served} result (the object plus where it was served from, whether
 * a delete finished, whether an apply created). Errors are data: an unknown resource, bad options and API errors
 * reject with a `StatusError` naming what was wrong; nothing throws synchronously. Each request first waits the
 * injected latency (cancelled by the request's signal or the engine's stop).
 *
 * Request faults and accounting are the face's: the HTTP face applies faults and records each request with its
 * bytes; the in-process face ({@link InProcessRequests}) decorates this API with both.
 */
export class EngineRequests {
  constructor(private readonly deps: EngineRequestsDeps) {}

  /** LIST: `opts` are the decoded query; defaulting, validation and routing (cache or storage) happen here. */
  list(ref: ResourceRef, namespace: string, opts: ListOptions, req: EngineRequest): Promise<Served<KubeList>> {
    return this.run("list", ref, req, { namespace, name: "", options: opts }, (r) =>
      serveList(this.deps.table.cacher(r), namespace, opts, this.deps.gates),
    );
  }

  /** GET one object (RV unset: storage; "0": cache; N: cache once fresh); 404 when absent. */
  get(
    ref: ResourceRef,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    const options = opts.resourceVersion === undefined ? {} : { resourceVersion: opts.resourceVersion };
    return this.run("get", ref, req, { namespace, name, options }, (r) =>
      serveGet(this.deps.table.cacher(r), namespace, name, opts.resourceVersion ?? "", req.subresource),
    );
  }

  /** CREATE through the registry. */
  create(ref: ResourceRef, namespace: string, obj: KubeObject, req: EngineRequest): Promise<Served<KubeObject>> {
    return this.run("create", ref, req, { namespace, name: "" }, (r) =>
      this.deps.writes.create(r, namespace, obj, req),
    );
  }

  /** UPDATE (PUT) of an object, its status or its Scale. */
  update(
    ref: ResourceRef,
    namespace: string,
    name: string,
    obj: KubeObject,
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.run("update", ref, req, { namespace, name }, (r) =>
      this.deps.writes.update(r, namespace, name, obj, req),
    );
  }

  /** PATCH (JSON, merge, strategic merge, apply) of an object, its status or its Scale. */
  patch(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType | string,
    body: string,
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.run(isApplyPatch(type) ? "apply" : "patch", ref, req, { namespace, name }, (r) =>
      this.deps.writes.patch(r, namespace, name, type, body, req),
    );
  }

  /** DELETE with `DeleteOptions`; `deleted` of the result is false while finalizers hold the object. */
  delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    req: EngineRequest,
  ): Promise<Served<KubeObject>> {
    return this.run("delete", ref, req, { namespace, name }, (r) =>
      this.deps.writes.delete(r, namespace, name, options, req),
    );
  }

  /** DELETE on a collection: the objects `listOpts` select, one after the other; answers the list as selected. */
  deleteCollection(
    ref: ResourceRef,
    namespace: string,
    listOpts: ListOptions,
    options: DeleteOptions | undefined,
    req: EngineRequest,
  ): Promise<Served<KubeList>> {
    return this.run("deletecollection", ref, req, { namespace, name: "", options: listOpts }, (r) =>
      this.deps.writes.deleteCollection(r, namespace, listOpts, options, req),
    );
  }

  /**
   * WATCH, served by the watch cache. The watch is not tied to `req.signal`: the face stops it (the HTTP face when
   * the client goes away, the in-process face when the caller's signal aborts).
   */
  watch(ref: ResourceRef, namespace: string, opts: ListOptions, req: EngineRequest): Promise<Served<SimWatch>> {
    return this.run("watch", ref, req, { namespace, name: "", options: opts }, async (r) => {
      const res = await serveWatch(this.deps, this.deps.table.cacher(r), namespace, opts, req.legacyWatchPath === true);
      this.deps.watcherFaults.watchOpened(r, res.object, req.userAgent ?? this.deps.defaultUserAgent);
      return res;
    });
  }

  /**
   * The resource's lookup and the latency wait, then the handler — under the request models (cost, trace) when they
   * are on; everything that fails rejects. `verb` is `apply` for a server-side apply patch.
   */
  private async run<T>(
    verb: string,
    ref: ResourceRef,
    req: EngineRequest,
    target: { readonly namespace: string; readonly name: string; readonly options?: ListOptions },
    handler: (r: SimResource) => Promise<Served<T>> | Served<T>,
  ): Promise<Served<T>> {
    const r = this.deps.table.resolve(ref);
    const start = this.deps.clock.now();
    const latencyVerb = verb === "apply" ? "patch" : verb;
    await this.deps.latency.wait(latencyVerb, r, () => req.signal);
    const models = this.deps.models;
    if (!models.enabled) return handler(r);
    return models.serve(
      {
        verb,
        resource: r,
        namespace: target.namespace,
        name: target.name,
        ...(req.subresource !== undefined && { subresource: req.subresource }),
        ...(target.options !== undefined && { options: target.options }),
        userAgent: req.userAgent ?? this.deps.defaultUserAgent,
        ...(req.signal !== undefined && { signal: req.signal }),
        ...(req.trace !== undefined && req.trace),
      },
      start,
      () => handler(r),
    );
  }
}
