import type { KubeObject } from "@informer-ts/apimachinery";
import { safeObservable } from "@informer-ts/instrumentation";
import { Observable } from "rxjs";
import { metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
import { onAbort } from "./internal/abort-registry.js";
import { STOP_REQUESTED } from "./internal/abortable.js";
import { metaNamespaceKeyFunc } from "./keys.js";
import type { ListerWatcher, Watch } from "./listwatch.js";
import { errorInfo } from "./reflector-errors.js";
import { listIntoStore } from "./reflector-list.js";
import { type ReflectorLogger, safeLog } from "./reflector-logger.js";
import {
  defaultWatchErrorHandler,
  type ReflectorInfo,
  type ReflectorOptions,
  type WatchErrorHandler,
} from "./reflector-options.js";
import { ReflectorState } from "./reflector-state.js";
import type { ReflectorEvent, ReflectorStatus } from "./reflector-status.js";
import { stopQuietly } from "./reflector-watch.js";
import { watchListIntoStore } from "./reflector-watch-list.js";
import { watchWithResync } from "./reflector-watch-loop.js";
import type { Indexer, ReflectorStore } from "./store.js";
import { newIndexer } from "./store-impl.js";

export { extractListWithAlloc } from "./reflector-list.js";
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

/**
 * Watches a resource and keeps a store in step with the server (`cache.Reflector`, reflector.go).
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
 * and backoff timers use the injected clock (Go's `Until` uses the real clock); failures are also logged as a
 * warning with a hint on the first try and summarised while they last (`status().failure`); see also the
 * beyond-client-go options `initialEventsEndTimeout`, `watchLiveness` and `initialResourceVersion` (all off by
 * default).
 */
export class Reflector<T> implements ReflectorInfo {
  readonly name: string;
  readonly typeDescription: string;
  readonly logger: ReflectorLogger;
  /** The watch error handler: told every error `listAndWatch` returns. */
  watchErrorHandler: WatchErrorHandler;

  private readonly state: ReflectorState<T>;
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
    this.state = new ReflectorState(lw, expectedType, store, options);
    this.name = this.state.name;
    this.typeDescription = this.state.typeDescription;
    this.logger = this.state.logger;
    this.watchErrorHandler = options.watchErrorHandler ?? defaultWatchErrorHandler;
  }

  /**
   * Page size of LISTs (`WatchListPageSize`): 0 (default) lets the reflector choose — no limit for a LIST at a
   * concrete resource version (the watch cache can serve it), else 500. May be changed before running.
   */
  get watchListPageSize(): number {
    return this.state.watchListPageSize;
  }

  set watchListPageSize(size: number) {
    this.state.watchListPageSize = size;
  }

  /** `ShouldResync`: asked before each periodic resync; undefined = always resync. */
  get shouldResync(): (() => boolean) | undefined {
    return this.state.shouldResync;
  }

  set shouldResync(fn: (() => boolean) | undefined) {
    this.state.shouldResync = fn;
  }

  /**
   * `MaxInternalErrorRetryDuration` (ms): how long watches ended by a 500 are re-opened in place before the
   * reflector relists; 0 (default) = never.
   */
  get maxInternalErrorRetryDuration(): number {
    return this.state.maxInternalErrorRetryDuration;
  }

  set maxInternalErrorRetryDuration(ms: number) {
    this.state.maxInternalErrorRetryDuration = ms;
  }

  /** Whether this reflector primes its store with watch-list (`sendInitialEvents`) rather than LIST. */
  get useWatchList(): boolean {
    return this.state.watchListEnabled;
  }

  /** A snapshot of the status (always current, including counters). */
  status(): ReflectorStatus {
    return this.state.tracker.snapshot();
  }

  /**
   * The status: the current snapshot on subscribe, then every lifecycle change (phase, sync, error, failure
   * streak); completes when the run in progress (or the next one) stops.
   */
  get status$(): Observable<ReflectorStatus> {
    return this.state.tracker.status$;
  }

  /** Lifecycle events (list/watch start and end, backoffs, errors, relists, bookmarks…). Hot, no replay. */
  get events$(): Observable<ReflectorEvent> {
    return this.state.tracker.events.events$;
  }

  /**
   * The resource version of the last list, watch-list or watch event (`LastSyncResourceVersion`). Not
   * synchronised with the store: the store may not have processed that version yet.
   */
  lastSyncResourceVersion(): string {
    return this.state.lastSyncRV;
  }

  /**
   * `relistResourceVersion`: the resource version the next LIST asks for — "" after an Expired or too-large
   * answer (a consistent read), "0" before any sync (the watch cache may answer), else the last synced one.
   */
  relistResourceVersion(): string {
    return this.state.relistResourceVersion();
  }

  /**
   * `rewatchResourceVersion`: the resource version the next watch-list asks for — "" after an Expired or
   * too-large answer, else the last synced one (initially "").
   */
  rewatchResourceVersion(): string {
    return this.state.rewatchResourceVersion();
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
    this.state.tracker.beginRun();
    const stop = new AbortController();
    const unregister = onAbort(signal, () => stop.abort(STOP_REQUESTED));
    safeLog(this.logger, "debug", "Starting reflector", {
      type: this.typeDescription,
      resyncPeriod: this.state.resyncPeriod,
      reflector: this.name,
    });
    this.state.tracker.emit({ type: "started" });
    try {
      await this.runLoop(stop.signal);
    } finally {
      unregister();
      this.running = false;
      this.state.tracker.setPhase("stopped");
      this.state.tracker.emit({ type: "stopped" });
      this.state.tracker.endRun();
      safeLog(this.logger, "debug", "Stopping reflector", { type: this.typeDescription, reflector: this.name });
    }
  }

  /**
   * The run as an Observable: subscribing runs the reflector (as {@link Reflector.run}), unsubscribing stops it.
   * It emits the status (the current one on subscribe, then every change) and errors only if the reflector is
   * already running. It does not complete on its own: the run only ends when unsubscribed. Like `status$` and
   * `events$`, a subscriber that throws is reported through the logger, never re-thrown into the host.
   */
  run$(): Observable<ReflectorStatus> {
    const run$ = new Observable<ReflectorStatus>((subscriber) => {
      const stop = new AbortController();
      this.run(stop.signal).catch((err: unknown) => subscriber.error(err));
      if (subscriber.closed) return undefined;
      const status = this.state.tracker.status$.subscribe((s) => subscriber.next(s));
      return () => {
        status.unsubscribe();
        stop.abort(STOP_REQUESTED);
      };
    });
    return safeObservable(run$, `reflector ${this.name} run$`, this.state.reporter);
  }

  /** The loop of {@link Reflector.run}: one `listAndWatch` after the other, one backoff delay between them. */
  private async runLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.runOnce(signal);
      if (signal.aborted) return;
      // Wait one backoff delay after every run, whatever its result (client-go's BackoffUntil with sliding=true).
      try {
        await this.state.clock.sleep(this.state.enterBackoff("list-and-watch"), signal);
      } catch {
        return;
      }
    }
  }

  /** One iteration of the run loop: `listAndWatch`, the error handler, and the relist bookkeeping. */
  private async runOnce(signal: AbortSignal): Promise<void> {
    this.state.exitCause = undefined;
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
    if (this.state.exitCause !== undefined) this.state.tracker.recordRelist(this.state.exitCause);
  }

  /**
   * One list-and-watch cycle (`ListAndWatchWithContext`): prime the store (watch-list, falling back to LIST
   * within the same call on any error), then watch until the watch loop gives up. Resolves when stopped or
   * when the watch ended in a way that requires a relist; rejects with the error that made it give up early
   * (a failed LIST or store replace, or a non-retriable watch request error). {@link Reflector.run} calls it in a
   * loop; do not call it while the reflector runs.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    safeLog(this.logger, "debug", "Listing and watching", { type: this.typeDescription, reflector: this.name });
    let w: Watch<T> | undefined;
    let fallbackToList = !this.state.watchListEnabled;
    try {
      if (this.state.watchListEnabled) {
        try {
          w = await watchListIntoStore(this.state, signal);
          if (w === undefined) return;
        } catch (err) {
          if (err === STOP_REQUESTED || signal.aborted) return;
          safeLog(this.logger, "debug", "Data couldn't be fetched in watchlist mode. Falling back to regular list.", {
            reflector: this.name,
            err,
          });
          this.state.tracker.counts.watchListFallbacks++;
          const info = errorInfo(err);
          this.state.tracker.emit({ type: "watch-list-fallback", error: info });
          this.state.tracker.recordError("watch-list", info);
          fallbackToList = true;
          w = undefined;
        }
      }
      if (fallbackToList) {
        try {
          await listIntoStore(this.state, signal);
        } catch (err) {
          if (err === STOP_REQUESTED) return;
          this.state.exitCause = "list-error";
          throw err;
        }
        if (signal.aborted) return;
      }
      safeLog(this.logger, "debug", "Caches populated", { type: this.typeDescription, reflector: this.name });
      const handedOver = w;
      w = undefined;
      await watchWithResync(this.state, handedOver, signal);
    } finally {
      if (w !== undefined) stopQuietly(w);
    }
  }
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
