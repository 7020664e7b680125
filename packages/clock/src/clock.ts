/**
 * A one-shot timer created by {@link Clock.afterFunc}.
 *
 * Mirrors the subset of Go's `time.Timer` / k8s.io/utils `clock.Timer` that the port needs.
 */
export interface Timer {
  /** Cancels the timer. Returns true if it was still pending (it will now never fire). */
  stop(): boolean;
  /**
   * Re-arms the timer to fire `ms` after the clock's current time, whether or not it already fired.
   * Returns true if the timer was still pending before the reset.
   */
  reset(ms: number): boolean;
}

/** A repeating timer created by {@link Clock.newTicker}. */
export interface Ticker {
  /** Stops the ticker; no further ticks are delivered. Idempotent. */
  stop(): void;
}

/**
 * The single source of time for every component in informer-ts (`k8s.io/utils/clock`).
 *
 * Every timeout, backoff, resync period, bookmark, jitter and rate limit goes through a `Clock`, so the
 * same code runs in real time ({@link RealClock}) and in virtual time ({@link FakeClock}). Times are
 * milliseconds since the Unix epoch; durations are milliseconds.
 */
export interface Clock {
  /** The current time in milliseconds since the Unix epoch. */
  now(): number;
  /** Milliseconds elapsed since `t` (a value returned by {@link Clock.now}). */
  since(t: number): number;
  /**
   * Calls `fn` once, `ms` milliseconds from now (`time.AfterFunc`). A delay ≤ 0 fires as soon as the
   * clock runs timers, never synchronously inside this call.
   */
  afterFunc(ms: number, fn: () => void): Timer;
  /** Calls `fn` every `ms` milliseconds until stopped (`time.NewTicker`). `ms` must be > 0. */
  newTicker(ms: number, fn: () => void): Ticker;
  /**
   * Resolves after `ms` milliseconds. If `signal` aborts first, the timer is released and the promise
   * rejects with `signal.reason`; an already-aborted signal rejects immediately.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Shared implementation of {@link Clock.sleep} on top of {@link Clock.afterFunc}. */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      timer.stop();
      reject(signal?.reason);
    };
    const timer = clock.afterFunc(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function checkTickerPeriod(ms: number): void {
  if (!(ms > 0) || !Number.isFinite(ms)) {
    throw new RangeError(`ticker period must be a positive finite number of milliseconds, got ${ms}`);
  }
}
