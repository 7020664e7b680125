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
  /**
   * "cache" or "storage" when known: the record says so (the simulator's audit annotation), the request's trace does
   * (aggregation), or the read's shape decides it for the apiserver's release (aggregation, `servedFromSource`
   * "inferred"); "" otherwise.
   */
  readonly servedFrom: string;
  /** How {@link servedFrom} is known: the record's own annotation, the request's trace, or inferred from its shape. */
  readonly servedFromSource?: "record" | "trace" | "inferred";
  /**
   * When the line was logged, epoch ms. klog's text header has no year: it is taken from a CRI/docker wrapper's
   * timestamp when the line has one, else year 2000 is assumed (`yearAssumed`); intervals and rates are unaffected.
   */
  readonly timeMs?: number;
  /** The line's time came from a klog header without a year (year 2000 assumed). */
  readonly yearAssumed?: boolean;
  /**
   * The verb as the httplog line wrote it when it is not {@link verb} in upper case: the HTTP method (`GET` for a list
   * before 1.20, `POST` for a create), or a watch logged as `GET` or `LIST` (`watch=true`, `/watch/` paths).
   */
  readonly loggedVerb?: string;
  /**
   * A watch logged when it was established rather than when it ended (kube-apiserver 1.30, kubernetes#125614:
   * `resp=0`, the latency is the set-up time, not the watch's lifetime). Not an error.
   */
  readonly watchLoggedAtStart?: boolean;
  /** Which httplog layout the line had: `klog-structured` (1.20+), `pre-1.20` (`verb="GET" URI=… resp=200 UserAgent=…`), `legacy` (`GET /api/…: (2ms) 200 [[ua] addr]`), `json`. */
  readonly dialect?: string;
  /** Response bytes, when the record says (the simulator's audit annotation). */
  readonly bytes?: number;
  /** Virtual apiserver CPU the request cost, when the record says (the simulator's cost-model annotation). */
  readonly cpuMs?: number;
  /** API Priority and Fairness: priority level and initial seats (httplog `apf_pl`, `apf_iseats`). */
  readonly priorityLevel?: string;
  readonly seats?: number;
  /** APF flow schema (`apf_fs`; audit `apf.flowcontrol.k8s.io/flow-schema`) and flow distinguisher (`apf_fd`). */
  readonly flowSchema?: string;
  readonly flowDistinguisher?: string;
  /** APF final seats (`apf_fseats`: seats held after the response, for watches' initial events and writes). */
  readonly finalSeats?: number;
  /** APF time in the queue (`apf_init_latency`), execution time (`apf_execution_time`), additional latency, ms. */
  readonly apfInitLatencyMs?: number;
  readonly apfExecutionMs?: number;
  readonly apfAdditionalLatencyMs?: number;
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
  /**
   * Whether the whole block was read (the block is one klog call). k8s.io/utils/trace's current code (kube-apiserver
   * since about 1.21; start written `02-Jan-2006 15:04:05.000`) always ends a trace with an END line: without it the
   * log was cut. Its earlier code — the first format (`(started: …)`, ≤ 1.19) and the first releases of the second
   * (start written with seconds `00`) — wrote END only when the last step was slower than the step threshold: such a
   * trace is complete without an END (see `endRequired`).
   */
  readonly complete: boolean;
  /** Whether the END line was read. */
  readonly endLogged: boolean;
  /** `v1` (`(started: …)`, Go durations, `[elapsed] [step]` steps) or `v2` (`(02-Jan-2006 15:04:05.000)`, `<n>ms`, `---"step"` and nested steps). */
  readonly traceFormat: "v1" | "v2";
}

/** A line that looked like none of the formats, or like one of them but broken. */
export interface MalformedLine extends LogPosition {
  readonly reason: string;
  /** The line's start (at most 160 characters). */
  readonly text: string;
}
