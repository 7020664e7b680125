import { type Clock, clockScheduler, mathRand, type Rand, realClock } from "@informer-ts/clock";
import { defer, type MonoTypeOperatorFunction, retry, throwError, timer } from "rxjs";
import { type Backoff, DEFAULT_BACKOFF_RESET_MS, defaultReflectorBackoff, delayWithReset } from "../backoff.js";

/** Options of the {@link backoff} operator. Durations are milliseconds. */
export interface BackoffPolicy {
  /** Delays between resubscriptions. Default: the reflector's (800 ms ×2, full jitter, capped at 30 s). */
  readonly backoff?: Backoff;
  /** The backoff starts over after this long (default 2 min, as the reflector's). */
  readonly resetInterval?: number;
  /** Resubscribe at most this many times in a row (default: no limit). */
  readonly maxRetries?: number;
  /** Which errors are retried (default: all). Others end the stream at once. */
  readonly shouldRetry?: (error: unknown) => boolean;
  /** Told each retry before its wait (for logs or metrics); must not throw. */
  readonly onRetry?: (error: unknown, delayMs: number, attempt: number) => void;
  /** The clock every wait runs on (default the real clock; tests pass a `FakeClock`). */
  readonly clock?: Clock;
  /** Randomness for the jitter (default `Math.random`). */
  readonly rand?: Rand;
}

/**
 * Resubscribes to the source after it errors, waiting an exponentially growing, jittered delay on the injected
 * clock (kube-rs `default_backoff()` / `StreamBackoff`). A value received resets the attempt count (RxJS
 * `resetOnSuccess`); the delay itself starts over after `resetInterval`. Errors that `shouldRetry` rejects, or
 * the one after `maxRetries` retries, end the stream.
 *
 * A {@link watcher} already retries every failure client-go retries; use this operator after a `fatal` policy, or
 * around any other stream, to restart it with a backoff.
 */
export function backoff<T>(policy: BackoffPolicy = {}): MonoTypeOperatorFunction<T> {
  const clock = policy.clock ?? realClock;
  const scheduler = clockScheduler(clock);
  const shape = policy.backoff ?? defaultReflectorBackoff;
  const resetInterval = policy.resetInterval ?? DEFAULT_BACKOFF_RESET_MS;
  const rand = policy.rand ?? mathRand;
  return (source) =>
    defer(() => {
      const nextDelay = delayWithReset(shape, clock, resetInterval, rand);
      return source.pipe(
        retry({
          ...(policy.maxRetries === undefined ? {} : { count: policy.maxRetries }),
          resetOnSuccess: true,
          delay: (error: unknown, attempt: number) => {
            if (policy.shouldRetry !== undefined && !policy.shouldRetry(error)) return throwError(() => error);
            const delayMs = nextDelay();
            try {
              policy.onRetry?.(error, delayMs, attempt);
            } catch {
              // A broken observer of retries must not change them.
            }
            return timer(delayMs, scheduler);
          },
        }),
      );
    });
}
