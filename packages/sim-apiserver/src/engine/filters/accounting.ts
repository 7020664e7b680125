import {
  type Counter,
  exponentialBuckets,
  type Histogram,
  type MetricsProvider,
  noopMetrics,
} from "@informer-ts/instrumentation";
import { type RequestCost, seatSeconds } from "./cost-model.js";
import { formatGoDuration } from "./trace.js";
import { unansweredRequestStatus } from "./unanswered-request.js";

/** One finished request as the accounting sees it. */
export interface RequestRecord {
  /** Kubernetes verb: list, watch, get, create, update, patch, delete. */
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly userAgent: string;
  /** HTTP status code (a watch that started is 200, whatever happened later). */
  readonly code: number;
  /** "cache" (watch cache), "storage" (etcd stand-in), or "" (writes, rejected requests). */
  readonly servedFrom: "cache" | "storage" | "";
  readonly latencyMs: number;
  /** Response bytes (0 in-process: nothing is serialized). */
  readonly bytes: number;
  /** Who asked (the authenticated user over HTTP; absent in-process). */
  readonly user?: string;
  /** Namespace and name the request addressed ("" = none). */
  readonly namespace?: string;
  readonly name?: string;
  /**
   * Request URI (path and query): over HTTP as the client sent it; in-process the URI a client would have used
   * (`requestURI`), set when an audit sink or the request models read it and for a request no answer reached.
   */
  readonly requestURI?: string;
  /** When the request was received (engine/server clock ms), for audit timestamps. */
  readonly receivedAt?: number;
  /** `PATCH` with `application/apply-patch+yaml` (reported as verb `APPLY` in metrics, like kube-apiserver). */
  readonly apply?: boolean;
  /**
   * The request's audit ID (the same in its trace and audit line). Absent: the accounting numbers the audit line
   * itself ({@link RequestAccounting.nextAuditID}).
   */
  readonly auditID?: string;
  /** The client's address over HTTP (the audit event's `sourceIPs`). */
  readonly sourceIP?: string;
  /** Subresource addressed (`status`, `scale`), for the audit event's `objectRef`. */
  readonly subresource?: string;
  /** What the request cost under the engine's cost model (absent when the model is off). */
  readonly cost?: RequestCost;
  /**
   * No answer reached the client: it went away, or the connection dropped, before a status line. `code` is then
   * what kube-apiserver records for it ({@link unansweredRequestStatus}: 504 from the timeout filter, 200 for a
   * watch), and the audit line's `responseStatus` carries that status's message.
   */
  readonly unanswered?: boolean;
}

/**
 * The verb label of `apiserver_request_total` for a Kubernetes verb, as kube-apiserver's `cleanVerb` reports it:
 * `LIST`, `WATCH`, `GET`, `POST` (create), `PUT` (update), `PATCH` (`APPLY` for server-side apply), `DELETE`.
 */
export function metricsVerb(verb: string, apply = false): string {
  switch (verb) {
    case "list":
      return "LIST";
    case "watch":
      return "WATCH";
    case "get":
      return "GET";
    case "create":
      return "POST";
    case "update":
      return "PUT";
    case "patch":
      return apply ? "APPLY" : "PATCH";
    case "delete":
    case "deletecollection":
      return "DELETE";
    default:
      return verb.toUpperCase();
  }
}

/**
 * One audit-style JSON line (`audit.k8s.io/v1` `Event` at level `Metadata`, stage `ResponseComplete`) for a finished
 * request, with the simulator's accounting fields as annotations (`sim.informer-ts.dev/served-from`, `…/latency-ms`,
 * `…/bytes`). Timestamps are RFC 3339 with microseconds, like kube-apiserver's.
 */
export function auditLine(r: RequestRecord, seq: number): string {
  const received = r.receivedAt ?? 0;
  const objectRef: Record<string, string> = { resource: r.resource };
  if (r.namespace !== undefined && r.namespace !== "") objectRef.namespace = r.namespace;
  if (r.name !== undefined && r.name !== "") objectRef.name = r.name;
  if (r.group !== "") objectRef.apiGroup = r.group;
  objectRef.apiVersion = r.version;
  if (r.subresource !== undefined && r.subresource !== "") objectRef.subresource = r.subresource;
  const annotations: Record<string, string> = {
    "sim.informer-ts.dev/served-from": r.servedFrom,
    "sim.informer-ts.dev/latency-ms": String(r.latencyMs),
    "sim.informer-ts.dev/bytes": String(r.bytes),
  };
  const c = r.cost;
  if (c !== undefined) {
    annotations["sim.informer-ts.dev/cpu-ms"] = String(round6(c.cpuMs));
    annotations["sim.informer-ts.dev/apf-seats"] = String(c.seats.initialSeats);
    if (c.seats.finalSeats > 0) {
      annotations["sim.informer-ts.dev/apf-final-seats"] = String(c.seats.finalSeats);
      annotations["sim.informer-ts.dev/apf-additional-latency-ms"] = String(round6(c.seats.additionalLatencyMs));
    }
    // kube-apiserver's latency trackers, added to requests slower than 500 ms (non-zero layers only).
    if (r.latencyMs > 500) {
      if (c.storageWaitMs > 0) annotations["apiserver.latency.k8s.io/etcd"] = formatGoDuration(c.storageWaitMs);
      if (r.servedFrom === "storage" && c.readCpuMs > 0) {
        annotations["apiserver.latency.k8s.io/decode-response-object"] = formatGoDuration(c.readCpuMs);
      }
      if (c.encodeMs > 0)
        annotations["apiserver.latency.k8s.io/serialize-response-object"] = formatGoDuration(c.encodeMs);
      annotations["apiserver.latency.k8s.io/total"] = formatGoDuration(r.latencyMs);
    }
  }
  return JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: r.auditID ?? `sim-${seq}`,
    stage: "ResponseComplete",
    requestURI: r.requestURI ?? "",
    verb: r.verb,
    user: { username: r.user ?? "system:inprocess" },
    ...(r.sourceIP !== undefined && r.sourceIP !== "" && { sourceIPs: [r.sourceIP] }),
    userAgent: r.userAgent,
    objectRef,
    responseStatus: r.unanswered === true ? unansweredResponseStatus(r) : { metadata: {}, code: r.code },
    requestReceivedTimestamp: microTime(received),
    stageTimestamp: microTime(received + r.latencyMs),
    annotations,
  });
}

/** The audit `responseStatus` of a request no answer reached (the status kube-apiserver's filters record). */
function unansweredResponseStatus(r: RequestRecord): Record<string, unknown> {
  const s = unansweredRequestStatus(r.verb);
  return {
    metadata: {},
    status: s.status,
    message: s.message,
    ...(s.reason !== undefined && { reason: s.reason }),
    code: r.code,
  };
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function microTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}

/** Aggregated counters of one (verb, resource, user agent, code, served-from) series. */
export interface AccountingRow {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly userAgent: string;
  readonly code: number;
  readonly servedFrom: string;
  count: number;
  latencyMsSum: number;
  bytes: number;
  /** apiserver CPU of these requests under the cost model (0 when it is off), ms. */
  cpuMsSum: number;
  /** APF seat-seconds of these requests under the cost model (0 when it is off). */
  seatSeconds: number;
}

/** A dimension {@link RequestAccounting.cpuSecondsBy} groups by. */
export type AccountingDimension = "verb" | "resource" | "userAgent" | "servedFrom" | "code";

const SEP = "\u0000";

/**
 * Request accounting: every request counted by verb, resource, user agent, response code and where it was served
 * from, with latency and bytes. Readable programmatically ({@link rows}, {@link count}) and exported as Prometheus
 * metrics with kube-apiserver's names (`apiserver_request_total`, `apiserver_request_duration_seconds`,
 * `apiserver_response_sizes`) plus `served_from` and `user_agent` labels (simulator additions). The `verb` label is
 * kube-apiserver's metrics verb ({@link metricsVerb}: `LIST`, `WATCH`, `POST` …); {@link rows} keep the Kubernetes
 * verb (`list`, `watch`, `create` …). Optional sinks receive one audit-style JSON line per request
 * ({@link auditLog}, see {@link auditLine}).
 *
 * Differences from kube-apiserver: `apiserver_request_total` also counts watches when they end (kube counts them
 * too, with their duration excluded from the latency histogram; here the latency histogram includes them), and
 * `served_from`/`user_agent` labels do not exist upstream.
 */
export class RequestAccounting {
  private readonly series = new Map<string, AccountingRow>();
  private readonly total: Counter;
  private readonly duration: Histogram;
  private readonly sizes: Histogram;
  /** Optional sink for one audit-style JSON line per request ({@link auditLine}). */
  auditLog: ((line: string) => void) | undefined;
  private auditSeq = 0;

  constructor(metrics: MetricsProvider = noopMetrics) {
    const labelNames = ["verb", "group", "version", "resource", "code", "served_from", "user_agent"];
    this.total = metrics.counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, group, version, resource, code, served_from and user_agent.",
      labelNames,
    });
    this.duration = metrics.histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, group, version, resource and served_from.",
      labelNames: ["verb", "group", "version", "resource", "served_from"],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    });
    this.sizes = metrics.histogram({
      name: "apiserver_response_sizes",
      help: "Response size distribution in bytes for each verb, group, version and resource.",
      labelNames: ["verb", "group", "version", "resource"],
      buckets: exponentialBuckets(1000, 10, 8),
    });
  }

  record(r: RequestRecord): void {
    const key = [r.verb, r.group, r.resource, r.userAgent, r.code, r.servedFrom].join(SEP);
    let row = this.series.get(key);
    if (row === undefined) {
      row = {
        verb: r.verb,
        group: r.group,
        resource: r.resource,
        userAgent: r.userAgent,
        code: r.code,
        servedFrom: r.servedFrom,
        count: 0,
        latencyMsSum: 0,
        bytes: 0,
        cpuMsSum: 0,
        seatSeconds: 0,
      };
      this.series.set(key, row);
    }
    row.count++;
    row.latencyMsSum += r.latencyMs;
    row.bytes += r.bytes;
    if (r.cost !== undefined) {
      row.cpuMsSum += r.cost.cpuMs;
      row.seatSeconds += seatSeconds(r.cost);
    }
    const base = {
      verb: metricsVerb(r.verb, r.apply === true),
      group: r.group,
      version: r.version,
      resource: r.resource,
    };
    // Metrics and the audit sink are side channels: their failure must not fail or lose the request being recorded.
    try {
      this.total.inc({ ...base, code: String(r.code), served_from: r.servedFrom, user_agent: r.userAgent });
      this.duration.observe(r.latencyMs / 1000, { ...base, served_from: r.servedFrom });
      if (r.bytes > 0) this.sizes.observe(r.bytes, base);
    } catch {
      // The counts in `rows()` above are kept; only the provider's series miss this request.
    }
    if (this.auditLog !== undefined) {
      try {
        this.auditLog(auditLine(r, r.auditID === undefined ? ++this.auditSeq : this.auditSeq));
      } catch {
        // A failing audit sink drops its line.
      }
    }
  }

  /**
   * A new audit ID (`sim-<n>`), from the same sequence the audit lines of requests recorded without one use, so IDs
   * never repeat. The engine gives each request one when its trace or cost model is on, so its trace, its audit line
   * and its record share it.
   */
  nextAuditID(): string {
    return `sim-${++this.auditSeq}`;
  }

  /**
   * apiserver CPU-seconds under the cost model, summed by one dimension (e.g. `servedFrom` → `{cache: 1.2, storage:
   * 40.5}`, `userAgent`), over the requests matching `filter`.
   */
  cpuSecondsBy(
    dimension: AccountingDimension,
    filter: Partial<Pick<AccountingRow, "verb" | "resource" | "userAgent" | "code" | "servedFrom">> = {},
  ): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of this.series.values()) {
      if (!matches(r, filter)) continue;
      const k = String(r[dimension]);
      out.set(k, (out.get(k) ?? 0) + r.cpuMsSum / 1000);
    }
    return out;
  }

  /** Snapshot of every series. */
  rows(): AccountingRow[] {
    return [...this.series.values()].map((r) => ({ ...r }));
  }

  /** Number of requests matching every given field. */
  count(filter: Partial<Pick<AccountingRow, "verb" | "resource" | "userAgent" | "code" | "servedFrom">> = {}): number {
    let n = 0;
    for (const r of this.series.values()) if (matches(r, filter)) n += r.count;
    return n;
  }

  reset(): void {
    this.series.clear();
  }
}

function matches(
  r: AccountingRow,
  filter: Partial<Pick<AccountingRow, "verb" | "resource" | "userAgent" | "code" | "servedFrom">>,
): boolean {
  if (filter.verb !== undefined && r.verb !== filter.verb) return false;
  if (filter.resource !== undefined && r.resource !== filter.resource) return false;
  if (filter.userAgent !== undefined && r.userAgent !== filter.userAgent) return false;
  if (filter.code !== undefined && r.code !== filter.code) return false;
  if (filter.servedFrom !== undefined && r.servedFrom !== filter.servedFrom) return false;
  return true;
}
