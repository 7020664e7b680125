import { type Clock, realClock, type Ticker, type Timer } from "@informer-ts/clock";
import type { MetricsProvider } from "@informer-ts/instrumentation";
import { WaitingHeap } from "./internal/waiting-heap.js";
import { newRetryMetrics, type RetryMetrics, resolveProvider } from "./metrics.js";
import { type DrainSemantics, type GetResult, Queue, type TypedInterface } from "./queue.js";
import { InfDuration } from "./rate.js";

/** A {@link TypedInterface} that can also add an item later (`workqueue.TypedDelayingInterface[T]`). */
export interface TypedDelayingInterface<T> extends TypedInterface<T> {
  /**
   * Adds `item` once `durationMs` has passed on the queue's clock (Q1). A duration ≤ 0 adds it now. A no-op
   * once the queue is shutting down.
   */
  addAfter(item: T, durationMs: number): void;
}

/** Options of {@link DelayingQueue} (`workqueue.TypedDelayingQueueConfig`). */
export interface DelayingQueueConfig<T> {
  /** The queue name: the `name` label of its metrics. Unnamed queues record no metrics. Default `""`. */
  readonly name?: string;
  /** Where metrics go. Default: the provider given to `setProvider`, else no metrics. */
  readonly metricsProvider?: MetricsProvider;
  /** Source of time for delays, timers and metrics. Default `realClock`. */
  readonly clock?: Clock;
  /**
   * The queue that receives items when they are due. Default: a new {@link Queue} with this config's name,
   * provider, clock, `drainSemantics` and `unfinishedWorkUpdatePeriod`.
   */
  readonly queue?: TypedInterface<T>;
  /** Passed to the default inner {@link Queue}. */
  readonly drainSemantics?: DrainSemantics;
  /** Passed to the default inner {@link Queue}. */
  readonly unfinishedWorkUpdatePeriod?: number;
}

/** client-go's `maxWait`: the heartbeat that re-checks the waiting items, in ms. */
export const maxWait = 10_000;

/**
 * A work queue with delayed adds (`workqueue.delayingType`, built by `NewTypedDelayingQueueWithConfig`).
 *
 * Waiting items live in a min-heap on their due time plus a map item → entry (Q2). Adding an item that is
 * already waiting only ever moves it **earlier**; a later time never postpones it. Due items go through the
 * inner queue's `add`, so the dirty-set deduplication applies to them. Items due at the same time come out
 * in the order they were first delayed. One clock timer is armed for the earliest item, plus a heartbeat
 * every {@link maxWait} ms while any item waits. `workqueue_retries_total` counts every `addAfter` call made
 * before shutdown, including those with a delay ≤ 0.
 *
 * Shutdown (Q3): `shutDown` shuts the inner queue down once and **discards** every waiting item;
 * `shutDownWithDrain` discards them too (client-go's waiting loop stops on its next wake-up without adding
 * them) and then drains the inner queue.
 *
 * Differences from client-go: there is no waiting-loop goroutine and no 1000-entry channel, so `addAfter`
 * never blocks; the entry is inserted synchronously and timers on the clock do the waking. The heartbeat
 * runs only while items wait (client-go ticks for the queue's whole life), so `FakeClock.runUntilIdle`
 * terminates and an idle queue holds no timer; `shutDownWithDrain` stops the timers (client-go leaks its
 * heartbeat ticker there). Equal due times are ordered FIFO (client-go: unspecified).
 */
export class DelayingQueue<T> implements TypedDelayingInterface<T> {
  private readonly inner: TypedInterface<T>;
  private readonly clock: Clock;
  private readonly waiting = new WaitingHeap<T>();
  private readonly retryMetrics: RetryMetrics | undefined;
  /** Timer for the earliest waiting item, and the time it was armed for. */
  private timer: Timer | undefined;
  private timerDue = 0;
  private heartbeat: Ticker | undefined;
  /** `stopOnce` of client-go's `ShutDown`. */
  private stopped = false;

  constructor(config: DelayingQueueConfig<T> = {}) {
    this.clock = config.clock ?? realClock;
    const name = config.name ?? "";
    this.inner =
      config.queue ??
      new Queue<T>({
        name,
        metricsProvider: config.metricsProvider,
        clock: this.clock,
        drainSemantics: config.drainSemantics,
        unfinishedWorkUpdatePeriod: config.unfinishedWorkUpdatePeriod,
      });
    this.retryMetrics = newRetryMetrics(name, resolveProvider(config.metricsProvider));
  }

  addAfter(item: T, durationMs: number): void {
    if (Number.isNaN(durationMs)) {
      throw new RangeError(`DelayingQueue.addAfter: duration must be a number of milliseconds, got NaN`);
    }
    if (this.inner.shuttingDown()) return;
    this.retryMetrics?.retry();
    if (durationMs <= 0) {
      this.inner.add(item);
      return;
    }
    if (this.stopped) return;
    const now = this.clock.now();
    // Go durations stop at about 292 years; an Infinity delay waits that long instead of breaking the timers.
    const readyAt = now + Math.min(durationMs, InfDuration);
    // A delay below the clock's resolution is already due, as in client-go's `readyAt.After(now)` check.
    if (!(readyAt > now)) {
      this.inner.add(item);
      return;
    }
    if (this.waiting.insert(item, readyAt)) this.arm();
  }

  add(item: T): void {
    this.inner.add(item);
  }

  len(): number {
    return this.inner.len();
  }

  get(signal?: AbortSignal): Promise<GetResult<T>> {
    return this.inner.get(signal);
  }

  tryGet(): T | undefined {
    return this.inner.tryGet();
  }

  done(item: T): void {
    this.inner.done(item);
  }

  shuttingDown(): boolean {
    return this.inner.shuttingDown();
  }

  shutDown(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.inner.shutDown();
    this.discardWaiting();
  }

  shutDownWithDrain(): Promise<void> {
    this.discardWaiting();
    return this.inner.shutDownWithDrain();
  }

  /** Adds every due item to the inner queue, then re-arms for the next one (one pass of the waiting loop). */
  private addReady(now: number): void {
    if (this.inner.shuttingDown()) {
      this.discardWaiting();
      return;
    }
    for (let head = this.waiting.peek(); head !== undefined && head.readyAt <= now; head = this.waiting.peek()) {
      this.waiting.pop();
      this.inner.add(head.item);
    }
    this.arm();
  }

  /** Points the timer at the earliest waiting item and keeps the heartbeat running while items wait. */
  private arm(): void {
    const head = this.waiting.peek();
    if (head === undefined) {
      this.stopTimers();
      return;
    }
    if (this.timer === undefined || this.timerDue !== head.readyAt) {
      this.timer?.stop();
      const due = head.readyAt;
      this.timerDue = due;
      this.timer = this.clock.afterFunc(due - this.clock.now(), () => {
        this.timer = undefined;
        // The clock fired the timer armed for `due`, so `due` has come even if float rounding says otherwise.
        this.addReady(Math.max(this.clock.now(), due));
      });
    }
    this.heartbeat ??= this.clock.newTicker(maxWait, () => this.addReady(this.clock.now()));
  }

  private stopTimers(): void {
    this.timer?.stop();
    this.timer = undefined;
    this.heartbeat?.stop();
    this.heartbeat = undefined;
  }

  private discardWaiting(): void {
    this.waiting.clear();
    this.stopTimers();
  }
}
