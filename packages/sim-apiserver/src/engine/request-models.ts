import {
  type KubeList,
  type KubeObject,
  type ListOptions,
  parseFieldSelector,
  StatusError,
} from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import { servedFromOfError } from "./cacher/index.js";
import {
  type CostInput,
  type CostModel,
  encodedSize,
  handlerSteps,
  listEnvelopeSize,
  newRequestTrace,
  type RequestCost,
  type ResourceStats,
  requestCost,
  TRACE_LOG_THRESHOLD_MS,
  type Trace,
} from "./filters/index.js";
import { requestURI } from "./request-uri.js";
import type { SimResource } from "./resources.js";

/** The trace log's settings: `LogIfLong`'s threshold (default 500 ms) and whether every step is written (`-v=4`). */
export interface TraceLogConfig {
  readonly thresholdMs?: number;
  readonly allSteps?: boolean;
}

/** What {@link RequestModels} needs from the engine. */
export interface RequestModelsDeps {
  readonly clock: Clock;
  /** Waits `ms` of the clock; rejects when the request's signal aborts or the engine stops. */
  readonly sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** Writes one (multi-line) trace through the engine's logger. */
  readonly log: (text: string) => void;
  /** A new audit ID from the accounting's sequence. */
  readonly nextAuditID: () => string;
  /** Draws trace numbers (kept apart from the engine's `rand`, so turning traces on changes no other draw). */
  readonly traceRand: Rand;
  /** The cost model; undefined = off (no virtual latency, no CPU or seats). */
  readonly costModel: CostModel | undefined;
  /**
   * How the cost model's latency is applied: `sleep` waits it on the clock, `record` answers at once and records it
   * as if it had been waited (see `SimApiServerOptions.costModelLatency`). Default `sleep`.
   */
  readonly costLatency?: CostModelLatency;
  /** The trace log; undefined = off. */
  readonly trace: TraceLogConfig | undefined;
  /** The object-count tracker's figures of a resource (APF list estimate, scanned bytes). */
  readonly stats: (r: SimResource) => ResourceStats;
  /** Watchers interested in a write of `obj` (the written object; undefined when the write failed). */
  readonly interestedWatchers: (r: SimResource, obj: KubeObject | undefined) => number;
  /** Whether response sizes are wanted without the cost model (an audit sink is set). */
  readonly measureBytes: () => boolean;
}

/**
 * How the cost model's virtual latency is applied: `sleep` — each phase is waited on the engine's clock (a caller on
 * a `FakeClock` must advance it for the request to finish); `record` — the request is answered without waiting and
 * the modelled latency is recorded as if it had elapsed (accounting, audit lines, httplog, trace steps).
 */
export type CostModelLatency = "sleep" | "record";

/** What a face knows of the connection, for the trace's fields (absent in-process). */
export interface RequestTraceConnection {
  /** The request path (default: the path a client would use). */
  readonly path?: string;
  /** `Accept` header (default `unknown`). */
  readonly accept?: string;
  /** Client IP (default `unknown`). */
  readonly client?: string;
  /** `HTTP/1.1`, `HTTP/2.0` (default `in-process`). */
  readonly protocol?: string;
}

/** One request as the models see it. */
export interface ModeledRequest extends RequestTraceConnection {
  /** Kubernetes verb; `apply` for a server-side apply patch. */
  readonly verb: string;
  readonly resource: SimResource;
  readonly namespace: string;
  readonly name: string;
  readonly subresource?: string;
  /** LIST/WATCH: the decoded query; GET: `{ resourceVersion }`. */
  readonly options?: ListOptions;
  readonly userAgent: string;
  readonly signal?: AbortSignal;
}

/** What the engine answered, as far as the models look at it. */
export interface ModeledAnswer {
  readonly object: unknown;
  readonly servedFrom?: "cache" | "storage";
  /** Keys the read examined (the watch cache's objects walked, or the keys read from etcd); default: items returned. */
  readonly scanned?: number;
}

/** What the models add to an answer (and record for a failed request, see {@link outcomeOfError}). */
export interface RequestOutcome {
  readonly auditID: string;
  /** The request URI a client would have used (in-process requests have no other). */
  readonly requestURI: string;
  /** Encoded size of the response (0 when nothing asked for it). */
  readonly responseBytes: number;
  /** The cost model's figures (absent when it is off). */
  readonly cost?: RequestCost;
  /**
   * Modelled latency that was recorded rather than waited on the clock (`costModelLatency: "record"`): a face adds it
   * to the clock's elapsed time for the request's latency. Absent or 0 when everything was waited.
   */
  readonly unsleptMs?: number;
}

const errorOutcomes = new WeakMap<object, RequestOutcome>();

/** The outcome of a request that failed while the models were on (its cost, audit ID, response size). */
export function outcomeOfError(err: unknown): RequestOutcome | undefined {
  return typeof err === "object" && err !== null ? errorOutcomes.get(err) : undefined;
}

const MUTATING = new Set(["create", "update", "patch", "apply", "delete", "deletecollection"]);

/**
 * A field selector naming one object, which kube-apiserver's RequestInfo turns into the request's name: it requires
 * `metadata.name` to equal a value (`metadata.name=x`, also among other terms) that is a valid path segment. A
 * selector that does not parse names nothing (the request fails with its 400 anyway).
 */
function selectsOneName(fieldSelector: string | undefined): boolean {
  if (fieldSelector === undefined || fieldSelector === "") return false;
  let name: string | undefined;
  try {
    name = parseFieldSelector(fieldSelector).requiresExactMatch("metadata.name");
  } catch {
    return false;
  }
  return name !== undefined && name !== "" && name !== "." && name !== ".." && !/[/%]/.test(name);
}

/**
 * The request-level models around the engine's handlers: the cost model's virtual latency (filter chain before the
 * handler, the read or write, the encoding after it, each on the engine's clock), its CPU and APF seats, the trace
 * kube-apiserver's handler keeps (written through the engine's logger when the request took at least the
 * threshold), and the audit ID and response size the accounting records. Off (both models undefined) it adds
 * nothing: the handler runs as before.
 */
export class RequestModels {
  constructor(private readonly deps: RequestModelsDeps) {
    const t = deps.trace?.thresholdMs;
    if (t !== undefined && !(t >= 0 && Number.isFinite(t))) {
      throw new RangeError(`trace log: thresholdMs must be a finite number ≥ 0, got ${t}`);
    }
  }

  /**
   * Whether {@link serve} has anything to do: a model is on, or an audit sink wants complete lines (audit ID, URI,
   * response size). Otherwise the engine runs handlers without it.
   */
  get enabled(): boolean {
    return this.deps.costModel !== undefined || this.deps.trace !== undefined || this.deps.measureBytes();
  }

  /**
   * Runs `handler` for `req` received at `startMs` under the models, and returns its answer with the
   * {@link RequestOutcome}. A failed request rejects with the handler's error, its outcome kept for
   * {@link outcomeOfError}; its trace is written like a successful one's.
   */
  async serve<T extends ModeledAnswer>(
    req: ModeledRequest,
    startMs: number,
    handler: () => Promise<T> | T,
  ): Promise<T & { readonly outcome: RequestOutcome }> {
    const { clock, costModel } = this.deps;
    const auditID = this.deps.nextAuditID();
    const uri = requestURI(
      {
        group: req.resource.group,
        version: req.resource.version,
        resource: req.resource.resource,
        namespaced: req.resource.namespaced,
        namespace: req.namespace,
        name: req.name,
        ...(req.subresource !== undefined && { subresource: req.subresource }),
      },
      req.verb === "apply" ? "patch" : req.verb,
      req.options ?? {},
    );
    const trace =
      this.deps.trace === undefined
        ? undefined
        : newRequestTrace(
            {
              verb: req.verb,
              resource: req.resource.resource,
              namespace: req.namespace,
              name: req.name,
              path: req.path ?? uri.split("?")[0]!,
              userAgent: req.userAgent,
              auditID,
              ...(req.accept !== undefined && { accept: req.accept }),
              ...(req.client !== undefined && { client: req.client }),
              ...(req.protocol !== undefined && { protocol: req.protocol }),
            },
            startMs,
          );
    const steps = handlerSteps(req.verb === "apply" ? "patch" : req.verb);
    const pace = new RequestPace(clock, this.deps.costLatency === "record" ? undefined : this.deps.sleep, req.signal);
    if (costModel !== undefined) await pace.wait(costModel.requestOverheadMs);
    trace?.step(steps.before, pace.now());
    let res: T;
    try {
      res = await handler();
    } catch (err) {
      const from = servedFromOfError(err);
      const bytes = err instanceof StatusError ? Buffer.byteLength(JSON.stringify(err.status), "utf8") : 0;
      const outcome = await this.finish(req, pace, trace, steps, auditID, uri, {
        servedFrom: from,
        keys: from === undefined ? 0 : 1,
        bytesScanned: 0,
        responseBytes: bytes,
        items: 0,
        pages: 1,
      });
      if (typeof err === "object" && err !== null) errorOutcomes.set(err, outcome);
      throw err;
    }
    const outcome = await this.finish(req, pace, trace, steps, auditID, uri, this.measure(req, res));
    return { ...res, outcome };
  }

  /** Sizes of an answer: response bytes, keys and bytes scanned, etcd pages. */
  private measure(req: ModeledRequest, res: ModeledAnswer): Measured {
    const wanted = this.deps.costModel !== undefined || this.deps.measureBytes();
    const base = { servedFrom: res.servedFrom, pages: 1 };
    if (req.verb === "watch" || !wanted) {
      return { ...base, keys: 0, bytesScanned: 0, responseBytes: 0, items: 0 };
    }
    if (res.object === null || typeof res.object !== "object") {
      return { ...base, keys: 0, bytesScanned: 0, responseBytes: 0, items: 0 };
    }
    const o = res.object as Partial<KubeList> & KubeObject;
    if (Array.isArray(o.items)) {
      const list = o as KubeList;
      const items = list.items.length;
      const keys = Math.max(res.scanned ?? items, items);
      let itemBytes = 0;
      for (const it of list.items) itemBytes += encodedSize(it);
      const responseBytes = itemBytes + listEnvelopeSize(list);
      const extra = keys - items;
      const bytesScanned = itemBytes + (extra > 0 ? extra * this.deps.stats(req.resource).averageObjectSizeBytes : 0);
      const limit = req.options?.limit ?? 0;
      const pages = res.servedFrom === "storage" && limit > 0 ? Math.max(1, Math.ceil(keys / limit)) : 1;
      return { ...base, keys, bytesScanned, responseBytes, items, pages };
    }
    const size = o !== null && typeof o === "object" ? encodedSize(o) : 0;
    return {
      ...base,
      keys: 1,
      bytesScanned: size,
      responseBytes: size,
      items: 1,
      ...(MUTATING.has(req.verb) && { written: o }),
    };
  }

  /** Applies the cost (virtual time), records the remaining trace steps, writes the trace; returns the outcome. */
  private async finish(
    req: ModeledRequest,
    pace: RequestPace,
    trace: Trace | undefined,
    steps: ReturnType<typeof handlerSteps>,
    auditID: string,
    uri: string,
    m: Measured,
  ): Promise<RequestOutcome> {
    const { costModel } = this.deps;
    let cost: RequestCost | undefined;
    try {
      if (costModel !== undefined) {
        const verb = req.verb;
        const input: CostInput = {
          verb,
          servedFrom: m.servedFrom ?? "",
          keysScanned: m.keys,
          bytesScanned: m.bytesScanned,
          responseBytes: m.responseBytes,
          storagePages: m.pages,
          itemsReturned: m.items,
          ...((verb === "list" || verb === "watch") && {
            listOptions: req.options ?? {},
            matchesSingle: req.name !== "" || selectsOneName(req.options?.fieldSelector),
            resourceStats: this.deps.stats(req.resource),
          }),
          ...(MUTATING.has(verb) && {
            interestedWatchers: this.deps.interestedWatchers(req.resource, m.written),
          }),
        };
        cost = requestCost(input, costModel);
        await pace.wait(cost.readMs - costModel.requestOverheadMs);
      }
      const now = pace.now();
      if (steps.stored !== undefined) trace?.step(steps.stored, now);
      if (steps.beforeWrite !== undefined) trace?.step(steps.beforeWrite, now);
      if (cost !== undefined && cost.encodeMs > 0) await pace.wait(cost.encodeMs);
      trace?.step(steps.written, pace.now(), steps.countOnWritten ? [{ key: "count", value: m.items }] : []);
    } finally {
      this.writeTrace(trace, pace.now());
    }
    return {
      auditID,
      requestURI: uri,
      responseBytes: m.responseBytes,
      ...(cost !== undefined && { cost }),
      ...(pace.unsleptMs > 0 && { unsleptMs: pace.unsleptMs }),
    };
  }

  private writeTrace(trace: Trace | undefined, endMs: number): void {
    const cfg = this.deps.trace;
    if (trace === undefined || cfg === undefined) return;
    const text = trace.logIfLong({
      endMs,
      thresholdMs: cfg.thresholdMs ?? TRACE_LOG_THRESHOLD_MS,
      traceNum: Math.floor(this.deps.traceRand.float() * 2 ** 31),
      ...(cfg.allSteps === true && { allSteps: true }),
    });
    if (text !== undefined) this.deps.log(text);
  }
}

/**
 * One request's passage of modelled time: waited on the clock (`sleep` given), or added up without waiting (`record`);
 * `now()` is the clock plus what was recorded, so trace steps fall where the waits would have put them.
 */
class RequestPace {
  unsleptMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly sleep: RequestModelsDeps["sleep"] | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async wait(ms: number): Promise<void> {
    if (!(ms > 0)) return;
    if (this.sleep === undefined) this.unsleptMs += ms;
    else await this.sleep(ms, this.signal);
  }

  now(): number {
    return this.clock.now() + this.unsleptMs;
  }
}

interface Measured {
  readonly servedFrom: "cache" | "storage" | undefined;
  /** A write's answer (the object its watchers are told about). */
  readonly written?: KubeObject;
  readonly keys: number;
  readonly bytesScanned: number;
  readonly responseBytes: number;
  readonly items: number;
  readonly pages: number;
}
