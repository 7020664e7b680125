/** How kube-apiserver records a request that no answer reached (see {@link unansweredRequestStatus}). */
export interface UnansweredRequestStatus {
  /** The HTTP code recorded (the accounting's `code`, the httplog's `resp`). */
  readonly code: number;
  /** The audit event's `responseStatus` for it. */
  readonly status: "Success" | "Failure";
  readonly reason?: string;
  readonly message: string;
}

/** `WithTimeoutForNonLongRunningRequests`' answer once the request's context is done (timeout or client gone). */
const TIMED_OUT: UnansweredRequestStatus = Object.freeze({
  code: 504,
  status: "Failure",
  reason: "Timeout",
  message: "Timeout: request did not complete within the allotted timeout",
});

/** `WithAudit`'s faked status for a request whose handler wrote nothing (a long-running one: no timeout filter). */
const CLOSED_EARLY: UnansweredRequestStatus = Object.freeze({
  code: 200,
  status: "Success",
  message: "Connection closed early",
});

/**
 * What kube-apiserver records for a request whose client went away (or whose connection dropped) before any answer
 * was written, by verb. A request that is not long-running runs under the timeout filter
 * (`pkg/server/filters/timeout.go`), which waits on the request's context — done at its deadline and also when the
 * client disconnects — and then writes 504 `Timeout: request did not complete within the allotted timeout`: the
 * httplog line says `resp=504` and `apiserver_request_terminations_total` counts a 504. A watch (long-running) has no
 * such filter; the audit filter (`pkg/endpoints/filters/audit.go`) records what nobody wrote as `200` with the message
 * `Connection closed early`. Either way the request URI is the one the client asked for.
 *
 * Differences from kube-apiserver: one code per request where upstream's layers can disagree (the audit event of a
 * non-long-running request shows what its handler wrote after the timeout, or the faked 200).
 */
export function unansweredRequestStatus(verb: string): UnansweredRequestStatus {
  return verb === "watch" ? CLOSED_EARLY : TIMED_OUT;
}
