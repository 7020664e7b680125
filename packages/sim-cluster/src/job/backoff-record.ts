/** `DefaultJobPodFailureBackOff`: the delay before a failed pod's replacement, doubled per further failure. */
export const DEFAULT_JOB_POD_FAILURE_BACKOFF_MS = 10_000;
/** `MaxJobPodFailureBackOff`: the cap of that delay. */
export const MAX_JOB_POD_FAILURE_BACKOFF_MS = 600_000;

/** `backoffRecord` of `pkg/controller/job/backoff_utils.go`: failures since the last success, and when the last was. */
export interface BackoffRecord {
  readonly failuresAfterLastSuccess: number;
  /** Epoch ms of the last failure, if any. */
  readonly lastFailureTime?: number;
}

/** A pod that finished, as the backoff record sees it. */
export interface FinishedPod {
  readonly succeeded: boolean;
  /** Epoch ms when it finished (the last container's `finishedAt`). */
  readonly finishedAt: number;
}

/**
 * `newBackoffRecord`: folds newly finished pods, in the order they finished, into `prev` — a success resets the count
 * of failures, a failure adds one and moves `lastFailureTime`.
 */
export function nextBackoffRecord(prev: BackoffRecord, finished: readonly FinishedPod[]): BackoffRecord {
  let rec = prev;
  for (const p of [...finished].sort((a, b) => a.finishedAt - b.finishedAt)) {
    if (p.succeeded) {
      if ((rec.lastFailureTime ?? -Infinity) <= p.finishedAt) rec = { failuresAfterLastSuccess: 0 };
    } else {
      rec = {
        failuresAfterLastSuccess: rec.failuresAfterLastSuccess + 1,
        lastFailureTime: Math.max(rec.lastFailureTime ?? -Infinity, p.finishedAt),
      };
    }
  }
  return rec;
}

/**
 * `getRemainingTimePerIndex`/`getRemainingTime`: how long to wait before creating a replacement pod at `nowMs` —
 * `base · 2^(failures−1)` capped at `max`, counted from the last failure; 0 without failures or once it passed.
 */
export function remainingBackoffMs(
  rec: BackoffRecord,
  nowMs: number,
  baseMs = DEFAULT_JOB_POD_FAILURE_BACKOFF_MS,
  maxMs = MAX_JOB_POD_FAILURE_BACKOFF_MS,
): number {
  if (rec.failuresAfterLastSuccess === 0 || rec.lastFailureTime === undefined) return 0;
  const backoff = Math.min(baseMs * 2 ** (rec.failuresAfterLastSuccess - 1), maxMs);
  const left = backoff - (nowMs - rec.lastFailureTime);
  return Math.max(left, 0);
}
