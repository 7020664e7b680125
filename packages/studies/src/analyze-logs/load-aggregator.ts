// Attribution of apiserver load: the requests read from the logs grouped by user agent, verb, resource, served-from
// and request shape, and the slow requests with their trace steps.
import { type ApfGroup, apfGroups } from "./apf-groups.js";
import type { ApiRequestEntry, MalformedLine, SlowRequestTrace } from "./log-entry.js";
import type { ParsedLogs } from "./log-reader.js";
import { type ReRequestGroup, reRequestIntervals } from "./re-request-intervals.js";
import { readOptionsOfQuery } from "./request-shape.js";
import { type RequestTimeline, requestTimeline } from "./request-timeline.js";
import { parseRequestUri } from "./request-uri.js";
import { apiserverMinor, inferServedFrom } from "./served-from-inference.js";
import { userAgentProduct } from "./user-agent.js";

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
  /**
   * Requests answered with a status ≥ 400. A request without a status (a watch logged when it started, `resp=0`; a
   * hijacked connection) is not an error.
   */
  readonly errors: number;
  /** Response bytes and virtual CPU when the logs say (simulator annotations), else 0. */
  readonly bytes: number;
  readonly cpuMs: number;
}

/** A slow request: its trace, and the request record with the same audit ID when the logs have one. */
export interface SlowRequest {
  readonly trace: SlowRequestTrace;
  readonly request?: ApiRequestEntry;
  /** Where the traced operation read from, by the trace's name and steps (`… etcd3` → storage, `cacher` → cache). */
  readonly servedFrom?: "storage" | "cache";
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
  /** The kube-apiserver release the shapes were read for (`--kube-version`), when given. */
  readonly kubeVersion?: string;
  /** Reads whose served-from was inferred from their shape (and `kubeVersion`), labelled `(inferred)` in tables. */
  readonly servedFromInferred: number;
  /** Traces by what they read from: `storage` (a `… etcd3` trace or step, e.g. a top-level `"List etcd3"`), `cache`. */
  readonly tracesByServedFrom: Readonly<Record<string, number>>;
  /** Watches logged when they started (1.30, `resp=0`): their latency is the set-up time, not their lifetime. */
  readonly watchesLoggedAtStart: number;
  /** API Priority and Fairness: requests by priority level × flow schema, with seats and execution time. */
  readonly byPriorityLevel: readonly ApfGroup[];
  /** Requests over time (from the lines' timestamps), by verb; undefined when no line has a time. */
  readonly timeline?: RequestTimeline;
  /** How often one client re-requested the same object (write-up 000's evidence: a kubelet GET every 60–90 s). */
  readonly reRequests: readonly ReRequestGroup[];
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
  /**
   * The kube-apiserver release that wrote the logs (`1.18` … `1.34`): reads whose served-from no record or trace
   * gives are inferred from their shape for it (`inferServedFrom`). Without it only the shapes every release routes
   * alike are inferred (`get` RV unset → storage, RV set → cache; watches, lists at RV "0" → cache).
   */
  readonly kubeVersion?: string;
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
    if (r.code !== undefined && r.code >= 400) g.errors++;
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
  if (/\betcd3\b/.test(t.name) || t.steps.some((s) => /\betcd3\b/.test(s.message))) return "storage";
  if (/\bcacher\b/i.test(t.name) || t.steps.some((s) => /\bcacher\b|watchCache/i.test(s.message))) return "cache";
  return undefined;
}

const READ_VERBS = new Set(["list", "watch", "get"]);

/** API groups built into kube-apiserver besides the `*.k8s.io` ones. */
const BUILT_IN_GROUPS = new Set(["", "apps", "batch", "autoscaling", "policy", "extensions"]);

/**
 * Whether kube-apiserver's own watch cache answers reads of `resource` (`pods`, `leases.coordination.k8s.io`): the
 * built-in groups. Another group may be a CustomResourceDefinition (cached alike) or an aggregated API (answered by
 * its own server), which the logs do not tell apart: its served-from is not inferred.
 */
export function servedByKubeApiserver(resource: string): boolean {
  if (resource === "" || resource.startsWith("/")) return false;
  const dot = resource.indexOf(".");
  const group = dot < 0 ? "" : resource.slice(dot + 1);
  return BUILT_IN_GROUPS.has(group) || group.endsWith(".k8s.io");
}

/**
 * A request's served-from column: the record's or its trace's, `<it> (inferred)` when inferred from its shape, `?`
 * for a read nothing says, `—` for writes and others.
 */
export const servedFromLabel = (r: ApiRequestEntry): string =>
  r.servedFrom !== ""
    ? r.servedFromSource === "inferred"
      ? `${r.servedFrom} (inferred)`
      : r.servedFrom
    : READ_VERBS.has(r.verb) && !r.resource.startsWith("/")
      ? "?"
      : "—";
const served = servedFromLabel;

/**
 * The requests of {@link ParsedLogs} with their served-from settled: the record's own, else the request's trace's
 * (linked by audit ID: an "… etcd3" step is a storage read, a "cacher" one a cache read), else inferred from the
 * read's shape for kube-apiserver `minor` ({@link inferServedFrom}; built-in resources only, see
 * {@link servedByKubeApiserver}); `servedFromSource` says which. Counts how many came from traces and inference.
 */
export function resolveServedFrom(
  logs: Pick<ParsedLogs, "requests" | "traces">,
  minor?: number,
): { requests: ApiRequestEntry[]; fromTraces: number; inferred: number } {
  const fromTrace = new Map<string, "storage" | "cache">();
  for (const t of logs.traces) {
    const id = t.fields["audit-id"];
    const served = servedFromOfTrace(t);
    if (id !== undefined && id !== "" && served !== undefined) fromTrace.set(id, served);
  }
  let fromTraces = 0;
  let inferred = 0;
  const requests = logs.requests.map((r): ApiRequestEntry => {
    if (r.servedFrom !== "") return r;
    const traced = r.auditId !== undefined ? fromTrace.get(r.auditId) : undefined;
    if (traced !== undefined) {
      fromTraces++;
      return { ...r, servedFrom: traced, servedFromSource: "trace" };
    }
    if (!READ_VERBS.has(r.verb) || r.uri === "" || !servedByKubeApiserver(r.resource)) return r;
    const guess = inferServedFrom(r.verb, readOptionsOfQuery(parseRequestUri(r.uri).query), minor);
    if (guess === undefined) return r;
    inferred++;
    return { ...r, servedFrom: guess, servedFromSource: "inferred" };
  });
  return { requests, fromTraces, inferred };
}

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
  const minor = options.kubeVersion === undefined ? undefined : apiserverMinor(options.kubeVersion);
  const {
    requests: reqs,
    fromTraces: servedFromFromTraces,
    inferred: servedFromInferred,
  } = resolveServedFrom(logs, minor);
  const tracesByServedFrom: Record<string, number> = {};
  for (const t of logs.traces) {
    const k = servedFromOfTrace(t) ?? "unknown";
    tracesByServedFrom[k] = (tracesByServedFrom[k] ?? 0) + 1;
  }
  const byAudit = new Map<string, ApiRequestEntry>();
  for (const r of reqs) if (r.auditId !== undefined) byAudit.set(r.auditId, r);
  const slowTraces = [...logs.traces]
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, top)
    .map((trace) => {
      const id = trace.fields["audit-id"];
      const request = id === undefined ? undefined : byAudit.get(id);
      const from = servedFromOfTrace(trace);
      return { trace, ...(request !== undefined && { request }), ...(from !== undefined && { servedFrom: from }) };
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
    ...(options.kubeVersion !== undefined && { kubeVersion: options.kubeVersion }),
    servedFromInferred,
    tracesByServedFrom,
    watchesLoggedAtStart: reqs.filter((r) => r.watchLoggedAtStart === true).length,
    byPriorityLevel: apfGroups(reqs),
    ...timelineOf(reqs),
    reRequests: reRequestIntervals(reqs, top),
    hasCpu: reqs.some((r) => r.cpuMs !== undefined),
    byUserAgent: groupBy(reqs, (r) => [userAgentProduct(r.userAgent)]),
    byVerb: groupBy(reqs, (r) => [r.verb]),
    byResource: groupBy(reqs, (r) => [r.resource === "" ? "(unknown)" : r.resource]),
    byServedFrom: groupBy(reqs, (r) => [served(r)]),
    byShape: groupBy(
      reqs.filter((r) => READ_VERBS.has(r.verb) && !r.resource.startsWith("/")),
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

function timelineOf(reqs: readonly ApiRequestEntry[]): { timeline?: RequestTimeline } {
  const t = requestTimeline(reqs);
  return t === undefined ? {} : { timeline: t };
}
