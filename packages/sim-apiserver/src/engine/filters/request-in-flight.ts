/**
 * One request the simulator has received and not finished, as `SimApiServer.inFlightRequests` (in-process) and
 * `SimHttpServer.inFlightRequests` (HTTP) report it: the fields a `RequestRecord` will carry once it ends, minus
 * what only the end knows (code, latency, bytes). An open watch stays in flight until it closes (its client stops
 * it, aborts, or the server ends it), whereas the accounting records it only then (over HTTP) or when it opened
 * (in-process). A snapshot: later changes of the request are not reflected in an entry already returned.
 */
export interface RequestInFlight {
  /** Kubernetes verb: list, watch, get, create, update, patch, delete, deletecollection. */
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** Namespace the request addressed ("" = cluster-scoped or all namespaces). */
  readonly namespace: string;
  /** Name the request addressed ("" = none: a collection). */
  readonly name: string;
  /**
   * Request URI (path and query): over HTTP as the client sent it; in-process the URI a client would have used
   * (built when the snapshot is taken, not per request).
   */
  readonly requestURI: string;
  readonly userAgent: string;
  /** When the request was received (the engine's or server's clock, ms: virtual time under a `FakeClock`). */
  readonly receivedAt: number;
  /** Where it is served from, once known ("cache" for an open watch); absent before the handler decided. */
  readonly servedFrom?: "cache" | "storage";
}
