import { type Clock, realClock, type Ticker } from "@informer-ts/clock";
import type { MetricsProvider } from "@informer-ts/instrumentation";
import { Deque } from "./internal/deque.js";
import { type ItemTimes, newQueueMetrics, type QueueMetrics, resolveProvider } from "./metrics.js";

/**
 * What {@link TypedInterface.get} resolves to, shaped like Go's `(item, shutdown)` pair:
 * `[item, false]` hands out an item (call `done(item)` when finished); `[undefined, true]` means the queue
 * is shut down and empty, so the worker should stop.
 *
 * ```ts
 * const [item, shutdown] = await queue.get();
 * if (shutdown) return;
 * ```
 */
export type GetResult<T> = readonly [item: T, shutdown: false] | readonly [item: undefined, shutdown: true];

/**
 * A work queue (`workqueue.TypedInterface[T]`): a deduplicating FIFO where every item is processed by at most
 * one worker at a time.
 *
 * Items are compared with SameValueZero (JavaScript `Set`/`Map` identity), the counterpart of Go's
 * `comparable` map keys: strings and numbers compare by value, objects by reference. Typical items are
 * string keys such as `namespace/name`.
 */
export interface TypedInterface<T> {
  /** Marks `item` as needing processing (W2). Ignored once the queue is shutting down. */
  add(item: T): void;
  /** Number of items waiting to be handed out (W7); excludes in-flight and dirty-while-processing items. */
  len(): number;
  /**
   * Resolves with the next item, waiting while the queue is empty (W3). Several callers may wait at once;
   * they are served in call order. Resolves `[undefined, true]` once the queue is shut down and empty.
   * An aborted `signal` withdraws the wait and rejects with `signal.reason`; no item is consumed.
   */
  get(signal?: AbortSignal): Promise<GetResult<T>>;
  /**
   * The synchronous fast path of {@link TypedInterface.get}: the next item if one is queued (it is then in
   * flight, exactly as after `get`), else `undefined` — whether the queue is empty or shut down. Not in
   * client-go. Do not use it with a queue whose items can themselves be `undefined`.
   */
  tryGet(): T | undefined;
  /** Marks `item` as finished (W4); an item re-added while in flight goes back to the queue. */
  done(item: T): void;
  /** Stops accepting items and releases waiting `get` callers (W5). Queued items are still handed out. */
  shutDown(): void;
  /** Like `shutDown`, then resolves once in-flight work has finished (W6; see {@link DrainSemantics}). */
  shutDownWithDrain(): Promise<void>;
  /** Whether `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean;
}

/**
 * The storage order of a {@link Queue} (`workqueue.Queue[T]`): called only from the queue's own synchronous
 * turns. Every item in it is dirty and not in flight. The default, {@link defaultQueue}, is a FIFO.
 */
export interface QueueStorage<T> {
  /** An item already queued was added again (a priority queue could move it). */
  touch(item: T): void;
  /** Adds a new item. */
  push(item: T): void;
  /** Number of items stored. */
  len(): number;
  /** Removes and returns the next item; only called when `len() > 0`. */
  pop(): T;
}

/**
 * The FIFO behind {@link defaultQueue}. A {@link Queue} given one uses its own built-in FIFO instead; this
 * class serves code that wraps the default order in a custom storage.
 */
class FifoStorage<T> implements QueueStorage<T> {
  readonly deque = new Deque<T>();
  touch(_item: T): void {}
  push(item: T): void {
    this.deque.push(item);
  }
  len(): number {
    return this.deque.length;
  }
  pop(): T {
    return this.deque.shift() as T;
  }
}

/**
 * The default {@link QueueStorage} (`workqueue.DefaultQueue`): a FIFO ring buffer that clears popped slots
 * and shrinks after a burst, so it never keeps a handed-out item or a burst-sized array alive.
 */
export function defaultQueue<T>(): QueueStorage<T> {
  return new FifoStorage<T>();
}

/**
 * How {@link Queue.shutDownWithDrain} decides that the queue is drained.
 *
 * - `"client-go"` (default, client-go v1.36): it resolves as soon as **no item is in flight**, even if items
 *   are still queued (workers keep receiving them afterwards). `done(x)` for an `x` that is not in flight but
 *   dirty pushes `x` again, which can put `x` in the queue twice and hand it to two workers (upstream quirk).
 * - `"pr141079"` (kubernetes/kubernetes PR 141079, open): it resolves once the queue is empty **and** nothing
 *   is in flight, and `done(x)` for an `x` that is not in flight is ignored.
 *
 * In both modes every concurrent `shutDownWithDrain` caller is released, and a later `shutDown()` ends the
 * wait at once. If a worker never calls `done`, the drain never resolves.
 */
export type DrainSemantics = "client-go" | "pr141079";

/** Options of {@link Queue} (`workqueue.TypedQueueConfig`). */
export interface QueueConfig<T> {
  /** The queue name: the `name` label of its metrics. Unnamed queues record no metrics. Default `""`. */
  readonly name?: string;
  /** Where metrics go. Default: the provider given to {@link setProvider}, else no metrics. */
  readonly metricsProvider?: MetricsProvider;
  /** Source of time for metrics and their ticker. Default `realClock`. */
  readonly clock?: Clock;
  /** Storage order. Default {@link defaultQueue} (FIFO); passing `defaultQueue()` is the same as leaving it out. */
  readonly queue?: QueueStorage<T>;
  /** See {@link DrainSemantics}. Default `"client-go"`. */
  readonly drainSemantics?: DrainSemantics;
  /**
   * Period of the unfinished-work gauges update, in ms (client-go's unexported
   * `defaultUnfinishedWorkUpdatePeriod`). Default 500.
   */
  readonly unfinishedWorkUpdatePeriod?: number;
}

interface Waiter<T> {
  resolve(result: GetResult<T>): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Set once the waiter has been answered or withdrawn, so it is skipped if still in the deque. */
  settled: boolean;
}

/** State bits of an item known to the queue: in the dirty set, in the processing set, or both. */
const DIRTY = 1;
const PROCESSING = 2;

/** One item known to the queue (dirty, in flight, or both), its state bits, and its metric timestamps. */
interface Entry<T> extends ItemTimes {
  item: T | undefined;
  bits: number;
}

/** Released entries kept for reuse (their `item` cleared), so a busy queue allocates almost nothing. */
const ENTRY_POOL_MAX = 1024;

const SHUTDOWN: GetResult<never> = Object.freeze([undefined, true] as const);
const SHUTDOWN_PROMISE: Promise<GetResult<never>> = Promise.resolve(SHUTDOWN);

/** client-go's `defaultUnfinishedWorkUpdatePeriod`. */
export const defaultUnfinishedWorkUpdatePeriod = 500;

/**
 * The work queue (`workqueue.Typed[T]`, built by `NewTypedWithConfig`).
 *
 * State (W1): a `queue` (storage order), a `dirty` set (items that need processing) and a `processing` set
 * (items handed out and not yet done). Invariant, true between any two calls: every queued item is dirty and
 * not in flight. Guarantees (W8): an item is never handed to two workers at once; adding an item N times
 * before it is handed out gives one processing; adding it while in flight gives exactly one more processing
 * after `done`.
 *
 * Each method is one synchronous turn (Go's mutex section). `get` resolves at once when an item is queued;
 * otherwise the caller waits, and an item that arrives later is handed directly to the longest-waiting
 * caller (Go's `cond.Signal`), so waiters are served in FIFO order and nobody can take an item out from
 * under a waiter.
 *
 * Metrics (W9, §2a) are recorded when the queue has a `name` and a provider other than `noopMetrics`; only
 * then does it run the 500 ms unfinished-work ticker on its clock, which both shutdown methods stop.
 *
 * Differences from client-go: `get` returns a promise and takes an optional `AbortSignal`; `tryGet` is an
 * added synchronous fast path; `shutDownWithDrain` returns a promise, releases every concurrent caller (Go
 * signals only one), and can follow PR 141079 via `drainSemantics`; the metrics provider is an
 * `@informer-ts/instrumentation` `MetricsProvider` rather than client-go's per-metric factory interface.
 */
export class Queue<T> implements TypedInterface<T> {
  /** A custom storage; undefined for the default FIFO. */
  private readonly storage: QueueStorage<T> | undefined;
  /**
   * The default FIFO: it holds the items' entries, so a hand-out updates the state without a map lookup.
   * Undefined with a custom storage (which holds items).
   */
  private readonly fifo: Deque<Entry<T>> | undefined;
  /**
   * client-go's `dirty` and `processing` sets as one map item → entry with DIRTY | PROCESSING bits: one hash
   * lookup answers both membership questions. An item in neither set has no entry.
   */
  private readonly state = new Map<T, Entry<T>>();
  /** Size of the processing set. */
  private inFlight = 0;
  /**
   * Extra queue entries created by the `done` quirk (an item queued twice). While there are none, every
   * popped item is dirty and not in flight, and `pop` can skip reading its state.
   */
  private duplicates = 0;
  /** Released entries (item cleared) reused by `add`, up to {@link ENTRY_POOL_MAX}. */
  private readonly entryPool: Entry<T>[] = [];
  private waiters = new Deque<Waiter<T>>();
  /** Aborted waiters still in `waiters`. */
  private withdrawn = 0;
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;
  private drain = false;
  private readonly strictDrain: boolean;
  private readonly metrics: QueueMetrics | undefined;
  private ticker: Ticker | undefined;

  constructor(config: QueueConfig<T> = {}) {
    const clock = config.clock ?? realClock;
    const custom = config.queue !== undefined && !(config.queue instanceof FifoStorage);
    this.storage = custom ? config.queue : undefined;
    this.fifo = custom ? undefined : new Deque<Entry<T>>();
    this.strictDrain = (config.drainSemantics ?? "client-go") === "pr141079";
    if (config.drainSemantics !== undefined && config.drainSemantics !== "client-go" && !this.strictDrain) {
      throw new RangeError(`drainSemantics must be "client-go" or "pr141079", got ${String(config.drainSemantics)}`);
    }
    this.metrics = newQueueMetrics(resolveProvider(config.metricsProvider), config.name ?? "", clock);
    if (this.metrics !== undefined) {
      const metrics = this.metrics;
      this.ticker = clock.newTicker(config.unfinishedWorkUpdatePeriod ?? defaultUnfinishedWorkUpdatePeriod, () => {
        // The in-flight items are the entries with a start time; with none in flight there is nothing to visit.
        if (!this.isShuttingDown) metrics.updateUnfinishedWork(this.inFlight > 0 ? this.state.values() : []);
      });
    }
  }

  add(item: T): void {
    if (this.isShuttingDown) return;
    const e = this.state.get(item);
    if (e === undefined) {
      let entry = this.entryPool.pop();
      if (entry === undefined) entry = { item, bits: DIRTY, addedAt: undefined, startedAt: undefined };
      else {
        entry.item = item;
        entry.bits = DIRTY;
        entry.addedAt = undefined;
        entry.startedAt = undefined;
      }
      this.metrics?.add(entry);
      this.state.set(item, entry);
      this.push(entry);
      return;
    }
    if ((e.bits & DIRTY) !== 0) {
      // Already waiting to be processed: let a custom storage reorder it, but count nothing.
      if (this.storage !== undefined && e.bits === DIRTY) this.storage.touch(item);
      return;
    }
    // In flight and not dirty: mark it dirty; done() re-queues it.
    this.metrics?.add(e);
    e.bits = PROCESSING | DIRTY;
  }

  len(): number {
    return this.fifo !== undefined ? this.fifo.length : this.storage!.len();
  }

  get(signal?: AbortSignal): Promise<GetResult<T>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.len() > 0) return Promise.resolve([this.pop(), false] as const);
    if (this.isShuttingDown) return SHUTDOWN_PROMISE;
    return new Promise<GetResult<T>>((resolve, reject) => {
      const waiter: Waiter<T> = { resolve, reject, signal, onAbort: undefined, settled: false };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          if (waiter.settled) return;
          waiter.settled = true;
          this.withdrawn++;
          // Withdrawn waiters stay in the deque until served; compact when they are the majority.
          if (this.withdrawn * 2 > this.waiters.length) this.compactWaiters();
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  tryGet(): T | undefined {
    if (this.fifo !== undefined ? this.fifo.length === 0 : this.storage!.len() === 0) return undefined;
    return this.pop();
  }

  done(item: T): void {
    const e = this.state.get(item);
    if (this.strictDrain && (e === undefined || (e.bits & PROCESSING) === 0)) return; // PR 141079: ignore it
    this.metrics?.done(e);
    if (e !== undefined) {
      const bits = e.bits;
      if ((bits & PROCESSING) !== 0) this.inFlight--;
      if ((bits & DIRTY) === 0) {
        this.state.delete(item);
        if (this.duplicates === 0 && this.entryPool.length < ENTRY_POOL_MAX) {
          // Only when no stale entry can still sit in the queue (the quirk's duplicates point to entries).
          e.item = undefined;
          e.bits = 0;
          this.entryPool.push(e);
        }
      } else {
        e.bits = DIRTY;
        // Not in flight but dirty means it is queued already: client-go queues it a second time.
        if ((bits & PROCESSING) === 0) this.duplicates++;
        this.push(e);
      }
    }
    // Go signals the condition here; a drain waiter re-checks whether anything is still in flight.
    if (this.drainWaiters.length > 0) this.releaseDrainWaitersIfDrained();
  }

  shutDown(): void {
    this.stopTicker();
    this.drain = false;
    this.isShuttingDown = true;
    this.releaseGetWaiters();
    this.releaseDrainWaitersIfDrained();
  }

  shutDownWithDrain(): Promise<void> {
    this.stopTicker();
    this.drain = true;
    this.isShuttingDown = true;
    this.releaseGetWaiters();
    if (this.isDrained()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.drainWaiters.push(resolve);
    });
  }

  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  /** Queues a dirty item and hands it out at once if a `get` caller is waiting. */
  private push(entry: Entry<T>): void {
    if (this.fifo !== undefined) this.fifo.push(entry);
    else this.storage!.push(entry.item as T);
    if (this.waiters.length > 0) this.serveWaiters();
  }

  /** The `Get` bookkeeping for one item: pop, count, move from dirty to processing. Needs `len() > 0`. */
  private pop(): T {
    let entry: Entry<T> | undefined;
    let item: T;
    if (this.fifo !== undefined) {
      entry = this.fifo.shift()!;
      item = entry.item as T;
    } else {
      item = this.storage!.pop();
    }
    if (this.duplicates === 0) {
      // Invariant: a queued item is dirty, not in flight, and queued once, as its current entry.
      const current = entry ?? this.state.get(item)!;
      current.bits = PROCESSING;
      this.metrics?.get(current);
      this.inFlight++;
      return item;
    }
    // Slow path while the done() quirk has left duplicate entries: read the item's current state.
    const current = this.state.get(item);
    const bits = current?.bits ?? 0;
    if (current === undefined || (bits & PROCESSING) !== 0) this.duplicates--; // a leftover duplicate entry
    if ((bits & PROCESSING) === 0) this.inFlight++;
    if (current === undefined) {
      const created: Entry<T> = { item, bits: PROCESSING, addedAt: undefined, startedAt: undefined };
      this.state.set(item, created);
      this.metrics?.get(created);
    } else {
      current.bits = PROCESSING;
      this.metrics?.get(current);
    }
    return item;
  }

  private compactWaiters(): void {
    const live = new Deque<Waiter<T>>();
    for (let w = this.waiters.shift(); w !== undefined; w = this.waiters.shift()) if (!w.settled) live.push(w);
    this.waiters = live;
    this.withdrawn = 0;
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0 && this.len() > 0) {
      const waiter = this.waiters.shift()!;
      if (waiter.settled) {
        this.withdrawn--;
        continue;
      }
      this.settle(waiter);
      waiter.resolve([this.pop(), false]);
    }
  }

  private releaseGetWaiters(): void {
    // Waiters exist only while the queue is empty, so every one of them learns about the shutdown.
    while (this.waiters.length > 0) {
      const waiter = this.waiters.shift()!;
      if (waiter.settled) continue;
      this.settle(waiter);
      waiter.resolve(SHUTDOWN);
    }
    this.withdrawn = 0;
  }

  private settle(waiter: Waiter<T>): void {
    waiter.settled = true;
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener("abort", waiter.onAbort);
  }

  private isDrained(): boolean {
    if (!this.drain) return true;
    if (this.inFlight !== 0) return false;
    return !this.strictDrain || this.len() === 0;
  }

  private releaseDrainWaitersIfDrained(): void {
    if (this.drainWaiters.length === 0 || !this.isDrained()) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private stopTicker(): void {
    this.ticker?.stop();
    this.ticker = undefined;
  }
}
