import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import { encodedSize } from "./encoded-size.js";
import type { ResourceStats } from "./list-work-estimator.js";

/** How often kube-apiserver refreshes its object counts from etcd (`--etcd-count-metric-poll-period`, 1 min). */
export const OBJECT_COUNT_POLL_PERIOD_MS = 60_000;

interface Entry {
  readonly at: number;
  readonly stats: ResourceStats;
}

/**
 * The object count and average encoded size of each resource, as API Priority and Fairness's list estimator reads
 * them (`ObjectCountTracker` fed by the storage's periodic `Stats`): computed from the resource's stored objects and
 * kept for {@link OBJECT_COUNT_POLL_PERIOD_MS} of the clock, so the estimate lags the store as upstream's does.
 * Object sizes are remembered per stored object ({@link encodedSize}), so a refresh costs one pass over the keys.
 */
export class ObjectCountTracker<R extends object> {
  private readonly entries = new WeakMap<R, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly objectsOf: (r: R) => Iterable<KubeObject>,
    private readonly pollPeriodMs = OBJECT_COUNT_POLL_PERIOD_MS,
  ) {
    if (!(pollPeriodMs >= 0)) throw new RangeError(`object count poll period must be ≥ 0 ms, got ${pollPeriodMs}`);
  }

  /** The resource's stats as of the last refresh (refreshed when older than the poll period). */
  get(r: R): ResourceStats {
    const now = this.clock.now();
    const e = this.entries.get(r);
    if (e !== undefined && now - e.at < this.pollPeriodMs) return e.stats;
    let count = 0;
    let bytes = 0;
    for (const o of this.objectsOf(r)) {
      count++;
      bytes += encodedSize(o);
    }
    const stats: ResourceStats = { objectCount: count, averageObjectSizeBytes: count === 0 ? 0 : bytes / count };
    this.entries.set(r, { at: now, stats });
    return stats;
  }
}
