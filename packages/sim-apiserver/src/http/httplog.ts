// The httplog line of a finished request (kube-apiserver's `pkg/server/httplog`: verb, URI, latency, user agent,
// audit ID, response code, and APF's seat fields when priced).
import { formatGoDuration, type RequestCost } from "../engine/filters/index.js";
import type { WatchStreamEndReason } from "./watch-server.js";

/** kube-apiserver's httplog APF fields for a request the cost model priced. */
export function apfFields(c: RequestCost) {
  return {
    apf_iseats: c.seats.initialSeats,
    apf_fseats: c.seats.finalSeats,
    apf_additionalLatency: formatGoDuration(c.seats.additionalLatencyMs),
    // What ran after APF admitted it: everything but the filter chain's overhead.
    apf_execution_time: formatGoDuration(c.latencyMs - c.overheadMs),
  };
}

/**
 * One httplog line. With the engine's request models on, also the request's `auditID` and, with the cost model,
 * kube-apiserver's APF fields (`apf_iseats`, `apf_fseats`, `apf_additionalLatency`, `apf_execution_time`).
 */
export interface HttpLogLine {
  readonly ts: string;
  readonly verb: string;
  readonly method: string;
  readonly uri: string;
  readonly code: number;
  readonly user: string;
  readonly userAgent: string;
  readonly latencyMs: number;
  readonly watchEnd?: WatchStreamEndReason;
  /** The request's audit ID (as its audit line and trace), when the engine's request models assigned one. */
  readonly auditID?: string;
  /** With the engine's cost model, kube-apiserver's APF fields: initial and final seats. */
  readonly apf_iseats?: number;
  readonly apf_fseats?: number;
  /** With the cost model: how long the final seats are held (Go duration, e.g. `5ms`). */
  readonly apf_additionalLatency?: string;
  /** With the cost model: the request's execution after the filter chain (Go duration). */
  readonly apf_execution_time?: string;
}
