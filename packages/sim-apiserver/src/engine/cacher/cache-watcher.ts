import {
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  stoppingIterator,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { withResourceVersion } from "../object-util.js";
import type { CacheEvent, EventHistory } from "../storage/index.js";

/** Where a watcher's initial events come from, read lazily as the consumer pulls (`cacheWatcher.processInterval`). */
export type InitialSource =
  | { readonly kind: "none" }
  /** Synthetic ADDED events for a snapshot of the cache state, in key order. */
  | { readonly kind: "snapshot"; readonly items: readonly KubeObject[] }
  /** Events of the history ring in `[from, to)` (absolute positions). */
  | { readonly kind: "history"; readonly history: EventHistory; readonly from: number; readonly to: number };

/** The initial source of a watcher that has none (left): shared. */
const NO_INITIAL: InitialSource = Object.freeze({ kind: "none" });

/** Why a watch ended, as the engine reports it. */
export type WatchCloseReason =
  | "timeout"
  | "stopped"
  | "terminated-unresponsive"
  | "interval-invalidated"
  | "cache-reinitialized"
  | "dropped"
  | "server-stopped";

/** What the cacher gives a new watcher. */
export interface CacheWatcherInit {
  readonly id: number;
  readonly matches: (o: KubeObject) => boolean;
  /** Events with RV ≤ this are not forwarded from the dispatcher. */
  readonly startRV: number;
  /**
   * The RV the watcher's process loop compares bookmarks against before initial events raise it (upstream's
   * `processInterval(…, requiredResourceVersion)`: the requested RV, 0 for legacy/"0" watches, etcd's current RV for
   * consistent ones). Default {@link startRV}.
   */
  readonly processRV?: number;
  readonly allowBookmarks: boolean;
  readonly chanSize: number;
  readonly initial: InitialSource;
  /** Watch-list: the RV the init-end bookmark must be at least at; undefined = not a watch-list. */
  readonly bookmarkAfterRV: number | undefined;
  /** Called when `input` has room again (the dispatcher may be waiting for it). */
  readonly onRoom: (w: CacheWatcher) => void;
  /** Called once when the watcher is closed. */
  readonly onClose: (w: CacheWatcher, reason: WatchCloseReason) => void;
  /** Called once when the last initial event was moved to `result` (not for watches without initial events). */
  readonly onInitialized?: (w: CacheWatcher, initialEvents: number) => void;
  /** Trigger value of the watch's field selector (for dispatch bucketing), if any. */
  readonly triggerValue: string | undefined;
  readonly description: string;
  /** Clock ms when the hand-over of initial events starts (see {@link CacheWatcher.startedAt}); default 0. */
  readonly startedAt?: number;
}

/**
 * One watch on the watch cache (`cacheWatcher`): an `input` buffer filled by the dispatcher and a `result` buffer
 * drained by the consumer, both of `chanSize` events. Initial events (a snapshot or a history interval) are moved
 * to `result` first and `input` only afterwards, so a watcher busy with a large initial list stops taking dispatched
 * events after `chanSize` of them — which is what gets RV "0"/watch-list watches killed under churn.
 *
 * It is both the in-process `Watch` (async iterable with `stop()`) and the HTTP layer's `WatchStreamSource`.
 */
export class CacheWatcher implements AsyncIterable<WatchEvent> {
  readonly id: number;
  readonly allowBookmarks: boolean;
  readonly chanSize: number;
  readonly bookmarkAfterRV: number | undefined;
  readonly triggerValue: string | undefined;
  readonly description: string;
  /**
   * Upstream's `process(ctx, resourceVersion)` floor: the requested RV raised by every initial event produced.
   * A periodic bookmark reaches the consumer only when its RV is above it; the init-end bookmark when at or above it.
   */
  processRV: number;
  /** When the next periodic bookmark is due (clock ms); undefined = none scheduled. */
  nextBookmarkAt: number | undefined;
  /** Clock ms of the watch deadline (timeoutSeconds). */
  deadline = Number.POSITIVE_INFINITY;
  /** Position in the cacher's deadline heap (`watch-deadlines.ts`); -1 when not in it. */
  deadlineSlot = -1;
  /** Clock ms when the cacher started handing over the initial events (for its slow-initialization log line). */
  readonly startedAt: number;
  endBookmarkSent = false;
  private endBookmarkQueued = false;
  private readonly matchesFn: (o: KubeObject) => boolean;
  private readonly startRV: number;
  private readonly input: WatchEvent[] = [];
  private inputHead = 0;
  private readonly result: WatchEvent[] = [];
  private resultHead = 0;
  private initial: InitialSource;
  private initialPos = 0;
  private closed = false;
  /** Closed but still delivering what is buffered. */
  private draining = false;
  private closeReason: WatchCloseReason | undefined;
  private failure: Error | undefined;
  private waiter: ((r: IteratorResult<WatchEvent>) => void) | undefined;
  private waiterReject: ((e: Error) => void) | undefined;
  private readonly onRoom: (w: CacheWatcher) => void;
  private readonly onClose: (w: CacheWatcher, reason: WatchCloseReason) => void;
  private readonly onInitialized: ((w: CacheWatcher, initialEvents: number) => void) | undefined;
  /** Initial events produced so far. */
  private initialCount = 0;
  /** Events handed to the consumer. */
  delivered = 0;
  /** Fault "a watcher that stops reading": the consumer side gets nothing until resumed (see {@link setStalled}). */
  private stalled = false;
  private closeHooks: Array<() => void> | undefined;

  constructor(init: CacheWatcherInit) {
    this.id = init.id;
    this.matchesFn = init.matches;
    this.startRV = init.startRV;
    this.processRV = init.processRV ?? init.startRV;
    this.allowBookmarks = init.allowBookmarks;
    this.chanSize = init.chanSize;
    this.initial = init.initial;
    this.bookmarkAfterRV = init.bookmarkAfterRV;
    this.onRoom = init.onRoom;
    this.onClose = init.onClose;
    this.onInitialized = init.onInitialized;
    this.triggerValue = init.triggerValue;
    this.description = init.description;
    this.startedAt = init.startedAt ?? 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get reason(): WatchCloseReason | undefined {
    return this.closeReason;
  }

  /** Buffered counts, for the unresponsive-watcher message and tests. */
  get inputLength(): number {
    return this.input.length - this.inputHead;
  }

  get resultLength(): number {
    return this.result.length - this.resultHead;
  }

  /** True while initial events remain to be produced. */
  get initializing(): boolean {
    const s = this.initial;
    if (s.kind === "none") return false;
    if (s.kind === "snapshot") return this.initialPos < s.items.length;
    return this.initialPos < s.to;
  }

  /** Whether a watch-list watcher holds its init-end bookmark in `input` without having sent it (graceful close). */
  get holdsEndBookmark(): boolean {
    return this.endBookmarkQueued && !this.endBookmarkSent;
  }

  matches(o: KubeObject): boolean {
    return this.matchesFn(o);
  }

  /** Whether the consumer side is stalled by {@link setStalled}. */
  get isStalled(): boolean {
    return this.stalled;
  }

  /**
   * Fault injection: a stalled watcher's consumer receives nothing (its `next()` stays pending), so `result` and then
   * `input` fill up and the dispatcher's budget closes it like a client that stopped reading. Closing a stalled
   * watcher is never graceful (nothing would drain it). Resuming delivers what is buffered.
   */
  setStalled(on: boolean): void {
    if (this.stalled === on) return;
    this.stalled = on;
    if (!on && (!this.closed || this.draining)) this.pump();
  }

  /** The event this watcher would get for a cache event, or undefined (filtered, or not after the start RV). */
  convert(ce: CacheEvent): WatchEvent | undefined {
    if (ce.rev <= this.startRV) return undefined;
    return ce.forWatcher(this.matchesFn, withResourceVersion);
  }

  /** Dispatcher side: try to put an event into `input` without waiting. */
  tryAdd(e: WatchEvent): boolean {
    if (this.closed) return true;
    if (this.inputLength >= this.chanSize) return false;
    this.enqueue(e);
    return true;
  }

  /** Bookmarks are only ever offered without blocking; dropped when `input` is full. */
  tryAddBookmark(e: WatchEvent, endOfInitialEvents: boolean): boolean {
    if (this.closed || this.inputLength >= this.chanSize) return false;
    if (endOfInitialEvents) this.endBookmarkQueued = true;
    this.enqueue(e);
    return true;
  }

  private enqueue(e: WatchEvent): void {
    const w = this.waiter;
    if (w !== undefined && !this.stalled && this.inputLength === 0 && this.resultLength === 0 && !this.initializing) {
      // The consumer is waiting and nothing is buffered: hand the event over without going through the buffers
      // (same order and accounting as input → result → consumer, without allocating their backing stores).
      if (!this.passes(e)) return; // a bookmark not past the process RV is dropped, as on the buffered path
      this.waiter = this.waiterReject = undefined;
      if (this.endBookmarkQueued && isEndBookmark(e)) this.endBookmarkSent = true;
      this.delivered++;
      w({ done: false, value: e });
      return;
    }
    this.input.push(e);
    this.pump();
  }

  private nextInitial(): WatchEvent | undefined | "invalidated" {
    const s = this.initial;
    if (s.kind === "snapshot") {
      while (this.initialPos < s.items.length) {
        const o = s.items[this.initialPos++]!;
        // Past the last item the snapshot is not needed: let it go rather than pin every object it lists (and their
        // replaced versions) for the rest of the watch.
        if (this.initialPos === s.items.length) this.initial = NO_INITIAL;
        if (this.matchesFn(o)) {
          this.raiseProcessRV(Number(o.metadata?.resourceVersion ?? 0));
          this.initialCount++;
          return { type: "ADDED", object: o };
        }
      }
      return undefined;
    }
    if (s.kind === "history") {
      if (this.initialPos === 0) this.initialPos = s.from;
      while (this.initialPos < s.to) {
        const ce = s.history.at(this.initialPos);
        if (ce === undefined) return "invalidated";
        this.initialPos++;
        const e = ce.forWatcher(this.matchesFn, withResourceVersion);
        // Past the interval the history reference is not needed (an idle watch would hold it for its lifetime).
        if (this.initialPos >= s.to) this.initial = NO_INITIAL;
        if (e !== undefined) {
          this.raiseProcessRV(ce.rev);
          this.initialCount++;
          return e;
        }
      }
      this.initial = NO_INITIAL;
    }
    return undefined;
  }

  private raiseProcessRV(rv: number): void {
    if (rv > this.processRV) this.processRV = rv;
  }

  /** Upstream's `process` filter for bookmarks taken from `input` (events were filtered by the dispatcher). */
  private passes(e: WatchEvent): boolean {
    if (e.type !== "BOOKMARK") return true;
    const rv = Number((e.object as KubeObject).metadata?.resourceVersion ?? 0);
    const isEnd = isEndBookmark(e);
    if (rv > this.processRV || (isEnd && rv === this.processRV)) return true;
    // An init-end bookmark behind the initial events' RVs is dropped; the cacher offers it again on a later tick.
    if (isEnd) this.endBookmarkQueued = false;
    return false;
  }

  // The watcher's process loop: initial events first, then `input`, into `result` while it has room.
  private pump(): void {
    let freed = false;
    while (this.resultLength < this.chanSize) {
      if (this.initializing) {
        const e = this.nextInitial();
        if (e === "invalidated") {
          // The unread part of the history was overwritten: end silently (upstream logs "couldn't retrieve watch
          // event to serve"); what is already in `result` is still delivered.
          this.initial = NO_INITIAL;
          this.close("interval-invalidated", false);
          return;
        }
        if (e !== undefined) this.pushResult(e);
        if (!this.initializing && !this.closed) this.onInitialized?.(this, this.initialCount);
        continue;
      }
      if (this.inputLength === 0) break;
      const e = this.input[this.inputHead++]!;
      if (this.inputHead > 1024 && this.inputHead * 2 > this.input.length) {
        this.input.splice(0, this.inputHead);
        this.inputHead = 0;
      }
      if (this.passes(e)) this.pushResult(e);
      freed = true;
    }
    if (this.inputLength === 0 && this.inputHead > 0) {
      this.input.length = 0;
      this.inputHead = 0;
    }
    this.wake();
    if (this.draining && this.resultLength === 0 && !this.initializing && this.inputLength === 0) this.finish();
    if (freed && !this.closed) this.onRoom(this);
  }

  private pushResult(e: WatchEvent): void {
    if (this.endBookmarkQueued && isEndBookmark(e)) this.endBookmarkSent = true;
    this.result.push(e);
  }

  private wake(): void {
    const w = this.waiter;
    if (w === undefined) return;
    if (this.resultLength > 0 && !this.stalled) {
      this.waiter = this.waiterReject = undefined;
      w({ done: false, value: this.shiftResult() });
    } else if (this.closed && !this.draining) {
      this.waiter = undefined;
      const rej = this.waiterReject;
      this.waiterReject = undefined;
      if (this.failure !== undefined && rej !== undefined) rej(this.failure);
      else w({ done: true, value: undefined });
    }
  }

  private shiftResult(): WatchEvent {
    const e = this.result[this.resultHead++]!;
    if (this.resultHead === this.result.length) {
      this.result.length = 0;
      this.resultHead = 0;
    }
    this.delivered++;
    return e;
  }

  /** Consumer side: the next event; `done` once the watch is closed (and, if graceful, drained). */
  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.resultLength > 0 && !this.stalled) {
      const value = this.shiftResult();
      if (!this.closed || this.draining) this.pump();
      return Promise.resolve({ done: false, value });
    }
    if (!this.closed || this.draining) this.pump();
    if (this.resultLength > 0 && !this.stalled) return this.next();
    if (this.closed && !this.draining) {
      if (this.failure !== undefined) return Promise.reject(this.failure);
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.waiterReject = reject;
    });
  }

  /** Consumer side: stop watching (client went away). */
  stop(): void {
    this.close("stopped", false);
  }

  /**
   * Ends the watch. Graceful: buffered and remaining initial events are delivered first (a watch-list watcher
   * holding its init-end bookmark). Not graceful: `input` and the remaining initial events are dropped; after a
   * server-side close (unresponsive, interval invalidated, cache re-initialized) what `result` already holds is
   * still delivered, as the consumer of a closed Go channel reads what is buffered; otherwise (timeout, client stop,
   * dropped connection, stalled consumer) the consumer sees the end at once. `failure` makes in-process iteration
   * throw it (a connection reset) instead of ending.
   */
  /** Runs `fn` once when the watcher closes (at once if it already has): callers release what they tied to it. */
  whenClosed(fn: () => void): void {
    if (this.closed) {
      fn();
      return;
    }
    this.closeHooks ??= [];
    this.closeHooks.push(fn);
  }

  close(reason: WatchCloseReason, graceful: boolean, failure?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    this.failure = failure;
    const hooks = this.closeHooks;
    this.closeHooks = undefined;
    if (hooks !== undefined) for (const fn of hooks) fn();
    if (graceful && !this.stalled && (this.resultLength > 0 || this.inputLength > 0 || this.initializing)) {
      this.draining = true;
      this.onClose(this, reason);
      this.pump();
      return;
    }
    if (!this.stalled && this.resultLength > 0 && KEEPS_RESULT.has(reason)) {
      // A server-side close stops the process loop and closes `result` behind what it already holds: the consumer
      // still reads those events, then the end.
      this.input.length = 0;
      this.inputHead = 0;
      this.initial = NO_INITIAL;
      this.draining = true;
      this.onClose(this, reason);
      this.wake();
      return;
    }
    this.dropBuffers();
    this.onClose(this, reason);
    this.wake();
  }

  private finish(): void {
    this.draining = false;
    this.dropBuffers();
    this.wake();
  }

  private dropBuffers(): void {
    this.input.length = this.result.length = 0;
    this.inputHead = this.resultHead = 0;
    this.initial = NO_INITIAL;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return stoppingIterator(this);
  }
}

/** Server-side closes after which events already in `result` still reach the consumer. */
const KEEPS_RESULT: ReadonlySet<WatchCloseReason> = new Set([
  "terminated-unresponsive",
  "interval-invalidated",
  "cache-reinitialized",
]);

/**
 * A watch that delivers fixed events (one ERROR, usually) and ends: kube-apiserver's `newErrWatcher` for errors found
 * after the request was accepted.
 */
export class FixedWatch implements AsyncIterable<WatchEvent> {
  private i = 0;
  private stopped = false;

  constructor(private readonly events: readonly WatchEvent[]) {}

  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.stopped || this.i >= this.events.length) return Promise.resolve({ done: true, value: undefined });
    return Promise.resolve({ done: false, value: this.events[this.i++]! });
  }

  stop(): void {
    this.stopped = true;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return stoppingIterator(this);
  }
}

/** The watch-list's `k8s.io/initial-events-end` bookmark (not a periodic one). */
function isEndBookmark(e: WatchEvent): boolean {
  return (
    e.type === "BOOKMARK" && (e.object as KubeObject).metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true"
  );
}
