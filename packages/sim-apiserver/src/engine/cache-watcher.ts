import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import type { CacheEvent, EventHistory } from "./event-history.js";
import { withResourceVersion } from "./object-util.js";

/** Where a watcher's initial events come from, read lazily as the consumer pulls (`cacheWatcher.processInterval`). */
export type InitialSource =
  | { readonly kind: "none" }
  /** Synthetic ADDED events for a snapshot of the cache state, in key order. */
  | { readonly kind: "snapshot"; readonly items: readonly KubeObject[] }
  /** Events of the history ring in `[from, to)` (absolute positions). */
  | { readonly kind: "history"; readonly history: EventHistory; readonly from: number; readonly to: number };

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
  readonly allowBookmarks: boolean;
  readonly chanSize: number;
  readonly initial: InitialSource;
  /** Watch-list: the RV the init-end bookmark must be at least at; undefined = not a watch-list. */
  readonly bookmarkAfterRV: number | undefined;
  /** Called when `input` has room again (the dispatcher may be waiting for it). */
  readonly onRoom: (w: CacheWatcher) => void;
  /** Called once when the watcher is closed. */
  readonly onClose: (w: CacheWatcher, reason: WatchCloseReason) => void;
  /** Trigger value of the watch's field selector (for dispatch bucketing), if any. */
  readonly triggerValue: string | undefined;
  readonly description: string;
}

/**
 * One watch on the watch cache (`cacheWatcher`): an `input` buffer filled by the dispatcher and a `result` buffer
 * drained by the consumer, both of `chanSize` events. Initial events (a snapshot or a history interval) are moved
 * to `result` first and `input` only afterwards, so a watcher busy with a large initial list stops taking dispatched
 * events after `chanSize` of them — which is what gets RV "0"/watch-list watches killed under churn.
 *
 * It is both the in-process `Watch` (async iterable with `stop()`) and the HTTP layer's `WatchSource`.
 */
export class CacheWatcher implements AsyncIterable<WatchEvent> {
  readonly id: number;
  readonly allowBookmarks: boolean;
  readonly chanSize: number;
  readonly bookmarkAfterRV: number | undefined;
  readonly triggerValue: string | undefined;
  readonly description: string;
  /** RV of the last event accepted into the pipeline (bookmarks are sent only past it). */
  lastRV: number;
  /** When the next periodic bookmark is due (clock ms); undefined = none scheduled. */
  nextBookmarkAt: number | undefined;
  /** Clock ms of the watch deadline (timeoutSeconds). */
  deadline = Number.POSITIVE_INFINITY;
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
  /** Events handed to the consumer. */
  delivered = 0;
  /** Fault "a watcher that stops reading": the consumer side gets nothing until resumed (see {@link setStalled}). */
  private stalled = false;

  constructor(init: CacheWatcherInit) {
    this.id = init.id;
    this.matchesFn = init.matches;
    this.startRV = init.startRV;
    this.lastRV = init.startRV;
    this.allowBookmarks = init.allowBookmarks;
    this.chanSize = init.chanSize;
    this.initial = init.initial;
    this.bookmarkAfterRV = init.bookmarkAfterRV;
    this.onRoom = init.onRoom;
    this.onClose = init.onClose;
    this.triggerValue = init.triggerValue;
    this.description = init.description;
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
  tryAdd(e: WatchEvent, rv: number): boolean {
    if (this.closed) return true;
    if (this.inputLength >= this.chanSize) return false;
    this.input.push(e);
    if (rv > this.lastRV) this.lastRV = rv;
    this.pump();
    return true;
  }

  /** Bookmarks are only ever offered without blocking; dropped when `input` is full. */
  tryAddBookmark(e: WatchEvent, rv: number, endOfInitialEvents: boolean): boolean {
    if (this.closed || this.inputLength >= this.chanSize) return false;
    if (endOfInitialEvents) this.endBookmarkQueued = true;
    this.input.push(e);
    if (rv > this.lastRV) this.lastRV = rv;
    this.pump();
    return true;
  }

  private nextInitial(): WatchEvent | undefined | "invalidated" {
    const s = this.initial;
    if (s.kind === "snapshot") {
      while (this.initialPos < s.items.length) {
        const o = s.items[this.initialPos++]!;
        if (this.matchesFn(o)) return { type: "ADDED", object: o };
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
        if (e !== undefined) return e;
      }
    }
    return undefined;
  }

  // The watcher's process loop: initial events first, then `input`, into `result` while it has room.
  private pump(): void {
    let freed = false;
    while (this.resultLength < this.chanSize) {
      if (this.initializing) {
        const e = this.nextInitial();
        if (e === "invalidated") {
          this.close("interval-invalidated", false);
          return;
        }
        if (e !== undefined) this.pushResult(e);
        continue;
      }
      if (this.inputLength === 0) break;
      const e = this.input[this.inputHead++]!;
      if (this.inputHead > 1024 && this.inputHead * 2 > this.input.length) {
        this.input.splice(0, this.inputHead);
        this.inputHead = 0;
      }
      this.pushResult(e);
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
    if (e.type === "BOOKMARK" && this.endBookmarkQueued && !this.endBookmarkSent) this.endBookmarkSent = true;
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
   * Ends the watch. Not graceful: buffered events are dropped and the consumer sees the end at once (what a client
   * sees when kube-apiserver closes a watch). Graceful: buffered and initial events are delivered first. `failure`
   * makes in-process iteration throw it (a connection reset) instead of ending.
   */
  close(reason: WatchCloseReason, graceful: boolean, failure?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    this.failure = failure;
    if (graceful && !this.stalled && (this.resultLength > 0 || this.inputLength > 0 || this.initializing)) {
      this.draining = true;
      this.onClose(this, reason);
      this.pump();
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
    this.initial = { kind: "none" };
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}

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
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
