import type { Clock } from "@informer-ts/clock";

/**
 * Decides whether an error should be retried in place, within a time budget (`cache.RetryWithDeadline`,
 * retry_with_deadline.go). The reflector uses it for watch errors that are internal server errors (500).
 *
 * `after(err)` records an error: when `isRetryable(err)`, a window opens at the first such error and is reset
 * if at least `minResetPeriod` passed since the previous one. `shouldRetry()` is true while
 * `now - firstError ≤ maxRetryDuration`; once the budget is exhausted it returns false and forgets the window.
 * A `maxRetryDuration` ≤ 0 never retries.
 */
export interface RetryWithDeadline {
  after(err: unknown): void;
  shouldRetry(): boolean;
}

class RetryWithDeadlineImpl implements RetryWithDeadline {
  /** Go's zero `time.Time` becomes `undefined`. */
  private firstErrorTime: number | undefined;
  private lastErrorTime: number | undefined;

  constructor(
    private readonly maxRetryDuration: number,
    private readonly minResetPeriod: number,
    private readonly isRetryable: (err: unknown) => boolean,
    private readonly clock: Clock,
  ) {}

  private reset(): void {
    this.firstErrorTime = undefined;
    this.lastErrorTime = undefined;
  }

  after(err: unknown): void {
    if (err === undefined || err === null || !this.isRetryable(err)) return;
    const now = this.clock.now();
    // Go subtracts the zero time, which gives a huge duration: a first error always "resets".
    if (this.lastErrorTime === undefined || now - this.lastErrorTime >= this.minResetPeriod) this.reset();
    if (this.firstErrorTime === undefined) this.firstErrorTime = now;
    this.lastErrorTime = now;
  }

  shouldRetry(): boolean {
    if (this.maxRetryDuration <= 0) return false;
    if (this.firstErrorTime !== undefined && this.clock.now() - this.firstErrorTime <= this.maxRetryDuration) {
      return true;
    }
    this.reset();
    return false;
  }
}

/**
 * Creates a {@link RetryWithDeadline} (`NewRetryWithDeadline`). Durations are milliseconds.
 *
 * Differences from client-go: `after(undefined)` stands for Go's `After(nil)` and does nothing (Go passes nil to
 * `isRetryable`, which for the reflector's `IsInternalError` is also a no-op).
 */
export function newRetryWithDeadline(
  maxRetryDuration: number,
  minResetPeriod: number,
  isRetryable: (err: unknown) => boolean,
  clock: Clock,
): RetryWithDeadline {
  return new RetryWithDeadlineImpl(maxRetryDuration, minResetPeriod, isRetryable, clock);
}
