// A wait histogram whose buckets reach hours, for studies (the faithful workqueue_queue_duration_seconds stops at 10 s).

/**
 * Upper bounds (seconds) of {@link LongHistogram}'s buckets: 1 ms … 10 s as client-go's
 * `workqueue_queue_duration_seconds` (which then only has `+Inf`), continued through 30 s, 1, 2, 5, 10, 30 minutes,
 * 1, 2, 6 hours. A 60 s wait lands in its own bucket instead of `+Inf`.
 */
export const LONG_WAIT_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.01, 0.1, 1, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600,
];

/** One bucket of a {@link LongHistogram} snapshot: observations ≤ `le` and > the previous bound (not cumulative). */
export interface HistogramBucket {
  readonly le: number;
  readonly count: number;
}

/**
 * A histogram of durations in seconds with {@link LONG_WAIT_BUCKETS_SECONDS} (or given) bounds, plus the exact
 * minimum, maximum and sum. It complements, never replaces, the workqueue's own metric. Negative or non-finite
 * observations throw a `RangeError` naming the value.
 */
export class LongHistogram {
  private readonly counts: number[];
  private n = 0;
  private total = 0;
  private lo = Number.POSITIVE_INFINITY;
  private hi = Number.NEGATIVE_INFINITY;

  constructor(readonly bounds: readonly number[] = LONG_WAIT_BUCKETS_SECONDS) {
    for (let i = 1; i < bounds.length; i++)
      if (!((bounds[i] ?? 0) > (bounds[i - 1] ?? 0))) throw new RangeError("histogram bounds must increase strictly");
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  /** Records one duration (seconds). */
  observe(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0)
      throw new RangeError(`histogram observation must be a finite number ≥ 0, got ${seconds}`);
    let i = this.bounds.findIndex((b) => seconds <= b);
    if (i < 0) i = this.bounds.length;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.n++;
    this.total += seconds;
    if (seconds < this.lo) this.lo = seconds;
    if (seconds > this.hi) this.hi = seconds;
  }

  /** Number of observations. */
  count(): number {
    return this.n;
  }

  /** Sum, min and max of the observations (min/max undefined when empty). */
  stats(): { count: number; sum: number; min?: number; max?: number } {
    return this.n === 0 ? { count: 0, sum: 0 } : { count: this.n, sum: this.total, min: this.lo, max: this.hi };
  }

  /** Per-bucket counts (not cumulative), the last one with `le: Infinity`. */
  buckets(): HistogramBucket[] {
    return this.counts.map((count, i) => ({ le: this.bounds[i] ?? Number.POSITIVE_INFINITY, count }));
  }
}
