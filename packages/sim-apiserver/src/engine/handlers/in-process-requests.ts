import { type ListOptions, StatusError } from "@informer-ts/apimachinery";
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

  /**
   * One in-process request: the resource (an unknown one rejects with 404 naming it), the request fault, the engine
   * call, the outcome written to the caller's context, and one accounting record whatever happened, with the URI a
   * client would have asked (the list options, or a GET's resourceVersion). A request no answer reached (its signal
   * aborted, or a dropped-connection fault) is recorded as kube-apiserver records one
   * ({@link unansweredRequestStatus}). A watch is stopped when the caller's signal aborts (the listener is removed
   * when the watch closes, so one long-lived signal re-used for many watches does not accumulate listeners), and
   * cut after N events under a `truncate-watch` fault.
   */
  serve<R extends InProcessRequest>(request: R): Promise<ResultOf<R>>;
  async serve(request: InProcessRequest): Promise<unknown> {
    const { table, requests, faults, accounting, clock, defaultUserAgent } = this.deps;
    const r = table.resolve(request.resource);
    const start = clock.now();
    // Server-side apply is a PATCH; metrics report it as APPLY.
    const apply = request.verb === "patch" && isApplyPatch(request.patchType);
    const verb = request.verb;
    const { namespace } = request;
    const name = nameOf(request);
    const options = queryOptionsOf(request) ?? {};
    const req = request.context;
    const userAgent = req.userAgent ?? defaultUserAgent;
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
      const served = await requests.serve({ ...request, resource: r });
      const res =
        request.verb === "watch"
          ? this.watching(served as Served<SimWatch>, req, open, fault?.type === "truncate-watch" ? fault : undefined)
          : served;
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
      // An open watch leaves when it closes (the hook `watching` set); every other request leaves here.
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
