import type { Clock } from "@informer-ts/clock";
import type { Gauge, Histogram, MetricLabels, MetricsProvider } from "@informer-ts/instrumentation";
import { type Delta, type Deltas, DeltaType } from "./delta.js";
import {
  Deque,
  type KeyListerGetter,
  type PopProcessFunc,
  type ProcessBatchFunc,
  type QueueWithBatch,
  type TransformingStore,
} from "./fifo.js";
import { FIFOCore, type Taken } from "./internal/fifo-core.js";
import { describeValue } from "./internal/meta-accessor.js";
import type { InformerMetricLabels } from "./internal/rv-metric.js";
import type { metaNamespaceKeyFunc } from "./keys.js";
import type { BookmarkStore, DeletedFinalStateUnknownLike, KeyFunc } from "./store.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";
import type { TransformFunc } from "./transform-func.js";

/** client-go's `defaultBatchSize`: the most deltas one `popBatch` hands out. */
export const defaultBatchSize = 1000;

/** Bucket upper bounds (seconds) of `informer_processing_latency_seconds` (component-base `clientgo/fifo`). */
export const informerProcessingLatencyBuckets: readonly number[] = Object.freeze([
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]);

/**
 * Where a FIFO publishes its metrics (client-go `InformerMetricsProvider` + `InformerNameAndResource`): a
 * provider plus the informer's identity labels `name`, `group`, `version`, `resource`. The caller is
 * responsible for the identity being unique in the process (client-go publishes only "reserved" names).
 */
export interface FIFOMetricsOptions {
  readonly provider: MetricsProvider;
  readonly labels: InformerMetricLabels;
}

/** Options of {@link RealFIFO} (`cache.RealFIFOOptions`). Every flag defaults to `false`, as in Go. */
export interface RealFIFOOptions<T> {
  /** Name for the sync checker and events. Default `"RealFIFO"`. */
  readonly name?: string;
  /** Key of queued objects. Default {@link metaNamespaceKeyFunc}; tombstones and deltas are unwrapped first. */
  readonly keyFunction?: KeyFunc;
  /**
   * The consumer's store, asked for the keys it knows on `replace` and `resync` (non-atomic mode only).
   * Required when `atomicEvents` is false; forbidden when it is true.
   */
  readonly knownObjects?: KeyListerGetter<T>;
  /** Applied to each incoming object (not to tombstones, `Sync` deltas or bookmarks). Must be idempotent. */
  readonly transformer?: TransformFunc<T>;
  /** 1.36 `AtomicFIFO`: `replace` queues one `ReplacedAll`, `resync` one `SyncAll`. */
  readonly atomicEvents?: boolean;
  /** 1.36 `UnlockWhileProcessingFIFO`: mutations apply while a callback is pending (atomic mode only). */
  readonly unlockWhileProcessing?: boolean;
  /** Queue a `Bookmark` delta for every `bookmark(rv)` (atomic mode only). */
  readonly emitDeltaTypeBookmark?: boolean;
  /** Publish `informer_queued_items` and `informer_processing_latency_seconds`. Default: no metrics. */
  readonly metrics?: FIFOMetricsOptions;
  /** Clock for processing latency and the slow-processing trace. Default `realClock`. */
  readonly clock?: Clock;
  /**
   * Most deltas per `popBatch`; also sets the unlock threshold (`2 × batchSize` queued items). Default
   * {@link defaultBatchSize} (1000). Not an option in client-go (a private field its tests overwrite).
   */
  readonly batchSize?: number;
}

const batchable: ReadonlySet<string> = new Set([
  DeltaType.Sync,
  DeltaType.Replaced,
  DeltaType.Added,
  DeltaType.Updated,
  DeltaType.Deleted,
]);

/**
 * A queue in which every change the reflector reports is delivered **in order, one delta per event**
 * (`cache.RealFIFO`, the informer default since client-go 1.33). Nothing is merged per key: add, update and
 * delete always append (R2), and a delete of an object the consumer never saw is delivered too.
 *
 * Modes (fixed at construction, R1; violations throw synchronously):
 * - **atomic** (`atomicEvents`, the 1.36 default through `newQueueFIFO`): `replace(list, rv)` queues one
 *   `ReplacedAll` delta holding a copy of the (transformed) list (R5), `resync()` queues one `SyncAll` (R8),
 *   `bookmark(rv)` queues a `Bookmark` when `emitDeltaTypeBookmark` is set (R9). The FIFO never reads the
 *   consumer's store, so `knownObjects` is not allowed, and `unlockWhileProcessing` may let mutations in
 *   while a callback is pending (R11).
 * - **non-atomic** (1.33–1.35): `replace` first queues `Deleted(DeletedFinalStateUnknown)` for every queued
 *   key missing from the list whose last queued delta is not `Deleted`, then for every known key missing from
 *   both list and queue, then `Replaced` for each item in list order (R4); `resync` queues `Sync` for each
 *   known key with nothing queued (R7). `knownObjects` is required.
 *
 * Sync (R6, R13): the first `replace` sets `initialPopulationCount` to the **whole** queue length; the queue
 * has synced once that many deltas have been popped **and processed** (the count drops after the callback
 * settles, R10), or at once if an add/update/delete came before any replace.
 *
 * Pop (R10–R12): see {@link RealFIFO.pop} and {@link RealFIFO.popBatch}. Pops are served one at a time in call
 * order; a callback may be async and the next pop waits for it. While a callback holds the lock, mutations
 * are validated immediately (key and transformer errors throw to the caller) and applied in arrival order
 * right after the callback settles. The lock is released instead when `unlockWhileProcessing` is set and
 * fewer than `2 × batchSize` deltas remain queued.
 *
 * Memory: the queue is a ring buffer that clears each popped slot and shrinks as it drains; a `ReplacedAll`
 * delta owns a copy of the list, so the caller's list (and the response holding it) is never pinned.
 *
 * Differences from client-go: mutations are all-or-nothing (keys and transforms of a whole `replace` are
 * computed before anything is queued; Go may queue part of a list before a transform error). A mutation made
 * while a callback holds the lock returns before it is applied (Go blocks the caller); a failure at that
 * point is reported as a `deferredMutationFailed` event. Lookup failures are `knownObjectLookup` events
 * instead of log lines. `batchSize` is an option. The queue shrinks after draining.
 */
export class RealFIFO<T> extends FIFOCore<T> implements QueueWithBatch<T>, BookmarkStore, TransformingStore<T> {
  private readonly items = new Deque<Delta<T>>(16);
  private readonly batchSize: number;
  private readonly emitAtomicEvents: boolean;
  private readonly unlockWhileProcessing: boolean;
  private readonly emitDeltaTypeBookmark: boolean;
  private readonly queuedGauge: Gauge | undefined;
  private readonly latencyHistogram: Histogram | undefined;
  private readonly metricLabels: MetricLabels | undefined;
  /** What a {@link RealPop} may call back into; one object per queue, so a pop allocates no closures. */
  private readonly hooks: PopHooks = {
    keyOf: (obj) => this.keyOf(obj),
    decrementInitialPopulation: (n) => this.decrementInitialPopulation(n),
  };

  /** @throws Error `coding error: …` for a forbidden option combination (R1); TypeError for a bad option type. */
  constructor(options: RealFIFOOptions<T> = {}) {
    super("RealFIFO", options);
    const batchSize = options.batchSize ?? defaultBatchSize;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`RealFIFO batchSize must be a positive integer, got ${describeValue(batchSize)}`);
    }
    const atomic = options.atomicEvents === true;
    if (atomic) {
      if (options.knownObjects !== undefined) {
        throw new Error("coding error: knownObjects must not be provided when atomicEvents is true");
      }
    } else {
      if (options.unlockWhileProcessing === true) {
        throw new Error("coding error: unlockWhileProcessing must be false when atomicEvents is false");
      }
      if (options.knownObjects === undefined) {
        throw new Error("coding error: knownObjects must be provided when atomicEvents is false");
      }
      if (options.emitDeltaTypeBookmark === true) {
        throw new Error("coding error: emitDeltaTypeBookmark must be false when atomicEvents is false");
      }
    }
    this.batchSize = batchSize;
    this.emitAtomicEvents = atomic;
    this.unlockWhileProcessing = options.unlockWhileProcessing === true;
    this.emitDeltaTypeBookmark = options.emitDeltaTypeBookmark === true;
    if (options.metrics !== undefined) {
      const { provider, labels } = options.metrics;
      const labelNames = ["name", "group", "version", "resource"];
      this.queuedGauge = provider.gauge({
        name: "informer_queued_items",
        help: "Number of items currently queued in the FIFO",
        labelNames,
      });
      this.latencyHistogram = provider.histogram({
        name: "informer_processing_latency_seconds",
        help: "Time taken to process events after popping from the queue",
        labelNames,
        buckets: informerProcessingLatencyBuckets,
      });
      this.metricLabels = {
        name: labels.name,
        group: labels.group,
        version: labels.version,
        resource: labels.resource,
      };
    }
  }

  /** Number of queued deltas. Not in client-go (for statistics and tests). */
  get length(): number {
    return this.items.length;
  }

  /**
   * The key of `obj` (R3): a {@link Deltas} list is keyed by its newest delta, a {@link Delta} by its object, a
   * {@link DeletedFinalStateUnknown} by its `key`, anything else by the key function.
   *
   * @throws KeyError for an empty Deltas list or when the key function fails.
   */
  keyOf(obj: unknown): string {
    return this.keyOfQueued(obj, true);
  }

  /** Queues `Added(obj)` (R2) and marks the queue populated. @throws KeyError / the transformer's error. */
  add(obj: T): void {
    this.enqueueObject("add", DeltaType.Added, obj);
  }

  /** Queues `Updated(obj)` (R2). @throws KeyError / the transformer's error. */
  update(obj: T): void {
    this.enqueueObject("update", DeltaType.Updated, obj);
  }

  /**
   * Queues `Deleted(obj)` (R2), even for an object the consumer never saw; a tombstone is queued untransformed.
   * @throws KeyError / the transformer's error.
   */
  delete(obj: T | DeletedFinalStateUnknownLike<T>): void {
    this.enqueueObject("delete", DeltaType.Deleted, obj as T);
  }

  /**
   * Queues a relist. Atomic mode (R5): one `ReplacedAll` delta with `resourceVersion` and a transformed copy of
   * `list`. Non-atomic mode (R4): synthetic deletes first, then `Replaced` per item. The first replace sets
   * the initial population to the whole queue length (R6).
   *
   * @throws KeyError (non-atomic: an item without key) or the transformer's error; nothing is queued then.
   */
  replace(list: readonly T[], resourceVersion: string): void {
    if (this.emitAtomicEvents) {
      const objects = this.transformAll(list);
      this.mutate("replace", () => {
        this.items.push({ type: DeltaType.ReplacedAll, object: { resourceVersion, objects } });
        this.afterEnqueue();
        this.populateOnce();
      });
      return;
    }
    const newKeys = new Set<string>();
    for (let i = 0; i < list.length; i++) newKeys.add(this.keyOf(list[i]));
    const objects = this.transformAll(list);
    this.mutate("replace", () => {
      this.reconcileReplacement(newKeys, objects);
      this.populateOnce();
    });
  }

  /**
   * Atomic mode (R8): queues one `SyncAll`. Non-atomic mode (R7): queues `Sync(knownObj)` (untransformed) for
   * every known key that has nothing queued. Does not mark the queue populated.
   */
  resync(): void {
    if (this.emitAtomicEvents) {
      this.mutate("resync", () => {
        this.items.push({ type: DeltaType.SyncAll, object: {} });
        this.afterEnqueue();
      });
      return;
    }
    const known = this.knownObjects;
    if (known === undefined) return;
    this.mutate("resync", () => {
      const keysInQueue = new Set<string>();
      this.items.forEach((d) => {
        keysInQueue.add(this.keyOf(d.object));
      });
      let queued = false;
      for (const key of known.listKeys()) {
        if (keysInQueue.has(key)) continue;
        const obj = this.lookupKnown(known, key, "resync");
        if (obj === undefined) continue;
        this.items.push({ type: DeltaType.Sync, object: obj });
        queued = true;
      }
      if (queued) this.afterEnqueue();
    });
  }

  /**
   * Queues `Bookmark{resourceVersion}` when `emitDeltaTypeBookmark` is set (R9); otherwise does nothing. Like
   * client-go it neither marks the queue populated nor updates `informer_queued_items`.
   */
  bookmark(resourceVersion: string): void {
    if (!this.emitDeltaTypeBookmark) return;
    this.mutate("bookmark", () => {
      this.items.push({ type: DeltaType.Bookmark, object: { resourceVersion } });
      this.wake();
    });
  }

  /**
   * Waits for a delta, removes it (clearing its slot) and calls `process([delta], isInInitialList)` (R10).
   * `isInInitialList` is true while the queue has not synced. The initial-population count drops only after
   * `process` has returned or its promise settled, so `hasSynced()` is never true while the last initial
   * item is still being applied. Resolves with `[delta]`; rejects with `ErrFIFOClosed` once closed and empty,
   * or with `process`'s error (the delta is not requeued).
   */
  pop(process: PopProcessFunc<T>): Promise<Deltas<T>> {
    return this.schedule(() => {
      const isInInitialList = !this.hasSynced();
      const item = this.items.shift() as Delta<T>;
      this.setQueuedGauge();
      return new RealPop<T>(
        this.hooks,
        [item],
        this.canUnlock(),
        this.items.length,
        isInInitialList,
        process,
        undefined,
      );
    }) as Promise<Deltas<T>>;
  }

  /**
   * Takes consecutive head deltas as one batch (R12) while: fewer than `batchSize` (1000) are taken; the
   * initial population is not crossed (when it is above 0); each delta is `Sync`, `Replaced`, `Added`,
   * `Updated` or `Deleted`; and its key was not taken already in this batch. A non-batchable head delta
   * (`ReplacedAll`, `SyncAll`, `Bookmark`) is taken alone; a delta whose key fails is taken and closes the
   * batch. A batch of one goes to `processSingle([delta])`, larger ones to `processBatch(deltas)`. The
   * initial-population count drops by the batch size after processing. Resolves when processing is done;
   * rejects like {@link RealFIFO.pop}.
   */
  popBatch(processBatch: ProcessBatchFunc<T>, processSingle: PopProcessFunc<T>): Promise<void> {
    return this.schedule(() => {
      const isInInitialList = !this.hasSynced();
      const taken = this.takeBatch();
      this.setQueuedGauge();
      const unlock = this.canUnlock();
      return new RealPop<T>(this.hooks, taken, unlock, this.items.length, isInInitialList, processSingle, processBatch);
    }).then(noResult);
  }

  protected queuedCount(): number {
    return this.items.length;
  }

  protected override needsTiming(): boolean {
    return this.latencyHistogram !== undefined || this.events.observed;
  }

  protected override observeProcessing(durationMs: number, taken: Taken<unknown>): void {
    this.latencyHistogram?.observe(durationMs / 1000, this.metricLabels);
    super.observeProcessing(durationMs, taken);
  }

  private takeBatch(): Delta<T>[] {
    const deltas: Delta<T>[] = [];
    const unique = new Set<string>();
    const limit = Math.min(this.batchSize, this.items.length);
    for (let i = 0; i < limit; i++) {
      if (this.initialPopulationCount > 0 && i >= this.initialPopulationCount) break;
      const item = this.items.at(i) as Delta<T>;
      if (!batchable.has(item.type)) {
        if (deltas.length === 0) deltas.push(item);
        break;
      }
      if (limit === 1) {
        // Nothing to deduplicate against: a broken key is reported by the consumer either way.
        deltas.push(item);
        break;
      }
      let id: string;
      try {
        id = this.keyOf(item.object);
      } catch {
        // Like client-go: take the broken delta (its consumer reports the error) and close the batch.
        deltas.push(item);
        break;
      }
      if (unique.has(id)) break;
      unique.add(id);
      deltas.push(item);
    }
    this.items.drop(deltas.length);
    return deltas;
  }

  private canUnlock(): boolean {
    return this.unlockWhileProcessing && this.items.length < this.batchSize * 2;
  }

  private enqueueObject(operation: string, type: "Added" | "Updated" | "Deleted", obj: T): void {
    const stored = this.prepareObject(operation, obj)[1];
    if (this.isLocked) {
      this.mutate(operation, () => this.appendEvent(type, stored));
      return;
    }
    this.appendEvent(type, stored);
  }

  private appendEvent(type: "Added" | "Updated" | "Deleted", stored: T): void {
    this.markPopulated();
    this.items.push({ type, object: stored } as Delta<T>);
    this.afterEnqueue();
  }

  private populateOnce(): void {
    if (this.populated) return;
    this.populated = true;
    this.initialPopulationCount = this.items.length;
    this.checkSynced();
  }

  private afterEnqueue(): void {
    this.wake();
    this.setQueuedGauge();
  }

  private setQueuedGauge(): void {
    this.queuedGauge?.set(this.items.length, this.metricLabels);
  }

  /** `reconcileReplacement` against the queue and `knownObjects` (R4). Plans first, then appends. */
  private reconcileReplacement(newKeys: ReadonlySet<string>, objects: readonly T[]): void {
    const queuedKeys: string[] = [];
    const lastForKey = new Map<string, Delta<T>>();
    this.items.forEach((d) => {
      const key = this.keyOf(d.object);
      if (!lastForKey.has(key)) queuedKeys.push(key);
      lastForKey.set(key, d);
    });
    const deletions: DeletedFinalStateUnknown<T>[] = [];
    for (const key of queuedKeys) {
      if (newKeys.has(key)) continue;
      const last = lastForKey.get(key) as Delta<T>;
      if (last.type === DeltaType.Deleted) continue;
      deletions.push(new DeletedFinalStateUnknown<T>(key, last.object as T));
    }
    const known = this.knownObjects;
    if (known !== undefined) {
      for (const key of known.listKeys()) {
        if (newKeys.has(key) || lastForKey.has(key)) continue;
        deletions.push(new DeletedFinalStateUnknown<T>(key, this.lookupKnown(known, key, "replace")));
      }
    }
    for (const tombstone of deletions) this.items.push({ type: DeltaType.Deleted, object: tombstone });
    for (const obj of objects) this.items.push({ type: DeltaType.Replaced, object: obj });
    this.afterEnqueue();
  }
}

function noResult(): void {}

/**
 * What one `pop` / `popBatch` took (a class rather than closures: this is the hot path). A batch of one goes
 * to the single-item callback (R12).
 */
interface PopHooks {
  keyOf(obj: unknown): string;
  decrementInitialPopulation(n: number): void;
}

class RealPop<T> implements Taken<Deltas<T>> {
  readonly batchSize: number;

  constructor(
    private readonly hooks: PopHooks,
    readonly result: Deltas<T>,
    readonly unlock: boolean,
    readonly depth: number,
    private readonly isInInitialList: boolean,
    private readonly single: PopProcessFunc<T>,
    private readonly batch: ProcessBatchFunc<T> | undefined,
  ) {
    this.batchSize = result.length;
  }

  firstKey(): string {
    return this.hooks.keyOf(this.result[0]);
  }

  run(): void | PromiseLike<void> {
    if (this.batch === undefined || this.result.length === 1) return this.single(this.result, this.isInInitialList);
    return this.batch(this.result, this.isInInitialList);
  }

  after(): void {
    this.hooks.decrementInitialPopulation(this.result.length);
  }
}
