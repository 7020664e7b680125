import { metricsVerb } from "./accounting.js";
import { Trace, type TraceField } from "./trace.js";

/** Who made a request and how, as kube-apiserver's handlers put it into their trace (`traceFields`). */
export interface RequestTraceInfo {
  /** Kubernetes verb (`list`, `get`, `create`, `update`, `patch`, `delete`, `deletecollection`, `apply`). */
  readonly verb: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  /** The request path (`url` field: the path only, as upstream logs `req.URL.Path`). */
  readonly path: string;
  readonly userAgent: string;
  readonly auditID: string;
  /** `Accept` header; `unknown` when absent. */
  readonly accept?: string;
  /** Client IP; `unknown` when absent (in-process). */
  readonly client?: string;
  /** `req.Proto`: `HTTP/1.1`, `HTTP/2.0`; in-process requests say `in-process`. */
  readonly protocol?: string;
}

/** User agents longer than this are cut and marked, as kube-apiserver's `lazyTruncatedUserAgent` does. */
const MAX_USER_AGENT_LENGTH = 1024;

/** The trace's name per verb (the handler that starts it: `ListResource` "List", `GetResource` "Get", …). */
export function handlerTraceName(verb: string): string | undefined {
  switch (verb) {
    case "list":
      return "List";
    case "get":
      return "Get";
    case "create":
      return "Create";
    case "update":
      return "Update";
    case "patch":
    case "apply":
      return "Patch";
    case "delete":
      return "Delete";
    case "deletecollection":
      return "Delete";
    default:
      return undefined; // watches are not traced (upstream logs only long non-watch requests)
  }
}

/** `metrics.CleanScope`: `resource` for a named object or a create, `namespace`, else `cluster`. */
export function requestScope(verb: string, namespace: string, name: string): string {
  if (name !== "" || verb === "create") return "resource";
  if (namespace !== "") return "namespace";
  return "cluster";
}

/**
 * Starts the trace kube-apiserver's handler keeps for a request, with upstream's fields in upstream's order:
 * `accept`, `audit-id`, `client`, `protocol`, `resource`, `scope`, `url`, `user-agent` (cut at 1024 characters with
 * `...TRUNCATED`), `verb` (the metrics verb: `LIST`, `GET`, `POST`, …). Undefined for verbs that are not traced
 * (watch).
 */
export function newRequestTrace(info: RequestTraceInfo, startMs: number): Trace | undefined {
  const name = handlerTraceName(info.verb);
  if (name === undefined) return undefined;
  let ua = info.userAgent === "" ? "unknown" : info.userAgent;
  if (ua.length > MAX_USER_AGENT_LENGTH) ua = `${ua.slice(0, MAX_USER_AGENT_LENGTH)}...TRUNCATED`;
  const verb = info.verb === "apply" ? "patch" : info.verb;
  const fields: TraceField[] = [
    { key: "accept", value: info.accept ?? "unknown" },
    { key: "audit-id", value: info.auditID },
    { key: "client", value: info.client ?? "unknown" },
    { key: "protocol", value: info.protocol ?? "in-process" },
    { key: "resource", value: info.resource },
    { key: "scope", value: requestScope(verb, info.namespace, info.name) },
    { key: "url", value: info.path },
    { key: "user-agent", value: ua },
    { key: "verb", value: metricsVerb(verb, info.verb === "apply") },
  ];
  return new Trace(name, fields, startMs);
}

/**
 * The step names of each handler, in the order they are recorded: after the filter chain (`before`), when the
 * storage call returned (`stored`), when the response was written (`written`).
 */
export interface HandlerSteps {
  readonly before: string;
  readonly stored: string | undefined;
  readonly beforeWrite: string | undefined;
  readonly written: string;
  /** The `written` step carries `count:<items>` (lists). */
  readonly countOnWritten: boolean;
}

/**
 * kube-apiserver's step names per handler: LIST `About to List from storage` → `Listing from storage done` →
 * `Writing http response done count:N` (get.go); GET `About to Get from storage` → `About to write a response` →
 * `Writing http response done`; writes `About to store object in database` → `Write to database call succeeded`
 * → `About to write a response` → `Writing http response done` (create.go, update.go, patch.go, delete.go; their
 * conversion and admission steps are not simulated).
 */
export function handlerSteps(verb: string): HandlerSteps {
  switch (verb) {
    case "list":
      return {
        before: "About to List from storage",
        stored: "Listing from storage done",
        beforeWrite: undefined,
        written: "Writing http response done",
        countOnWritten: true,
      };
    case "get":
      return {
        before: "About to Get from storage",
        stored: undefined,
        beforeWrite: "About to write a response",
        written: "Writing http response done",
        countOnWritten: false,
      };
    default:
      return {
        before: "About to store object in database",
        stored: "Write to database call succeeded",
        beforeWrite: "About to write a response",
        written: "Writing http response done",
        countOnWritten: false,
      };
  }
}
