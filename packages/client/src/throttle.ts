import { type Clock, realClock } from "@informer-ts/clock";

/**
 * A client-side request rate limiter (`flowcontrol.RateLimiter`). The REST client calls {@link RateLimiter.wait}
 * before each request it throttles.
 */
export interface RateLimiter {
  /** Takes a token if one is available now; never waits (`TryAccept`). */
  tryAccept(): boolean;
  /**
   * Resolves when the caller may send its request (`Wait`). If `signal` aborts first, the reservation is given
   * back and the promise rejects with `signal.reason`.
   */
  wait(signal?: AbortSignal): Promise<void>;
  /** The configured rate in requests per second (`QPS`). */
  qps(): number;
}

/**
 * A token bucket (`flowcontrol.NewTokenBucketRateLimiter`, i.e. `golang.org/x/time/rate.Limiter`): it starts full
 * with `burst` tokens, refills at `qps` tokens per second up to `burst`, and every request takes one token.
 * Requests that find the bucket empty reserve a future token and wait for it, so waiters are served in arrival
 * order at exactly `qps`. Time comes from the injected clock.
 *
 * Differences from client-go: a cancelled wait returns its token to the bucket (x/time/rate restores it only
 * partially when later reservations exist); `wait` has no context deadline short-circuit.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`token bucket qps must be > 0, got ${rate}`);
    if (!(burst >= 1) || !Number.isInteger(burst)) {
      throw new RangeError(`token bucket burst must be an integer ≥ 1, got ${burst}`);
    }
    this.tokens = burst;
    this.last = clock.now();
  }

  qps(): number {
    return this.rate;
  }

  tryAccept(): boolean {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  async wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const delayMs = this.reserve();
    if (delayMs <= 0) return;
    try {
      await this.clock.sleep(delayMs, signal);
    } catch (err) {
      // Give the reserved token back: the request will not be sent.
      this.refill();
      this.tokens = Math.min(this.burst, this.tokens + 1);
      throw err;
    }
  }

  /** Takes one token (possibly going negative) and returns how long to wait for it, in ms. */
  private reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.rate) * 1000;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed / 1000) * this.rate);
  }
}

/**
 * `flowcontrol.NewTokenBucketRateLimiterWithClock`: a {@link TokenBucketRateLimiter} of `qps` and `burst` on
 * `clock`.
 */
export function newTokenBucketRateLimiter(qps: number, burst: number, clock: Clock = realClock): RateLimiter {
  return new TokenBucketRateLimiter(qps, burst, clock);
}
