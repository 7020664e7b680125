import type { Clock } from "@informer-ts/clock";
import type { MetricsProvider } from "@informer-ts/instrumentation";
import type { TypedRateLimiter } from "./default-rate-limiters.js";
import { DelayingQueue, type TypedDelayingInterface } from "./delaying-queue.js";
import type { DrainSemantics, GetResult } from "./queue.js";

/** A delaying queue that re-adds items after a rate limiter's delay (`workqueue.TypedRateLimitingInterface`). */
export interface TypedRateLimitingInterface<T> extends TypedDelayingInterface<T> {
  /** `addAfter(item, rateLimiter.when(item))` (L1). */
  addRateLimited(item: T): void;
  /**
   * Tells the rate limiter to stop tracking `item` (after success or a permanent failure). It only clears
   * the limiter: the worker must still call `done(item)`.
   */
  forget(item: T): void;
  /** How many times the limiter has seen `item` fail since the last `forget`. */
  numRequeues(item: T): number;
}

/** Options of {@link RateLimitingQueue} (`workqueue.TypedRateLimitingQueueConfig`). */
export interface RateLimitingQueueConfig<T> {
  /** The queue name: the `name` label of its metrics. Unnamed queues record no metrics. Default `""`. */
  readonly name?: string;
  /** Where metrics go. Default: the provider given to `setProvider`, else no metrics. */
  readonly metricsProvider?: MetricsProvider;
  /** Source of time for delays, timers and metrics. Default `realClock`. */
  readonly clock?: Clock;
  /** The delaying queue to wrap. Default: a new {@link DelayingQueue} with this config. */
  readonly delayingQueue?: TypedDelayingInterface<T>;
  /** Passed to the default inner queue. */
  readonly drainSemantics?: DrainSemantics;
  /** Passed to the default inner queue. */
  readonly unfinishedWorkUpdatePeriod?: number;
}

/**
 * The queue controllers use (`workqueue.rateLimitingType`, built by `NewTypedRateLimitingQueueWithConfig`):
 * a {@link DelayingQueue} plus a {@link TypedRateLimiter}.
 *
 * `addRateLimited(x)` asks the limiter for `when(x)` — which counts a failure and, for a bucket, takes a
 * token, **even when the queue is already shutting down** — and passes the delay to `addAfter` (L1).
 * Remember to call `forget` when an item succeeds, or its failure count grows forever.
 *
 * ```ts
 * const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(), { name: "pods" });
 * for (;;) {
 *   const [key, shutdown] = await queue.get();
 *   if (shutdown) break;
 *   try { await reconcile(key); queue.forget(key); } catch { queue.addRateLimited(key); }
 *   finally { queue.done(key); }
 * }
 * ```
 */
export class RateLimitingQueue<T> implements TypedRateLimitingInterface<T> {
  private readonly delaying: TypedDelayingInterface<T>;

  constructor(
    private readonly rateLimiter: TypedRateLimiter<T>,
    config: RateLimitingQueueConfig<T> = {},
  ) {
    this.delaying =
      config.delayingQueue ??
      new DelayingQueue<T>({
        name: config.name,
        metricsProvider: config.metricsProvider,
        clock: config.clock,
        drainSemantics: config.drainSemantics,
        unfinishedWorkUpdatePeriod: config.unfinishedWorkUpdatePeriod,
      });
  }

  addRateLimited(item: T): void {
    this.delaying.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  addAfter(item: T, durationMs: number): void {
    this.delaying.addAfter(item, durationMs);
  }

  add(item: T): void {
    this.delaying.add(item);
  }

  len(): number {
    return this.delaying.len();
  }

  get(signal?: AbortSignal): Promise<GetResult<T>> {
    return this.delaying.get(signal);
  }

  tryGet(): T | undefined {
    return this.delaying.tryGet();
  }

  done(item: T): void {
    this.delaying.done(item);
  }

  shutDown(): void {
    this.delaying.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    return this.delaying.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.delaying.shuttingDown();
  }
}
