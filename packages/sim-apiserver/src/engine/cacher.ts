import {
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newBadRequest,
  newResourceExpired,
  newServiceUnavailable,
  newTooLargeResourceVersion,
  newTooManyRequests,
  objectFieldSet,
  parseResourceVersion,
  type StatusError,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { type Clock, jitter, type Rand, type Timer } from "@informer-ts/clock";
import { CacheWatcher, FixedWatch, type InitialSource, type WatchCloseReason } from "./cache-watcher.js";
import { decodeContinue, encodeContinue, encodeContinueFrom } from "./continue-token.js";
import { CacheEvent, EventHistory } from "./event-history.js";
import { apiVersionOf, groupResourceString, type SimResource } from "./resources.js";
import type { Selection } from "./selection.js";
import { SortedKeyMap } from "./sorted-keys.js";
import { type MvccStorage, paginate, prefixOf, type StorageEvent, type StoragePage } from "./storage.js";
import { TimeBudget } from "./time-budget.js";

/** Where a read was served from (the accounting label). */
export type ServedFrom = "cache" | "storage";

/** Cacher tuning; every field has kube-apiserver's value as the default (see the engine options). */
export interface CacherConfig {
  readonly bookmarkFrequencyMs: number;
  readonly blockTimeoutMs: number;
  readonly eventFreshMs: number;
  readonly historyLowerBound: number;
  readonly historyUpperBound: number;
  /** Delay between a storage change and the watch cache seeing it (0 = synchronous). */
  readonly cacheLagMs: number;
  readonly dispatchBudgetMs: number;
  readonly budgetRefreshMsPerSecond: number;
  /**
   * The `ListFromCacheSnapshot` gate (beta, on in v1.34; default true): exact-RV lists and continuations are served
   * from the cache's state at that RV, rebuilt from the event history, while the history covers it. Off (≤ v1.33):
   * every exact-RV list and every continuation goes to storage.
   */
  readonly listFromCacheSnapshot?: boolean;
}

/** What the cacher reports to the engine. */
export interface CacherHooks {
  onWatcherTerminated(resource: SimResource, message: string): void;
  onWatcherCountChanged(resource: SimResource, delta: number): void;
  onEventsDispatched(resource: SimResource, deliveries: number): void;
  /** Bookmark policy (fault injection): "on", "no-periodic" (no periodic bookmarks), "off" (none at all). */
  bookmarkMode(): "on" | "no-periodic" | "off";
  /** klog-style lines other than terminations (slow initial events). */
  log?(message: string): void;
}

const answeredErrors = new WeakMap<object, ServedFrom>();

/**
 * Where a failed read was answered, if it got that far: "cache" for the watch cache's 504 after the freshness wait,
 * "storage" for storage's 410/504. Undefined for errors raised before either was asked (validation, 429).
 */
export function servedFromOfError(err: unknown): ServedFrom | undefined {
  return typeof err === "object" && err !== null ? answeredErrors.get(err) : undefined;
}

export function answeredBy<E>(err: E, from: ServedFrom): E {
  if (typeof err === "object" && err !== null) answeredErrors.set(err, from);
  return err;
}

/** Result of a list. */
export interface CacherListResult {
  readonly list: KubeList;
  readonly servedFrom: ServedFrom;
}

const INCONSISTENT_CONTINUE_MESSAGE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list " +
  "without the continue parameter, or use the continue token in this response to retrieve the remainder of the " +
  "results. Continuing with the provided token results in an inconsistent list - objects that were created, " +
  "modified, or deleted between the time the first chunk was returned and now may show up in the list.";

interface FreshWaiter {
  readonly rv: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
  readonly timer: Timer;
}

type Incoming = CacheEvent | { readonly progress: number };

/** `initProcessThreshold`: initial events handed over slower than this are logged. */
const INIT_PROCESS_THRESHOLD_MS = 500;

/**
 * The watch cache of one resource (kube-apiserver's `Cacher` + `watchCache`): the current state in key order, its
 * resourceVersion, the event history ring, the watchers and the dispatcher that feeds them with a shared time budget,
 * bookmark scheduling, freshness waits (consistent reads, "not older than") with the 3 s block timeout, and readiness
 * (429 while re-initializing).
 */
export class Cacher {
  private readonly state = new SortedKeyMap<KubeObject>();
  private readonly history: EventHistory;
  private cacheRV = 0;
  private lastDispatchedRV = 0;
  private ready = true;
  /** Bumped by every re-initialization: a watch whose wait spanned one is not registered (upstream's generation). */
  private generation = 0;
  private pendingSince = 0;
  private readyTimer: Timer | undefined;
  private readonly watchers = new Set<CacheWatcher>();
  private readonly byTrigger = new Map<string, Set<CacheWatcher>>();
  private readonly untriggered = new Set<CacheWatcher>();
  private readonly deadlines = new Map<CacheWatcher, Timer>();
  private readonly incoming: Incoming[] = [];
  private incomingHead = 0;
  private dispatching = false;
  private paused: { blocked: Map<CacheWatcher, WatchEvent>; timer: Timer; start: number; timeout: number } | undefined;
  private readonly budget: TimeBudget;
  private waiters: FreshWaiter[] = [];
  /** Storage changes on their way to the cache (`cacheLagMs`). */
  private readonly lagTimers = new Set<Timer>();
  private bookmarkTimer: Timer | undefined;
  private bookmarkTimerAt = Number.POSITIVE_INFINITY;
  /** Earliest `nextBookmarkAt` of any watcher as of the last scan or registration. */
  private bookmarkDueMin = Number.POSITIVE_INFINITY;
  private nextWatcherId = 1;
  private stopped = false;
  /** Watchers closed for unresponsiveness since start. */
  terminatedWatchers = 0;

  constructor(
    readonly resource: SimResource,
    private readonly storage: MvccStorage,
    private readonly clock: Clock,
    private readonly rand: Rand,
    private readonly cfg: CacherConfig,
    private readonly hooks: CacherHooks,
  ) {
    this.history = new EventHistory(cfg.historyLowerBound, cfg.historyUpperBound, cfg.eventFreshMs);
    this.budget = new TimeBudget(clock, cfg.dispatchBudgetMs, cfg.budgetRefreshMsPerSecond);
    this.relist();
  }

  /** The watch cache's resourceVersion. */
  get resourceVersion(): number {
    return this.cacheRV;
  }

  get isReady(): boolean {
    return this.ready;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  /** Ring buffer capacity and fill, for tests and metrics. */
  get historyStats(): { readonly capacity: number; readonly size: number; readonly oldestRV: number } {
    return { capacity: this.history.cap, size: this.history.size, oldestRV: this.history.oldestRV() };
  }

  /** Remaining dispatch budget (ms). */
  get dispatchBudget(): number {
    return this.budget.available();
  }

  private relist(): void {
    this.state.clear();
    for (const [k, o] of this.storage.snapshot(this.resource)) this.state.set(k, o);
    this.cacheRV = this.storage.currentRevision;
    this.lastDispatchedRV = this.cacheRV;
    this.history.reset(this.cacheRV);
    this.incoming.length = 0;
    this.incomingHead = 0;
  }

  // ---- input from storage -------------------------------------------------------------------------------------

  private deliver(fn: () => void): void {
    if (this.cfg.cacheLagMs <= 0) {
      fn();
      return;
    }
    const timer = this.clock.afterFunc(this.cfg.cacheLagMs, () => {
      this.lagTimers.delete(timer);
      fn();
    });
    this.lagTimers.add(timer);
  }

  /** A committed change of this resource (the cacher's etcd watch). */
  onStorageEvent(ev: StorageEvent): void {
    this.deliver(() => {
      // Not ready: the relist will see it. Not newer than the cache: a relist already did (lagged delivery).
      if (this.stopped || !this.ready || ev.rev <= this.cacheRV) return;
      if (ev.type === "DELETED") this.state.delete(ev.key);
      else this.state.set(ev.key, ev.object);
      this.cacheRV = ev.rev;
      const ce = new CacheEvent(ev, this.clock.now());
      this.history.add(ce);
      this.incoming.push(ce);
      this.wakeWaiters();
      this.dispatch();
    });
  }

  /** A progress notification: storage is at `rev` and nothing of this resource changed up to it. */
  onProgress(rev: number): void {
    this.deliver(() => {
      if (this.stopped || !this.ready || rev <= this.cacheRV) return;
      this.cacheRV = rev;
      this.incoming.push({ progress: rev });
      this.wakeWaiters();
      this.dispatch();
    });
  }

  // ---- freshness ----------------------------------------------------------------------------------------------

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: FreshWaiter[] = [];
    for (const w of this.waiters) {
      if (this.cacheRV >= w.rv) {
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
    if (this.cacheRV >= rv) return Promise.resolve();
    if (rv <= this.storage.currentRevision) this.onProgress(this.storage.currentRevision);
    if (this.cacheRV >= rv) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = this.clock.afterFunc(this.cfg.blockTimeoutMs, () => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(answeredBy(newTooLargeResourceVersion(rv, this.cacheRV, 1), "cache"));
      });
      this.waiters.push({ rv, resolve, reject, timer });
    });
  }

  // ---- lists and gets -----------------------------------------------------------------------------------------

  private retryAfterUnready(): number {
    const downtimeS = (this.clock.now() - this.pendingSince) / 1000;
    // calculateRetryAfterForUnreadyCache truncates (Go int conversion).
    return Math.floor(Math.min(30, Math.max(1, Math.exp(0.06 * downtimeS))));
  }

  private notReady(): StatusError {
    return newTooManyRequests("storage is (re)initializing", this.retryAfterUnready());
  }

  private toList(page: StoragePage, prefix: string, sel: Selection, tokenRV: number): KubeList {
    const r = this.resource;
    const items = r.custom === true ? page.items : page.items.map(stripTypeMeta);
    const metadata: KubeList["metadata"] = { resourceVersion: String(page.rev) };
    if (page.lastKey !== undefined) {
      metadata.continue = encodeContinue(page.lastKey, prefix, tokenRV);
      if (sel.empty) metadata.remainingItemCount = page.remaining;
    }
    return { kind: `${r.kind}List`, apiVersion: apiVersionOf(r), metadata, items };
  }

  private fromCache(prefix: string, fromKey: string | undefined, limit: number, sel: Selection): CacherListResult {
    const page = paginate(
      this.state,
      { prefix, ...(fromKey !== undefined && { fromKey }), limit, predicate: sel.matches },
      this.cacheRV,
      (k) => this.state.get(k),
      false,
    );
    return { list: this.toList(page, prefix, sel, this.cacheRV), servedFrom: "cache" };
  }

  private fromStorage(
    prefix: string,
    fromKey: string | undefined,
    rev: number,
    limit: number,
    sel: Selection,
  ): CacherListResult {
    let page: StoragePage;
    try {
      page = this.storage.list(this.resource, {
        prefix,
        ...(fromKey !== undefined && { fromKey }),
        rev,
        limit,
        predicate: sel.matches,
      });
    } catch (err) {
      throw answeredBy(err, "storage");
    }
    return { list: this.toList(page, prefix, sel, page.rev), servedFrom: "storage" };
  }

  /**
   * An exact-RV read (L5: legacy exact with limit or `Exact`; L6: a continuation pinned to its first page's RV): waits
   * while the cache is behind `rv` (3 s, then 504 with Retry-After), serves from the cache when it is exactly at `rv`,
   * else from storage at revision `rv` (410 below compaction; a continuation's 410 carries the inconsistent token).
   * While the cache is not ready: storage when the cache had already passed `rv` or the request is a paged list
   * without selectors, else 429.
   */
  private async exact(
    prefix: string,
    fromKey: string | undefined,
    rv: number,
    limit: number,
    sel: Selection,
    continuation: boolean,
  ): Promise<CacherListResult> {
    if (this.cfg.listFromCacheSnapshot !== false) {
      if (!this.ready) {
        if (rv > this.cacheRV && !(limit > 0 && sel.empty)) throw this.notReady();
      } else {
        if (rv > this.cacheRV) await this.waitFresh(rv);
        const page = this.ready ? this.snapshotPage(prefix, fromKey, rv, limit, sel) : undefined;
        if (page !== undefined) return { list: this.toList(page, prefix, sel, rv), servedFrom: "cache" };
      }
    }
    try {
      return this.fromStorage(prefix, fromKey, rv, limit, sel);
    } catch (err) {
      if (continuation && (err as StatusError).code === 410 && fromKey !== undefined) {
        const e = newResourceExpired(INCONSISTENT_CONTINUE_MESSAGE);
        // The same start key re-encoded at "latest" (storage.EncodeContinue of the decoded key, unchanged).
        e.status.metadata.continue = encodeContinueFrom(fromKey, prefix, -1);
        throw answeredBy(e, "storage");
      }
      throw err;
    }
  }

  /**
   * One page of the cache's state at `rv` (ListFromCacheSnapshot), or undefined when the history no longer reaches
   * back to `rv`: the current state with every event after `rv` undone (newest first, so the oldest change of a key
   * decides; its previous object is the state at `rv`).
   */
  private snapshotPage(
    prefix: string,
    fromKey: string | undefined,
    rv: number,
    limit: number,
    sel: Selection,
  ): StoragePage | undefined {
    if (rv > this.cacheRV || rv < this.history.snapshotFloor()) return undefined;
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
   * A consistent read (L1/L2, and L6 with an inconsistent token): from the cache once it caught up with storage's
   * current revision, from storage when it does not within the block timeout. Cache not ready: storage for a paged
   * list without selectors, else 429.
   */
  private async consistent(
    prefix: string,
    fromKey: string | undefined,
    limit: number,
    sel: Selection,
  ): Promise<CacherListResult> {
    if (!this.ready) {
      if (limit > 0 && sel.empty) return this.fromStorage(prefix, fromKey, 0, limit, sel);
      throw this.notReady();
    }
    if (!(await this.consistentWait())) return this.fromStorage(prefix, fromKey, 0, limit, sel);
    return this.fromCache(prefix, fromKey, limit, sel);
  }

  /** LIST per the table of reference/apiserver.md §3.2 (L1–L6). */
  async list(namespace: string, opts: ListOptions, sel: Selection): Promise<CacherListResult> {
    const rvStr = opts.resourceVersion ?? "";
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    const prefix = prefixOf(this.resource, namespace);
    const match = opts.resourceVersionMatch;
    if (opts.continue !== undefined && opts.continue !== "") {
      // storage.ValidateListOptions: the token is decoded before the RV is looked at.
      const tok = decodeContinue(opts.continue, prefix);
      if (rvStr !== "" && rvStr !== "0") {
        throw newBadRequest("specifying resource version is not allowed when using continue");
      }
      if (tok.rv > 0) return this.exact(prefix, tok.fromKey, tok.rv, limit, sel, true);
      // rv -1: continue at the latest revision (storage only, without ListFromCacheSnapshot).
      if (this.cfg.listFromCacheSnapshot === false) return this.fromStorage(prefix, tok.fromKey, 0, limit, sel);
      return this.consistent(prefix, tok.fromKey, limit, sel);
    }
    const rv = Number(parseResourceVersion(rvStr));
    if (match === "Exact" || (match === undefined && limit > 0 && rv > 0)) {
      return this.exact(prefix, undefined, rv, limit, sel, false); // L5
    }
    if (rvStr === "") return this.consistent(prefix, undefined, limit, sel); // L1/L2
    if (!this.ready) {
      // ResilientWatchCacheInitialization: a paged list without selectors goes to storage (which serves "not older
      // than N" at its current revision, or 504 without Retry-After when N is in its future); anything else is 429.
      if (!(limit > 0 && sel.empty)) throw this.notReady();
      const current = this.storage.currentRevision;
      if (rv > current) throw answeredBy(newTooLargeResourceVersion(rv, current, 0), "storage");
      return this.fromStorage(prefix, undefined, 0, limit, sel);
    }
    if (rv === 0) return this.fromCache(prefix, undefined, 0, sel); // L3: limit ignored
    await this.waitFresh(rv); // L4
    return this.fromCache(prefix, undefined, match === "NotOlderThan" ? limit : 0, sel);
  }

  /** Consistent read wait: true when the cache reached storage's current revision within the block timeout. */
  private async consistentWait(): Promise<boolean> {
    try {
      await this.waitFresh(this.storage.currentRevision);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * GET (L7–L9): RV unset → storage; "0" → cache, no wait; N → cache once fresh (504 with Retry-After after 3 s).
   * While the cache is not ready every GET goes to storage, which answers an RV in its future with 504 (no
   * Retry-After).
   */
  async get(
    namespace: string,
    name: string,
    rvStr: string,
  ): Promise<{ object: KubeObject | undefined; servedFrom: ServedFrom }> {
    const rv = Number(parseResourceVersion(rvStr));
    const key = this.resource.namespaced ? `${namespace}/${name}` : name;
    if (rvStr === "" || !this.ready) {
      const current = this.storage.currentRevision;
      if (rv > current) throw answeredBy(newTooLargeResourceVersion(rv, current, 0), "storage");
      return { object: this.storage.get(this.resource, namespace, name), servedFrom: "storage" };
    }
    if (rv > 0) await this.waitFresh(rv);
    return { object: this.state.get(key), servedFrom: "cache" };
  }

  // ---- watches ------------------------------------------------------------------------------------------------

  private chanSize(triggerValue: string | undefined): number {
    const max = triggerValue !== undefined ? 10 : this.resource.trigger !== undefined ? 1000 : 100;
    // About one second of history: capacity / eventFreshDuration in seconds (suggestedWatchChannelSize).
    return Math.min(max, Math.max(10, Math.ceil(this.history.cap / (this.cfg.eventFreshMs / 1000))));
  }

  private snapshotItems(namespace: string): KubeObject[] {
    const prefix = prefixOf(this.resource, namespace);
    const [lo, hi] = this.state.prefixRange(prefix);
    const keys = this.state.keys();
    const out = new Array<KubeObject>(hi - lo);
    for (let i = lo; i < hi; i++) out[i - lo] = this.state.get(keys[i]!)!;
    return out;
  }

  private errorWatch(err: unknown): FixedWatch {
    const status = (err as StatusError).status;
    return new FixedWatch([{ type: "ERROR", object: status }]);
  }

  /**
   * WATCH per reference/apiserver.md §4.2 (W1–W6; W8 is the 429 thrown here). `opts` must already be defaulted and
   * validated, with `timeoutSeconds` set. Errors found after the RV was accepted come back as a watch with one
   * ERROR event.
   */
  async watch(namespace: string, opts: ListOptions, sel: Selection): Promise<CacheWatcher | FixedWatch> {
    if (!this.ready) throw this.notReady();
    const rvStr = opts.resourceVersion ?? "";
    const rv = Number(parseResourceVersion(rvStr));
    const sie = opts.sendInitialEvents;
    const generation = this.generation;
    let initial: InitialSource = { kind: "none" };
    let startRV: number;
    let bookmarkAfterRV: number | undefined;
    // getWatchCacheResourceVersion: the requested RV, 0 for the legacy case, etcd's current RV for RV "" otherwise.
    // It is also the floor the watcher's process loop compares bookmarks against.
    const requiredRV = rvStr !== "" || sie === undefined ? rv : this.storage.currentRevision;
    if (sie === true) {
      if (rvStr === "" || rv > 0) {
        try {
          await this.waitFresh(requiredRV);
        } catch (err) {
          return this.errorWatch(err);
        }
      }
      // The cache went unready (or was re-initialized) while this watch waited: kube-apiserver does not register it
      // and answers with a watch that is closed at once (no events, no ERROR).
      if (!this.ready || this.generation !== generation) return new FixedWatch([]);
      initial = { kind: "snapshot", items: this.snapshotItems(namespace) };
      startRV = this.cacheRV;
      // getBookmarkAfterResourceVersionLockedFunc: RV "" → the required RV, "0" → the cache's RV, N → N.
      bookmarkAfterRV = rvStr === "" ? requiredRV : rv > 0 ? rv : this.cacheRV;
    } else if (sie === undefined && rv === 0) {
      // Legacy RV ""/"0" on a server without WatchList: current cache state, not a consistent read, no end marker.
      initial = { kind: "snapshot", items: this.snapshotItems(namespace) };
      startRV = this.cacheRV;
    } else if (rv === 0) {
      // W5 (RV "0") and RV "" without initial events: start now (RV "": at etcd's current RV, no wait).
      startRV = Math.max(this.cacheRV, requiredRV);
    } else {
      const oldest = this.history.oldestRV();
      if (rv < oldest - 1) {
        return this.errorWatch(newResourceExpired(`too old resource version: ${rv} (${oldest - 1})`));
      }
      initial = { kind: "history", history: this.history, from: this.history.firstAfter(rv), to: this.history.end };
      startRV = Math.max(rv, this.cacheRV);
    }
    const trigger = this.resource.trigger;
    const triggerValue = trigger === undefined ? undefined : sel.fields.requiresExactMatch(trigger);
    // The hand-over of initial events is timed from here, after any freshness wait (upstream's processInterval).
    const started = this.clock.now();
    const w = new CacheWatcher({
      id: this.nextWatcherId++,
      matches: namespace === "" ? sel.matches : (o) => o.metadata?.namespace === namespace && sel.matches(o),
      startRV,
      processRV: requiredRV,
      allowBookmarks: opts.allowWatchBookmarks === true,
      chanSize: this.chanSize(triggerValue),
      initial,
      bookmarkAfterRV: opts.allowWatchBookmarks === true ? bookmarkAfterRV : undefined,
      onRoom: (x) => this.onRoom(x),
      onClose: (x, reason) => this.onWatcherClosed(x, reason),
      onInitialized: (x, n) => this.onInitialized(x, n, started),
      triggerValue,
      description: `key: "/${this.resource.resource}${namespace === "" ? "" : `/${namespace}`}", labels: "${sel.labels.toString()}", fields: "${sel.fields.toString()}"`,
    });
    this.register(w, opts.timeoutSeconds);
    return w;
  }

  private register(w: CacheWatcher, timeoutSeconds: number | undefined): void {
    this.watchers.add(w);
    if (w.triggerValue !== undefined) {
      let set = this.byTrigger.get(w.triggerValue);
      if (set === undefined) {
        set = new Set();
        this.byTrigger.set(w.triggerValue, set);
      }
      set.add(w);
    } else this.untriggered.add(w);
    this.hooks.onWatcherCountChanged(this.resource, 1);
    if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
      w.deadline = this.clock.now() + timeoutSeconds * 1000;
      this.deadlines.set(
        w,
        this.clock.afterFunc(timeoutSeconds * 1000, () => w.close("timeout", false)),
      );
    }
    if (w.allowBookmarks) {
      w.nextBookmarkAt = w.bookmarkAfterRV !== undefined ? this.clock.now() : this.nextBookmarkTime(w);
      // Only the new watcher can move the earliest due time: no scan of every watcher per registration.
      if (w.nextBookmarkAt !== undefined) this.scheduleBookmarks(Math.min(this.bookmarkDueMin, w.nextBookmarkAt));
    }
  }

  // cacheWatcher.processInterval: initial events that took longer than 500 ms to hand over are logged.
  private onInitialized(w: CacheWatcher, n: number, started: number): void {
    const ms = this.clock.now() - started;
    if (ms <= INIT_PROCESS_THRESHOLD_MS) return;
    const took = ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`;
    this.hooks.log?.(
      `processing ${n} initEvents of ${groupResourceString(this.resource)} (${w.description}) took ${took}`,
    );
  }

  private onWatcherClosed(w: CacheWatcher, _reason: WatchCloseReason): void {
    if (!this.watchers.delete(w)) return;
    if (w.triggerValue !== undefined) {
      const set = this.byTrigger.get(w.triggerValue);
      set?.delete(w);
      if (set?.size === 0) this.byTrigger.delete(w.triggerValue);
    } else this.untriggered.delete(w);
    this.deadlines.get(w)?.stop();
    this.deadlines.delete(w);
    this.hooks.onWatcherCountChanged(this.resource, -1);
    if (this.paused?.blocked.delete(w) === true) this.maybeResume();
  }

  // ---- dispatch -----------------------------------------------------------------------------------------------

  private candidates(ce: CacheEvent): Iterable<CacheWatcher> {
    const trigger = this.resource.trigger;
    if (trigger === undefined || this.byTrigger.size === 0) return this.untriggered;
    const out = new Set<CacheWatcher>(this.untriggered);
    for (const o of [ce.ev.object, ce.ev.prevObject]) {
      if (o === undefined) continue;
      const v = objectFieldSet(o, [trigger])[trigger] ?? "";
      const set = this.byTrigger.get(v);
      if (set !== undefined) for (const w of set) out.add(w);
    }
    return out;
  }

  private dispatch(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.paused === undefined && this.incomingHead < this.incoming.length) {
        const item = this.incoming[this.incomingHead++]!;
        if (this.incomingHead === this.incoming.length) {
          this.incoming.length = 0;
          this.incomingHead = 0;
        }
        if (!(item instanceof CacheEvent)) {
          this.lastDispatchedRV = item.progress;
          continue;
        }
        this.lastDispatchedRV = item.rev;
        let deliveries = 0;
        let blocked: Map<CacheWatcher, WatchEvent> | undefined;
        for (const w of this.candidates(item)) {
          const e = w.convert(item);
          if (e === undefined) continue;
          deliveries++;
          if (w.tryAdd(e)) continue;
          blocked ??= new Map();
          blocked.set(w, e);
        }
        if (deliveries > 0) this.hooks.onEventsDispatched(this.resource, deliveries);
        if (blocked !== undefined) this.block(blocked);
      }
    } finally {
      this.dispatching = false;
    }
  }

  // Some watchers' input is full: wait for them with whatever budget is left, then close the ones still full.
  private block(blocked: Map<CacheWatcher, WatchEvent>): void {
    const timeout = this.budget.takeAvailable();
    if (timeout <= 0) {
      for (const w of blocked.keys()) this.terminate(w);
      return;
    }
    const timer = this.clock.afterFunc(timeout, () => {
      const p = this.paused;
      if (p === undefined || p.timer !== timer) return;
      this.paused = undefined;
      for (const w of p.blocked.keys()) this.terminate(w);
      this.dispatch();
    });
    this.paused = { blocked, timer, start: this.clock.now(), timeout };
  }

  private onRoom(w: CacheWatcher): void {
    const p = this.paused;
    if (p === undefined) return;
    const e = p.blocked.get(w);
    if (e === undefined) return;
    // Delivering may free more room and re-enter; remove first.
    p.blocked.delete(w);
    if (!w.tryAdd(e)) p.blocked.set(w, e);
    this.maybeResume();
  }

  private maybeResume(): void {
    const p = this.paused;
    if (p === undefined || p.blocked.size > 0) return;
    p.timer.stop();
    this.paused = undefined;
    this.budget.returnUnused(p.timeout - (this.clock.now() - p.start));
    this.dispatch();
  }

  private terminate(w: CacheWatcher): void {
    if (w.isClosed) return;
    const graceful = w.holdsEndBookmark;
    this.terminatedWatchers++;
    this.hooks.onWatcherTerminated(
      this.resource,
      `Forcing ${groupResourceString(this.resource)} watcher close due to unresponsiveness: ${w.description}. len(c.input) = ${w.inputLength}, len(c.result) = ${w.resultLength}, graceful = ${graceful}`,
    );
    w.close("terminated-unresponsive", graceful);
  }

  // ---- bookmarks ----------------------------------------------------------------------------------------------

  private nextBookmarkTime(w: CacheWatcher): number | undefined {
    const now = this.clock.now();
    let t = now + this.cfg.bookmarkFrequencyMs;
    if (Number.isFinite(w.deadline)) {
      const pre = w.deadline - 2000;
      if (pre < t) t = pre;
      if (t < now) return undefined;
    }
    return t;
  }

  // After a tick served the watcher: its next slot must lie ahead. Upstream's ticks fall at arbitrary sub-second
  // phases, so the pre-deadline slot (deadline − 2 s) is never served twice; under a fake clock the tick can land
  // exactly on it.
  private nextAfterTick(w: CacheWatcher, now: number): number | undefined {
    const t = this.nextBookmarkTime(w);
    return t !== undefined && t > now ? t : undefined;
  }

  /**
   * Arms the bookmark tick for the earliest due watcher: `due` when the caller knows it, else found by a scan. The
   * earliest due time is remembered (closing watchers may leave it too early, which only costs an idle tick).
   */
  private scheduleBookmarks(due = this.earliestBookmarkDue()): void {
    this.bookmarkDueMin = due;
    if (!Number.isFinite(due)) return;
    // The dispatcher's bookmark tick runs about every second (1 s, jittered by up to 25 %).
    const at = Math.max(due, this.clock.now() + jitter(1000, 0.25, this.rand));
    if (this.bookmarkTimer !== undefined && this.bookmarkTimerAt <= at) return;
    this.bookmarkTimer?.stop();
    this.bookmarkTimerAt = at;
    this.bookmarkTimer = this.clock.afterFunc(at - this.clock.now(), () => {
      this.bookmarkTimer = undefined;
      this.bookmarkTimerAt = Number.POSITIVE_INFINITY;
      this.bookmarkTick();
      this.scheduleBookmarks();
    });
  }

  private earliestBookmarkDue(): number {
    let due = Number.POSITIVE_INFINITY;
    for (const w of this.watchers)
      if (w.allowBookmarks && w.nextBookmarkAt !== undefined && w.nextBookmarkAt < due) due = w.nextBookmarkAt;
    return due;
  }

  private bookmarkEvent(rv: number, endOfInitialEvents: boolean): WatchEvent {
    const r = this.resource;
    const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
    if (endOfInitialEvents) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: "true" };
    return { type: "BOOKMARK", object: { kind: r.kind, apiVersion: apiVersionOf(r), metadata } };
  }

  private bookmarkTick(): void {
    const mode = this.hooks.bookmarkMode();
    const now = this.clock.now();
    const rv = this.lastDispatchedRV;
    let periodic: WatchEvent | undefined;
    for (const w of this.watchers) {
      if (!w.allowBookmarks || w.nextBookmarkAt === undefined || w.nextBookmarkAt > now) continue;
      if (w.bookmarkAfterRV !== undefined && !w.endBookmarkSent && !w.holdsEndBookmark) {
        // A watch-list watcher waiting for its end marker is considered on every tick until it got it.
        if (mode !== "off" && rv >= w.bookmarkAfterRV) {
          if (w.tryAddBookmark(this.bookmarkEvent(Math.max(rv, w.bookmarkAfterRV), true), true)) {
            w.nextBookmarkAt = this.nextAfterTick(w, now);
          }
        }
        continue;
      }
      // Offered without blocking; the watcher forwards it only when its RV is past the watch's start (upstream
      // `process`), so a watch whose resource never moved gets none.
      if (mode === "on") {
        periodic ??= this.bookmarkEvent(rv, false);
        w.tryAddBookmark(periodic, false);
      }
      w.nextBookmarkAt = this.nextAfterTick(w, now);
    }
  }

  // ---- lifecycle and faults -----------------------------------------------------------------------------------

  /** Closes matching watchers as a dropped connection would (in-process iteration throws `failure` if given). */
  dropWatchers(filter: (w: CacheWatcher) => boolean, failure?: Error): number {
    let n = 0;
    for (const w of [...this.watchers]) {
      if (!filter(w)) continue;
      w.close("dropped", false, failure);
      n++;
    }
    return n;
  }

  /**
   * Re-initializes the cache as after a broken etcd watch: every watcher is closed, the history is emptied, the
   * cache is pending (429 for watches) for `downtimeMs`, then relists from storage.
   */
  reinitialize(downtimeMs = 0): void {
    for (const w of [...this.watchers]) w.close("cache-reinitialized", false);
    this.readyTimer?.stop();
    this.ready = false;
    this.generation++;
    this.pendingSince = this.clock.now();
    const finish = () => {
      this.readyTimer = undefined;
      this.relist();
      this.ready = true;
      this.wakeWaiters();
    };
    if (downtimeMs <= 0) finish();
    else this.readyTimer = this.clock.afterFunc(downtimeMs, finish);
  }

  stop(): void {
    this.stopped = true;
    for (const w of [...this.watchers]) w.close("server-stopped", false);
    this.bookmarkTimer?.stop();
    this.readyTimer?.stop();
    this.paused?.timer.stop();
    this.paused = undefined;
    for (const t of this.lagTimers) t.stop();
    this.lagTimers.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      w.timer.stop();
      w.reject(newServiceUnavailable("the apiserver is shutting down"));
    }
  }

  /**
   * The resource stops being served (its CustomResourceDefinition was deleted): once the events committed so far
   * have reached the cache, every watcher is closed gracefully (it still reads what it holds, then its stream ends)
   * and the cache stops.
   */
  retire(): void {
    this.deliver(() => {
      for (const w of [...this.watchers]) w.close("server-stopped", true);
      this.stop();
    });
  }

  /** Open watchers (tests, admin). */
  openWatchers(): readonly CacheWatcher[] {
    return [...this.watchers];
  }
}

function stripTypeMeta(o: KubeObject): KubeObject {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}
