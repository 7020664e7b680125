import {
  defaultWorkEstimatorConfig,
  type EstimatedListOptions,
  estimateListWork,
  estimateMutatingWork,
  type WorkEstimate,
  type WorkEstimatorConfig,
} from "./list-work-estimator.js";
import {
  CACHE_MS_PER_OBJECT,
  ENCODE_MS_PER_KIB,
  REQUEST_OVERHEAD_MS,
  STORAGE_MS_PER_KEY,
  STORAGE_MS_PER_KIB,
  STORAGE_ROUND_TRIP_MS,
  STORAGE_WRITE_COMMIT_MS,
} from "./model-calibration.js";

/**
 * The request cost model's constants (defaults in model-calibration.ts, with their sources). Times are milliseconds
 * of one apiserver core; `storageRoundTripMs` and `storageWriteCommitMs` are waits on etcd, not apiserver CPU.
 */
export interface CostModel {
  /** Filter chain before the handler (authn, audit, authz, APF): latency and CPU of every request. */
  readonly requestOverheadMs: number;
  /** One read round trip to etcd (per storage read; a paginated list pays it per page). */
  readonly storageRoundTripMs: number;
  /** CPU per key read from etcd. */
  readonly storageMsPerKey: number;
  /** CPU per KiB of values read from etcd. */
  readonly storageMsPerKiB: number;
  /** CPU per object the watch cache walks. */
  readonly cacheMsPerObject: number;
  /** CPU per KiB of response encoded and written. */
  readonly encodeMsPerKiB: number;
  /** An etcd write's commit (raft, fsync) on top of the round trip. */
  readonly storageWriteCommitMs: number;
  /** API Priority and Fairness work estimation (seats). */
  readonly apf: WorkEstimatorConfig;
}

/** The model with every constant at its calibrated default (kube-apiserver v1.34's APF settings). */
export const DEFAULT_COST_MODEL: CostModel = Object.freeze({
  requestOverheadMs: REQUEST_OVERHEAD_MS,
  storageRoundTripMs: STORAGE_ROUND_TRIP_MS,
  storageMsPerKey: STORAGE_MS_PER_KEY,
  storageMsPerKiB: STORAGE_MS_PER_KIB,
  cacheMsPerObject: CACHE_MS_PER_OBJECT,
  encodeMsPerKiB: ENCODE_MS_PER_KIB,
  storageWriteCommitMs: STORAGE_WRITE_COMMIT_MS,
  apf: Object.freeze(defaultWorkEstimatorConfig()),
});

/**
 * The default model with API Priority and Fairness as a release had it by default: v1.34 sizes lists by bytes
 * (`SizeBasedListCostEstimate`, cap 100 seats); v1.28–v1.33 by object count (cap 10); v1.22 had no work estimation
 * (every request one seat: the estimators came in v1.23). `consistentListFromCache` says whether RV-unset lists are
 * estimated as cache-served (the release's `ConsistentListFromCache`).
 */
export function costModelFor(kubeVersion: string, consistentListFromCache: boolean): CostModel {
  const minor = Number(/^1\.(\d+)$/.exec(kubeVersion)?.[1]);
  if (!Number.isInteger(minor)) throw new RangeError(`cost model: unknown kubeVersion ${JSON.stringify(kubeVersion)}`);
  const apf = defaultWorkEstimatorConfig({ sizeBasedListCostEstimate: minor >= 34, consistentListFromCache });
  return Object.freeze({
    ...DEFAULT_COST_MODEL,
    apf: Object.freeze(minor < 23 ? { ...apf, maximumListSeats: 1, mutatingEnabled: false } : apf),
  });
}

/**
 * A cost model from partial settings over {@link DEFAULT_COST_MODEL} (`apf` merged field by field). Throws a
 * `RangeError` naming the first field that is not a finite number ≥ 0 (or, for the APF divisors, > 0).
 */
export function newCostModel(overrides: Partial<Omit<CostModel, "apf">> & { apf?: Partial<WorkEstimatorConfig> } = {}) {
  const model: CostModel = {
    ...DEFAULT_COST_MODEL,
    ...overrides,
    apf: { ...DEFAULT_COST_MODEL.apf, ...overrides.apf },
  };
  validateCostModel(model);
  return model;
}

/** Throws a `RangeError` naming the first bad field of a cost model. */
export function validateCostModel(model: CostModel): void {
  const fields: Array<Exclude<keyof CostModel, "apf">> = [
    "requestOverheadMs",
    "storageRoundTripMs",
    "storageMsPerKey",
    "storageMsPerKiB",
    "cacheMsPerObject",
    "encodeMsPerKiB",
    "storageWriteCommitMs",
  ];
  for (const f of fields) {
    const v = model[f];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new RangeError(`cost model: ${f} must be a finite number ≥ 0, got ${String(v)}`);
    }
  }
  if (typeof model.apf !== "object" || model.apf === null) throw new RangeError("cost model: apf is missing");
  // The estimator validates its own fields; run it once on a trivial request to surface a bad setting now.
  estimateMutatingWork(0, model.apf);
}

/**
 * One request as the cost model sees it, after it was served: what was read, from where, and how much was written
 * back. `keysScanned` counts every key the read examined (for a storage list: the keys etcd returned, matching or
 * not; for a cache list: the objects walked), `bytesScanned` their encoded size; `responseBytes` the encoded
 * response; `storagePages` the etcd round trips (1 for a GET or an unpaginated list).
 */
export interface CostInput {
  readonly verb: string;
  readonly servedFrom: "cache" | "storage" | "";
  readonly keysScanned: number;
  readonly bytesScanned: number;
  readonly responseBytes: number;
  readonly storagePages?: number;
  /** Reads: the items returned (a list's length, 1 for a GET). */
  readonly itemsReturned?: number;
  /** APF: what the list estimator looks at (list and watch). */
  readonly listOptions?: EstimatedListOptions;
  /** APF: the request names one object. */
  readonly matchesSingle?: boolean;
  /** APF: the object-count tracker's figures of the resource. */
  readonly resourceStats?: { readonly objectCount: number; readonly averageObjectSizeBytes: number };
  /** APF, writes: the watchers interested in the written object. */
  readonly interestedWatchers?: number;
}

/**
 * What a request cost: `latencyMs` of virtual time the engine adds (`readMs` before the handler has its result,
 * `encodeMs` while it writes it), `cpuMs` of apiserver CPU (the same minus the waits on etcd: `storageWaitMs`), of
 * which `readCpuMs` went to reading (decoding etcd's values, or walking the watch cache), and the APF `seats` it
 * occupied.
 */
export interface RequestCost {
  readonly latencyMs: number;
  /** The filter chain before the handler (part of `readMs`); `latencyMs − overheadMs` is APF's execution time. */
  readonly overheadMs: number;
  readonly readMs: number;
  readonly encodeMs: number;
  readonly cpuMs: number;
  readonly readCpuMs: number;
  readonly storageWaitMs: number;
  readonly seats: WorkEstimate;
}

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection", "apply"]);

/**
 * The cost of one request under `model`: the fixed overhead; for a storage read one round trip per page plus CPU per
 * key and per KiB read; for a cache read CPU per object walked; for a write the round trip and the commit; then CPU
 * per KiB encoded. Seats come from kube-apiserver's work estimators (list/watch from the list estimator, writes
 * from the mutating one, everything else 1). A watch's cost is its start (its initial events are encoded as they are
 * sent, which the model does not charge). Throws a `RangeError` naming a negative or non-finite input.
 */
export function requestCost(input: CostInput, model: CostModel = DEFAULT_COST_MODEL): RequestCost {
  for (const k of ["keysScanned", "bytesScanned", "responseBytes", "storagePages", "itemsReturned"] as const) {
    const v = input[k];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0)) {
      throw new RangeError(`request cost: ${k} must be a finite number ≥ 0, got ${String(v)}`);
    }
  }
  const write = MUTATING.has(input.verb);
  let readCpu = 0;
  let wait = 0;
  if (write) {
    wait = model.storageRoundTripMs + model.storageWriteCommitMs;
  } else if (input.servedFrom === "storage") {
    wait = model.storageRoundTripMs * Math.max(1, input.storagePages ?? 1);
    readCpu = input.keysScanned * model.storageMsPerKey + (input.bytesScanned / 1024) * model.storageMsPerKiB;
  } else if (input.servedFrom === "cache") {
    readCpu = input.keysScanned * model.cacheMsPerObject;
  }
  const encodeMs = (input.responseBytes / 1024) * model.encodeMsPerKiB;
  const readMs = model.requestOverheadMs + wait + readCpu;
  let seats: WorkEstimate;
  if (input.verb === "list" || input.verb === "watch") {
    seats = estimateListWork(
      {
        verb: input.verb,
        matchesSingle: input.matchesSingle === true,
        options: input.listOptions ?? {},
        stats: input.resourceStats,
      },
      model.apf,
    );
  } else if (write) {
    seats = estimateMutatingWork(input.interestedWatchers ?? 0, model.apf);
  } else {
    seats = { initialSeats: model.apf.minimumSeats, finalSeats: 0, additionalLatencyMs: 0 };
  }
  return {
    latencyMs: readMs + encodeMs,
    overheadMs: model.requestOverheadMs,
    readMs,
    encodeMs,
    cpuMs: model.requestOverheadMs + readCpu + encodeMs,
    readCpuMs: readCpu,
    storageWaitMs: wait,
    seats,
  };
}

/**
 * Seat-seconds a request occupied (APF's measure of work), as kube-apiserver's queue set holds seats: the larger of
 * initial and final seats while it executes, then the final seats for their additional latency.
 */
export function seatSeconds(cost: Pick<RequestCost, "latencyMs" | "seats">): number {
  const s = cost.seats;
  return (Math.max(s.initialSeats, s.finalSeats) * cost.latencyMs + s.finalSeats * s.additionalLatencyMs) / 1000;
}
