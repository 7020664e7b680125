import type { KubeObject, ListOptions, StatusError } from "@informer-ts/apimachinery";
import { newResourceExpired, objectFieldSet, parseResourceVersion } from "@informer-ts/apimachinery";
import type { Clock, Rand, Timer } from "@informer-ts/clock";
import { groupResourceString, type SimResource } from "../resources.js";
import type { Selection } from "../selection.js";
import type { MvccStorage, StorageEvent } from "../storage/index.js";
import { CacheDispatcher } from "./cache-dispatcher.js";
import { CacheWatcher, FixedWatch, type InitialSource, type WatchCloseReason } from "./cache-watcher.js";
import { type CacherListResult, Delegator, type DelegatorConfig, singleObjectKey } from "./delegator.js";
import type { ServedFrom } from "./served-from.js";
import { WatchBookmarks } from "./watch-bookmarks.js";
import { WatchCache } from "./watch-cache.js";
import { suggestedWatchChannelSize } from "./watch-memory-model.js";

export type { CacherListResult } from "./delegator.js";
export { answeredBy, type ServedFrom, servedFromOfError } from "./served-from.js";

/** Cacher tuning; every field has kube-apiserver's value as the default (see the engine options). */
export interface CacherConfig extends DelegatorConfig {
  readonly bookmarkFrequencyMs: number;
  readonly blockTimeoutMs: number;
  readonly eventFreshMs: number;
  readonly historyLowerBound: number;
  readonly historyUpperBound: number;
  /** Delay between a storage change and the watch cache seeing it (0 = synchronous). */
  readonly cacheLagMs: number;
  readonly dispatchBudgetMs: number;
  readonly budgetRefreshMsPerSecond: number;
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

/** `initProcessThreshold`: initial events handed over slower than this are logged. */
const INIT_PROCESS_THRESHOLD_MS = 500;

/**
 * The watch cache of one resource (kube-apiserver's `Cacher`), composed as upstream's is: the {@link WatchCache}
 * (state, RV, history, freshness waits, readiness), the {@link Delegator} (which reads the cache or storage
 * answers), the {@link CacheDispatcher} (watchers and the dispatcher with its shared time budget) and the
 * {@link WatchBookmarks} ticks. This class feeds them storage's changes (after `cacheLagMs`), opens watches, and
 * re-initializes, retires and stops the whole.
 */
export class Cacher {
  private readonly cache: WatchCache;
  private readonly delegator: Delegator;
  private readonly dispatcher: CacheDispatcher;
  private readonly bookmarks: WatchBookmarks;
  private readyTimer: Timer | undefined;
  /** Storage changes on their way to the cache (`cacheLagMs`). */
  private readonly lagTimers = new Set<Timer>();
  private nextWatcherId = 1;
  private stopped = false;

  constructor(
    readonly resource: SimResource,
    private readonly storage: MvccStorage,
    private readonly clock: Clock,
    rand: Rand,
    private readonly cfg: CacherConfig,
    private readonly hooks: CacherHooks,
  ) {
    this.cache = new WatchCache(resource, storage, clock, cfg, () => this.onProgress(storage.currentRevision));
    this.delegator = new Delegator(resource, storage, this.cache, cfg);
    this.bookmarks = new WatchBookmarks(
      resource,
      clock,
      rand,
      cfg.bookmarkFrequencyMs,
      () => this.dispatcher.watchers,
      () => this.dispatcher.lastDispatchedRV,
      () => hooks.bookmarkMode(),
    );
    this.dispatcher = new CacheDispatcher(resource, clock, cfg, {
      onWatcherTerminated: (r, message) => hooks.onWatcherTerminated(r, message),
      onWatcherCountChanged: (r, delta) => hooks.onWatcherCountChanged(r, delta),
      onEventsDispatched: (r, n) => hooks.onEventsDispatched(r, n),
      onRegistered: (w) => this.bookmarks.onRegistered(w),
    });
    this.relist();
  }

  /** The watch cache's resourceVersion. */
  get resourceVersion(): number {
    return this.cache.rv;
  }

  get isReady(): boolean {
    return this.cache.ready;
  }

  get watcherCount(): number {
    return this.dispatcher.watchers.size;
  }

  /** Watchers closed for unresponsiveness since start. */
  get terminatedWatchers(): number {
    return this.dispatcher.terminatedWatchers;
  }

  /** Ring buffer capacity and fill, for tests and metrics. */
  get historyStats(): { readonly capacity: number; readonly size: number; readonly oldestRV: number } {
    const h = this.cache.history;
    return { capacity: h.cap, size: h.size, oldestRV: h.oldestRV() };
  }

  /** Remaining dispatch budget (ms). */
  get dispatchBudget(): number {
    return this.dispatcher.budgetAvailable;
  }

  private relist(): void {
    this.cache.relist();
    this.dispatcher.reset(this.cache.rv);
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

  /** Storage compacted its history below `rev` at the engine clock's `at` (see `WatchCache.onCompacted`). */
  onCompacted(rev: number, at: number): void {
    this.cache.onCompacted(rev, at);
  }

  /** A committed change of this resource (the cacher's etcd watch). */
  onStorageEvent(ev: StorageEvent): void {
    this.deliver(() => {
      // Not ready: the relist will see it. Not newer than the cache: a relist already did (lagged delivery).
      if (this.stopped || !this.cache.ready || ev.rev <= this.cache.rv) return;
      this.dispatcher.push(this.cache.apply(ev));
    });
  }

  /** A progress notification: storage is at `rev` and nothing of this resource changed up to it. */
  onProgress(rev: number): void {
    this.deliver(() => {
      if (this.stopped || !this.cache.ready || rev <= this.cache.rv) return;
      this.cache.progress(rev);
      this.dispatcher.push({ progress: rev });
    });
  }

  /**
   * Waits until the cache is at `rv` or newer (`waitUntilFreshAndBlock`), asking storage for a progress notification
   * when `rv` is already committed. Rejects after the block timeout (3 s) with 504 `Too large resource version`
   * (`Retry-After: 1`).
   */
  waitFresh(rv: number): Promise<void> {
    return this.cache.waitFresh(rv);
  }

  // ---- lists and gets -----------------------------------------------------------------------------------------

  /** LIST per the routing table (L1–L6); see {@link Delegator.list}. */
  list(namespace: string, opts: ListOptions, sel: Selection): Promise<CacherListResult> {
    return this.delegator.list(namespace, opts, sel);
  }

  /** GET (L7–L9); see {@link Delegator.get}. */
  get(
    namespace: string,
    name: string,
    rvStr: string,
  ): Promise<{ object: KubeObject | undefined; servedFrom: ServedFrom }> {
    return this.delegator.get(namespace, name, rvStr);
  }

  // ---- watches ------------------------------------------------------------------------------------------------

  /**
   * The new watcher's channel size from the history's capacity now (`suggestedWatchChannelSize`). A
   * re-initialization empties the history but keeps its capacity, as upstream's `ResetLocked` does, so a watch opened
   * after one gets channels sized by the churn before it until the ring fills again and resizes.
   */
  private chanSize(triggerValue: string | undefined): number {
    return suggestedWatchChannelSize(this.cache.history.cap, {
      indexExists: this.resource.trigger !== undefined,
      triggerUsed: triggerValue !== undefined,
      eventFreshMs: this.cfg.eventFreshMs,
    });
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
    if (!this.cache.ready) {
      // ResilientWatchCacheInitialization: 429 (W8). Before it, the watch waits until the cache is ready.
      if (this.cfg.resilientWatchCacheInitialization !== false) throw this.cache.notReady();
      await this.cache.whenReady();
    }
    const rvStr = opts.resourceVersion ?? "";
    const rv = Number(parseResourceVersion(rvStr));
    const sie = opts.sendInitialEvents;
    const generation = this.cache.generation;
    // A watch naming one object reads its initial state by key, not by scanning the namespace.
    const single = singleObjectKey(this.resource, namespace, sel);
    let initial: InitialSource = { kind: "none" };
    let startRV: number;
    let bookmarkAfterRV: number | undefined;
    // getWatchCacheResourceVersion: the requested RV, 0 for the legacy case, etcd's current RV for RV "" otherwise.
    // It is also the floor the watcher's process loop compares bookmarks against.
    const requiredRV = rvStr !== "" || sie === undefined ? rv : this.storage.currentRevision;
    if (sie === true) {
      if (rvStr === "" || rv > 0) {
        try {
          await this.cache.waitFresh(requiredRV);
        } catch (err) {
          return this.errorWatch(err);
        }
      }
      // The cache went unready (or was re-initialized) while this watch waited: kube-apiserver does not register it
      // and answers with a watch that is closed at once (no events, no ERROR).
      if (!this.cache.ready || this.cache.generation !== generation) return new FixedWatch([]);
      initial = { kind: "snapshot", items: this.cache.snapshotItems(namespace, single) };
      startRV = this.cache.rv;
      // getBookmarkAfterResourceVersionLockedFunc: RV "" → the required RV, "0" → the cache's RV, N → N.
      bookmarkAfterRV = rvStr === "" ? requiredRV : rv > 0 ? rv : this.cache.rv;
    } else if (sie === undefined && rv === 0) {
      // Legacy RV ""/"0" on a server without WatchList: current cache state, not a consistent read, no end marker.
      initial = { kind: "snapshot", items: this.cache.snapshotItems(namespace, single) };
      startRV = this.cache.rv;
    } else if (rv === 0) {
      // W5 (RV "0") and RV "" without initial events: start now (RV "": at etcd's current RV, no wait).
      startRV = Math.max(this.cache.rv, requiredRV);
    } else {
      const oldest = this.cache.history.oldestRV();
      if (rv < oldest - 1) {
        return this.errorWatch(newResourceExpired(`too old resource version: ${rv} (${oldest - 1})`));
      }
      initial = {
        kind: "history",
        history: this.cache.history,
        from: this.cache.history.firstAfter(rv),
        to: this.cache.history.end,
      };
      startRV = Math.max(rv, this.cache.rv);
    }
    const trigger = this.resource.trigger;
    const triggerValue = trigger === undefined ? undefined : sel.fields.requiresExactMatch(trigger);
    // The hand-over of initial events is timed from here, after any freshness wait (upstream's processInterval).
    const started = this.clock.now();
    const scope = this.watchScope(namespace, sel);
    const w = new CacheWatcher({
      id: this.nextWatcherId++,
      matches: scope.matches,
      startRV,
      processRV: requiredRV,
      allowBookmarks: opts.allowWatchBookmarks === true,
      chanSize: this.chanSize(triggerValue),
      initial,
      bookmarkAfterRV: opts.allowWatchBookmarks === true ? bookmarkAfterRV : undefined,
      // Shared by every watcher of this cacher: an idle watch holds no callbacks of its own.
      onRoom: this.watcherRoom,
      onClose: this.watcherClosed,
      onInitialized: this.watcherInitialized,
      startedAt: started,
      triggerValue,
      description: scope.description,
    });
    this.dispatcher.register(w, opts.timeoutSeconds);
    return w;
  }

  private readonly watcherRoom = (w: CacheWatcher) => this.dispatcher.onRoom(w);
  private readonly watcherClosed = (w: CacheWatcher, reason: WatchCloseReason) =>
    this.dispatcher.onWatcherClosed(w, reason);
  private readonly watcherInitialized = (w: CacheWatcher, n: number) => this.onInitialized(w, n, w.startedAt);
  /** Matchers and descriptions of watch scopes, by description (which names the scope and both selectors). */
  private readonly scopes = new Map<
    string,
    { readonly matches: (o: KubeObject) => boolean; readonly description: string }
  >();

  /**
   * The matcher and the log description (`key: "/configmaps/ns", labels: "", fields: ""`) of a watch in `namespace`
   * with `sel`, shared by every watch of the same scope and selectors: an idle watch holds no matcher closures or
   * description string of its own. The selectors' canonical text identifies them.
   */
  private watchScope(
    namespace: string,
    sel: Selection,
  ): { readonly matches: (o: KubeObject) => boolean; readonly description: string } {
    const text = `key: "/${this.resource.resource}${namespace === "" ? "" : `/${namespace}`}", labels: "${sel.labels.toString()}", fields: "${sel.fields.toString()}"`;
    const known = this.scopes.get(text);
    if (known !== undefined) return known;
    if (this.scopes.size >= 1024) this.scopes.clear();
    // A flat copy: the template literal above is a tree of concatenations, each part of it kept alive by the watcher.
    const description = Buffer.from(text, "utf8").toString("utf8");
    const matches =
      namespace === "" ? sel.matches : (o: KubeObject) => o.metadata?.namespace === namespace && sel.matches(o);
    const scope = { matches, description };
    this.scopes.set(description, scope);
    return scope;
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

  // ---- lifecycle and faults -----------------------------------------------------------------------------------

  /** Closes matching watchers as a dropped connection would (in-process iteration throws `failure` if given). */
  dropWatchers(filter: (w: CacheWatcher) => boolean, failure?: Error): number {
    let n = 0;
    for (const w of [...this.dispatcher.watchers]) {
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
    for (const w of [...this.dispatcher.watchers]) w.close("cache-reinitialized", false);
    this.readyTimer?.stop();
    this.cache.ready = false;
    this.cache.generation++;
    this.cache.pendingSince = this.clock.now();
    const finish = () => {
      this.readyTimer = undefined;
      this.relist();
      this.cache.becameReady();
    };
    if (downtimeMs <= 0) finish();
    else this.readyTimer = this.clock.afterFunc(downtimeMs, finish);
  }

  stop(): void {
    this.stopped = true;
    for (const w of [...this.dispatcher.watchers]) w.close("server-stopped", false);
    this.bookmarks.stop();
    this.readyTimer?.stop();
    this.dispatcher.stop();
    for (const t of this.lagTimers) t.stop();
    this.lagTimers.clear();
    this.cache.rejectWaiters();
  }

  /**
   * The resource stops being served (its CustomResourceDefinition was deleted): once the events committed so far
   * have reached the cache, every watcher is closed gracefully (it still reads what it holds, then its stream ends)
   * and the cache stops.
   */
  retire(): void {
    this.deliver(() => {
      for (const w of [...this.dispatcher.watchers]) w.close("server-stopped", true);
      this.stop();
    });
  }

  /**
   * Watchers a change of `obj` would be offered to (those not selecting on the trigger, plus those selecting its
   * value): the interested-watch count of API Priority and Fairness's estimate for a write.
   */
  interestedWatchers(obj: KubeObject | undefined): number {
    const trigger = this.resource.trigger;
    const v = trigger === undefined || obj === undefined ? undefined : objectFieldSet(obj, [trigger])[trigger];
    return this.dispatcher.interestedCount(v);
  }

  /** Open watchers (tests, admin). */
  openWatchers(): readonly CacheWatcher[] {
    return [...this.dispatcher.watchers];
  }
}
