import type { RequestRecord } from "./accounting.js";
import type { RequestCost } from "./cost-model.js";
import type { HttpFault, HttpRequestDescriptor } from "./http-faults.js";
import { unansweredRequestStatus } from "./unanswered-request.js";

/** Where the filters find the fault rules and put the accounting records (a face's backend, or the engine's own). */
export interface RequestFilterPorts {
  /** The request faults in effect (absent: none). */
  readonly faultFor?: (req: HttpRequestDescriptor) => HttpFault | undefined;
  /** The accounting sink: one record per finished request (absent: nothing recorded). */
  readonly record?: (rec: RequestRecord) => void;
}

/** A resource request as the filters see it: what it addresses, who asks, and when it was received. */
export interface FilteredRequest extends HttpRequestDescriptor {
  /** When the request was received (engine or server clock, ms). */
  readonly receivedAt: number;
  /** The authenticated user (over HTTP). */
  readonly user?: string;
  /** `status`, `scale`, … ("" or absent: the object itself). */
  readonly subresource?: string;
  /** A server-side apply patch (metrics report it as `APPLY`). */
  readonly apply?: boolean;
}

/** How a request ended, as the face that answered it saw it. */
export interface RequestEnd {
  /** When it ended (same clock as {@link FilteredRequest.receivedAt}). */
  readonly endedAt: number;
  /** The status code answered; ignored when {@link unanswered}. */
  readonly code: number;
  /** No answer reached the client (it went away, the connection dropped, its signal aborted first). */
  readonly unanswered: boolean;
  /** Response bytes: written to the socket over HTTP; in-process what the request models measured, else 0. */
  readonly bytes: number;
  readonly servedFrom?: "cache" | "storage";
  /** The request URI (over HTTP as sent; in-process the one a client would have asked, when someone reads it). */
  readonly requestURI?: string;
  readonly sourceIP?: string;
  /** From the engine's request models, when they are on: audit ID, cost, and the latency they recorded unslept. */
  readonly auditID?: string;
  readonly cost?: RequestCost;
  readonly unsleptMs?: number;
}

/**
 * The filters at a face's edge that every resource request passes, whether it came over HTTP or in-process
 * (kube-apiserver's `WithPanicRecovery … WithRequestInfo` outer filters; the rest of the chain — the injected
 * latency, APF's seats and the cost model, the trace — runs in the engine's `EngineRequests.serve`, which both
 * faces call): the request fault decided for it before anything is read, and one accounting record once it ended.
 * The face renders a fault in its own terms (HTTP writes the 429/Status or drops the socket; in-process rejects with
 * the same error) and says how the request ended; the record is built here, so both faces record the same fields.
 */
export class RequestFilters {
  constructor(private readonly ports: RequestFilterPorts) {}

  /** The fault filter: the request fault for this request, or `undefined`. */
  fault(req: FilteredRequest): HttpFault | undefined {
    // The request is its own descriptor (the rules read only the descriptor's fields): nothing is built per request.
    return this.ports.faultFor?.(req);
  }

  /**
   * The accounting filter: records the finished request. A request no answer reached is recorded as kube-apiserver
   * records one ({@link unansweredRequestStatus}: 504 from the timeout filter, 200 for a watch).
   */
  finished(req: FilteredRequest, end: RequestEnd): void {
    const record = this.ports.record;
    if (record === undefined) return;
    const { unanswered } = end;
    record({
      verb: req.verb,
      group: req.group,
      version: req.version,
      resource: req.resource,
      userAgent: req.userAgent,
      code: unanswered ? unansweredRequestStatus(req.verb).code : end.code,
      servedFrom: end.servedFrom ?? "",
      latencyMs: end.endedAt - req.receivedAt + (end.unsleptMs ?? 0),
      bytes: end.bytes,
      ...(req.user !== undefined && { user: req.user }),
      namespace: req.namespace,
      ...(req.name !== "" && { name: req.name }),
      ...(end.requestURI !== undefined && { requestURI: end.requestURI }),
      receivedAt: req.receivedAt,
      ...(end.sourceIP !== undefined && { sourceIP: end.sourceIP }),
      ...(req.apply === true && { apply: true }),
      ...(end.auditID !== undefined && { auditID: end.auditID }),
      ...(end.cost !== undefined && { cost: end.cost }),
      ...(unanswered && { unanswered }),
      ...(req.subresource !== undefined && req.subresource !== "" && { subresource: req.subresource }),
    });
  }
}
