// client-go util/retry: run a function again while it fails with an error worth retrying (a 409 Conflict).
import { isConflict } from "@informer-ts/apimachinery";
import type { Backoff } from "@informer-ts/cache";
import { type Clock, jitter, mathRand, type Rand, realClock } from "@informer-ts/clock";

/**
 * `retry.DefaultRetry`: 5 tries 10 ms apart (jitter 10 %), for conflicts between one controller's own writes — the
 * backoff `retryOnConflict` is usually called with.
 */
export const DefaultRetry: Backoff = Object.freeze({ steps: 5, duration: 10, factor: 1, jitter: 0.1, cap: 0 });

/** `retry.DefaultBackoff`: 4 tries, 10 ms growing ×5 (jitter 10 %), for conflicts with other writers. */
export const DefaultBackoff: Backoff = Object.freeze({ steps: 4, duration: 10, factor: 5, jitter: 0.1, cap: 0 });

/** Options of {@link onError} and {@link retryOnConflict}. */
export interface RetryOptions {
  /** Time source of the pauses. Default the real clock. */
  readonly clock?: Clock;
  /** Randomness of the jitter. Default `Math.random`. */
  readonly rand?: Rand;
  /** Stops the retries: the pause rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * `retry.OnError`: calls `fn` up to `backoff.steps` times (at least once), pausing between calls as
 * `wait.ExponentialBackoff` does (`duration`, growing by `factor`, up to `cap`, plus up to `jitter`·duration), while
 * it fails with an error `retriable` accepts. Resolves with `fn`'s result; rejects with the first error that is not
 * retriable, or with the last retriable one once the tries are used up (as client-go returns `lastErr`).
 */
export async function onError<R>(
  backoff: Backoff,
  retriable: (err: unknown) => boolean,
  fn: () => R | Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  checkBackoff(backoff);
  const clock = options.clock ?? realClock;
  const rand = options.rand ?? mathRand;
  let steps = Math.max(1, backoff.steps);
  let duration = backoff.duration;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!retriable(err) || steps <= 1) throw err;
    }
    // `Backoff.Step()`: the pause is the current duration (jittered); the next one grows by `factor` up to `cap`.
    steps--;
    let pause = duration;
    if (backoff.factor !== 0) {
      duration *= backoff.factor;
      if (backoff.cap > 0 && duration > backoff.cap) {
        duration = backoff.cap;
        steps = Math.min(steps, 1);
      }
    }
    if (backoff.jitter > 0) pause = jitter(pause, backoff.jitter, rand);
    await clock.sleep(pause, options.signal);
  }
}

/**
 * `retry.RetryOnConflict`: {@link onError} retrying 409 Conflicts only — wrap the whole read-modify-write, so each
 * try reads the object afresh:
 *
 * ```ts
 * await retryOnConflict(DefaultRetry, async () => {
 *   const d = await api.get(deployments, "web", { namespace });
 *   await api.update(deployments, { ...d, spec: { ...d.spec, replicas: 3 } }, { namespace });
 * });
 * ```
 */
export function retryOnConflict<R>(backoff: Backoff, fn: () => R | Promise<R>, options: RetryOptions = {}): Promise<R> {
  return onError(backoff, isConflict, fn, options);
}

function checkBackoff(b: Backoff): void {
  for (const k of ["steps", "duration", "factor", "jitter", "cap"] as const) {
    const v = b?.[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new RangeError(`retry: backoff.${k} must be a finite number ≥ 0, got ${String(v)}`);
    }
  }
}
