import { type Clock, realClock } from "@informer-ts/clock";
import { Limiter } from "./rate.js";

/**
 * Decides how long an item waits before it is retried (`workqueue.TypedRateLimiter[T]`). Durations are in
 * milliseconds. Items are compared with SameValueZero, like the queue's.
 */
export interface TypedRateLimiter<T> {
  /** How long `item` should wait now. Usually also records one more failure of `item`. */
  when(item: T): number;
  /** Stops tracking `item` (after success or a permanent failure). */
  forget(item: T): void;
  /** How many failures of `item` are being tracked. */
  numRequeues(item: T): number;
}

/** Largest `int64`, the overflow bound of client-go's nanosecond arithmetic. */
const MAX_INT64 = 9.223372036854776e18;

/**
 * Per-item exponential backoff (`TypedItemExponentialFailureRateLimiter`, L2): the n-th call for an item
 * (counting from 0) returns `baseDelay · 2^n`, capped at `maxDelay`; an overflowing value also gives
 * `maxDelay`. `numRequeues` is the number of calls since the last `forget`; `forget` resets it.
 *
 * Delays are computed in nanoseconds and truncated as in Go, then returned in ms.
 */
export class ItemExponentialFailureRateLimiter<T> implements TypedRateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {
    checkDuration("ItemExponentialFailureRateLimiter baseDelay", baseDelayMs);
    checkDuration("ItemExponentialFailureRateLimiter maxDelay", maxDelayMs);
  }

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoffNs = Math.round(this.baseDelayMs * 1e6) * 2 ** exp;
    if (backoffNs > MAX_INT64) return this.maxDelayMs;
    const calculated = Math.trunc(backoffNs) / 1e6;
    return Math.min(calculated, this.maxDelayMs);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }
}

/**
 * A fast delay for the first `maxFastAttempts` failures of an item, then a slow one
 * (`TypedItemFastSlowRateLimiter`, L7).
 */
export class ItemFastSlowRateLimiter<T> implements TypedRateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly fastDelayMs: number,
    private readonly slowDelayMs: number,
    private readonly maxFastAttempts: number,
  ) {
    checkDuration("ItemFastSlowRateLimiter fastDelay", fastDelayMs);
    checkDuration("ItemFastSlowRateLimiter slowDelay", slowDelayMs);
  }

  when(item: T): number {
    const failures = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, failures);
    return failures <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }
}

/**
 * An overall token bucket shared by all items (`TypedBucketRateLimiter`, L5): `when` reserves one token and
 * returns the reservation's delay. It takes a token on **every** call, even inside a
 * {@link MaxOfRateLimiter} where another limiter's delay wins. `numRequeues` is always 0; `forget` does
 * nothing.
 */
export class BucketRateLimiter<T> implements TypedRateLimiter<T> {
  constructor(readonly limiter: Limiter) {}

  when(_item: T): number {
    return this.limiter.reserve().delay();
  }

  numRequeues(_item: T): number {
    return 0;
  }

  forget(_item: T): void {}
}

/**
 * The worst case of several limiters (`TypedMaxOfRateLimiter`, L6): `when` asks **every** limiter (each one
 * records the failure) and returns the largest delay; `numRequeues` is the largest count; `forget` forgets
 * in all of them.
 */
export class MaxOfRateLimiter<T> implements TypedRateLimiter<T> {
  private readonly limiters: readonly TypedRateLimiter<T>[];

  constructor(...limiters: TypedRateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let ret = 0;
    for (const limiter of this.limiters) {
      const curr = limiter.when(item);
      if (curr > ret) ret = curr;
    }
    return ret;
  }

  numRequeues(item: T): number {
    let ret = 0;
    for (const limiter of this.limiters) {
      const curr = limiter.numRequeues(item);
      if (curr > ret) ret = curr;
    }
    return ret;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }
}

/** Caps another limiter's delay at `maxDelay` (`TypedWithMaxWaitRateLimiter`, L8). */
export class WithMaxWaitRateLimiter<T> implements TypedRateLimiter<T> {
  constructor(
    private readonly limiter: TypedRateLimiter<T>,
    private readonly maxDelayMs: number,
  ) {
    checkDuration("WithMaxWaitRateLimiter maxDelay", maxDelayMs);
  }

  when(item: T): number {
    const delay = this.limiter.when(item);
    return Math.min(delay, this.maxDelayMs);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}

/**
 * The controllers' default (`DefaultTypedControllerRateLimiter`, L3): the maximum of a per-item exponential
 * backoff from 5 ms to 1000 s and an overall bucket of 10 retries per second with a burst of 100. The bucket
 * reads time from `clock` (default `realClock`; client-go always uses the wall clock).
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): TypedRateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(new Limiter(10, 100, clock)),
  );
}

/** Per-item exponential backoff from 1 ms to 1000 s (`DefaultTypedItemBasedRateLimiter`, L4). */
export function defaultItemBasedRateLimiter<T>(): TypedRateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(1, 1_000_000);
}

function checkDuration(what: string, ms: number): void {
  if (Number.isNaN(ms)) throw new RangeError(`${what} must be a number of milliseconds, got NaN`);
}
