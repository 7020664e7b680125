import { type ListOptions, StatusError } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import { CacheWatcher, type ServedFrom, servedFromOfError } from "../cacher/index.js";
import {
  type FilteredRequest,
  inProcessFault,
  type RequestFilters,
  type RequestInFlight,
  SimConnectionError,
} from "../filters/index.js";
import type { ResourceTable } from "../registry/index.js";
import type { RequestContext, Served } from "../request-context.js";
import { outcomeOfError, type RequestOutcome } from "../request-models.js";
import { requestURI } from "../request-uri.js";
import type { SimResource } from "../resources.js";
import { type SimWatch, TruncatingWatch } from "../sim-watch.js";
import type { EngineRequests } from "./engine-requests.js";
import { nameOf, queryOptionsOf, type ResourceRequest, type ResultOf } from "./resource-request.js";
import { isApplyPatch } from "./write-serving.js";

/** What {@link InProcessRequests} decorates and reports to. */
export interface InProcessRequestsDeps {
  readonly requests: EngineRequests;
  readonly table: ResourceTable;
  /** The request faults and the accounting (the same filters the HTTP face runs). */
  readonly filters: RequestFilters;
  /** Whether a record needs its request URI although no request model built one (an audit sink reads it). */
  readonly wantsRequestURI: () => boolean;
  readonly clock: Clock;
  readonly defaultUserAgent: string;
}

/**
 * The in-process face of the engine, a thin adapter: a call's {@link ResourceRequest} passes the same filters the
 * HTTP face runs ({@link RequestFilters}: the request fault — APF 429, error Status, dropped connection rejected as
 * errors, a watch truncated mid-line — and one accounting record; 0 bytes), then {@link EngineRequests.serve}; the
 * caller's signal stops a watch, and the answer is unwrapped to the object, with the outcome written to the caller's
 * {@link RequestContext}.
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

  /**
   * One in-process request: the resource (an unknown one rejects with 404 naming it), the request fault, the engine
   * call, the outcome written to the caller's context, and one accounting record whatever happened, with the URI a
   * client would have asked (the list options, or a GET's resourceVersion). A request no answer reached (its signal
   * aborted, or a dropped-connection fault) is recorded as kube-apiserver records one
   * (`unansweredRequestStatus`). A watch is stopped when the caller's signal aborts (the listener is removed
   * when the watch closes, so one long-lived signal re-used for many watches does not accumulate listeners), and
   * cut after N events under a `truncate-watch` fault.
   */
  serve<R extends InProcessRequest>(request: R): Promise<ResultOf<R>>;
  async serve(request: InProcessRequest): Promise<unknown> {
    const { table, requests, filters, clock, defaultUserAgent } = this.deps;
    const r = table.resolve(request.resource);
    const req = request.context;
    // A context reused for several calls must not carry the previous call's outcome over.
    req.servedFrom = undefined;
    const open = new OpenRequest(request, r, req.userAgent ?? defaultUserAgent, clock.now());
    this.open.add(open);
    let code = 200;
    let unanswered = false;
    let outcome: RequestOutcome | undefined;
    try {
      const fault = filters.fault(open);
      if (fault !== undefined && fault.type !== "truncate-watch") throw inProcessFault(fault);
      const served = await requests.serve({ ...request, resource: r });
      const res =
        request.verb === "watch"
          ? this.watching(served as Served<SimWatch>, req, open, fault?.type === "truncate-watch" ? fault : undefined)
          : served;
      open.servedFrom = res.servedFrom;
      outcome = res.outcome;
      req.servedFrom = res.servedFrom;
      if (res.deleted !== undefined) req.deleted = res.deleted;
      if (res.created !== undefined) req.created = res.created;
      if (request.verb === "create") code = 201;
      return res.object;
    } catch (err) {
      open.servedFrom = servedFromOfError(err);
      outcome = outcomeOfError(err);
      if (open.servedFrom !== undefined) req.servedFrom = open.servedFrom;
      // What the handler answered, else (no answer reached anyone) what kube-apiserver's filters record.
      unanswered = !(err instanceof StatusError) && (err instanceof SimConnectionError || req.signal?.aborted === true);
      code = err instanceof StatusError ? err.code : 500;
      throw err;
    } finally {
      // An open watch leaves when it closes (the hook `watching` set); every other request leaves here.
      if (!open.untilClosed) this.open.delete(open);
      filters.finished(open, {
        endedAt: clock.now(),
        code,
        unanswered,
        // In-process nothing is serialized: the request models measure the encoded response when asked to.
        bytes: outcome?.responseBytes ?? 0,
        ...(open.servedFrom !== undefined && { servedFrom: open.servedFrom }),
        // Built only when something reads it (the audit line), or for a request no answer reached.
        ...((outcome !== undefined || this.deps.wantsRequestURI() || unanswered) && {
          requestURI: outcome?.requestURI ?? open.requestURI(),
        }),
        ...(outcome !== undefined && { auditID: outcome.auditID, unsleptMs: outcome.unsleptMs }),
        ...(outcome?.cost !== undefined && { cost: outcome.cost }),
      });
    }
  }

  /**
   * An opened watch stays in flight until it closes, stops when the caller's signal aborts, and is cut after N
   * events under a `truncate-watch` fault.
   */
  private watching(
    res: Served<SimWatch>,
    req: RequestContext,
    open: OpenRequest,
    truncate: { readonly afterEvents: number } | undefined,
  ): Served<SimWatch> {
    const w = res.object;
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
    return truncate === undefined ? res : { ...res, object: new TruncatingWatch(w, truncate.afterEvents) };
  }
}

/** A request of the in-process face: its context is the caller's, whose outcome fields the engine fills in. */
export type InProcessRequest = ResourceRequest & { readonly context: RequestContext };

/**
 * One in-process request as the filters see it ({@link FilteredRequest}), and in flight: what its
 * {@link RequestInFlight} is built from when someone reads it.
 */
class OpenRequest implements FilteredRequest {
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly apply: boolean;
  readonly subresource: string | undefined;
  servedFrom: ServedFrom | undefined;
  /** An open watch: it leaves the in-flight set when it closes, not when the request returns. */
  untilClosed = false;
  private readonly options: ListOptions | { readonly resourceVersion?: string };

  constructor(
    request: InProcessRequest,
    private readonly r: SimResource,
    readonly userAgent: string,
    readonly receivedAt: number,
  ) {
    this.verb = request.verb;
    this.group = r.group;
    this.version = r.version;
    this.resource = r.resource;
    this.namespace = request.namespace;
    this.name = nameOf(request);
    // Server-side apply is a PATCH; metrics report it as APPLY.
    this.apply = request.verb === "patch" && isApplyPatch(request.patchType);
    this.subresource = request.context.subresource;
    this.options = queryOptionsOf(request) ?? {};
  }

  /** The URI a client would have asked for this request (in-process requests have no other). */
  requestURI(): string {
    const { r } = this;
    const target = {
      group: r.group,
      version: r.version,
      resource: r.resource,
      namespaced: r.namespaced,
      namespace: this.namespace,
      name: this.name,
      ...(this.subresource !== undefined && { subresource: this.subresource }),
    };
    return requestURI(target, this.verb, this.options);
  }

  snapshot(): RequestInFlight {
    return {
      verb: this.verb,
      group: this.group,
      version: this.version,
      resource: this.resource,
      namespace: this.namespace,
      name: this.name,
      requestURI: this.requestURI(),
      userAgent: this.userAgent,
      receivedAt: this.receivedAt,
      ...(this.servedFrom !== undefined && { servedFrom: this.servedFrom }),
    };
  }
}
