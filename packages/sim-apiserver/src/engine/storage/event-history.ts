import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import type { StorageEvent } from "./storage.js";

/** Ring buffer bounds and freshness window (kube-apiserver `watch_cache.go`/`watch_cache_history.go`). */
export const HISTORY_LOWER_BOUND = 100;
export const HISTORY_UPPER_BOUND = 100 * 1024;
export const EVENT_FRESH_DURATION_MS = 75_000;

/** A storage event as the watch cache keeps it, with the watch events built from it on demand (shared). */
export class CacheEvent {
  private added: WatchEvent | undefined;
  private modified: WatchEvent | undefined;
  private deleted: WatchEvent | undefined;

  constructor(
    readonly ev: StorageEvent,
    /** Clock time the cache received it. */
    readonly time: number,
  ) {}

  get rev(): number {
    return this.ev.rev;
  }

  /**
   * The event a watcher with `matches` sees (`convertToWatchEvent`): the filter is applied to the old and the new
   * object; entering the selection is ADDED, staying MODIFIED, leaving DELETED with the previous object at this
   * event's RV. `undefined` when neither matches.
   */
  forWatcher(
    matches: (o: KubeObject) => boolean,
    withRV: (o: KubeObject, rv: number) => KubeObject,
  ): WatchEvent | undefined {
    const e = this.ev;
    const cur = e.type !== "DELETED" && matches(e.object);
    const prev = e.prevObject !== undefined && matches(e.prevObject);
    if (cur) {
      if (prev) {
        this.modified ??= { type: "MODIFIED", object: e.object };
        return this.modified;
      }
      this.added ??= { type: "ADDED", object: e.object };
      return this.added;
    }
    if (!prev) return undefined;
    this.deleted ??= { type: "DELETED", object: e.type === "DELETED" ? e.object : withRV(e.prevObject!, e.rev) };
    return this.deleted;
  }
}

/**
 * The watch cache's event history: a ring buffer that starts at 100 slots, doubles (up to 102 400) while its oldest
 * event is younger than 75 s when it fills, halves (down to 100) when the event a quarter of the capacity from the
 * end is more than 75 s old, and otherwise drops its oldest event. Positions are absolute (they only grow), so
 * a watcher reading an interval lazily can tell when the part it has not read yet was overwritten.
 */
export class EventHistory {
  private buf: Array<CacheEvent | undefined>;
  private capacity: number;
  private startIndex = 0;
  private endIndex = 0;
  private listRV = 0;
  private removedSinceRelist = false;

  constructor(
    private readonly lowerBound = HISTORY_LOWER_BOUND,
    private readonly upperBound = HISTORY_UPPER_BOUND,
    private readonly freshMs = EVENT_FRESH_DURATION_MS,
  ) {
    this.capacity = lowerBound;
    this.buf = new Array(lowerBound);
  }

  get size(): number {
    return this.endIndex - this.startIndex;
  }

  get cap(): number {
    return this.capacity;
  }

  /** Absolute position of the oldest event kept. */
  get start(): number {
    return this.startIndex;
  }

  /** Absolute position after the newest event. */
  get end(): number {
    return this.endIndex;
  }

  /** Empties the history after a (re)list at `listRV`. */
  reset(listRV: number): void {
    this.buf = new Array(this.capacity);
    this.startIndex = this.endIndex = 0;
    this.listRV = listRV;
    this.removedSinceRelist = false;
  }

  /** The event at an absolute position, or undefined when it was dropped (or not written yet). */
  at(pos: number): CacheEvent | undefined {
    if (pos < this.startIndex || pos >= this.endIndex) return undefined;
    return this.buf[pos % this.capacity];
  }

  /**
   * Oldest RV a watch can start from without 410: `listRV + 1` until an event has been dropped, then the RV of the
   * oldest event kept. A watch from RV `n` is too old when `n < oldest - 1`.
   */
  oldestRV(): number {
    if (!this.removedSinceRelist) return this.listRV + 1;
    return this.at(this.startIndex)?.rev ?? this.listRV + 1;
  }

  /**
   * Lowest RV whose state can be rebuilt from the history (the oldest snapshot `ListFromCacheSnapshot` keeps): the
   * list RV until an event has been dropped, then the RV of the oldest event kept.
   */
  snapshotFloor(): number {
    if (!this.removedSinceRelist) return this.listRV;
    return this.at(this.startIndex)?.rev ?? this.listRV;
  }

  /** Absolute position of the first event with RV > `rv`. */
  firstAfter(rv: number): number {
    let lo = this.startIndex;
    let hi = this.endIndex;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.at(mid)!.rev <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(event: CacheEvent): void {
    if (this.size === this.capacity) {
      const now = event.time;
      const oldest = this.at(this.startIndex)!;
      if (now - oldest.time < this.freshMs && this.capacity < this.upperBound) {
        this.resize(Math.min(this.upperBound, this.capacity * 2));
      } else if (this.capacity > this.lowerBound) {
        const quarter = this.at(this.endIndex - Math.floor(this.capacity / 4));
        if (quarter !== undefined && now - quarter.time > this.freshMs) {
          this.resize(Math.max(this.lowerBound, Math.floor(this.capacity / 2)));
        }
      }
      while (this.size >= this.capacity) {
        this.buf[this.startIndex % this.capacity] = undefined;
        this.startIndex++;
        this.removedSinceRelist = true;
      }
    }
    this.buf[this.endIndex % this.capacity] = event;
    this.endIndex++;
  }

  private resize(capacity: number): void {
    const keepFrom = Math.max(this.startIndex, this.endIndex - capacity);
    if (keepFrom > this.startIndex) this.removedSinceRelist = true;
    const next = new Array<CacheEvent | undefined>(capacity);
    for (let p = keepFrom; p < this.endIndex; p++) next[p % capacity] = this.buf[p % this.capacity];
    this.buf = next;
    this.capacity = capacity;
    this.startIndex = keepFrom;
  }
}
