import { type KubeList, type KubeObject, type ListOptions, StatusError } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import { CacheWatcher, type ServedFrom, servedFromOfError } from "../cacher/index.js";
import {
  type HttpFaultInjector,
  inProcessFault,
  type RequestAccounting,
  type RequestInFlight,
  SimConnectionError,
  unansweredRequestStatus,
} from "../filters/index.js";
import type { DeleteOptions, PatchType, ResourceTable } from "../registry/index.js";
import type { RequestContext, ResourceRef, Served } from "../request-context.js";
import { outcomeOfError, type RequestOutcome } from "../request-models.js";
import { requestURI } from "../request-uri.js";
import type { SimResource } from "../resources.js";
import { type SimWatch, TruncatingWatch } from "../sim-watch.js";
import type { EngineRequests } from "./engine-requests.js";
import { isApplyPatch } from "./write-serving.js";

/** What {@link InProcessRequests} decorates and reports to. */
export interface InProcessRequestsDeps {
  readonly requests: EngineRequests;
  readonly table: ResourceTable;
  readonly faults: HttpFaultInjector;
  readonly accounting: RequestAccounting;
  readonly clock: Clock;
  readonly defaultUserAgent: string;
}

/**
 * The in-process face of the engine: {@link EngineRequests} decorated with what the HTTP face does around each
 * request — the request faults (APF 429, error Status, dropped connection, a watch truncated mid-line), the accounting
 * record (verb, resource, user agent, code, served-from, latency; 0 bytes), the caller's signal stopping a watch —
 * and the answer unwrapped to the object, with the outcome written to the caller's {@link RequestContext}.
 */
export class InProcessRequests {
  /** Requests received and not finished (an open watch until it closes): one Set add and delete per request. */
  private readonly open = new Set<OpenRequest>();

  constructor(private readonly deps: InProcessRequestsDeps) {}

  /**
   * The in-process requests in flight now, in the order they were received: every request between its start and its
   * answer, and a watch until it closes (stopped by its caller, its signal aborted, or ended by the server). Nothing
   * is built per request: the URIs are built here.
   */
  inFlight(): RequestInFlight[] {
    return [...this.open].map((o) => o.snapshot());
  }

  list(ref: ResourceRef, namespace: string, opts: ListOptions, ctx?: RequestContext): Promise<KubeList> {
    return this.run("list", ref, namespace, ctx, "", opts, (r, req) =>
      this.deps.requests.list(r, namespace, opts, req),
    );
  }

  get(
    ref: ResourceRef,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    ctx?: RequestContext,
  ): Promise<KubeObject> {
    return this.run("get", ref, namespace, ctx, name, opts, (r, req) =>
      this.deps.requests.get(r, namespace, name, opts, req),
    );
  }

  create(ref: ResourceRef, namespace: string, obj: KubeObject, ctx?: RequestContext): Promise<KubeObject> {
    return this.run("create", ref, namespace, ctx, "", {}, (r, req) =>
      this.deps.requests.create(r, namespace, obj, req),
    );
  }

  update(
    ref: ResourceRef,
    namespace: string,
    name: string,
    obj: KubeObject,
    ctx?: RequestContext,
  ): Promise<KubeObject> {
    return this.run("update", ref, namespace, ctx, name, {}, (r, req) =>
      this.deps.requests.update(r, namespace, name, obj, req),
    );
  }

  patch(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType | string,
    body: string,
    ctx?: RequestContext,
  ): Promise<KubeObject> {
    return this.run(isApplyPatch(type) ? "apply" : "patch", ref, namespace, ctx, name, {}, (r, req) =>
      this.deps.requests.patch(r, namespace, name, type, body, req),
    );
  }

  delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    ctx?: RequestContext,
  ): Promise<KubeObject> {
    return this.run("delete", ref, namespace, ctx, name, {}, (r, req) =>
      this.deps.requests.delete(r, namespace, name, options, req),
    );
  }

  deleteCollection(
    ref: ResourceRef,
    namespace: string,
    listOpts: ListOptions,
    options: DeleteOptions | undefined,
    ctx?: RequestContext,
  ): Promise<KubeList> {
    return this.run("deletecollection", ref, namespace, ctx, "", listOpts, (r, req) =>
      this.deps.requests.deleteCollection(r, namespace, listOpts, options, req),
    );
  }

  /**
   * WATCH: the engine's watch, stopped when the caller's signal aborts (the listener is removed when the watch
   * closes, so one long-lived signal re-used for many watches does not accumulate listeners), and cut after N events
   * under a `truncate-watch` fault.
   */
  watch(ref: ResourceRef, namespace: string, opts: ListOptions, ctx?: RequestContext): Promise<SimWatch> {
    return this.run("watch", ref, namespace, ctx, "", opts, async (r, req, truncateAfter, open) => {
      const res = await this.deps.requests.watch(r, namespace, opts, req);
      const w = res.object;
      // The watch stays in flight until it closes.
      if (w instanceof CacheWatcher && !w.isClosed) {
        open.untilClosed = true;
        w.whenClosed(() => this.open.delete(open));
      }
      const signal = req.signal;
      if (signal !== undefined && w instanceof CacheWatcher) {
        if (signal.aborted) w.stop();
        else {
          const onAbort = () => w.stop();
          signal.addEventListener("abort", onAbort, { once: true });
          w.whenClosed(() => signal.removeEventListener("abort", onAbort));
        }
      }
      return truncateAfter === undefined ? res : { ...res, object: new TruncatingWatch(w, truncateAfter) };
    });
  }

  /**
   * One in-process request: the resource (an unknown one rejects with 404 naming it), the request fault, the engine
   * call, the outcome written to `ctx`, and one accounting record whatever happened, with the URI a client would have
   * asked (`options`: the list options, or a GET's resourceVersion). A request no answer reached (its signal aborted,
   * or a dropped-connection fault) is recorded as kube-apiserver records one ({@link unansweredRequestStatus}).
   */
  private async run<T>(
    requestVerb: string,
    ref: ResourceRef,
    namespace: string,
    ctx: RequestContext | undefined,
    name: string,
    options: ListOptions | { readonly resourceVersion?: string },
    call: (
      r: SimResource,
      req: RequestContext,
      truncateAfter: number | undefined,
      open: OpenRequest,
    ) => Promise<Served<T>>,
  ): Promise<T> {
    const { table, faults, accounting, clock, defaultUserAgent } = this.deps;
    const r = table.resolve(ref);
    const start = clock.now();
    // Server-side apply is a PATCH; metrics report it as APPLY.
    const apply = requestVerb === "apply";
    const verb = apply ? "patch" : requestVerb;
    const userAgent = ctx?.userAgent ?? defaultUserAgent;
    const req: RequestContext = ctx ?? {};
    // A context reused for several calls must not carry the previous call's outcome over.
    req.servedFrom = undefined;
    let code = 200;
    let unanswered = false;
    let servedFrom: ServedFrom | undefined;
    let outcome: RequestOutcome | undefined;
    const open = new OpenRequest(verb, r, namespace, name, userAgent, start, req, options);
    this.open.add(open);
    try {
      const fault = faults.faultFor({
        verb,
        group: r.group,
        version: r.version,
        resource: r.resource,
        namespace,
        name: "",
        userAgent,
      });
      if (fault !== undefined && fault.type !== "truncate-watch") throw inProcessFault(fault);
      const res = await call(r, req, fault?.type === "truncate-watch" ? fault.afterEvents : undefined, open);
      servedFrom = res.servedFrom;
      open.servedFrom = servedFrom;
      outcome = res.outcome;
      req.servedFrom = servedFrom;
      if (res.deleted !== undefined) req.deleted = res.deleted;
      if (res.created !== undefined) req.created = res.created;
      if (verb === "create") code = 201;
      return res.object;
    } catch (err) {
      servedFrom = servedFromOfError(err);
      outcome = outcomeOfError(err);
      if (servedFrom !== undefined) req.servedFrom = servedFrom;
      // What the handler answered, else (no answer reached anyone) what kube-apiserver's filters record.
      unanswered = !(err instanceof StatusError) && (err instanceof SimConnectionError || req.signal?.aborted === true);
      code = err instanceof StatusError ? err.code : unanswered ? unansweredRequestStatus(verb).code : 500;
      throw err;
    } finally {
      // An open watch leaves when it closes (the hook `watch` set); every other request leaves here.
      if (!open.untilClosed) this.open.delete(open);
      accounting.record({
        verb,
        group: r.group,
        version: r.version,
        resource: r.resource,
        userAgent,
        code,
        servedFrom: servedFrom ?? "",
        latencyMs: clock.now() - start + (outcome?.unsleptMs ?? 0),
        // In-process nothing is serialized: the request models measure the encoded response when asked to.
        bytes: outcome?.responseBytes ?? 0,
        namespace,
        ...(name !== "" && { name }),
        receivedAt: start,
        ...(apply && { apply }),
        ...(outcome !== undefined && { auditID: outcome.auditID }),
        // Built only when something reads it (the audit line), or for a request no answer reached.
        ...((outcome !== undefined || accounting.auditLog !== undefined || unanswered) && {
          requestURI: outcome?.requestURI ?? uriOf(r, verb, namespace, name, req.subresource, options),
        }),
        ...(unanswered && { unanswered }),
        ...(outcome?.cost !== undefined && { cost: outcome.cost }),
        ...(req.subresource !== undefined && req.subresource !== "" && { subresource: req.subresource }),
      });
    }
  }
}

/** One in-process request in flight: what its {@link RequestInFlight} is built from when someone reads it. */
class OpenRequest {
  servedFrom: ServedFrom | undefined;
  /** An open watch: it leaves the in-flight set when it closes, not when the request returns. */
  untilClosed = false;

  constructor(
    readonly verb: string,
    readonly r: SimResource,
    readonly namespace: string,
    readonly name: string,
    readonly userAgent: string,
    readonly receivedAt: number,
    readonly req: RequestContext,
    readonly options: ListOptions | { readonly resourceVersion?: string },
  ) {}

  snapshot(): RequestInFlight {
    const { r, verb, namespace, name } = this;
    return {
      verb,
      group: r.group,
      version: r.version,
      resource: r.resource,
      namespace,
      name,
      requestURI: uriOf(r, verb, namespace, name, this.req.subresource, this.options),
      userAgent: this.userAgent,
      receivedAt: this.receivedAt,
      ...(this.servedFrom !== undefined && { servedFrom: this.servedFrom }),
    };
  }
}

/** The URI a client would have asked for this request (in-process requests have no other). */
function uriOf(
  r: SimResource,
  verb: string,
  namespace: string,
  name: string,
  subresource: string | undefined,
  options: ListOptions | { readonly resourceVersion?: string },
): string {
  const target = {
    group: r.group,
    version: r.version,
    resource: r.resource,
    namespaced: r.namespaced,
    namespace,
    name,
    ...(subresource !== undefined && { subresource }),
  };
  return requestURI(target, verb, options);
}
