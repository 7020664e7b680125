// kube-apiserver's httplog record (`"HTTP" verb="LIST" URI="…" latency="…" userAgent="…" audit-ID="…" srcIP="…"
// resp=200`, from staging/src/k8s.io/apiserver/pkg/server/httplog) and the simulator's JSON httplog line, as
// request entries.
import { parseGoDuration } from "./go-duration.js";
import type { ApiRequestEntry, LogPosition } from "./log-entry.js";
import { readOptionsOfQuery, requestShape } from "./request-shape.js";
import { parseRequestUri, type RequestTarget } from "./request-uri.js";

/**
 * httplog's verb (kube-apiserver's metrics verb since 1.20: `LIST`, `POST`, `APPLY` …; the HTTP method before) as the
 * Kubernetes verb audit uses. A `GET` of a resource collection (no name) is a `list`, as httplog before 1.20 logged
 * every list; `isResource` false (a non-resource URL such as `/healthz`) keeps `get`.
 */
export function kubernetesVerb(httplogVerb: string, hasName: boolean, isResource = true): string {
  switch (httplogVerb.toUpperCase()) {
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "DELETE":
      return hasName ? "delete" : "deletecollection";
    case "WATCHLIST":
      return "watch";
    case "GET":
      return isResource && !hasName ? "list" : "get";
    default:
      return httplogVerb.toLowerCase();
  }
}

const GO_TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);

/**
 * The Kubernetes verb of a logged request, from its logged verb and URI: a request with `watch=true` in its query, or
 * on a legacy `/watch/` path, is a `watch` whatever verb the line gives it (kube-apiserver logs the single-object
 * watches of kubelets as `GET`, kubernetes#106085, and `/watch/` paths as `LIST`, kubernetes#130373); otherwise
 * {@link kubernetesVerb}.
 */
export function requestVerb(loggedVerb: string, target: RequestTarget): string {
  const w = target.query.get("watch");
  if (target.isResource && (target.legacyWatchPath || (w !== undefined && GO_TRUE.has(w)))) return "watch";
  return kubernetesVerb(loggedVerb, target.name !== "", target.isResource);
}

type Value = string | number | boolean | null | undefined | object;

function text(v: Value): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;
}

function duration(v: Value): number | undefined {
  if (typeof v === "number") return v / 1e6; // zap's default duration encoding: nanoseconds
  return typeof v === "string" ? parseGoDuration(v) : undefined;
}

function numberOf(v: Value): number | undefined {
  const t = text(v);
  const n = t === undefined || t.trim() === "" ? Number.NaN : Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A request entry from kube-apiserver's httplog key/values: klog text or JSON logging of 1.20+ (`verb`, `URI`,
 * `latency`, `userAgent`, `audit-ID`, `srcIP`, `resp` or `hijacked`, the `apf_*` fields) and the key/values of 1.18
 * and 1.19 (`verb="GET" URI=… latency=2.05ms resp=200 UserAgent=… srcIP=…`, the HTTP method as verb). A watch
 * (`watch=true`, `/watch/` path) is a `watch` whatever its logged verb; a watch with `resp=0` was logged when it
 * started (1.30) and has no status. Returns a string naming the problem when a required field (`verb`, `URI`) is
 * missing or `latency`/`resp` is unreadable.
 */
export function httplogEntry(
  get: (key: string) => Value,
  at: LogPosition,
  dialect = "klog-structured",
): ApiRequestEntry | string {
  const logged = text(get("verb"));
  const uri = text(get("URI"));
  if (logged === undefined || logged === "") return 'httplog line without verb="…"';
  if (uri === undefined) return 'httplog line without URI="…"';
  const latencyRaw = get("latency");
  const latencyMs = duration(latencyRaw);
  if (latencyRaw !== undefined && latencyMs === undefined)
    return `httplog latency "${String(latencyRaw)}" is not a Go duration`;
  const respRaw = text(get("resp"));
  const resp = respRaw === undefined ? undefined : Number(respRaw);
  if (resp !== undefined && !Number.isInteger(resp)) return `httplog resp "${respRaw}" is not a status code`;
  const target = parseRequestUri(uri);
  const verb = requestVerb(logged, target);
  const atStart = verb === "watch" && resp === 0;
  const code = atStart ? undefined : resp;
  const apf = {
    priorityLevel: text(get("apf_pl")),
    flowSchema: text(get("apf_fs")),
    flowDistinguisher: text(get("apf_fd")),
    seats: numberOf(get("apf_iseats")),
    finalSeats: numberOf(get("apf_fseats")),
    apfInitLatencyMs: duration(get("apf_init_latency")),
    apfExecutionMs: duration(get("apf_execution_time")),
    apfAdditionalLatencyMs: duration(get("apf_additionalLatency")),
  };
  const auditId = text(get("audit-ID"));
  const srcIP = text(get("srcIP"));
  return {
    ...at,
    format: "httplog",
    dialect,
    ...(auditId !== undefined && auditId !== "" && { auditId }),
    verb,
    ...(logged.toLowerCase() !== verb && { loggedVerb: logged }),
    uri,
    resource: target.resource,
    namespace: target.namespace,
    name: target.name,
    shape: requestShape(verb, readOptionsOfQuery(target.query)),
    userAgent: text(get("userAgent")) ?? text(get("UserAgent")) ?? "",
    ...(srcIP !== undefined && { sourceIP: srcIP }),
    ...(code !== undefined && { code }),
    ...(latencyMs !== undefined && { latencyMs }),
    ...(atStart && { watchLoggedAtStart: true }),
    servedFrom: "",
    ...dropUndefined(apf),
  };
}

function dropUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// `GET /api/v1/nodes: (2.728185ms) 200 [[hyperkube/v1.6.9 (linux/amd64) kubernetes/79097ec] [::1]:39234]` — and
// `[kubectl/v1.18.0 (…) 10.0.0.1:1234]` with one bracket —, possibly a status stack between the code and the bracket.
const LEGACY =
  /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT|LIST|WATCH|WATCHLIST|APPLY) (\S+?): \(([^()]+)\) (\d+)(.*)$/s;
const CLIENT_DOUBLE = /\[\[(.*)\] (\S+)\]\s*$/s;
const CLIENT_SINGLE = /\[(.*) (\S+)\]\s*$/s;

/**
 * A request entry from the httplog line of kube-apiserver before 1.18 (`GET /api/v1/…: (2.05ms) 200 [[ua] addr]`,
 * written by `httplog.go`, `wrap.go`, `panics.go` or `handlers.go` depending on the release); undefined when the
 * message does not have that form.
 */
export function legacyHttplogEntry(message: string, at: LogPosition): ApiRequestEntry | string | undefined {
  const m = LEGACY.exec(message);
  if (m === null) return undefined;
  const latency = m[3] ?? "";
  if (parseGoDuration(latency) === undefined) return `httplog latency "${latency}" is not a Go duration`;
  const client = CLIENT_DOUBLE.exec(m[5] ?? "") ?? CLIENT_SINGLE.exec(m[5] ?? "");
  const values: Record<string, string> = {
    verb: m[1] ?? "",
    URI: m[2] ?? "",
    latency,
    resp: m[4] ?? "",
    userAgent: client?.[1] ?? "",
  };
  if (client?.[2] !== undefined) values.srcIP = client[2];
  return httplogEntry((k) => values[k], at, "legacy");
}

/**
 * A request entry from the simulator's own httplog JSON line (`{"level":"info","msg":"HTTP","verb":"list","uri":…,
 * "code":200,"user":…,"userAgent":…,"latencyMs":…}`, written by `informer-ts apiserver --http-log`).
 */
export function simHttplogEntry(rec: Readonly<Record<string, Value>>, at: LogPosition): ApiRequestEntry | string {
  const verb = text(rec.verb);
  const uri = text(rec.uri);
  if (verb === undefined || verb === "") return "simulator httplog line without a verb";
  if (uri === undefined) return "simulator httplog line without a uri";
  const target = parseRequestUri(uri);
  const latencyMs = typeof rec.latencyMs === "number" ? rec.latencyMs : undefined;
  const code = typeof rec.code === "number" ? rec.code : undefined;
  const user = text(rec.user);
  return {
    ...at,
    format: "sim-httplog",
    verb,
    uri,
    resource: target.resource,
    namespace: target.namespace,
    name: target.name,
    shape: requestShape(verb, readOptionsOfQuery(target.query)),
    userAgent: text(rec.userAgent) ?? "",
    ...(user !== undefined && { user }),
    ...(code !== undefined && { code }),
    ...(latencyMs !== undefined && { latencyMs }),
    servedFrom: "",
  };
}
