// Requests over time: the lines' timestamps bucketed into a rate series by verb, so a burst (a relist storm, a
// kubelet restart) shows where it happened.
import type { ApiRequestEntry } from "./log-entry.js";

/** One bucket of a {@link RequestTimeline}. */
export interface TimelineBucket {
  /** Seconds from the timeline's start to the bucket's start. */
  readonly t: number;
  readonly requests: number;
  /** Requests per second over the bucket. */
  readonly perSecond: number;
  readonly byVerb: Readonly<Record<string, number>>;
}

/** Requests per bucket of time, from the first logged request to the last. */
export interface RequestTimeline {
  /** Epoch ms of the first and last timestamped request. */
  readonly firstMs: number;
  readonly lastMs: number;
  /** Some times came from klog headers without a year (year 2000 assumed: see `ApiRequestEntry.timeMs`). */
  readonly yearAssumed: boolean;
  readonly bucketSeconds: number;
  /** Requests with a time (the others are not in the series). */
  readonly timed: number;
  /** The busiest bucket's rate, requests/s. */
  readonly peakPerSecond: number;
  readonly buckets: readonly TimelineBucket[];
}

/** Bucket widths tried, smallest first: the first giving at most {@link MAX_BUCKETS} buckets is used. */
const WIDTHS_S = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 21_600, 86_400];
const MAX_BUCKETS = 120;

/**
 * The timestamped requests of `reqs` as a series of equal buckets (1 s to 1 day wide, at most 120 buckets), counted
 * by verb; undefined when no request has a time. A bucket's time is when the lines were logged (kube-apiserver logs a
 * request when it ends, except 1.30's watches).
 */
export function requestTimeline(reqs: readonly ApiRequestEntry[]): RequestTimeline | undefined {
  const timed = reqs.filter((r) => r.timeMs !== undefined && Number.isFinite(r.timeMs));
  if (timed.length === 0) return undefined;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const r of timed) {
    first = Math.min(first, r.timeMs ?? 0);
    last = Math.max(last, r.timeMs ?? 0);
  }
  const span = (last - first) / 1000;
  const width = WIDTHS_S.find((w) => Math.floor(span / w) + 1 <= MAX_BUCKETS) ?? (WIDTHS_S.at(-1) as number);
  const n = Math.floor(span / width) + 1;
  const counts = Array.from({ length: n }, () => ({ requests: 0, byVerb: {} as Record<string, number> }));
  for (const r of timed) {
    const b = counts[Math.min(n - 1, Math.floor(((r.timeMs ?? 0) - first) / 1000 / width))];
    if (b === undefined) continue;
    b.requests++;
    b.byVerb[r.verb] = (b.byVerb[r.verb] ?? 0) + 1;
  }
  const buckets = counts.map((c, i) => ({ t: i * width, ...c, perSecond: c.requests / width }));
  return {
    firstMs: first,
    lastMs: last,
    yearAssumed: timed.some((r) => r.yearAssumed === true),
    bucketSeconds: width,
    timed: timed.length,
    peakPerSecond: Math.max(...buckets.map((b) => b.perSecond)),
    buckets,
  };
}
