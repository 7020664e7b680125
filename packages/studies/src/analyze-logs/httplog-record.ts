// kube-apiserver's httplog record (`"HTTP" verb="LIST" URI="…" latency="…" userAgent="…" audit-ID="…" srcIP="…"
// resp=200`, from staging/src/k8s.io/apiserver/pkg/server/httplog) and the simulator's JSON httplog line, as
// request entries.
import { parseGoDuration } from "./go-duration.js";
import type { ApiRequestEntry, LogPosition } from "./log-entry.js";
import { readOptionsOfQuery, requestShape } from "./request-shape.js";
import { parseRequestUri } from "./request-uri.js";

/** httplog's verb (kube-apiserver's metrics verb: `LIST`, `POST`, `APPLY` …) as the Kubernetes verb audit uses. */
export function kubernetesVerb(httplogVerb: string, hasName: boolean): string {
  switch (httplogVerb.toUpperCase()) {
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "DELETE":
      return hasName ? "delete" : "deletecollection";
    case "WATCHLIST":
      return "watch";
    default:
      return httplogVerb.toLowerCase();
  }
}

type Value = string | number | boolean | null | undefined | object;

function text(v: Value): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;
}

/**
 * A request entry from kube-apiserver's httplog key/values (klog text or JSON logging: `verb`, `URI`, `latency`,
 * `userAgent`, `audit-ID`, `srcIP`, `resp` or `hijacked`, the `apf_*` fields). Returns a string naming the problem
 * when a required field (`verb`, `URI`) is missing or `latency`/`resp` is unreadable.
 */
export function httplogEntry(get: (key: string) => Value, at: LogPosition): ApiRequestEntry | string {
  const verb = text(get("verb"));
  const uri = text(get("URI"));
  if (verb === undefined || verb === "") return 'httplog line without verb="…"';
  if (uri === undefined) return 'httplog line without URI="…"';
  const latencyRaw = get("latency");
  let latencyMs: number | undefined;
  if (typeof latencyRaw === "number")
    latencyMs = latencyRaw / 1e6; // zap's default duration encoding: nanoseconds
  else if (typeof latencyRaw === "string") {
    latencyMs = parseGoDuration(latencyRaw);
    if (latencyMs === undefined) return `httplog latency "${latencyRaw}" is not a Go duration`;
  }
  const respRaw = text(get("resp"));
  const code = respRaw === undefined ? undefined : Number(respRaw);
  if (code !== undefined && !Number.isInteger(code)) return `httplog resp "${respRaw}" is not a status code`;
  const target = parseRequestUri(uri);
  const k8sVerb = kubernetesVerb(verb, target.name !== "");
  const seats = Number(text(get("apf_iseats")));
  const auditId = text(get("audit-ID"));
  const srcIP = text(get("srcIP"));
  const pl = text(get("apf_pl"));
  return {
    ...at,
    format: "httplog",
    ...(auditId !== undefined && auditId !== "" && { auditId }),
    verb: k8sVerb,
    uri,
    resource: target.resource,
    namespace: target.namespace,
    name: target.name,
    shape: requestShape(k8sVerb, readOptionsOfQuery(target.query)),
    userAgent: text(get("userAgent")) ?? "",
    ...(srcIP !== undefined && { sourceIP: srcIP }),
    ...(code !== undefined && { code }),
    ...(latencyMs !== undefined && { latencyMs }),
    servedFrom: "",
    ...(pl !== undefined && { priorityLevel: pl }),
    ...(Number.isFinite(seats) && { seats }),
  };
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
