import { type Clock, realClock } from "@informer-ts/clock";

/** `rate.Inf`: the infinite rate; it allows every event, even with a zero burst. */
export const Inf = Number.MAX_VALUE;

/**
 * `rate.InfDuration` in milliseconds: Go's largest `time.Duration` (2^63 − 1 ns, about 292 years). Returned
 * by reservations that can never be satisfied; also the largest delay a delaying queue accepts.
 */
export const InfDuration = 9_223_372_036_854.775;

/** `rate.Every`: the limit (events per second) of one event every `intervalMs`; ≤ 0 gives {@link Inf}. */
export function every(intervalMs: number): number {
  if (intervalMs <= 0) return Inf;
  return 1 / (intervalMs / 1000);
}

/**
 * The outcome of {@link Limiter.reserve} (`rate.Reservation`): whether the tokens can ever be granted and,
 * if so, from when.
 */
export class Reservation {
  /** @internal */
  constructor(
    private readonly isOk: boolean,
    private readonly timeToAct: number,
    private readonly clock: Clock,
  ) {}

  /** Whether the limiter can grant the tokens at all (false when more than the burst was asked for). */
  ok(): boolean {
    return this.isOk;
  }

  /** `Delay`: how long to wait from now before acting; {@link InfDuration} when not ok. */
  delay(): number {
    return this.delayFrom(this.clock.now());
  }

  /** `DelayFrom`: the wait from time `t` (ms); 0 once the time to act has passed. */
  delayFrom(t: number): number {
    if (!this.isOk) return InfDuration;
    const d = this.timeToAct - t;
    return Math.max(d, 0);
  }
}

/**
 * A token bucket (`golang.org/x/time/rate.Limiter`): `burst` tokens, initially full, refilled at `limit`
 * tokens per second up to `burst`. A reservation takes its tokens at once even when they are not there yet:
 * the balance may go negative, and the caller must wait `-tokens / limit` seconds. With `limit` ≥ {@link Inf}
 * everything is allowed; with `limit` 0 nothing beyond the initial burst is.
 *
 * Times come from the injected clock (default `realClock`), in ms; delays keep Go's nanosecond truncation.
 *
 * Differences from x/time/rate: durations are milliseconds; `wait`, `cancel` and the setters are not ported
 * (the workqueue needs only reservations).
 */
export class Limiter {
  private readonly lim: number;
  private readonly burstSize: number;
  private tokenCount: number;
  /** Clock time of the last token update; −∞ before the first (Go's zero `time.Time`). */
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    limit: number,
    burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (Number.isNaN(limit) || limit < 0) throw new RangeError(`Limiter: limit must be ≥ 0 events/s, got ${limit}`);
    if (!Number.isInteger(burst) || burst < 0) {
      throw new RangeError(`Limiter: burst must be a non-negative integer, got ${burst}`);
    }
    this.lim = limit;
    this.burstSize = burst;
    this.tokenCount = burst;
  }

  /** The refill rate in events per second. */
  limit(): number {
    return this.lim;
  }

  /** The bucket size. */
  burst(): number {
    return this.burstSize;
  }

  /** Tokens available at time `t` (may be negative after reservations); does not change the limiter. */
  tokensAt(t: number): number {
    return this.advance(t);
  }

  /** Tokens available now. */
  tokens(): number {
    return this.tokensAt(this.clock.now());
  }

  /** Whether one event may happen now; consumes a token if so. */
  allow(): boolean {
    return this.allowN(this.clock.now(), 1);
  }

  /** Whether `n` events may happen at `t`; consumes the tokens if so. */
  allowN(t: number, n: number): boolean {
    return this.reserveN(t, n, 0).ok();
  }

  /** Reserves one token now (`Reserve`): it is taken even if that drives the balance negative. */
  reserve(): Reservation {
    return this.reserveN(this.clock.now(), 1);
  }

  /** Reserves `n` tokens at time `t` (`ReserveN`). Not ok, and nothing taken, when `n` exceeds the burst. */
  reserveN(t: number, n: number, maxFutureReserve: number = InfDuration): Reservation {
    if (this.lim >= Inf) return new Reservation(true, t, this.clock);
    let tokens = this.advance(t);
    tokens -= n;
    let wait = 0;
    if (tokens < 0) wait = durationFromTokens(this.lim, -tokens);
    const ok = n <= this.burstSize && wait <= maxFutureReserve;
    if (!ok) return new Reservation(false, 0, this.clock);
    this.last = t;
    this.tokenCount = tokens;
    return new Reservation(true, t + wait, this.clock);
  }

  private advance(t: number): number {
    const last = Math.min(t, this.last);
    const elapsed = t - last;
    const tokens = this.tokenCount + tokensFromDuration(this.lim, elapsed);
    return Math.min(tokens, this.burstSize);
  }
}

/** Time (ms) to accumulate `tokens` at `limit` per second, truncated to whole nanoseconds as in Go. */
function durationFromTokens(limit: number, tokens: number): number {
  if (limit <= 0) return InfDuration;
  const ns = (tokens / limit) * 1e9;
  if (ns > 9.223372036854776e18) return InfDuration;
  return Math.trunc(ns) / 1e6;
}

/** Tokens accumulated at `limit` per second over `ms`. */
function tokensFromDuration(limit: number, ms: number): number {
  if (limit <= 0) return 0;
  return (ms / 1000) * limit;
}
