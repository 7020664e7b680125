import type { Delta, Deltas } from "./delta.js";
import type { ReflectorStore } from "./store.js";
import type { DoneChecker } from "./synctrack.js";
import type { TransformFunc } from "./transform-func.js";

/**
 * Handles what one `pop` took from a queue (`cache.PopProcessFunc`): the {@link Deltas} of one key (DeltaFIFO)
 * or one delta (RealFIFO), and whether it belongs to the initial list (the queue had not synced yet).
 *
 * It may return a promise; the queue then waits for it before it hands out anything else. A throw or a
 * rejection becomes the rejection of `pop`; the item is **not** requeued.
 */
export type PopProcessFunc<T> = (deltas: Deltas<T>, isInInitialList: boolean) => void | PromiseLike<void>;

/**
 * Handles a batch taken by `popBatch` (`cache.ProcessBatchFunc`): up to 1000 deltas with distinct keys, in
 * queue order. Same return and error rules as {@link PopProcessFunc}.
 */
export type ProcessBatchFunc<T> = (deltas: readonly Delta<T>[], isInInitialList: boolean) => void | PromiseLike<void>;

/** The error `pop` / `popBatch` reject with once the queue is closed and empty (`cache.ErrFIFOClosed`). */
export class FIFOClosedError extends Error {
  override readonly name = "FIFOClosedError";
  constructor() {
    super("DeltaFIFO: manipulating with closed queue");
  }
}

/**
 * The single {@link FIFOClosedError} instance every queue rejects with (client-go's sentinel `ErrFIFOClosed`):
 * compare with `===` or use {@link isFIFOClosedError}.
 */
export const ErrFIFOClosed: FIFOClosedError = new FIFOClosedError();

/** True when `err` means "the queue is closed and drained" (`errors.Is(err, ErrFIFOClosed)`). */
export function isFIFOClosedError(err: unknown): err is FIFOClosedError {
  return err instanceof FIFOClosedError || (err instanceof Error && err.name === "FIFOClosedError");
}

/**
 * What a FIFO may ask of the consumer's store (`cache.KeyListerGetter`): the keys it knows and the object
 * under a key. Any {@link Store} satisfies it. Used by `DeltaFIFO` and non-atomic `RealFIFO` to synthesise
 * deletes on `replace` and `Sync` deltas on `resync`. A throwing `getByKey` is treated like Go's lookup error.
 */
export interface KeyListerGetter<T> {
  listKeys(): string[];
  getByKey(key: string): T | undefined;
}

/**
 * A store that transforms objects on the way in (`cache.TransformingStore`); the reflector's watch-list
 * priming applies the same transformer to its temporary store.
 */
export interface TransformingStore<T> {
  /** The transformer applied to incoming objects, if any. */
  transformer(): TransformFunc<T> | undefined;
}

/**
 * The queue between a reflector and its consumer (`cache.Queue`, v0.36): a {@link ReflectorStore} the
 * reflector writes to, plus `pop`, the sync signal and `close`.
 */
export interface Queue<T> extends ReflectorStore<T> {
  /**
   * Waits until an item is queued, removes it and calls `process` with it. Resolves with what was popped
   * once `process` has returned (or its promise has resolved). Rejects with {@link ErrFIFOClosed} when the
   * queue is closed and empty, and with `process`'s error when it throws or rejects. Concurrent calls are
   * served one at a time, in call order.
   */
  pop(process: PopProcessFunc<T>): Promise<Deltas<T>>;
  /** True once the first `replace`'s items have all been popped **and processed**, or after an earlier add/update/delete. */
  hasSynced(): boolean;
  /** The same condition as a {@link DoneChecker} (v0.36 `HasSyncedChecker`). */
  hasSyncedChecker(): DoneChecker;
  /** Marks the queue closed. Queued items are still handed out; once empty, `pop` rejects with {@link ErrFIFOClosed}. */
  close(): void;
  isClosed(): boolean;
  /** Optional: the number of queued items (RealFIFO and DeltaFIFO have it), for status and metrics. */
  readonly length?: number;
}

/** A {@link Queue} that can hand out several deltas at once (`cache.QueueWithBatch`). */
export interface QueueWithBatch<T> extends Queue<T> {
  /**
   * Like {@link Queue.pop}, but takes as many head deltas as may be processed together and calls
   * `processBatch` with them, or `processSingle` when only one could be taken.
   */
  popBatch(processBatch: ProcessBatchFunc<T>, processSingle: PopProcessFunc<T>): Promise<void>;
}

/**
 * A first-in first-out sequence on a power-of-two ring buffer that **shrinks** as it drains: a shifted slot is
 * cleared at once, and when occupancy falls below a quarter the buffer is reallocated at half size (never
 * below the minimum capacity). So a queue that once held a million items gives that memory back after it is
 * drained, unlike a Go slice or client-go's never-shrinking `RingGrowing`.
 *
 * Internal to the FIFOs (not re-exported from the package index).
 */
export class Deque<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private size = 0;
  private mask: number;

  constructor(private readonly minCapacity = 16) {
    if (!Number.isInteger(minCapacity) || minCapacity < 1 || (minCapacity & (minCapacity - 1)) !== 0) {
      throw new RangeError(`Deque minimum capacity must be a power of two ≥ 1, got ${minCapacity}`);
    }
    this.buf = new Array<T | undefined>(minCapacity);
    this.mask = minCapacity - 1;
  }

  /** Number of items. */
  get length(): number {
    return this.size;
  }

  /** Allocated slots (for tests and statistics). */
  get capacity(): number {
    return this.buf.length;
  }

  /** Appends at the tail. */
  push(value: T): void {
    if (this.size === this.buf.length) this.resize(this.buf.length * 2);
    this.buf[(this.head + this.size) & this.mask] = value;
    this.size++;
  }

  /** Removes and returns the head, clearing its slot; `undefined` when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const value = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    this.maybeShrink();
    return value;
  }

  /** Removes the first `n` items (clearing their slots). */
  drop(n: number): void {
    const count = Math.min(n, this.size);
    for (let i = 0; i < count; i++) {
      this.buf[this.head] = undefined;
      this.head = (this.head + 1) & this.mask;
    }
    this.size -= count;
    this.maybeShrink();
  }

  /** The item at position `i` from the head (0 = head), or `undefined` when out of range. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.size) return undefined;
    return this.buf[(this.head + i) & this.mask];
  }

  /** Calls `fn` for every item, head first. */
  forEach(fn: (value: T, index: number) => void): void {
    for (let i = 0; i < this.size; i++) fn(this.buf[(this.head + i) & this.mask] as T, i);
  }

  /** Copies the items, head first, into a new array. */
  toArray(): T[] {
    const out = new Array<T>(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.buf[(this.head + i) & this.mask] as T;
    return out;
  }

  private maybeShrink(): void {
    const cap = this.buf.length;
    let next = cap;
    while (next > this.minCapacity && this.size < next >>> 2) next >>>= 1;
    if (next !== cap) this.resize(next);
  }

  private resize(capacity: number): void {
    const next = new Array<T | undefined>(capacity);
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) & this.mask];
    this.buf = next;
    this.head = 0;
    this.mask = capacity - 1;
  }
}
