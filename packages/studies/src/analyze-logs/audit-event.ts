// An audit.k8s.io/v1 Event (one JSON line of kube-apiserver's audit log) as a request entry.
import type { ApiRequestEntry, LogPosition } from "./log-entry.js";
import { readOptionsOfQuery, requestShape } from "./request-shape.js";
import { parseRequestUri } from "./request-uri.js";

/** The audit stages that end a request: one entry per request is read from these; other stages are skipped. */
export const FINAL_AUDIT_STAGES: ReadonlySet<string> = new Set(["ResponseComplete", "Panic"]);

const READS = new Set(["list", "watch", "get"]);

/** The simulator's audit annotations (`sim.informer-ts.dev/…`): where a read was served from, its cost. */
const SIM = "sim.informer-ts.dev/";

/** Whether a parsed JSON value is an audit event (`kind: Event`, `apiVersion: audit.k8s.io/…`). */
export function isAuditEvent(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return o.kind === "Event" && typeof o.apiVersion === "string" && o.apiVersion.startsWith("audit.k8s.io/");
}

/** An RFC 3339 time with up to nanoseconds (audit's MicroTime) as fractional epoch ms; NaN when unreadable. */
export function microTimeMs(text: string | undefined): number {
  const m = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(text ?? "");
  if (m === null) return Number.NaN;
  const whole = Date.parse(`${m[1]}${m[3]}`);
  const frac = m[2] === undefined ? 0 : Number(`0.${m[2]}`) * 1000;
  return whole + frac;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function num(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The request entry of an audit event at a final stage (`ResponseComplete`, `Panic`); `"skip"` for other stages
 * (`RequestReceived`, `ResponseStarted`: the same request is logged again when it ends); a string naming the problem
 * when `verb` is missing. Latency is `stageTimestamp − requestReceivedTimestamp`; resource, namespace and name come
 * from `objectRef`, else from `requestURI`; served-from, bytes, latency and CPU from the simulator's annotations when
 * present.
 */
export function auditEntry(ev: Readonly<Record<string, unknown>>, at: LogPosition): ApiRequestEntry | "skip" | string {
  const stage = str(ev.stage);
  if (stage !== undefined && !FINAL_AUDIT_STAGES.has(stage)) return "skip";
  const verb = str(ev.verb);
  if (verb === undefined || verb === "") return "audit event without a verb";
  const uri = str(ev.requestURI) ?? "";
  const target = parseRequestUri(uri);
  const ref = obj(ev.objectRef);
  const refResource = str(ref.resource);
  const refGroup = str(ref.apiGroup) ?? "";
  const resource =
    refResource !== undefined ? (refGroup === "" ? refResource : `${refResource}.${refGroup}`) : target.resource;
  const annotations = obj(ev.annotations);
  const received = microTimeMs(str(ev.requestReceivedTimestamp));
  const staged = microTimeMs(str(ev.stageTimestamp));
  const simLatency = num(annotations[`${SIM}latency-ms`]);
  const latencyMs =
    simLatency ??
    (Number.isFinite(received) && Number.isFinite(staged) ? Math.round((staged - received) * 1000) / 1000 : undefined);
  const code = num(obj(ev.responseStatus).code);
  const bytes = num(annotations[`${SIM}bytes`]);
  const cpuMs = num(annotations[`${SIM}cpu-ms`]);
  const seats = num(annotations[`${SIM}apf-seats`]);
  const served = str(annotations[`${SIM}served-from`]) ?? "";
  const user = str(obj(ev.user).username);
  const ips = ev.sourceIPs;
  const sourceIP = Array.isArray(ips) && typeof ips[0] === "string" ? ips[0] : undefined;
  const auditId = str(ev.auditID);
  const pl = str(annotations["apf.flowcontrol.k8s.io/priority-level"]);
  return {
    ...at,
    format: "audit",
    ...(auditId !== undefined && auditId !== "" && { auditId }),
    verb,
    uri,
    resource,
    namespace: str(ref.namespace) ?? target.namespace,
    name: str(ref.name) ?? target.name,
    shape: uri === "" && READS.has(verb) ? `${verb} ?` : requestShape(verb, readOptionsOfQuery(target.query)),
    userAgent: str(ev.userAgent) ?? "",
    ...(user !== undefined && { user }),
    ...(sourceIP !== undefined && { sourceIP }),
    ...(code !== undefined && { code }),
    ...(latencyMs !== undefined && { latencyMs }),
    servedFrom: served === "cache" || served === "storage" ? served : "",
    ...(bytes !== undefined && { bytes }),
    ...(cpuMs !== undefined && { cpuMs }),
    ...(pl !== undefined && { priorityLevel: pl }),
    ...(seats !== undefined && { seats }),
  };
}
