import {
  APF_BYTES_PER_SEAT,
  APF_CACHE_STREAMING_MAX_BYTES,
  APF_EVENT_ADDITIONAL_DURATION_MS,
  APF_MAX_LIST_SEATS_COUNT_BASED,
  APF_MAX_LIST_SEATS_SIZE_BASED,
  APF_MAX_MUTATING_SEATS,
  APF_MAX_OBJECT_SIZE,
  APF_MINIMUM_SEATS,
  APF_OBJECTS_PER_SEAT,
  APF_WATCHES_PER_SEAT,
} from "./model-calibration.js";

/**
 * What API Priority and Fairness reserves for a request (`WorkEstimate` of k8s.io/apiserver's flowcontrol/request):
 * `initialSeats` while it executes, then `finalSeats` for `additionalLatencyMs` after it (a write's watch fan-out).
 */
export interface WorkEstimate {
  readonly initialSeats: number;
  readonly finalSeats: number;
  readonly additionalLatencyMs: number;
}

/**
 * The work estimator's parameters (`WorkEstimatorConfig` and the priority level's cap). Defaults are
 * kube-apiserver v1.34's ({@link defaultWorkEstimatorConfig}).
 */
export interface WorkEstimatorConfig {
  readonly minimumSeats: number;
  /** Cap of a list's seats (100 with `sizeBasedListCostEstimate`, else 10). */
  readonly maximumListSeats: number;
  /** Cap of a write's final seats (10). */
  readonly maximumMutatingSeats: number;
  /** The priority level's own cap (`maxSeatsFn`); 0 = none (then the limits above apply). */
  readonly priorityLevelMaxSeats: number;
  readonly objectsPerSeat: number;
  readonly bytesPerSeat: number;
  readonly watchesPerSeat: number;
  readonly eventAdditionalDurationMs: number;
  /** The mutating estimator (`MutatingWorkEstimatorConfig.Enabled`, on by default): off, writes take one seat. */
  readonly mutatingEnabled: boolean;
  /** The `SizeBasedListCostEstimate` feature gate (beta, on from v1.34): seats from bytes in memory, not objects. */
  readonly sizeBasedListCostEstimate: boolean;
  /**
   * Whether consistent reads (RV unset) can be served from the watch cache (`ConsistentReadSupported`: the
   * `ConsistentListFromCache` gate with an etcd that supports progress requests; on from v1.31).
   */
  readonly consistentListFromCache: boolean;
}

/**
 * kube-apiserver's defaults (`DefaultWorkEstimatorConfig`): v1.34 has `SizeBasedListCostEstimate` and
 * `ConsistentListFromCache` on; pass false for older releases.
 */
export function defaultWorkEstimatorConfig(
  gates: { readonly sizeBasedListCostEstimate?: boolean; readonly consistentListFromCache?: boolean } = {},
): WorkEstimatorConfig {
  const sizeBased = gates.sizeBasedListCostEstimate ?? true;
  return {
    minimumSeats: APF_MINIMUM_SEATS,
    maximumListSeats: sizeBased ? APF_MAX_LIST_SEATS_SIZE_BASED : APF_MAX_LIST_SEATS_COUNT_BASED,
    maximumMutatingSeats: APF_MAX_MUTATING_SEATS,
    priorityLevelMaxSeats: 0,
    objectsPerSeat: APF_OBJECTS_PER_SEAT,
    bytesPerSeat: APF_BYTES_PER_SEAT,
    watchesPerSeat: APF_WATCHES_PER_SEAT,
    eventAdditionalDurationMs: APF_EVENT_ADDITIONAL_DURATION_MS,
    mutatingEnabled: true,
    sizeBasedListCostEstimate: sizeBased,
    consistentListFromCache: gates.consistentListFromCache ?? true,
  };
}

/** The list options the estimator looks at (the decoded query; nothing defaulted). */
export interface EstimatedListOptions {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly sendInitialEvents?: boolean;
}

/** What the object-count tracker knows of the resource (`storage.Stats`); `undefined` = not tracked. */
export interface ResourceStats {
  readonly objectCount: number;
  /** Average encoded object size in bytes (0 = unknown). */
  readonly averageObjectSizeBytes: number;
}

/** A read the estimator sizes: a LIST, or a WATCH (which only costs more when it asks for initial events). */
export interface ListWorkRequest {
  readonly verb: "list" | "watch";
  /** The request names one object (a `metadata.name` field selector becomes the request's name upstream). */
  readonly matchesSingle: boolean;
  readonly options: EstimatedListOptions;
  /** The object-count tracker's figures; undefined = the type is not tracked (estimated at the minimum). */
  readonly stats: ResourceStats | undefined;
}

/**
 * Whether the estimator expects a list to go to etcd (`delegator.ShouldDelegateListMeta` with
 * `CacheWithoutSnapshots`): `Exact` and continuations and legacy exact reads (a `limit` with an RV other than "0")
 * always do, `NotOlderThan` and RV "0"/N do not, a consistent read (RV unset) does unless the cache serves consistent
 * reads, an unknown `resourceVersionMatch` does.
 */
export function shouldDelegateList(opts: EstimatedListOptions, consistentListFromCache: boolean): boolean {
  const rv = opts.resourceVersion ?? "";
  switch (opts.resourceVersionMatch ?? "") {
    case "Exact":
      return true;
    case "NotOlderThan":
      return false;
    case "":
      if ((opts.continue ?? "") !== "") return true;
      if ((opts.limit ?? 0) > 0 && rv !== "" && rv !== "0") return true;
      if (rv === "") return !consistentListFromCache;
      return false;
    default:
      return true;
  }
}

/**
 * Seats of a LIST (or of a WATCH with `sendInitialEvents`), as kube-apiserver's `listWorkEstimator` computes them:
 * a watch without initial events and an untracked resource take the minimum; otherwise the objects the request will
 * process — 1 for a single-object request, the (limited) count when served from the cache, more when etcd must be
 * read past a selector — become seats, by count (1 per 100 objects) or, with `SizeBasedListCostEstimate`, by bytes
 * in memory (1 per 100 KB; a cache-served list counts at most 1 MB), clamped to [minimum, cap].
 */
export function estimateListWork(req: ListWorkRequest, cfg: WorkEstimatorConfig): WorkEstimate {
  validateConfig(cfg);
  const minSeats = cfg.minimumSeats;
  let maxSeats = cfg.priorityLevelMaxSeats;
  if (maxSeats === 0 || maxSeats > cfg.maximumListSeats) maxSeats = cfg.maximumListSeats;
  const seats = (n: number): WorkEstimate => ({ initialSeats: n, finalSeats: 0, additionalLatencyMs: 0 });
  if (req.verb === "watch" && req.options.sendInitialEvents !== true) return seats(minSeats);
  if (req.stats === undefined) return seats(minSeats);
  const { objectCount } = req.stats;
  if (!(objectCount >= 0)) throw new RangeError(`APF estimate: objectCount must be ≥ 0, got ${objectCount}`);
  const fromCache = req.verb === "watch" || !shouldDelegateList(req.options, cfg.consistentListFromCache);
  const limit = req.options.limit ?? 0;
  const limited = limit > 0 && limit < objectCount ? limit : objectCount;
  const selector = (req.options.labelSelector ?? "") !== "" || (req.options.fieldSelector ?? "") !== "";
  let n: number;
  if (cfg.sizeBasedListCostEstimate) {
    let avg = req.stats.averageObjectSizeBytes;
    if (avg <= 0 && objectCount !== 0) avg = APF_MAX_OBJECT_SIZE;
    let inMemory: number;
    if (req.matchesSingle) inMemory = 1;
    else if (fromCache) inMemory = limited;
    else if (selector) inMemory = Math.max(limited, Math.trunc(objectCount / 2));
    else inMemory = limited;
    let bytes = inMemory * avg;
    if (fromCache) bytes = Math.min(bytes, APF_CACHE_STREAMING_MAX_BYTES);
    n = Math.ceil(bytes / cfg.bytesPerSeat);
  } else {
    let processed: number;
    if (req.matchesSingle) processed = 1;
    else if (fromCache) processed = objectCount;
    else if (selector) processed = objectCount + limited;
    else processed = 2 * limited;
    n = Math.ceil(processed / cfg.objectsPerSeat);
  }
  return seats(Math.min(Math.max(n, minSeats), maxSeats));
}

/**
 * Seats of a write (`mutatingWorkEstimator`): one seat while it executes; when at least `watchesPerSeat` watchers are
 * interested in the object, `ceil(watchers / watchesPerSeat)` final seats for 5 ms — capped at the mutating limit,
 * the same seat-time then spread over a longer `additionalLatencyMs`.
 */
export function estimateMutatingWork(interestedWatchers: number, cfg: WorkEstimatorConfig): WorkEstimate {
  validateConfig(cfg);
  if (!(interestedWatchers >= 0) || !Number.isInteger(interestedWatchers)) {
    throw new RangeError(`APF estimate: interestedWatchers must be an integer ≥ 0, got ${interestedWatchers}`);
  }
  let maxSeats = cfg.priorityLevelMaxSeats;
  if (maxSeats === 0 || maxSeats > cfg.maximumMutatingSeats) maxSeats = cfg.maximumMutatingSeats;
  if (!cfg.mutatingEnabled || interestedWatchers < cfg.watchesPerSeat) {
    return { initialSeats: cfg.minimumSeats, finalSeats: 0, additionalLatencyMs: 0 };
  }
  const finalSeats = Math.ceil(interestedWatchers / cfg.watchesPerSeat);
  if (finalSeats <= maxSeats) {
    return { initialSeats: 1, finalSeats, additionalLatencyMs: cfg.eventAdditionalDurationMs };
  }
  // Same seat-time (finalSeats × 5 ms), reshaped to the cap.
  return {
    initialSeats: 1,
    finalSeats: maxSeats,
    additionalLatencyMs: (finalSeats * cfg.eventAdditionalDurationMs) / maxSeats,
  };
}

function validateConfig(cfg: WorkEstimatorConfig): void {
  const positive: Array<keyof WorkEstimatorConfig> = [
    "minimumSeats",
    "maximumListSeats",
    "maximumMutatingSeats",
    "objectsPerSeat",
    "bytesPerSeat",
    "watchesPerSeat",
  ];
  for (const k of positive) {
    const v = cfg[k] as number;
    if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`APF work estimator: ${k} must be > 0, got ${v}`);
  }
  if (!(cfg.priorityLevelMaxSeats >= 0)) {
    throw new RangeError(`APF work estimator: priorityLevelMaxSeats must be ≥ 0, got ${cfg.priorityLevelMaxSeats}`);
  }
  if (!(cfg.eventAdditionalDurationMs >= 0)) {
    throw new RangeError(
      `APF work estimator: eventAdditionalDurationMs must be ≥ 0, got ${cfg.eventAdditionalDurationMs}`,
    );
  }
}
