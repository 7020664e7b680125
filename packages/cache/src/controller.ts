import type { Clock } from "@informer-ts/clock";
import { type Delta, type Deltas, DeltaType, type ReplacedAllInfo } from "./delta.js";
import { DeltaFIFO } from "./delta-fifo.js";
import {
  isFIFOClosedError,
  type KeyListerGetter,
  type PopProcessFunc,
  type ProcessBatchFunc,
  type Queue,
  type QueueWithBatch,
} from "./fifo.js";
import { describeValue } from "./internal/meta-accessor.js";
import { isThenable } from "./internal/thenable.js";
import { metaNamespaceKeyFunc } from "./keys.js";
import type { KeyFunc, Store } from "./store.js";
import { isUpsertStore } from "./store-impl.js";
import { type FIFOMetricsOptions, RealFIFO } from "./the-real-fifo.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";
import type { Transaction, TransactionError, TransactionStore } from "./transaction.js";
import type { TransformFunc } from "./transform-func.js";

/**
 * The callbacks delta processing delivers to (`cache.ResourceEventHandler`).
 *
 * - `onAdd(obj, isInInitialList)`: an object the store did not hold (also for a watch MODIFIED of an unknown
 *   object). `isInInitialList` is true while the queue has not synced.
 * - `onUpdate(oldObj, newObj)`: an object the store held (also for an ADDED of a known object, a relist item
 *   or a resync, where `oldObj` and `newObj` may have the same resource version).
 * - `onDelete(obj)`: `obj` may be a {@link DeletedFinalStateUnknown} whose `obj` is stale or `undefined`.
 *
 * Handlers must not mutate the objects (they are the stored references). Callbacks are called synchronously.
 * A callback may return a promise (any other return value is ignored): {@link processDeltas} does not wait for
 * it before the next callback, but its own result then settles only once every such promise has, and a
 * rejection is reported exactly like a throw; a shared informer's listener waits for each promise before the
 * next notification and reports a rejection as a handler error. Wrappers ({@link FilteringResourceEventHandler},
 * {@link ResourceEventHandlerFuncs}) pass the wrapped callback's result on.
 *
 * A handler implements any subset of the three callbacks: a missing one skips that notification, exactly as a nil
 * function of client-go's `ResourceEventHandlerFuncs` does (so `{ onAdd: (pod) => queue.add(key(pod)) }` is a
 * complete handler). Every delivery rule above holds unchanged; a registration's `hasSynced` still waits for
 * the initial list, whether or not `onAdd` exists.
 *
 * Differences from client-go: Go handlers cannot be asynchronous; the return type is `unknown` so that
 * `async` callbacks and arrow functions returning a value both fit; the methods are optional (Go's interface
 * needs all three, which is why Go code wraps functions in `ResourceEventHandlerFuncs`).
 */
export interface ResourceEventHandler<T> {
  onAdd?(obj: T, isInInitialList: boolean): unknown;
  onUpdate?(oldObj: T, newObj: T): unknown;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): unknown;
}

/** The update and delete functions both function-based handlers take; each is optional. */
interface HandlerFuncsOptions<T, Add> {
  readonly addFunc?: Add;
  readonly updateFunc?: (oldObj: T, newObj: T) => unknown;
  readonly deleteFunc?: (obj: T | DeletedFinalStateUnknown<T>) => unknown;
}

/** The functions of {@link ResourceEventHandlerFuncs}; each is optional. */
export interface ResourceEventHandlerFuncsOptions<T> extends HandlerFuncsOptions<T, (obj: T) => unknown> {}

/** The functions of {@link ResourceEventHandlerDetailedFuncs}; each is optional. */
export interface ResourceEventHandlerDetailedFuncsOptions<T>
  extends HandlerFuncsOptions<T, (obj: T, isInInitialList: boolean) => unknown> {}

/** What both function-based handlers share: the three optional functions, `onUpdate` and `onDelete`. */
abstract class HandlerFuncs<T, Add> implements ResourceEventHandler<T> {
  readonly addFunc: Add | undefined;
  readonly updateFunc: ((oldObj: T, newObj: T) => unknown) | undefined;
  readonly deleteFunc: ((obj: T | DeletedFinalStateUnknown<T>) => unknown) | undefined;

  constructor(funcs: HandlerFuncsOptions<T, Add> = {}) {
    this.addFunc = funcs.addFunc;
    this.updateFunc = funcs.updateFunc;
    this.deleteFunc = funcs.deleteFunc;
  }

  abstract onAdd(obj: T, isInInitialList: boolean): unknown;

  onUpdate(oldObj: T, newObj: T): unknown {
    return this.updateFunc?.(oldObj, newObj);
  }

  onDelete(obj: T | DeletedFinalStateUnknown<T>): unknown {
    return this.deleteFunc?.(obj);
  }
}

/**
 * A {@link ResourceEventHandler} made of optional functions (`cache.ResourceEventHandlerFuncs`, C9); a missing
 * function skips that notification. `addFunc` does not receive `isInInitialList` (use
 * {@link ResourceEventHandlerDetailedFuncs} for that).
 */
export class ResourceEventHandlerFuncs<T> extends HandlerFuncs<T, (obj: T) => unknown> {
  constructor(funcs: ResourceEventHandlerFuncsOptions<T> = {}) {
    super(funcs);
  }

  onAdd(obj: T, _isInInitialList: boolean): unknown {
    return this.addFunc?.(obj);
  }
}

/**
 * Like {@link ResourceEventHandlerFuncs}, but `addFunc` also receives `isInInitialList`
 * (`cache.ResourceEventHandlerDetailedFuncs`, C9).
 */
export class ResourceEventHandlerDetailedFuncs<T> extends HandlerFuncs<
  T,
  (obj: T, isInInitialList: boolean) => unknown
> {
  constructor(funcs: ResourceEventHandlerDetailedFuncsOptions<T> = {}) {
    super(funcs);
  }

  onAdd(obj: T, isInInitialList: boolean): unknown {
    return this.addFunc?.(obj, isInInitialList);
  }
}

/** Options of {@link FilteringResourceEventHandler}. */
export interface FilteringResourceEventHandlerOptions<T> {
  /** Which objects the wrapped handler cares about. Called with tombstones too (on delete). */
  readonly filterFunc: (obj: T | DeletedFinalStateUnknown<T>) => boolean;
  readonly handler: ResourceEventHandler<T>;
}

/**
 * Passes on only the notifications whose objects pass `filterFunc` (`cache.FilteringResourceEventHandler`,
 * C10). `onAdd` and `onDelete` are filtered directly. `onUpdate(old, new)` turns into: both pass → `onUpdate`;
 * only the new one → `onAdd(new, false)`; only the old one → `onDelete(old)`; neither → nothing. Each method
 * returns what the wrapped callback returned, so a promise (and its rejection) reaches the caller.
 */
export class FilteringResourceEventHandler<T> implements ResourceEventHandler<T> {
  readonly filterFunc: (obj: T | DeletedFinalStateUnknown<T>) => boolean;
  readonly handler: ResourceEventHandler<T>;

  /** @throws TypeError when `filterFunc` is not a function or `handler` is not a handler object. */
  constructor(options: FilteringResourceEventHandlerOptions<T>) {
    if (typeof options?.filterFunc !== "function") {
      throw new TypeError(
        `FilteringResourceEventHandler filterFunc is not a function: ${describeValue(options?.filterFunc)}`,
      );
    }
    checkEventHandler(options.handler);
    this.filterFunc = options.filterFunc;
    this.handler = options.handler;
  }

  onAdd(obj: T, isInInitialList: boolean): unknown {
    if (!this.filterFunc(obj)) return;
    return this.handler.onAdd?.(obj, isInInitialList);
  }

  onUpdate(oldObj: T, newObj: T): unknown {
    const newer = this.filterFunc(newObj);
    const older = this.filterFunc(oldObj);
    if (newer && older) return this.handler.onUpdate?.(oldObj, newObj);
    if (newer) return this.handler.onAdd?.(newObj, false);
    if (older) return this.handler.onDelete?.(oldObj);
  }

  onDelete(obj: T | DeletedFinalStateUnknown<T>): unknown {
    if (!this.filterFunc(obj)) return;
    return this.handler.onDelete?.(obj);
  }
}

/**
 * Checks that `handler` can be a {@link ResourceEventHandler}: an object whose `onAdd`, `onUpdate` and `onDelete`,
 * where present, are functions (any subset, even none, is allowed).
 * @throws TypeError naming the offending member.
 */
export function checkEventHandler(handler: unknown): void {
  if (typeof handler !== "object" || handler === null) {
    throw new TypeError(`event handler must be an object with onAdd/onUpdate/onDelete, got ${describeValue(handler)}`);
  }
  const h = handler as Partial<Record<string, unknown>>;
  for (const m of ["onAdd", "onUpdate", "onDelete"] as const) {
    if (h[m] !== undefined && typeof h[m] !== "function") {
      throw new TypeError(`event handler ${m} is not a function: ${describeValue(h[m])}`);
    }
  }
}

function isReplacedAllInfo(value: unknown): value is ReplacedAllInfo<unknown> {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { resourceVersion?: unknown; objects?: unknown };
  return typeof v.resourceVersion === "string" && Array.isArray(v.objects);
}

function isBookmarkInfo(value: unknown): value is { resourceVersion: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { resourceVersion?: unknown }).resourceVersion === "string"
  );
}

/** The store's current object for `obj`'s key, or `undefined` (a key error reads as "not there", as in Go). */
function existing<T>(store: Store<T>, obj: T): T | undefined {
  try {
    return store.get(obj);
  } catch {
    return undefined;
  }
}

/** Promises returned by handler callbacks during one processing call (allocated only when there is one). */
type PendingCallbacks = PromiseLike<unknown>[] | undefined;

/** Adds `result` to `pending` when it is a promise; a plain result costs nothing. */
function track(pending: PendingCallbacks, result: unknown): PendingCallbacks {
  if (!isThenable(result)) return pending;
  if (pending === undefined) return [result];
  pending.push(result);
  return pending;
}

/**
 * Waits for every pending callback promise, then fails like a throw would have: with the one error, or with an
 * `AggregateError` (messages joined) when several callbacks failed. `after` are errors caught synchronously
 * once the pending callbacks had been called (they come last); `combine` replaces the default combination.
 */
async function settleCallbacks(
  pending: readonly PromiseLike<unknown>[],
  after: readonly unknown[] = [],
  combine: (errors: unknown[]) => unknown = combineErrors,
): Promise<void> {
  const errors: unknown[] = [];
  for (const r of await Promise.allSettled(pending)) if (r.status === "rejected") errors.push(r.reason);
  errors.push(...after);
  if (errors.length > 0) throw combine(errors);
}

function combineErrors(errors: unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  const messages = errors.map((e) => (e instanceof Error ? e.message : describeValue(e)));
  return new AggregateError(errors, `${errors.length} event handler callbacks failed: [${messages.join("; ")}]`);
}

/** The end of a processing call: nothing when every callback was synchronous, else {@link settleCallbacks}. */
function finish(pending: PendingCallbacks): void | Promise<void> {
  return pending === undefined ? undefined : settleCallbacks(pending);
}

/** A synchronous failure while callback promises are pending: report them all rather than leave any unhandled. */
function fail(pending: PendingCallbacks, error: unknown): Promise<void> {
  if (pending === undefined) throw error;
  return settleCallbacks(pending, [error]);
}

/**
 * Applies queued deltas to `clientState` and notifies `handler`, **store first, then the callback**
 * (client-go `processDeltas`, C3–C7). For each delta, in order:
 *
 * - `Sync`, `Replaced`, `Added`, `Updated` (C3): if the store holds the key, `update` then
 *   `onUpdate(old, obj)`; otherwise `add` then `onAdd(obj, isInInitialList)`.
 * - `Deleted` (C4): `delete(obj)` then `onDelete(obj)`, even if the store never held it; `obj` may be a
 *   tombstone.
 * - `ReplacedAll` (C5): computes the store keys missing from the list (tombstones carrying the stored
 *   object) and each item's old value, then `replace(objects, rv)` runs **first**, then every `onDelete`
 *   (store order), then `onUpdate(old, new)` / `onAdd(new, isInInitialList)` in list order. Handlers thus
 *   see the whole new snapshot already stored.
 * - `SyncAll` (C6): `onUpdate(obj, obj)` for every stored object, then returns (later deltas in the same
 *   list are not processed, as in client-go).
 * - `Bookmark` (C7): `store.bookmark(rv)`; no callback.
 *
 * `keyFunc` keys the `ReplacedAll` items (use the store's key function, normally
 * `deletionHandlingMetaNamespaceKeyFunc`).
 *
 * Whether an update is a resync is not decided here: `onUpdate` receives both objects and the shared
 * informer compares their resource versions (I7).
 *
 * Callbacks returning promises: they are not awaited between callbacks (the next delta is applied at once),
 * but then the call returns a promise that settles once all of them have, and rejects the way a throw would
 * have been reported: with the rejection, or an `AggregateError` when several callbacks failed (a synchronous
 * throw after pending promises joins them, last). Popped through a FIFO, that promise holds the pop until it
 * settles, and {@link processLoop} hands the rejection to `onError` (an informer: its `processError` event).
 * With synchronous callbacks only, nothing is allocated and `undefined` is returned.
 *
 * @throws whatever the store throws (a KeyError, an IndexError, a transformer error) or a callback throws;
 *   an `Error` naming the delta for a malformed `ReplacedAll` / `SyncAll` / `Bookmark` payload or an unknown
 *   type. Deltas before the failing one stay applied.
 */
export function processDeltas<T>(
  handler: ResourceEventHandler<T>,
  clientState: Store<T>,
  deltas: Deltas<T>,
  isInInitialList: boolean,
  keyFunc: KeyFunc,
): void | Promise<void> {
  let pending: PendingCallbacks;
  const upsert = isUpsertStore(clientState);
  try {
    each: for (const d of deltas) {
      switch (d.type) {
        case DeltaType.ReplacedAll: {
          if (!isReplacedAllInfo(d.object)) {
            throw new Error(`ReplacedAll did not contain ReplacedAllInfo: ${describeValue(d.object)}`);
          }
          pending = processReplacedAllInfo(handler, d.object, clientState, isInInitialList, keyFunc, pending);
          break;
        }
        case DeltaType.SyncAll: {
          if (typeof d.object !== "object" || d.object === null) {
            throw new Error(`SyncAll did not contain SyncAllInfo: ${describeValue(d.object)}`);
          }
          for (const obj of clientState.list()) pending = track(pending, handler.onUpdate?.(obj, obj));
          break each;
        }
        case DeltaType.Sync:
        case DeltaType.Replaced:
        case DeltaType.Added:
        case DeltaType.Updated: {
          const obj = d.object;
          let old: T | undefined;
          if (upsert) {
            old = (clientState as Store<T> & { upsert(obj: T): T | undefined }).upsert(obj);
          } else {
            old = existing(clientState, obj);
            if (old !== undefined) clientState.update(obj);
            else clientState.add(obj);
          }
          pending = track(
            pending,
            old !== undefined ? handler.onUpdate?.(old, obj) : handler.onAdd?.(obj, isInInitialList),
          );
          break;
        }
        case DeltaType.Deleted: {
          clientState.delete(d.object);
          pending = track(pending, handler.onDelete?.(d.object));
          break;
        }
        case DeltaType.Bookmark: {
          if (!isBookmarkInfo(d.object)) {
            throw new Error(`bookmark delta did not contain BookmarkInfo: ${describeValue(d.object)}`);
          }
          clientState.bookmark(d.object.resourceVersion);
          break;
        }
        default:
          throw new Error(`unknown delta type ${describeValue((d as { type?: unknown }).type)}`);
      }
    }
  } catch (err) {
    return fail(pending, err);
  }
  return finish(pending);
}

function processReplacedAllInfo<T>(
  handler: ResourceEventHandler<T>,
  info: ReplacedAllInfo<T>,
  clientState: Store<T>,
  isInInitialList: boolean,
  keyFunc: KeyFunc,
  pending: PendingCallbacks,
): PendingCallbacks {
  const objects = info.objects;
  const newKeys = new Set<string>();
  for (let i = 0; i < objects.length; i++) newKeys.add(keyFunc(objects[i]));
  const deletions: DeletedFinalStateUnknown<T>[] = [];
  for (const key of clientState.listKeys()) {
    if (newKeys.has(key)) continue;
    deletions.push(new DeletedFinalStateUnknown<T>(key, clientState.getByKey(key)));
  }
  const olds = new Array<T | undefined>(objects.length);
  for (let i = 0; i < objects.length; i++) olds[i] = existing(clientState, objects[i] as T);

  clientState.replace(objects, info.resourceVersion);
  for (const tombstone of deletions) pending = track(pending, handler.onDelete?.(tombstone));
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i] as T;
    const old = olds[i];
    pending = track(pending, old !== undefined ? handler.onUpdate?.(old, obj) : handler.onAdd?.(obj, isInInitialList));
  }
  return pending;
}

function isTransactionStore<T>(store: Store<T>): store is Store<T> & TransactionStore<T> {
  return typeof (store as Partial<TransactionStore<T>>).transaction === "function";
}

/**
 * Applies a batch from `RealFIFO.popBatch` (client-go `processDeltasInBatch`, C8). With a
 * {@link TransactionStore}, every delta becomes one add/update/delete transaction (classified like
 * {@link processDeltas}) and the whole batch is applied in **one** `transaction` call; then the callbacks run
 * in order. If the store reports a {@link TransactionError}, only the callbacks of the successful indices
 * run and an error is thrown. Without transactions, each delta goes through {@link processDeltas} alone and
 * the errors are collected.
 *
 * @throws Error `Delta type <t> is not supported in batch processing` (before anything is applied) for
 *   `ReplacedAll`, `SyncAll` or `Bookmark`; Error `not all items in the batch successfully processed: …`
 *   (cause: the TransactionError) after a partial transaction; Error `unexpected error when handling deltas:
 *   …` (cause: an AggregateError) in per-delta mode. Callbacks returning promises are handled as in
 *   {@link processDeltas}: the result is then a promise, rejecting with these same errors.
 */
export function processDeltasInBatch<T>(
  handler: ResourceEventHandler<T>,
  clientState: Store<T>,
  deltas: readonly Delta<T>[],
  isInInitialList: boolean,
  keyFunc: KeyFunc,
): void | Promise<void> {
  if (!isTransactionStore(clientState)) {
    const errors: unknown[] = [];
    let pending: PendingCallbacks;
    for (const d of deltas) {
      try {
        // Each delta's own promise already joins its callbacks' failures into one error.
        pending = track(pending, processDeltas(handler, clientState, [d], isInInitialList, keyFunc));
      } catch (err) {
        errors.push(err);
      }
    }
    if (pending !== undefined) return settleCallbacks(pending, errors, unexpectedBatchError);
    if (errors.length > 0) throw unexpectedBatchError(errors);
    return;
  }
  const txns: Transaction<T>[] = [];
  const callbacks: (() => unknown)[] = [];
  for (const d of deltas) {
    switch (d.type) {
      case DeltaType.Sync:
      case DeltaType.Replaced:
      case DeltaType.Added:
      case DeltaType.Updated: {
        const obj = d.object;
        const old = existing(clientState, obj);
        if (old !== undefined) {
          txns.push({ type: "update", object: obj });
          callbacks.push(() => handler.onUpdate?.(old, obj));
        } else {
          txns.push({ type: "add", object: obj });
          callbacks.push(() => handler.onAdd?.(obj, isInInitialList));
        }
        break;
      }
      case DeltaType.Deleted: {
        const obj = d.object;
        txns.push({ type: "delete", object: obj });
        callbacks.push(() => handler.onDelete?.(obj));
        break;
      }
      default:
        throw new Error(`Delta type ${describeValue(d.type)} is not supported in batch processing`);
    }
  }
  const err: TransactionError | undefined = clientState.transaction(txns);
  let pending: PendingCallbacks;
  try {
    if (err !== undefined) {
      for (const i of err.successfulIndices) pending = track(pending, callbacks[i]?.());
      throw new Error(`not all items in the batch successfully processed: ${err.message}`, { cause: err });
    }
    for (const callback of callbacks) pending = track(pending, callback());
  } catch (error) {
    return fail(pending, error);
  }
  return finish(pending);
}

/** The per-delta mode's error (client-go's `unexpected error when handling deltas`), joining every failure. */
function unexpectedBatchError(errors: unknown[]): Error {
  const messages = errors.map((e) => (e instanceof Error ? e.message : describeValue(e)));
  return new Error(`unexpected error when handling deltas: [${messages.join("; ")}]`, {
    cause: new AggregateError(errors),
  });
}

/** Options of {@link processLoop}. */
export interface ProcessLoopOptions<T> {
  /** The queue to drain. */
  readonly queue: Queue<T> | QueueWithBatch<T>;
  /** Called with each popped item (`Config.Process`). */
  readonly process: PopProcessFunc<T>;
  /** Called with each batch (`Config.ProcessBatch`); used when the queue has `popBatch` and `batchProcess` is on. */
  readonly processBatch?: ProcessBatchFunc<T>;
  /** client-go `InOrderInformersBatchProcess` (beta, on since 1.35). Default `true`. */
  readonly batchProcess?: boolean;
  /** Stops the loop: the queue is closed (as `controller.Run` does on ctx done) and the loop ends at the next pop. */
  readonly signal?: AbortSignal;
  /**
   * Told of every error a process callback threw or rejected with; the loop then carries on (C2: no retry,
   * no requeue). An error thrown by this callback is ignored.
   */
  readonly onError?: (error: unknown) => void;
}

/**
 * Pops from `queue` until it is closed (`controller.processLoop`, C2): each iteration is `popBatch(processBatch,
 * process)` when batching applies, else `pop(process)`. The loop ends when the queue reports `ErrFIFOClosed`
 * or `signal` aborts; any other error from processing is handed to `onError` and ignored. The returned
 * promise resolves when the loop has ended and never rejects.
 *
 * Differences from client-go: aborting `signal` also closes the queue (client-go's controller does that in a
 * separate goroutine on ctx done), so a loop waiting on an empty queue ends at once; a pop already in
 * progress finishes first.
 */
export async function processLoop<T>(options: ProcessLoopOptions<T>): Promise<void> {
  const { queue, process, processBatch, signal, onError } = options;
  const batchQueue = queue as Partial<QueueWithBatch<T>>;
  const useBatch =
    processBatch !== undefined && options.batchProcess !== false && typeof batchQueue.popBatch === "function";
  const onAbort = () => queue.close();
  if (signal !== undefined) {
    if (signal.aborted) queue.close();
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  try {
    while (signal?.aborted !== true) {
      try {
        if (useBatch) await (queue as QueueWithBatch<T>).popBatch(processBatch, process);
        else await queue.pop(process);
      } catch (err) {
        if (isFIFOClosedError(err)) return;
        try {
          onError?.(err);
        } catch {
          // The error callback's own failure is deliberately ignored (the loop must go on).
        }
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Options of {@link newQueueFIFO} (client-go's `newQueueFIFO` plus its feature gates). */
export interface QueueFIFOOptions<T> {
  /** The informer's store: `knownObjects` of DeltaFIFO and non-atomic RealFIFO (unused in atomic mode). */
  readonly knownObjects: KeyListerGetter<T>;
  /** Queue name. Default `"RealFIFO"` / `"DeltaFIFO"`. */
  readonly name?: string;
  readonly transformer?: TransformFunc<T>;
  /** RealFIFO metrics (DeltaFIFO has none). */
  readonly metrics?: FIFOMetricsOptions;
  readonly clock?: Clock;
  /** `InOrderInformers` (GA in 1.36): RealFIFO instead of DeltaFIFO. Default `true`. */
  readonly inOrderInformers?: boolean;
  /** `AtomicFIFO` (beta, on in 1.36): atomic RealFIFO with bookmark deltas. Default `true`. */
  readonly atomicFIFO?: boolean;
  /** `UnlockWhileProcessingFIFO` (beta, on in 1.36), atomic mode only. Default `true`. */
  readonly unlockWhileProcessingFIFO?: boolean;
}

/**
 * Builds the queue an informer uses, as client-go 1.36 chooses it (§0): by default an atomic
 * {@link RealFIFO} with `unlockWhileProcessing` and bookmark deltas and no known objects; with
 * `atomicFIFO: false` a non-atomic RealFIFO reading `knownObjects` (1.33–1.35); with
 * `inOrderInformers: false` a {@link DeltaFIFO} with `knownObjects` and `emitDeltaTypeReplaced` (≤ 1.32).
 * Keys use {@link metaNamespaceKeyFunc} (the FIFOs unwrap tombstones themselves).
 *
 * Differences from client-go: the gates are arguments, not process-wide `KUBE_FEATURE_*` settings.
 */
export function newQueueFIFO<T>(options: QueueFIFOOptions<T>): Queue<T> {
  if (options.inOrderInformers === false) {
    return new DeltaFIFO<T>({
      name: options.name,
      keyFunction: metaNamespaceKeyFunc,
      knownObjects: options.knownObjects,
      emitDeltaTypeReplaced: true,
      transformer: options.transformer,
      clock: options.clock,
    });
  }
  const atomic = options.atomicFIFO !== false;
  return new RealFIFO<T>({
    name: options.name,
    keyFunction: metaNamespaceKeyFunc,
    transformer: options.transformer,
    metrics: options.metrics,
    clock: options.clock,
    atomicEvents: atomic,
    unlockWhileProcessing: atomic && options.unlockWhileProcessingFIFO !== false,
    emitDeltaTypeBookmark: atomic,
    knownObjects: atomic ? undefined : options.knownObjects,
  });
}
