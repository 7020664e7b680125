import { type Clock, realClock } from "@informer-ts/clock";
import { EventStream } from "@informer-ts/instrumentation";
import type { Observable } from "rxjs";
import { type Delta, isDelta } from "../delta.js";
import { Deque, ErrFIFOClosed, type KeyListerGetter } from "../fifo.js";
import { metaNamespaceKeyFunc } from "../keys.js";
import { KeyError, type KeyFunc } from "../store.js";
import { type DoneChecker, DoneLatch } from "../synctrack.js";
import { isDeletedFinalStateUnknown } from "../tombstone.js";
import type { TransformFunc } from "../transform-func.js";
import { computeKey } from "./compute-key.js";
import { describeValue } from "./meta-accessor.js";
import { isThenable } from "./thenable.js";

/**
 * Events a FIFO publishes about itself (client-go logs these; here they are data).
 *
 * - `slowProcess`: a pop's processing took longer than 100 ms (a batch: min(100 ms × size, 1 s)) while more
 *   than 10 items waited (client-go's "slow event handlers blocking the queue" trace, issue 103789).
 * - `knownObjectLookup`: `replace` or `resync` asked the known-objects store for a key it had listed and got
 *   nothing (`reason: "missing"`) or an error (`reason: "error"`); a tombstone without object is queued
 *   (replace) or the key is skipped (resync), as in client-go.
 * - `deferredMutationFailed`: a mutation that arrived while a process callback held the queue (see
 *   `RealFIFO`) failed when it was applied later; the caller had already returned, so this event is the only
 *   report.
 */
export type FIFOEvent =
  | {
      readonly type: "slowProcess";
      readonly fifo: string;
      readonly key: string;
      readonly depth: number;
      readonly batchSize: number;
      readonly durationMs: number;
    }
  | {
      readonly type: "knownObjectLookup";
      readonly fifo: string;
      readonly operation: "replace" | "resync";
      readonly key: string;
      readonly reason: "missing" | "error";
      readonly error?: unknown;
    }
  | {
      readonly type: "deferredMutationFailed";
      readonly fifo: string;
      readonly operation: string;
      readonly error: unknown;
    };

/** What one pop took from the queue, prepared synchronously by the concrete FIFO. */
export interface Taken<R> {
  /** What `pop` resolves with. */
  readonly result: R;
  /** Release the "lock" while `run` is pending (RealFIFO `unlockWhileProcessing`). */
  readonly unlock: boolean;
  /** Items still queued after the take (for the slow-process trace). */
  readonly depth: number;
  /** Number of deltas handed to the callback. */
  readonly batchSize: number;
  /** Key of the first taken item, computed only for the trace; "" when it has none. */
  firstKey(): string;
  /** Calls the user's callback. */
  run(): void | PromiseLike<void>;
  /** Bookkeeping after processing (the `initialPopulationCount` decrement), in the same turn. */
  after(): void;
}

interface Waiter {
  take(): Taken<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Re-throws a transformer failure as an `Error` (non-Error throws are wrapped, Errors pass unchanged). */
export function asError(err: unknown, context: string): Error {
  if (err instanceof Error) return err;
  return new Error(`${context}: ${describeValue(err)}`, { cause: err });
}

/** The options both FIFOs take (each FIFO documents them on its own options type). */
export interface FIFOCoreOptions<T> {
  readonly name?: string;
  readonly keyFunction?: KeyFunc;
  readonly knownObjects?: KeyListerGetter<T>;
  readonly transformer?: TransformFunc<T>;
  readonly clock?: Clock;
}

/**
 * The machinery both FIFOs share: option checks, keys, the transformer, known-object lookups, the
 * populated / initial-population bookkeeping, the sync signal, `close`, the serialised pop turn with its
 * FIFO-ordered waiters, and the "lock" that a process callback holds.
 *
 * Locking model (Go mutex → JS turns): every mutation is one synchronous function. While a process callback
 * holds the lock (always for DeltaFIFO and non-atomic RealFIFO; in atomic RealFIFO unless
 * `unlockWhileProcessing` releases it), a mutation is validated at once (key and transformer errors still
 * throw to the caller) and its effect on the queue is deferred, in arrival order, until the callback has
 * settled — exactly where a blocked Go producer would have acquired the mutex. Pops are always served one at
 * a time: the next pop does not start before the previous callback's promise settles.
 */
export abstract class FIFOCore<T> {
  /** Publishes this queue's events; kept inside, consumers get {@link FIFOCore.events$}. */
  protected readonly events = new EventStream<FIFOEvent>({ name: "fifo events$" });
  /**
   * Events about this queue (slow processing, failed known-object lookups, failed deferred mutations): read-only,
   * hot, no replay; a throwing subscriber is reported, never re-thrown.
   */
  readonly events$: Observable<FIFOEvent> = this.events.events$;
  protected closed = false;
  protected populated = false;
  protected initialPopulationCount = 0;
  protected readonly fifoName: string;
  protected readonly clock: Clock;
  protected readonly keyFunc: KeyFunc;
  protected readonly knownObjects: KeyListerGetter<T> | undefined;
  protected readonly transform: TransformFunc<T> | undefined;
  private readonly latch: DoneLatch;
  private locked = false;
  private deferred: Deque<{ operation: string; apply: () => void }> | undefined;
  private readonly waiters = new Deque<Waiter>(4);
  private busy = false;
  private wakePending = false;

  /**
   * @param kind the FIFO's class name: the default name and the subject of option errors.
   * @throws TypeError for a key function or transformer that is not a function.
   */
  protected constructor(kind: string, options: FIFOCoreOptions<T>) {
    const keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    if (typeof keyFunc !== "function") {
      throw new TypeError(`${kind} keyFunction is not a function: ${describeValue(keyFunc)}`);
    }
    if (options.transformer !== undefined && typeof options.transformer !== "function") {
      throw new TypeError(`${kind} transformer is not a function: ${describeValue(options.transformer)}`);
    }
    this.fifoName = options.name !== undefined && options.name !== "" ? options.name : kind;
    this.clock = options.clock ?? realClock;
    this.latch = new DoneLatch(this.fifoName);
    this.keyFunc = keyFunc;
    this.knownObjects = options.knownObjects;
    this.transform = options.transformer;
  }

  /** The configured transformer (`TransformingStore`). */
  transformer(): TransformFunc<T> | undefined {
    return this.transform;
  }

  /** The key of a queued object, a Deltas list or a tombstone (each FIFO documents its own rules). */
  abstract keyOf(obj: unknown): string;

  /** The queue's name (used for the sync checker, events and logs). */
  name(): string {
    return this.fifoName;
  }

  /** True once the initial population has been popped and processed (or an add/update/delete came first). */
  hasSynced(): boolean {
    return this.latch.isDone();
  }

  /** The sync condition as a {@link DoneChecker}; its `done()` resolves when {@link FIFOCore.hasSynced} turns true. */
  hasSyncedChecker(): DoneChecker {
    return this.latch;
  }

  /** Marks the queue closed; pending pops on an empty queue reject with {@link ErrFIFOClosed}. Idempotent. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Whether {@link FIFOCore.close} was called. */
  isClosed(): boolean {
    return this.closed;
  }

  /** Number of queued entries (deltas for RealFIFO, keys for DeltaFIFO). */
  protected abstract queuedCount(): number;

  /**
   * `keyOf` of both FIFOs: a Deltas list is keyed by its newest delta's object, a tombstone by its `key`,
   * anything else by the key function. `unwrapDelta` (RealFIFO only) also keys a single {@link Delta} by its
   * object. @throws KeyError for an empty Deltas list or when the key function fails.
   */
  protected keyOfQueued(obj: unknown, unwrapDelta: boolean): string {
    let target = obj;
    if (Array.isArray(target)) {
      if (target.length === 0) throw new KeyError("0 length Deltas object; can't get key", obj);
      target = (target[target.length - 1] as Delta<T>).object;
    }
    if (unwrapDelta && isDelta(target)) target = target.object;
    if (isDeletedFinalStateUnknown(target)) return target.key;
    return computeKey(this.keyFunc, target);
  }

  /**
   * Validates an object given to add / update / delete: its key, and the object to queue (transformed, unless
   * it is a tombstone). On failure the queue is still marked populated (client-go sets `populated` before it
   * validates), after the current callback when one holds the lock, and the error is rethrown.
   */
  protected prepareObject(operation: string, obj: T): [key: string, stored: T] {
    try {
      const key = this.keyOf(obj);
      return [key, this.transform !== undefined && !isDeletedFinalStateUnknown(obj) ? this.applyTransform(obj) : obj];
    } catch (err) {
      this.mutate(operation, () => this.markPopulated());
      throw err;
    }
  }

  /** Runs the transformer; a non-Error throw is wrapped (see {@link asError}). */
  protected applyTransform(obj: T): T {
    try {
      return (this.transform as TransformFunc<T>)(obj);
    } catch (err) {
      throw asError(err, "transforming object");
    }
  }

  /** A new array holding the transformed items (or the items themselves): never the caller's array. */
  protected transformAll(list: readonly T[]): T[] {
    const out = new Array<T>(list.length);
    for (let i = 0; i < list.length; i++) {
      const item = list[i] as T;
      out[i] = this.transform !== undefined ? this.applyTransform(item) : item;
    }
    return out;
  }

  /** `knownObjects.getByKey(key)`; a miss or an error is a `knownObjectLookup` event and reads as `undefined`. */
  protected lookupKnown(known: KeyListerGetter<T>, key: string, operation: "replace" | "resync"): T | undefined {
    let obj: T | undefined;
    try {
      obj = known.getByKey(key);
    } catch (error) {
      this.events.emit({ type: "knownObjectLookup", fifo: this.fifoName, operation, key, reason: "error", error });
      return undefined;
    }
    if (obj === undefined) {
      this.events.emit({ type: "knownObjectLookup", fifo: this.fifoName, operation, key, reason: "missing" });
    }
    return obj;
  }

  /** Sets `populated` (an add/update/delete came) and re-checks the sync condition. */
  protected markPopulated(): void {
    this.populated = true;
    this.checkSynced();
  }

  /** After `n` popped items were processed: counts them off the initial population, if one remains. */
  protected decrementInitialPopulation(n: number): void {
    if (this.initialPopulationCount > 0) {
      this.initialPopulationCount -= n;
      this.checkSynced();
    }
  }

  /** Hook after each processing call: latency metrics and the slow trace. */
  protected observeProcessing(durationMs: number, taken: Taken<unknown>): void {
    if (taken.depth <= 10 || !this.events.observed) return;
    const threshold = taken.batchSize > 1 ? Math.min(100 * taken.batchSize, 1000) : 100;
    if (durationMs <= threshold) return;
    let key = "";
    try {
      key = taken.firstKey();
    } catch {
      key = "";
    }
    this.events.emit({
      type: "slowProcess",
      fifo: this.fifoName,
      key,
      depth: taken.depth,
      batchSize: taken.batchSize,
      durationMs,
    });
  }

  /** Closes the sync signal once `populated && initialPopulationCount === 0` (`checkSynced_locked`). */
  protected checkSynced(): void {
    if (this.populated && this.initialPopulationCount === 0) this.latch.complete();
  }

  /** Whether a process callback holds the lock right now (mutations are then deferred). */
  protected get isLocked(): boolean {
    return this.locked;
  }

  /** Applies `apply` now, or after the current process callback settles when it holds the lock. */
  protected mutate(operation: string, apply: () => void): void {
    if (!this.locked) {
      apply();
      return;
    }
    this.deferred ??= new Deque(4);
    this.deferred.push({ operation, apply });
  }

  /** Wakes pending pops (Go's `cond.Broadcast`), on a microtask so a producer never runs a callback inline. */
  protected wake(): void {
    if (this.waiters.length === 0 || this.busy || this.wakePending) return;
    this.wakePending = true;
    queueMicrotask(() => {
      this.wakePending = false;
      this.serve();
    });
  }

  /** Whether processing must be timed (metrics or a subscriber of `slowProcess`). */
  protected needsTiming(): boolean {
    return this.events.observed;
  }

  /**
   * Queues a pop request. When nothing else is pending and an item is available, the request is served
   * synchronously (the callback runs before this returns); otherwise it waits its turn.
   */
  protected schedule<R>(take: () => Taken<R>): Promise<R> {
    if (this.waiters.length === 0 && !this.busy && !this.wakePending && this.queuedCount() > 0) {
      return this.serveNow(take);
    }
    return new Promise<R>((resolve, reject) => {
      this.waiters.push({ take, resolve: resolve as (value: unknown) => void, reject });
      if (this.waiters.length === 1 && !this.busy && !this.wakePending) this.serve();
    });
  }

  /** The fast path of {@link FIFOCore.schedule}: no waiter record, a settled promise for a sync callback. */
  private serveNow<R>(take: () => Taken<R>): Promise<R> {
    this.busy = true;
    let taken: Taken<R>;
    try {
      taken = take();
    } catch (err) {
      this.busy = false;
      return Promise.reject(err);
    }
    this.locked = !taken.unlock;
    const start = this.needsTiming() ? this.clock.now() : Number.NaN;
    let out: void | PromiseLike<void>;
    try {
      out = taken.run();
    } catch (err) {
      this.complete(taken, start);
      this.serve();
      return Promise.reject(err);
    }
    if (isThenable(out)) {
      return Promise.resolve(out).then(
        () => {
          this.complete(taken, start);
          this.serve();
          return taken.result;
        },
        (err: unknown) => {
          this.complete(taken, start);
          this.serve();
          throw err;
        },
      );
    }
    this.complete(taken, start);
    if (this.waiters.length > 0) this.serve();
    return Promise.resolve(taken.result);
  }

  private serve(): void {
    while (!this.busy) {
      const waiter = this.waiters.at(0);
      if (waiter === undefined) return;
      if (this.queuedCount() === 0) {
        if (!this.closed) return;
        // Closed and drained: every waiting pop returns ErrFIFOClosed (a broadcast wakes them all).
        for (let w = this.waiters.shift(); w !== undefined; w = this.waiters.shift()) w.reject(ErrFIFOClosed);
        return;
      }
      this.waiters.shift();
      this.busy = true;
      let taken: Taken<unknown>;
      try {
        taken = waiter.take();
      } catch (err) {
        this.busy = false;
        waiter.reject(err);
        continue;
      }
      this.locked = !taken.unlock;
      const start = this.needsTiming() ? this.clock.now() : Number.NaN;
      let out: void | PromiseLike<void>;
      try {
        out = taken.run();
      } catch (err) {
        this.complete(taken, start);
        waiter.reject(err);
        continue;
      }
      if (isThenable(out)) {
        Promise.resolve(out).then(
          () => {
            this.complete(taken, start);
            waiter.resolve(taken.result);
            this.serve();
          },
          (err: unknown) => {
            this.complete(taken, start);
            waiter.reject(err);
            this.serve();
          },
        );
        return;
      }
      this.complete(taken, start);
      waiter.resolve(taken.result);
    }
  }

  /** After a callback settled: timing, bookkeeping, unlock, deferred mutations, next turn. */
  private complete(taken: Taken<unknown>, start: number): void {
    if (!Number.isNaN(start)) {
      try {
        this.observeProcessing(this.clock.since(start), taken);
      } catch {
        // Metrics must never break the queue.
      }
    }
    taken.after();
    this.locked = false;
    this.flushDeferred();
    this.busy = false;
  }

  private flushDeferred(): void {
    const deferred = this.deferred;
    if (deferred === undefined) return;
    for (let op = deferred.shift(); op !== undefined; op = deferred.shift()) {
      try {
        op.apply();
      } catch (error) {
        this.events.emit({ type: "deferredMutationFailed", fifo: this.fifoName, operation: op.operation, error });
      }
    }
    this.deferred = undefined;
  }
}
