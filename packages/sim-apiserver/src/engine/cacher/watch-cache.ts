import {
  type KubeObject,
  newServiceUnavailable,
  newTooLargeResourceVersion,
  newTooManyRequests,
  type StatusError,
} from "@informer-ts/apimachinery";
import type { Clock, Timer } from "@informer-ts/clock";
import type { SimResource } from "../resources.js";
import type { Selection } from "../selection.js";
import {
  CacheEvent,
  EventHistory,
  type MvccStorage,
  paginate,
  prefixOf,
  SortedKeyMap,
  type StorageEvent,
  type StoragePage,
} from "../storage/index.js";
import { answeredBy } from "./served-from.js";

interface FreshWaiter {
  readonly rv: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
  readonly timer: Timer;
}

/** What the watch cache needs of the cacher's configuration. */
export interface WatchCacheConfig {
  readonly blockTimeoutMs: number;
  readonly eventFreshMs: number;
  readonly historyLowerBound: number;
  readonly historyUpperBound: number;
}

/**
 * The state of one resource's watch cache (kube-apiserver's `watchCache`): the objects in key order, the cache's
 * resourceVersion, the event history ring, readiness (pending while re-initializing), and the freshness waits
 * (`waitUntilFreshAndBlock`) with the block timeout. Also reads of the state at a past RV (`ListFromCacheSnapshot`,
 * rebuilt from the history) and snapshots for watch-list initial events.
 */
export class WatchCache {
  readonly state = new SortedKeyMap<KubeObject>();
  readonly history: EventHistory;
  /** The cache's resourceVersion. */
  rv = 0;
  ready = true;
  /** Bumped by every re-initialization: a watch whose wait spanned one is not registered (upstream's generation). */
  generation = 0;
  /** When the cache last became pending (for the 429's Retry-After). */
  pendingSince = 0;
  private waiters: FreshWaiter[] = [];
  private readyWaiters: Array<{ readonly resolve: () => void; readonly reject: (err: unknown) => void }> = [];

  constructor(
    readonly resource: SimResource,
    private readonly storage: MvccStorage,
    private readonly clock: Clock,
    private readonly cfg: WatchCacheConfig,
    /** Asks for a progress notification at storage's current revision (a freshness wait for a committed RV). */
    private readonly requestProgress: () => void,
  ) {
    this.history = new EventHistory(cfg.historyLowerBound, cfg.historyUpperBound, cfg.eventFreshMs);
  }

  /** Replaces the state with storage's current one (the reflector's initial list), emptying the history. */
  relist(): void {
    this.state.clear();
    for (const [k, o] of this.storage.snapshot(this.resource)) this.state.set(k, o);
    this.rv = this.storage.currentRevision;
    this.history.reset(this.rv);
  }

  /** Applies a committed change to the state and the history; returns the history's event. */
  apply(ev: StorageEvent): CacheEvent {
    if (ev.type === "DELETED") this.state.delete(ev.key);
    else this.state.set(ev.key, ev.object);
    this.rv = ev.rev;
    const ce = new CacheEvent(ev, this.clock.now());
    this.history.add(ce);
    this.wakeWaiters();
    return ce;
  }

  /** A progress notification moved the cache's RV forward. */
  progress(rev: number): void {
    this.rv = rev;
    this.wakeWaiters();
  }

  /** Resolves the freshness waits the cache's RV now satisfies. */
  wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: FreshWaiter[] = [];
    for (const w of this.waiters) {
      if (this.rv >= w.rv) {
        w.timer.stop();
        w.resolve();
      } else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Waits until the cache is at `rv` or newer (`waitUntilFreshAndBlock`), asking storage for a progress notification
   * when `rv` is already committed. Rejects after the block timeout (3 s) with 504 `Too large resource version`
   * (`Retry-After: 1`).
   */
  waitFresh(rv: number): Promise<void> {
    if (this.rv >= rv) return Promise.resolve();
    if (rv <= this.storage.currentRevision) this.requestProgress();
    if (this.rv >= rv) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = this.clock.afterFunc(this.cfg.blockTimeoutMs, () => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(answeredBy(newTooLargeResourceVersion(rv, this.rv, 1), "cache"));
      });
      this.waiters.push({ rv, resolve, reject, timer });
    });
  }

  /** Consistent read wait: true when the cache reached storage's current revision within the block timeout. */
  async consistentWait(): Promise<boolean> {
    try {
      await this.waitFresh(this.storage.currentRevision);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Resolves once the cache is ready (`c.ready.wait` of releases without ResilientWatchCacheInitialization: a read
   * that needs the cache waits for the re-initialization to end, without a timeout of its own). Rejects with 503 when
   * the server stops first.
   */
  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /** The cache became ready again: wakes the freshness waits it satisfies and every {@link whenReady}. */
  becameReady(): void {
    this.ready = true;
    this.wakeWaiters();
    const ready = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of ready) w.resolve();
  }

  /** Ends every freshness and readiness wait with 503 (the server stops). */
  rejectWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      w.timer.stop();
      w.reject(newServiceUnavailable("the apiserver is shutting down"));
    }
    const ready = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of ready) w.reject(newServiceUnavailable("the apiserver is shutting down"));
  }

  /** The 429 of a cache that is (re)initializing, with `calculateRetryAfterForUnreadyCache`'s Retry-After. */
  notReady(): StatusError {
    const downtimeS = (this.clock.now() - this.pendingSince) / 1000;
    // calculateRetryAfterForUnreadyCache truncates (Go int conversion).
    const retryAfter = Math.floor(Math.min(30, Math.max(1, Math.exp(0.06 * downtimeS))));
    return newTooManyRequests("storage is (re)initializing", retryAfter);
  }

  /** One page of the current state. */
  page(prefix: string, fromKey: string | undefined, limit: number, sel: Selection): StoragePage {
    return paginate(
      this.state,
      { prefix, ...(fromKey !== undefined && { fromKey }), limit, predicate: sel.matches },
      this.rv,
      (k) => this.state.get(k),
      false,
    );
  }

  /**
   * The object at `key` in the current state, as a page of at most one item (`WaitUntilFreshAndGet` of a
   * non-recursive list, the freshness wait being the caller's): one key examined, none after it.
   */
  pageOfKey(key: string, sel: Selection): StoragePage {
    const o = this.state.get(key);
    const items = o !== undefined && sel.matches(o) ? [o] : [];
    return { items, lastKey: undefined, remaining: 0, rev: this.rv, scanned: 1 };
  }

  /**
   * One page of the state at `rv` (ListFromCacheSnapshot), or undefined when the history no longer reaches back to
   * `rv`: the current state with every event after `rv` undone (newest first, so the oldest change of a key decides;
   * its previous object is the state at `rv`).
   */
  snapshotPage(
    prefix: string,
    fromKey: string | undefined,
    rv: number,
    limit: number,
    sel: Selection,
  ): StoragePage | undefined {
    if (rv > this.rv || rv < this.history.snapshotFloor()) return undefined;
    const undo = new Map<string, KubeObject | undefined>();
    for (let p = this.history.end - 1; p >= this.history.start; p--) {
      const e = this.history.at(p)!;
      if (e.rev <= rv) break;
      undo.set(e.ev.key, e.ev.prevObject);
    }
    let index: SortedKeyMap<unknown> = this.state;
    const gone = [...undo.keys()].filter((k) => !this.state.has(k));
    if (gone.length > 0) {
      index = new SortedKeyMap<true>();
      for (const k of [...this.state.keys(), ...gone]) (index as SortedKeyMap<true>).set(k, true);
    }
    const objectAt = (k: string) => (undo.has(k) ? undo.get(k) : this.state.get(k));
    const opts = { prefix, ...(fromKey !== undefined && { fromKey }), limit, predicate: sel.matches };
    // Only keys created after `rv` (undone to nothing) make the remaining count differ from the key count.
    const someAbsent = [...undo.values()].some((o) => o === undefined);
    return paginate(index, opts, rv, objectAt, someAbsent);
  }

  /**
   * The current objects of a namespace (all for `""`), in key order: a watch-list's initial events. With `key` (a
   * watch naming one object), only that object, if present (`getIntervalFromStoreLocked` with `matchesSingle`).
   */
  snapshotItems(namespace: string, key?: string): KubeObject[] {
    if (key !== undefined) {
      const o = this.state.get(key);
      return o === undefined ? [] : [o];
    }
    const prefix = prefixOf(this.resource, namespace);
    const [lo, hi] = this.state.prefixRange(prefix);
    const keys = this.state.keys();
    const out = new Array<KubeObject>(hi - lo);
    for (let i = lo; i < hi; i++) out[i - lo] = this.state.get(keys[i]!)!;
    return out;
  }
}
