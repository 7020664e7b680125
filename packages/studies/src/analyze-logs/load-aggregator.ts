// Attribution of apiserver load: the requests read from the logs grouped by user agent, verb, resource, served-from
// and request shape, and the slow requests with their trace steps.
import type { ApiRequestEntry, MalformedLine, SlowRequestTrace } from "./log-entry.js";
import type { ParsedLogs } from "./log-reader.js";

/** The requests of one group (one user agent, one verb, …). */
export interface LoadGroup {
  /** The group's value(s), e.g. `["kubelet/v1.28.0"]` or `["list", "pods", "storage"]`. */
  readonly key: readonly string[];
  readonly count: number;
  /** Share of all requests, 0–1. */
  readonly share: number;
  /** Latency of the group's non-watch requests (a watch's latency is its lifetime): sum, mean and max, ms. */
  readonly latencyMsSum: number;
  readonly latencyMsMean: number | null;
  readonly latencyMsMax: number | null;
  /** Requests answered with a status ≥ 400 (or no status at all). */
  readonly errors: number;
  /** Response bytes and virtual CPU when the logs say (simulator annotations), else 0. */
  readonly bytes: number;
  readonly cpuMs: number;
}

/** A slow request: its trace, and the request record with the same audit ID when the logs have one. */
export interface SlowRequest {
  readonly trace: SlowRequestTrace;
  readonly request?: ApiRequestEntry;
}

/** What `informer analyze-logs` reports. */
export interface LoadAnalysis {
  readonly files: readonly string[];
  readonly lines: number;
  readonly requests: number;
  readonly byFormat: Readonly<Record<string, number>>;
  readonly merged: number;
  readonly otherLines: number;
  readonly skippedAuditStages: number;
  readonly malformedCount: number;
  readonly malformed: readonly MalformedLine[];
  /** Whether any record said where it was served from / what it cost (else those columns are unknown). */
  readonly hasServedFrom: boolean;
  /** Requests whose served-from was read from their trace's steps (`… etcd3` → storage, `cacher …` → cache). */
  readonly servedFromFromTraces: number;
  readonly hasCpu: boolean;
  readonly byUserAgent: readonly LoadGroup[];
  readonly byVerb: readonly LoadGroup[];
  readonly byResource: readonly LoadGroup[];
  readonly byServedFrom: readonly LoadGroup[];
  /** Read shapes (`list RV="0" limit` …) × served-from: the routing the logs show. */
  readonly byShape: readonly LoadGroup[];
  /** user agent × verb × resource × served-from, the `top` largest. */
  readonly top: readonly LoadGroup[];
  /** The slowest traces (by total time), with their steps. */
  readonly slowTraces: readonly SlowRequest[];
  readonly traceCount: number;
  /** The slowest non-watch requests by logged latency (at least `slowMs`). */
  readonly slowRequests: readonly ApiRequestEntry[];
}

/** Options of {@link aggregateLoad}. */
export interface AggregateOptions {
  /** Rows of the `top` table and slow lists. Default 10. */
  readonly top?: number;
  /** Requests at least this slow are listed (kube-apiserver's trace threshold: 500 ms). Default 500. */
  readonly slowMs?: number;
}

/** `kubelet/v1.28.0 (linux/amd64) kubernetes/abc` → `kubelet/v1.28.0`: the product and version. */
export function userAgentProduct(ua: string): string {
  const s = ua.trim();
  if (s === "") return "(none)";
  const sp = s.indexOf(" ");
  return sp < 0 ? s : s.slice(0, sp);
}

function groupBy(reqs: readonly ApiRequestEntry[], keyOf: (r: ApiRequestEntry) => readonly string[]): LoadGroup[] {
  const acc = new Map<
    string,
    {
      key: readonly string[];
      count: number;
      lat: number;
      latN: number;
      max: number | null;
      errors: number;
      bytes: number;
      cpu: number;
    }
  >();
  for (const r of reqs) {
    const key = keyOf(r);
    const id = key.join("\u0000");
    let g = acc.get(id);
    if (g === undefined) {
      g = { key, count: 0, lat: 0, latN: 0, max: null, errors: 0, bytes: 0, cpu: 0 };
      acc.set(id, g);
    }
    g.count++;
    if (r.verb !== "watch" && r.latencyMs !== undefined) {
      g.lat += r.latencyMs;
      g.latN++;
      g.max = g.max === null ? r.latencyMs : Math.max(g.max, r.latencyMs);
    }
    if (r.code === undefined || r.code === 0 || r.code >= 400) g.errors++;
    g.bytes += r.bytes ?? 0;
    g.cpu += r.cpuMs ?? 0;
  }
  const total = reqs.length;
  return [...acc.values()]
    .map((g) => ({
      key: g.key,
      count: g.count,
      share: total === 0 ? 0 : g.count / total,
      latencyMsSum: g.lat,
      latencyMsMean: g.latN === 0 ? null : g.lat / g.latN,
      latencyMsMax: g.max,
      errors: g.errors,
      bytes: g.bytes,
      cpuMs: g.cpu,
    }))
    .sort((a, b) => b.count - a.count || (a.key.join(" ") < b.key.join(" ") ? -1 : 1));
}

/** Where a traced read was served from, by its steps' names: `storage` (etcd3), `cache` (cacher), else undefined. */
export function servedFromOfTrace(t: SlowRequestTrace): "storage" | "cache" | undefined {
  if (t.steps.some((s) => /\betcd3\b/.test(s.message))) return "storage";
  if (t.steps.some((s) => /\bcacher\b/i.test(s.message))) return "cache";
  return undefined;
}

const READ_VERBS = new Set(["list", "watch", "get"]);

/** A request's served-from column: the record's, `?` for a read that does not say, `—` for writes and others. */
const served = (r: ApiRequestEntry) => (r.servedFrom !== "" ? r.servedFrom : READ_VERBS.has(r.verb) ? "?" : "—");

/**
 * Groups the requests of {@link ParsedLogs} by user agent (product/version), verb, resource, served-from, read shape ×
 * served-from, and user agent × verb × resource × served-from; lists the slowest traces (linked to their request by
 * audit ID) and the slowest non-watch requests. Groups are sorted by count, largest first.
 */
export function aggregateLoad(
  files: readonly string[],
  logs: ParsedLogs,
  options: AggregateOptions = {},
): LoadAnalysis {
  const top = options.top ?? 10;
  const slowMs = options.slowMs ?? 500;
  // kube-apiserver's own lines do not say where a read was served from, but a slow read's trace does: its storage
  // step is an "… etcd3" (nested) trace, a cache read's a "cacher …" one.
  const fromTrace = new Map<string, string>();
  for (const t of logs.traces) {
    const id = t.fields["audit-id"];
    const served = servedFromOfTrace(t);
    if (id !== undefined && served !== undefined) fromTrace.set(id, served);
  }
  let servedFromFromTraces = 0;
  const reqs = logs.requests.map((r) => {
    const inferred = r.servedFrom === "" && r.auditId !== undefined ? fromTrace.get(r.auditId) : undefined;
    if (inferred === undefined) return r;
    servedFromFromTraces++;
    return { ...r, servedFrom: inferred };
  });
  const byAudit = new Map<string, ApiRequestEntry>();
  for (const r of reqs) if (r.auditId !== undefined) byAudit.set(r.auditId, r);
  const slowTraces = [...logs.traces]
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, top)
    .map((trace) => {
      const id = trace.fields["audit-id"];
      const request = id === undefined ? undefined : byAudit.get(id);
      return request === undefined ? { trace } : { trace, request };
    });
  return {
    files,
    lines: logs.lines,
    requests: reqs.length,
    byFormat: logs.byFormat,
    merged: logs.merged,
    otherLines: logs.otherLines,
    skippedAuditStages: logs.skippedAuditStages,
    malformedCount: logs.malformedCount,
    malformed: logs.malformed,
    hasServedFrom: reqs.some((r) => r.servedFrom !== ""),
    servedFromFromTraces,
    hasCpu: reqs.some((r) => r.cpuMs !== undefined),
    byUserAgent: groupBy(reqs, (r) => [userAgentProduct(r.userAgent)]),
    byVerb: groupBy(reqs, (r) => [r.verb]),
    byResource: groupBy(reqs, (r) => [r.resource === "" ? "(unknown)" : r.resource]),
    byServedFrom: groupBy(reqs, (r) => [served(r)]),
    byShape: groupBy(
      reqs.filter((r) => READ_VERBS.has(r.verb)),
      (r) => [r.shape, served(r)],
    ),
    top: groupBy(reqs, (r) => [userAgentProduct(r.userAgent), r.verb, r.resource, served(r)]).slice(0, top),
    slowTraces,
    traceCount: logs.traces.length,
    slowRequests: reqs
      .filter((r) => r.verb !== "watch" && r.latencyMs !== undefined && r.latencyMs >= slowMs)
      .sort((a, b) => (b.latencyMs ?? 0) - (a.latencyMs ?? 0))
      .slice(0, top),
  };
}
