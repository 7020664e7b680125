// What `informer analyze-logs` reads out of kube-apiserver logs: one record per request (httplog or audit), slow
// request traces with their steps, and the lines it could not read.

/** The log format a request record came from. */
export type RequestLogFormat = "httplog" | "audit" | "sim-httplog";

/** Where a record was read: the file as named on the command line and its 1-based line number. */
export interface LogPosition {
  readonly file: string;
  readonly line: number;
}

/** One finished request, from an httplog line or an audit event (merged when both name the same audit ID). */
export interface ApiRequestEntry extends LogPosition {
  readonly format: RequestLogFormat;
  /** The audit ID (httplog `audit-ID`, audit `auditID`), when the line has one. */
  readonly auditId?: string;
  /** Kubernetes verb, lower case as audit writes it: `list`, `watch`, `get`, `create`, `update`, `patch`, `apply`, … */
  readonly verb: string;
  /** The request URI (path and query); "" when the record has none. */
  readonly uri: string;
  /** `pods`, `deployments.apps`; the path for non-resource URLs; "" when unknown. */
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  /** The routing-relevant shape (`list RV="0" limit` …, see `requestShape`); `<verb> ?` when the URI is unknown. */
  readonly shape: string;
  readonly userAgent: string;
  readonly user?: string;
  readonly sourceIP?: string;
  /** HTTP status; undefined for a hijacked connection or a record without one. */
  readonly code?: number;
  readonly latencyMs?: number;
  /** "cache" or "storage" when the record says (the simulator's audit annotation); "" otherwise. */
  readonly servedFrom: string;
  /** Response bytes, when the record says (the simulator's audit annotation). */
  readonly bytes?: number;
  /** Virtual apiserver CPU the request cost, when the record says (the simulator's cost-model annotation). */
  readonly cpuMs?: number;
  /** API Priority and Fairness: priority level and initial seats (httplog `apf_pl`, `apf_iseats`). */
  readonly priorityLevel?: string;
  readonly seats?: number;
}

/** One step of a slow-request trace. */
export interface TraceStep {
  /** Nesting depth (0 = a step of the trace itself; nested traces' steps are deeper). */
  readonly depth: number;
  readonly message: string;
  /** The step's fields as written (`count:5000`), "" when none. */
  readonly fields: string;
  /** How long the step took, ms. */
  readonly durationMs: number;
  /** Whether this line opens a nested trace (`[` in the modern format). */
  readonly nested: boolean;
}

/** A `Trace[N]` block of k8s.io/utils/trace: a request (or operation) slower than its threshold, with its steps. */
export interface SlowRequestTrace extends LogPosition {
  readonly id: string;
  /** The trace's name: `List`, `Get`, `Create`, `cacher list`, … */
  readonly name: string;
  /** The trace's fields (`audit-id`, `user-agent`, `verb`, `url`, `resource` …). */
  readonly fields: Readonly<Record<string, string>>;
  /** The start time as written. */
  readonly started: string;
  readonly totalMs: number;
  readonly steps: readonly TraceStep[];
  /** Whether its END line was read (false: the log ended or was cut before it). */
  readonly complete: boolean;
}

/** A line that looked like none of the formats, or like one of them but broken. */
export interface MalformedLine extends LogPosition {
  readonly reason: string;
  /** The line's start (at most 160 characters). */
  readonly text: string;
}
