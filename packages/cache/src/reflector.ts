import {
  isConnectionRefused,
  isInternalError,
  isTooManyRequests,
  type KubeList,
  type KubeObject,
  type ListOptions,
  metaOf,
  shallowCopyObject,
} from "@informer-ts/apimachinery";
import { type Clock, mathRand, type Rand, realClock, type Timer } from "@informer-ts/clock";
import { Observable } from "rxjs";
import {
  DEFAULT_BACKOFF_RESET_MS,
  type DelayFunc,
  defaultReflectorBackoff,
  delayWithReset,
  gapResetDelayFunc,
} from "./backoff.js";
import { metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
import { onAbort } from "./internal/abort-registry.js";
import { abortable, STOP_REQUESTED } from "./internal/abortable.js";
import { nameFromCallsite } from "./internal/callsite-name.js";
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceKeyFunc } from "./keys.js";
import type { ListerWatcher, Watch } from "./listwatch.js";
import { newListPager } from "./pager.js";
import {
  checkWatchListDataConsistency,
  envVar,
  isDataConsistencyDetectionForWatchListEnabled,
  parseGoBool,
} from "./reflector-data-consistency-detector.js";
import {
  errorInfo,
  InitialEventsEndTimeoutError,
  isExpiredError,
  isTooLargeResourceVersionError,
  isWatchErrorRetriable,
  VeryShortWatchError,
} from "./reflector-errors.js";
import { FailureReporter } from "./reflector-failures.js";
import { consoleLogger, type ReflectorLogger, safeLog } from "./reflector-logger.js";
import {
  DEFAULT_EXPECTED_TYPE_NAME,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  defaultWatchErrorHandler,
  type ReflectorInfo,
  type ReflectorOptions,
  type WatchErrorHandler,
} from "./reflector-options.js";
import {
  type ReflectorErrorPhase,
  type ReflectorEvent,
  type ReflectorStatus,
  ReflectorStatusTracker,
  type RelistCause,
} from "./reflector-status.js";
import {
  type GroupVersionKind,
  gvkString,
  handleAnyWatch,
  isUnsupportedTableObject,
  stopQuietly,
  type WatchHandlerContext,
  WatchInterrupter,
  type WatchResult,
} from "./reflector-watch.js";
import { newRetryWithDeadline } from "./retry-with-deadline.js";

export {
  DEFAULT_EXPECTED_TYPE_NAME,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  defaultWatchErrorHandler,
  type ReflectorInfo,
  type ReflectorOptions,
  VERY_SHORT_WATCH_MS,
  type WatchErrorHandler,
  type WatchLivenessOptions,
} from "./reflector-options.js";

import type { Indexer, ReflectorStore, ResourceVersionUpdater } from "./store.js";
import { newIndexer, newStore, type StoreWithTransactions, type TransformFunc } from "./store-impl.js";

/** Window after which the internal-error retry budget resets (`time.Minute` in `watch`, F19). */
const INTERNAL_ERROR_RETRY_RESET_MS = 60_000;

/** Holds a resync error for the watch loop (client-go's `resyncerrc`, capacity 1). */
class ResyncErrorChannel {
  pending: { error: unknown } | undefined;
  listener: ((error: unknown) => void) | undefined;

  send(error: unknown): void {
    if (this.listener !== undefined) this.listener(error);
    else if (this.pending === undefined) this.pending = { error };
  }
}

/**
 * `TransformingStore` detection: the transformer a store reports through a `transformer()` **method** (RealFIFO,
 * DeltaFIFO). An own `transformer` property is not such a method (a plain store keeps its transform function in
 * a field of that name), so only inherited methods are called.
 */
function transformerOfStore<T>(store: unknown): TransformFunc<T> | undefined {
  if (typeof store !== "object" || store === null) return undefined;
  const method = (store as { transformer?: unknown }).transformer;
  if (typeof method !== "function" || Object.hasOwn(store, "transformer") || method.length !== 0) return undefined;
  try {
    const fn: unknown = method.call(store);
    return typeof fn === "function" ? (fn as TransformFunc<T>) : undefined;
  } catch {
    return undefined;
  }
}

function isResourceVersionUpdater(store: unknown): store is ResourceVersionUpdater {
  return typeof (store as { updateResourceVersion?: unknown }).updateResourceVersion === "function";
}

function expectedGVKOf(expectedType: KubeObject | undefined): GroupVersionKind | undefined {
  const apiVersion = expectedType?.apiVersion;
  const kind = expectedType?.kind;
  if (typeof apiVersion !== "string" || apiVersion === "" || typeof kind !== "string" || kind === "") return undefined;
  return { apiVersion, kind };
}

function typeDescriptionOf(expectedType: KubeObject | undefined): string {
  if (expectedType === undefined) return DEFAULT_EXPECTED_TYPE_NAME;
  const gvk = expectedGVKOf(expectedType);
  if (gvk !== undefined) return gvkString(gvk);
  return typeof expectedType.kind === "string" && expectedType.kind !== "" ? expectedType.kind : "Object";
}

function relistCauseOf(err: unknown): RelistCause {
  if (err instanceof VeryShortWatchError) return "very-short";
  if (isExpiredError(err)) return "expired";
  if (isTooLargeResourceVersionError(err)) return "too-large";
  if (isInternalError(err)) return "internal-error";
  return "watch-error";
}

/**
 * Watches a resource and keeps a store in step with the server (`cache.Reflector`, reflector.go; F1–F30).
 *
 * One `listAndWatch` run: prime the store — by watch-list (`sendInitialEvents`, on by default, falling back to
 * LIST on any non-retriable error) or by LIST (RV "0" first, then the last synced RV, "" after an Expired or
 * too-large answer; paginated through {@link ListPager}) — then watch from the synced RV with bookmarks and a
 * randomized 5–10 min timeout, applying ADDED/MODIFIED/DELETED/BOOKMARK to the store. A watch that ends
 * cleanly is re-opened at once; 429 and connection-refused back off and re-watch; 410, very short watches,
 * resync failures and other errors end the run. {@link Reflector.run} repeats runs forever with the backoff
 * (800 ms ×2 up to 30 s, full jitter) between them, until stopped.
 *
 * Lifecycle: {@link Reflector.run} runs until its signal aborts and resolves once everything is released;
 * {@link Reflector.run$} is the same run as an Observable (the subscription is the run). Stopping aborts the
 * in-flight request, stops the open watch and clears every timer. `watcher()` is the same machinery as a
 * stream of events instead of a store.
 *
 * Status: {@link Reflector.status} (snapshot) and {@link Reflector.status$} (phase, sync, last error with HTTP
 * code and reason, counts); events: {@link Reflector.events$}.
 *
 * Differences from client-go: durations are milliseconds; Go's `expectedType` becomes an example object whose
 * `apiVersion`/`kind` (when both set) is the expected GVK — every JSON object is "unstructured"; errors are
 * thrown and also recorded in the status; the reflector has no klog and uses an injectable logger; the watch
 * and backoff timers use the injected clock (Go's `Until` uses the real clock); see also the beyond-client-go
 * options `initialEventsEndTimeout`, `watchLiveness` and `initialResourceVersion` (all off by default).
 */
export class Reflector<T> implements ReflectorInfo {
  readonly name: string;
  readonly typeDescription: string;
  readonly logger: ReflectorLogger;
  /** `WatchListPageSize` (F7). May be changed before running. */
  watchListPageSize: number;
  /** `ShouldResync` (F20). */
  shouldResync: (() => boolean) | undefined;
  /** `MaxInternalErrorRetryDuration` (F19), ms. */
  maxInternalErrorRetryDuration: number;
  /** Watch error handler (F21). */
  watchErrorHandler: WatchErrorHandler;

  private readonly lw: ListerWatcher<T>;
  private readonly store: ReflectorStore<T>;
  private readonly expectedGVK: GroupVersionKind | undefined;
  private readonly clock: Clock;
  private readonly rand: Rand;
  private readonly resyncPeriod: number;
  private readonly minWatchTimeoutMs: number;
  private readonly maxWatchTimeoutMs: number;
  private readonly delayHandler: DelayFunc;
  private readonly watchListEnabled: boolean;
  private readonly transformer: TransformFunc<T> | undefined;
  private readonly consistencyDetector: boolean;
  private readonly initialEventsEndTimeout: number | undefined;
  private readonly livenessTimeoutMs: number | undefined;
  private readonly livenessRequiresBookmarks: boolean;
  private readonly tracker: ReflectorStatusTracker;
  private readonly failures: FailureReporter;
  private readonly watchCtx: WatchHandlerContext;

  private lastSyncRV: string;
  private isLastSyncResourceVersionUnavailable = false;
  private paginatedResult = false;
  private bookmarksObserved = false;
  /** Why the last `listAndWatch` ended (recorded as a relist cause by the run loop). */
  private exitCause: RelistCause | undefined;
  private running = false;

  constructor(
    lw: ListerWatcher<T>,
    expectedType: KubeObject | undefined,
    store: ReflectorStore<T>,
    options: ReflectorOptions<T> = {},
  ) {
    if (lw === null || typeof lw !== "object" || typeof lw.list !== "function" || typeof lw.watch !== "function") {
      throw new TypeError("Reflector needs a ListerWatcher with list() and watch()");
    }
    if (store === null || typeof store !== "object" || typeof store.replace !== "function") {
      throw new TypeError("Reflector needs a store with add/update/delete/replace/resync");
    }
    this.lw = lw;
    this.store = store;
    this.clock = options.clock ?? realClock;
    this.rand = options.rand ?? mathRand;
    this.name =
      options.name || nameFromCallsite(["/packages/cache/src/", "/packages/cache/dist/", "@informer-ts/cache/"]);
    this.typeDescription = options.typeDescription || typeDescriptionOf(expectedType);
    this.expectedGVK = expectedGVKOf(expectedType);
    this.logger = options.logger ?? consoleLogger;
    this.resyncPeriod = options.resyncPeriod ?? 0;
    let minWatch = DEFAULT_MIN_WATCH_TIMEOUT_MS;
    if ((options.minWatchTimeout ?? 0) > DEFAULT_MIN_WATCH_TIMEOUT_MS) minWatch = options.minWatchTimeout!;
    this.minWatchTimeoutMs = minWatch;
    this.maxWatchTimeoutMs = 2 * minWatch;
    const backoff = options.backoff ?? defaultReflectorBackoff;
    const resetInterval = options.backoffResetInterval ?? DEFAULT_BACKOFF_RESET_MS;
    this.delayHandler =
      options.backoffResetMode === "gap"
        ? gapResetDelayFunc(backoff, this.clock, resetInterval, this.rand)
        : delayWithReset(backoff, this.clock, resetInterval, this.rand);
    this.watchListPageSize = options.watchListPageSize ?? 0;
    this.shouldResync = options.shouldResync;
    this.maxInternalErrorRetryDuration = options.maxInternalErrorRetryDuration ?? 0;
    this.watchErrorHandler = options.watchErrorHandler ?? defaultWatchErrorHandler;
    this.transformer = options.transformer ?? transformerOfStore<T>(store);
    this.consistencyDetector = options.watchListConsistencyDetector ?? isDataConsistencyDetectionForWatchListEnabled();
    this.initialEventsEndTimeout = options.initialEventsEndTimeout;
    if (options.watchLiveness !== undefined) {
      const period = options.watchLiveness.bookmarkPeriod ?? 60_000;
      const factor = options.watchLiveness.factor ?? 3;
      if (!(period > 0) || !(factor >= 1)) {
        throw new RangeError(`watchLiveness needs bookmarkPeriod > 0 and factor ≥ 1, got ${period} and ${factor}`);
      }
      this.livenessTimeoutMs = period * factor;
    }
    this.livenessRequiresBookmarks = options.watchLiveness?.requireBookmarks ?? true;
    this.lastSyncRV = options.initialResourceVersion ?? "";

    let useWatchList = options.useWatchList ?? parseGoBool(envVar("KUBE_FEATURE_WatchListClient")) ?? true;
    if (useWatchList && lw.watchListSemanticsUnsupported === true) {
      safeLog(this.logger, "debug", "The ListerWatcher does not support WatchList semantics; the feature is disabled", {
        reflector: this.name,
      });
      useWatchList = false;
    }
    this.watchListEnabled = useWatchList;

    this.tracker = new ReflectorStatusTracker(this.name, this.typeDescription, this.clock, () => ({
      lastSyncResourceVersion: this.lastSyncRV,
      unavailable: this.isLastSyncResourceVersionUnavailable,
    }));
    this.failures = new FailureReporter(this.name, this.typeDescription, lw.target, this.clock, this.logger);
    this.watchCtx = {
      name: this.name,
      typeDescription: this.typeDescription,
      expectedGVK: this.expectedGVK,
      clock: this.clock,
      logger: this.logger,
      status: this.tracker,
      onBookmark: () => {
        this.bookmarksObserved = true;
      },
    };
  }

  /** Whether this reflector primes its store with watch-list (F5, F26). */
  get useWatchList(): boolean {
    return this.watchListEnabled;
  }

  /** A snapshot of the status (always current, including counters). */
  status(): ReflectorStatus {
    return this.tracker.snapshot();
  }

  /** The status: an exact snapshot on subscribe, then every lifecycle change (phase, sync, error). */
  get status$(): Observable<ReflectorStatus> {
    return this.tracker.status$;
  }

  /** Lifecycle events (list/watch start and end, backoffs, errors, relists, bookmarks…). Hot, no replay. */
  get events$(): Observable<ReflectorEvent> {
    return this.tracker.events.events$;
  }

  /**
   * The resource version of the last list, watch-list or watch event (`LastSyncResourceVersion`, F27). Not
   * synchronised with the store: the store may not have processed that version yet.
   */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /**
   * Runs the reflector until `signal` aborts (`Run` / `RunWithContext`): `listAndWatch`, hand any error to the
   * watch error handler, wait one backoff delay, repeat. Resolves once the run has released everything it held:
   * the in-flight request aborted, the open watch stopped, every timer cleared, its abort registration on
   * `signal` removed, and the status `stopped` (status$ subscriptions complete). It never rejects because of a
   * list or watch failure (those are retried and reported in the status).
   *
   * Many components may share one `signal`: the library keeps a single listener on it however many run.
   *
   * @throws Error (as a rejection) if this reflector is already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`reflector ${this.name} is already running`);
    this.running = true;
    this.tracker.beginRun();
    const stop = new AbortController();
    const unregister = onAbort(signal, () => stop.abort(STOP_REQUESTED));
    safeLog(this.logger, "debug", "Starting reflector", {
      type: this.typeDescription,
      resyncPeriod: this.resyncPeriod,
      reflector: this.name,
    });
    this.tracker.emit({ type: "started" });
    try {
      await this.runLoop(stop.signal);
    } finally {
      unregister();
      this.running = false;
      this.tracker.setPhase("stopped");
      this.tracker.emit({ type: "stopped" });
      this.tracker.endRun();
      safeLog(this.logger, "debug", "Stopping reflector", { type: this.typeDescription, reflector: this.name });
    }
  }

  /**
   * The run as an Observable: subscribing runs the reflector (as {@link Reflector.run}), unsubscribing stops it.
   * It emits the status (the current one on subscribe, then every change) and errors only if the reflector is
   * already running. It does not complete on its own: the run only ends when unsubscribed.
   */
  run$(): Observable<ReflectorStatus> {
    return new Observable<ReflectorStatus>((subscriber) => {
      const stop = new AbortController();
      this.run(stop.signal).catch((err: unknown) => subscriber.error(err));
      if (subscriber.closed) return undefined;
      const status = this.tracker.status$.subscribe((s) => subscriber.next(s));
      return () => {
        status.unsubscribe();
        stop.abort(STOP_REQUESTED);
      };
    });
  }

  /** The loop of {@link Reflector.run}: one `listAndWatch` after the other, one backoff delay between them. */
  private async runLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.runOnce(signal);
      if (signal.aborted) return;
      // Wait one backoff delay after every run, whatever its result (client-go's BackoffUntil with sliding=true).
      try {
        await this.clock.sleep(this.enterBackoff("list-and-watch"), signal);
      } catch {
        return;
      }
    }
  }

  /** One iteration of the run loop: `listAndWatch`, the error handler, and the relist bookkeeping. */
  private async runOnce(signal: AbortSignal): Promise<void> {
    this.exitCause = undefined;
    try {
      await this.listAndWatch(signal);
    } catch (err) {
      if (err === STOP_REQUESTED || signal.aborted) return;
      try {
        this.watchErrorHandler(this, err);
      } catch (handlerErr) {
        safeLog(this.logger, "error", "watch error handler threw", { reflector: this.name, err: handlerErr });
      }
    }
    if (signal.aborted) return;
    if (this.exitCause !== undefined) this.tracker.recordRelist(this.exitCause);
  }

  /** Computes the next backoff delay and records the backoff; returns the delay. */
  private enterBackoff(reason: string): number {
    const delay = this.delayHandler();
    this.tracker.counts.backoffs++;
    this.tracker.backoffUntil = this.clock.now() + delay;
    this.tracker.emit({ type: "backoff", delayMs: delay, reason });
    this.tracker.setPhase("backing-off");
    this.tracker.publish();
    return delay;
  }

  /** Waits one backoff delay; false if stopped meanwhile. */
  private async backoff(signal: AbortSignal, reason: string): Promise<boolean> {
    const delay = this.enterBackoff(reason);
    try {
      await this.clock.sleep(delay, signal);
      return true;
    } catch {
      return false;
    }
  }

  private recordError(during: ReflectorErrorPhase, err: unknown): void {
    const failure = this.failures.failed(during, err);
    if (failure !== undefined) {
      this.tracker.failure = failure;
      this.tracker.emit({ type: "failure", failure });
    }
    this.tracker.recordError(during, errorInfo(err));
  }

  /** A list or watch succeeded: ends a failure streak of that phase (logged and published). */
  private recordSuccess(phase: "list" | "watch"): void {
    const failure = this.tracker.failure;
    if (failure === undefined || !this.failures.succeeded(phase)) return;
    this.tracker.failure = undefined;
    this.tracker.emit({ type: "recovered", tries: failure.tries, since: failure.since });
    this.tracker.publish();
  }

  private setLastSyncResourceVersion(rv: string): void {
    this.lastSyncRV = rv;
  }

  private setIsLastSyncResourceVersionUnavailable(unavailable: boolean): void {
    if (this.isLastSyncResourceVersionUnavailable === unavailable) return;
    this.isLastSyncResourceVersionUnavailable = unavailable;
    this.tracker.publish();
  }

  /** `relistResourceVersion` (F6): "" after Expired/too-large, "0" before any sync, else the last synced RV. */
  relistResourceVersion(): string {
    if (this.isLastSyncResourceVersionUnavailable) return "";
    if (this.lastSyncRV === "") return "0";
    return this.lastSyncRV;
  }

  /** `rewatchResourceVersion` (F22): "" after Expired/too-large, else the last synced RV (initially ""). */
  rewatchResourceVersion(): string {
    if (this.isLastSyncResourceVersionUnavailable) return "";
    return this.lastSyncRV;
  }

  private watchTimeoutSeconds(): number {
    const min = this.minWatchTimeoutMs / 1000;
    const max = this.maxWatchTimeoutMs / 1000;
    return Math.trunc(min + this.rand.float() * (max - min));
  }

  /**
   * One list-and-watch cycle (`ListAndWatchWithContext`, F5): prime the store (watch-list, falling back to LIST
   * within the same call on any error), then watch until the watch loop gives up. Resolves when stopped or
   * when the watch ended in a way that requires a relist; rejects with the error that made it give up early
   * (a failed LIST or store replace, or a non-retriable watch request error). {@link Reflector.run} calls it in a
   * loop; do not call it while the reflector runs.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    safeLog(this.logger, "debug", "Listing and watching", { type: this.typeDescription, reflector: this.name });
    let w: Watch<T> | undefined;
    let fallbackToList = !this.watchListEnabled;
    try {
      if (this.watchListEnabled) {
        try {
          w = await this.watchList(signal);
          if (w === undefined) return;
        } catch (err) {
          if (err === STOP_REQUESTED || signal.aborted) return;
          safeLog(this.logger, "debug", "Data couldn't be fetched in watchlist mode. Falling back to regular list.", {
            reflector: this.name,
            err,
          });
          this.tracker.counts.watchListFallbacks++;
          const info = errorInfo(err);
          this.tracker.emit({ type: "watch-list-fallback", error: info });
          this.tracker.recordError("watch-list", info);
          fallbackToList = true;
          w = undefined;
        }
      }
      if (fallbackToList) {
        try {
          await this.list(signal);
        } catch (err) {
          if (err === STOP_REQUESTED) return;
          this.exitCause = "list-error";
          throw err;
        }
        if (signal.aborted) return;
      }
      safeLog(this.logger, "debug", "Caches populated", { type: this.typeDescription, reflector: this.name });
      const handedOver = w;
      w = undefined;
      await this.watchWithResync(handedOver, signal);
    } finally {
      if (w !== undefined) stopQuietly(w);
    }
  }

  /**
   * LISTs and replaces the store (`list`, F6–F9). Resolves when done or stopped; rejects with
   * `failed to list <type>: …`, `unable to sync list result: …` (store replace) and the like.
   */
  private async list(signal: AbortSignal): Promise<void> {
    const options: ListOptions = { resourceVersion: this.relistResourceVersion() };
    const pager = newListPager<T>((opts, s) => this.lw.list(opts, s));
    if (this.watchListPageSize !== 0) pager.pageSize = this.watchListPageSize;
    else if (this.paginatedResult) {
      // The watch cache is probably off (a paginated answer to RV "0"): keep paging.
    } else if (options.resourceVersion !== "" && options.resourceVersion !== "0") {
      // An exact-or-newer RV without limit can be served from the watch cache (F7).
      pager.pageSize = 0;
    }
    const started = this.clock.now();
    this.tracker.setPhase("listing");
    const attempt = (opts: ListOptions) => {
      this.tracker.counts.lists++;
      this.tracker.emit({ type: "list-start", resourceVersion: opts.resourceVersion ?? "" });
      return abortable(pager.list(opts, signal), signal);
    };
    let result: { list: KubeList<T>; paginated: boolean };
    try {
      try {
        result = await attempt(options);
      } catch (err) {
        if (err === STOP_REQUESTED) throw err;
        if (!isExpiredError(err) && !isTooLargeResourceVersionError(err)) throw err;
        // F9: the RV is gone or not reached yet: retry at once with a consistent read.
        this.recordError("list", err);
        this.setIsLastSyncResourceVersionUnavailable(true);
        result = await attempt({ resourceVersion: this.relistResourceVersion() });
      }
      if (isUnsupportedTableObject(result.list)) {
        throw new Error(
          `unsupported list gvk: ${String(result.list.apiVersion)}, Kind=Table, type: ${this.typeDescription}`,
        );
      }
    } catch (err) {
      if (err === STOP_REQUESTED || signal.aborted) throw STOP_REQUESTED;
      this.recordError("list", err);
      throw new Error(`failed to list ${this.typeDescription}: ${errorInfo(err).message}`, { cause: err });
    }

    if (options.resourceVersion === "0" && result.paginated) this.paginatedResult = true;
    this.setIsLastSyncResourceVersionUnavailable(false);
    const list = result.list;
    const rv = typeof list.metadata?.resourceVersion === "string" ? list.metadata.resourceVersion : "";
    if (!Array.isArray(list.items)) {
      const err = new Error(`unable to understand list result: items is not an array (${typeof list.items})`);
      this.recordError("list", err);
      throw err;
    }
    // ExtractListWithAlloc: the store gets detached copies, never the response's own objects.
    const items = extractListWithAlloc(list.items);
    try {
      this.store.replace(items, rv);
    } catch (err) {
      this.recordError("store", err);
      throw new Error(`unable to sync list result: ${errorInfo(err).message}`, { cause: err });
    }
    this.setLastSyncResourceVersion(rv);
    this.markSynced();
    this.tracker.emit({
      type: "list-done",
      resourceVersion: rv,
      items: items.length,
      paginated: result.paginated,
      durationMs: this.clock.since(started),
    });
  }

  private markSynced(): void {
    this.recordSuccess("list");
    this.tracker.hasSynced = true;
    this.tracker.lastSyncTime = this.clock.now();
    this.tracker.publish();
  }

  /**
   * Primes the store with a watch-list (`watchList`, F22–F24): returns the still-open watch after the
   * initial-events-end bookmark, `undefined` when stopped; throws on errors that should fall back to LIST.
   */
  private async watchList(signal: AbortSignal): Promise<Watch<T> | undefined> {
    const started = this.clock.now();
    const deadline = this.initialEventsEndTimeout === undefined ? undefined : started + this.initialEventsEndTimeout;
    let temporaryStore: StoreWithTransactions<T>;
    let resourceVersion: string;
    let w: Watch<T>;
    for (;;) {
      if (signal.aborted) return undefined;
      if (deadline !== undefined && this.clock.now() >= deadline) {
        throw new InitialEventsEndTimeoutError(this.name, this.clock.since(started));
      }
      let rv = "";
      const lastKnownRV = this.rewatchResourceVersion();
      temporaryStore = newStore<T>(
        deletionHandlingMetaNamespaceKeyFunc,
        this.transformer === undefined ? {} : { transformer: this.transformer },
      );
      const timeoutSeconds = this.watchTimeoutSeconds();
      const options: ListOptions = {
        allowWatchBookmarks: true,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        timeoutSeconds,
      };
      if (lastKnownRV !== "") options.resourceVersion = lastKnownRV;
      const start = this.clock.now();
      this.tracker.counts.watchLists++;
      this.tracker.emit({ type: "watch-list-start", resourceVersion: lastKnownRV, timeoutSeconds });
      this.tracker.setPhase("watch-listing");
      try {
        w = await abortable(this.lw.watch(options, signal), signal, stopQuietly);
      } catch (err) {
        if (err === STOP_REQUESTED) return undefined;
        if (await this.isErrorRetriableWithSideEffects(err, signal, "watch-list")) continue;
        throw err;
      }
      const interrupter = new WatchInterrupter();
      const unwire = this.wireStop(interrupter, signal);
      let deadlineTimer: Timer | undefined;
      if (deadline !== undefined) {
        deadlineTimer = this.clock.afterFunc(deadline - this.clock.now(), () =>
          interrupter.fire({ reason: "initial-events-timeout" }),
        );
      }
      let result: WatchResult;
      try {
        result = await handleAnyWatch<T>(this.watchCtx, {
          start,
          watch: w,
          store: temporaryStore,
          setLastSyncResourceVersion: (eventRV, eventReceivedBesidesAdded) => {
            if (eventReceivedBesidesAdded) rv = eventRV;
          },
          exitOnInitialEventsEndBookmark: true,
          interrupter,
        });
      } finally {
        unwire();
        deadlineTimer?.stop();
      }
      if (result.end !== "initial-events-end") {
        this.tracker.emit({
          type: "watch-end",
          reason: result.end,
          events: result.events,
          durationMs: this.clock.since(start),
          ...(result.error === undefined ? {} : { error: errorInfo(result.error) }),
        });
      }
      if (result.end === "stopped") return undefined;
      if (result.end === "initial-events-timeout") {
        throw new InitialEventsEndTimeoutError(this.name, this.clock.since(started));
      }
      if (result.error !== undefined) {
        if (await this.isErrorRetriableWithSideEffects(result.error, signal, "watch-list")) continue;
        throw result.error;
      }
      if (result.initialEventsEnd) {
        resourceVersion = rv;
        break;
      }
      // Closed without the bookmark: try again at once (upstream retries forever, kubernetes#140890).
      safeLog(this.logger, "debug", "watch-list stream closed before the initial-events-end bookmark; retrying", {
        reflector: this.name,
      });
    }

    this.setIsLastSyncResourceVersionUnavailable(false);
    try {
      if (this.consistencyDetector) {
        await checkWatchListDataConsistency<T>({
          identity: this.name,
          resourceVersion,
          list: (o, s) => this.lw.list(o, s),
          transformer: this.transformer,
          retrieveItems: () => temporaryStore.list(),
          clock: this.clock,
          logger: this.logger,
          signal,
          onMismatch: (detail) => {
            this.tracker.emit({ type: "consistency-mismatch", resourceVersion, detail });
            this.recordError("consistency", new Error(detail));
            safeLog(this.logger, "error", detail, { reflector: this.name });
          },
        });
        if (signal.aborted) {
          stopQuietly(w);
          return undefined;
        }
      }
      const items = temporaryStore.list();
      try {
        this.store.replace(items, resourceVersion);
      } catch (err) {
        this.recordError("store", err);
        throw new Error(`unable to sync watch-list result: ${errorInfo(err).message}`, { cause: err });
      }
      this.setLastSyncResourceVersion(resourceVersion);
      this.markSynced();
      this.tracker.emit({
        type: "watch-list-done",
        resourceVersion,
        items: items.length,
        durationMs: this.clock.since(started),
      });
      return w;
    } catch (err) {
      stopQuietly(w);
      throw err;
    }
  }

  /**
   * `isErrorRetriableWithSideEffectsFn` of `watchList` (F24): retriable errors back off (true); Expired and
   * too-large mark the RV unavailable (true, retry with RV ""); anything else is false.
   */
  private async isErrorRetriableWithSideEffects(
    err: unknown,
    signal: AbortSignal,
    during: ReflectorErrorPhase,
  ): Promise<boolean> {
    if (isWatchErrorRetriable(err)) {
      this.recordError(during, err);
      safeLog(this.logger, "debug", "watch-list failed - backing off", { reflector: this.name, err });
      await this.backoff(signal, isTooManyRequests(err) ? "too-many-requests" : "connection-refused");
      return true;
    }
    if (isExpiredError(err) || isTooLargeResourceVersionError(err)) {
      this.recordError(during, err);
      this.setIsLastSyncResourceVersionUnavailable(true);
      return true;
    }
    // Recorded by listAndWatch when it falls back to LIST.
    return false;
  }

  /** Fires `interrupter` with "stopped" when `signal` aborts; returns the un-wiring function. */
  private wireStop(interrupter: WatchInterrupter, signal: AbortSignal): () => void {
    if (signal.aborted) {
      interrupter.fire({ reason: "stopped" });
      return () => {};
    }
    const onAbort = () => interrupter.fire({ reason: "stopped" });
    signal.addEventListener("abort", onAbort, { once: true });
    return () => signal.removeEventListener("abort", onAbort);
  }

  /** Runs the watch loop with the periodic resync beside it (`watchWithResync`, F20). */
  private async watchWithResync(w: Watch<T> | undefined, signal: AbortSignal): Promise<void> {
    const resyncErrors = new ResyncErrorChannel();
    const stopResync = this.startResync(resyncErrors);
    try {
      await this.watch(w, signal, resyncErrors);
    } finally {
      stopResync();
    }
  }

  /**
   * Arms the resync timer (`startResync`): every `resyncPeriod`, if `shouldResync` allows, `store.resync()`; a
   * throw is sent to the watch loop (which then ends the watch and relists) and stops the timer.
   */
  private startResync(errors: ResyncErrorChannel): () => void {
    if (this.resyncPeriod <= 0) return () => {};
    let t: Timer | undefined;
    const fire = () => {
      t = undefined;
      let should = true;
      try {
        should = this.shouldResync === undefined || this.shouldResync();
      } catch (err) {
        safeLog(this.logger, "error", "shouldResync threw; skipping this resync", { reflector: this.name, err });
        should = false;
      }
      if (should) {
        safeLog(this.logger, "debug", "Forcing resync", { reflector: this.name });
        try {
          this.store.resync();
          this.tracker.counts.resyncs++;
          this.tracker.emit({ type: "resync" });
        } catch (err) {
          errors.send(err);
          return;
        }
      }
      t = this.clock.afterFunc(this.resyncPeriod, fire);
    };
    t = this.clock.afterFunc(this.resyncPeriod, fire);
    return () => {
      t?.stop();
      t = undefined;
    };
  }

  /**
   * The watch loop (`watch`, F12–F19): opens watches from the last synced RV and consumes them until stopped or
   * until a watch ends in a way that needs a relist (returns) or a watch request fails for good (throws).
   */
  private async watch(
    initial: Watch<T> | undefined,
    signal: AbortSignal,
    resyncErrors: ResyncErrorChannel,
  ): Promise<void> {
    let w = initial;
    const retry = newRetryWithDeadline(
      this.maxInternalErrorRetryDuration,
      INTERNAL_ERROR_RETRY_RESET_MS,
      isInternalError,
      this.clock,
    );
    try {
      for (;;) {
        if (signal.aborted) return;
        // Start the clock before the request: some proxies flush headers only with the first event.
        const start = this.clock.now();
        // A watch handed over by watch-list is past its synthetic ADDED events.
        let propagateRVFromStart = true;
        if (w === undefined) {
          const timeoutSeconds = this.watchTimeoutSeconds();
          const rv = this.lastSyncRV;
          const options: ListOptions = { timeoutSeconds, allowWatchBookmarks: true };
          if (rv !== "") options.resourceVersion = rv;
          // From "" or "0" the server starts with synthetic ADDED events in no RV order (F15).
          if (rv === "" || rv === "0") propagateRVFromStart = false;
          this.tracker.counts.watches++;
          this.tracker.emit({ type: "watch-start", resourceVersion: rv, timeoutSeconds });
          this.tracker.setPhase("watching");
          try {
            w = await abortable(this.lw.watch(options, signal), signal, stopQuietly);
          } catch (err) {
            if (err === STOP_REQUESTED) return;
            this.recordError("watch", err);
            if (isWatchErrorRetriable(err)) {
              safeLog(this.logger, "debug", "Watch failed - backing off", { reflector: this.name, err });
              const cause = isConnectionRefused(err) ? "connection-refused" : "too-many-requests";
              if (!(await this.backoff(signal, cause))) return;
              this.tracker.recordRewatch(cause);
              continue;
            }
            this.exitCause = relistCauseOf(err);
            throw err;
          }
        }
        this.tracker.setPhase("watching");
        const result = await this.consumeWatch(w, start, propagateRVFromStart, signal, resyncErrors);
        w = undefined;
        retry.after(result.error);
        this.tracker.emit({
          type: "watch-end",
          reason: result.end as Exclude<typeof result.end, "initial-events-end">,
          events: result.events,
          durationMs: this.clock.since(start),
          ...(result.error === undefined ? {} : { error: errorInfo(result.error) }),
        });
        if (result.end === "stopped") return;
        if (result.end === "inactive") {
          safeLog(this.logger, "info", "Watch received nothing within the liveness deadline; re-watching", {
            reflector: this.name,
            type: this.typeDescription,
          });
          this.tracker.recordRewatch("inactive");
          continue;
        }
        const err = result.error;
        if (err === undefined) {
          // A clean end (the server's timeout): re-watch at once, no relist, no backoff.
          this.recordSuccess("watch");
          this.tracker.recordRewatch("closed");
          continue;
        }
        this.recordError(result.end === "resync-error" ? "resync" : "watch", err);
        if (isExpiredError(err)) {
          // F18: relist from lastSyncRV (not ""): a LIST at RV is "at least as fresh as RV".
          safeLog(this.logger, "debug", "Watch closed", { reflector: this.name, type: this.typeDescription, err });
          this.exitCause = "expired";
          return;
        }
        if (isTooManyRequests(err)) {
          safeLog(this.logger, "debug", "Watch returned 429 - backing off", { reflector: this.name });
          if (!(await this.backoff(signal, "too-many-requests"))) return;
          this.tracker.recordRewatch("too-many-requests");
          continue;
        }
        if (isInternalError(err) && retry.shouldRetry()) {
          safeLog(this.logger, "debug", "Retrying watch after internal error", { reflector: this.name, err });
          this.tracker.recordRewatch("internal-error");
          continue;
        }
        safeLog(this.logger, "warn", "watch ended with error", {
          reflector: this.name,
          type: this.typeDescription,
          err: errorInfo(err).message,
        });
        this.exitCause = result.end === "resync-error" ? "resync-error" : relistCauseOf(err);
        return;
      }
    } finally {
      if (w !== undefined) stopQuietly(w);
    }
  }

  /** Consumes one watch with the stop, resync-error and liveness interrupts wired. */
  private async consumeWatch(
    w: Watch<T>,
    start: number,
    propagateRVFromStart: boolean,
    signal: AbortSignal,
    resyncErrors: ResyncErrorChannel,
  ): Promise<WatchResult> {
    const interrupter = new WatchInterrupter();
    const unwire = this.wireStop(interrupter, signal);
    const pending = resyncErrors.pending;
    if (pending !== undefined) {
      resyncErrors.pending = undefined;
      interrupter.fire({ reason: "resync-error", error: pending.error });
    }
    resyncErrors.listener = (error) => interrupter.fire({ reason: "resync-error", error });
    let lastEventAt = start;
    let livenessTimer: Timer | undefined;
    const timeout = this.livenessTimeoutMs;
    if (timeout !== undefined) {
      const check = () => {
        const silent = this.clock.now() - lastEventAt;
        const enforce = this.bookmarksObserved || !this.livenessRequiresBookmarks;
        if (silent >= timeout && enforce) {
          interrupter.fire({ reason: "inactive" });
          return;
        }
        livenessTimer = this.clock.afterFunc(silent >= timeout ? timeout : timeout - silent, check);
      };
      livenessTimer = this.clock.afterFunc(timeout, check);
    }
    const updater = isResourceVersionUpdater(this.store) ? this.store : undefined;
    try {
      return await handleAnyWatch<T>(this.watchCtx, {
        start,
        watch: w,
        store: this.store,
        setLastSyncResourceVersion: (rv, eventReceivedBesidesAdded) => {
          if (propagateRVFromStart || eventReceivedBesidesAdded) {
            this.setLastSyncResourceVersion(rv);
            updater?.updateResourceVersion(rv);
          }
        },
        exitOnInitialEventsEndBookmark: false,
        interrupter,
        onEvent: (now) => {
          lastEventAt = now;
          if (this.tracker.failure !== undefined) this.recordSuccess("watch");
        },
      });
    } finally {
      unwire();
      resyncErrors.listener = undefined;
      livenessTimer?.stop();
    }
  }
}

/**
 * `meta.ExtractListWithAlloc`: shallow copies of the items (new top-level and `metadata` objects), so the store
 * never holds the response's own objects.
 */
export function extractListWithAlloc<T>(items: readonly T[]): T[] {
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    out[i] = metaOf(item) !== undefined ? (shallowCopyObject(item as KubeObject) as T) : item;
  }
  return out;
}

/**
 * `NewReflector`: a reflector named after the caller's `file:line`, with `resyncPeriod` (ms, 0 = none).
 * `expectedType` is an example object whose `apiVersion`/`kind` (when both set) every watched object must have.
 */
export function newReflector<T>(
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  store: ReflectorStore<T>,
  resyncPeriod: number,
): Reflector<T> {
  return new Reflector(lw, expectedType, store, { resyncPeriod });
}

/** `NewNamedReflector`. */
export function newNamedReflector<T>(
  name: string,
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  store: ReflectorStore<T>,
  resyncPeriod: number,
): Reflector<T> {
  return new Reflector(lw, expectedType, store, { name, resyncPeriod });
}

/** `NewReflectorWithOptions`. */
export function newReflectorWithOptions<T>(
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  store: ReflectorStore<T>,
  options: ReflectorOptions<T>,
): Reflector<T> {
  return new Reflector(lw, expectedType, store, options);
}

/**
 * `NewNamespaceKeyedIndexerAndReflector`: an indexer keyed by `metaNamespaceKeyFunc` with the namespace index,
 * and a reflector feeding it.
 */
export function newNamespaceKeyedIndexerAndReflector<T>(
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  resyncPeriod: number,
): { indexer: Indexer<T>; reflector: Reflector<T> } {
  const indexer = newIndexer<T>(metaNamespaceKeyFunc, {
    [NamespaceIndex]: metaNamespaceIndexFunc as (obj: T) => string[],
  });
  return { indexer, reflector: new Reflector(lw, expectedType, indexer, { resyncPeriod }) };
}
