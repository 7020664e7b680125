import type { KubeObject } from "@informer-ts/apimachinery";
import { isInternalError } from "@informer-ts/apimachinery";
import { type Clock, mathRand, type Rand, realClock } from "@informer-ts/clock";
import { SubscriberErrorReporter } from "@informer-ts/instrumentation";
import {
  DEFAULT_BACKOFF_RESET_MS,
  type DelayFunc,
  defaultReflectorBackoff,
  delayWithReset,
  gapResetDelayFunc,
} from "../backoff.js";
import { STOP_REQUESTED } from "../internal/abortable.js";
import { nameFromCallsite } from "../internal/callsite-name.js";
import { envVar, parseGoBool } from "../internal/go-helpers.js";
import type { ListerWatcher, Watch } from "../listwatch.js";
import type { ReflectorStore } from "../store.js";
import type { TransformFunc } from "../transform-func.js";
import { isDataConsistencyDetectionForWatchListEnabled } from "./data-consistency-detector.js";
import { isExpiredError, isTooLargeResourceVersionError, VeryShortWatchError } from "./errors.js";
import { FailureReporter } from "./failure-reporter.js";
import { listIntoStore } from "./list.js";
import { consoleLogger, type ReflectorLogger, safeLog } from "./logger.js";
import { DEFAULT_EXPECTED_TYPE_NAME, DEFAULT_MIN_WATCH_TIMEOUT_MS, type ReflectorOptions } from "./options.js";
import { errorInfo, type ReflectorErrorPhase, ReflectorStatusTracker, type RelistCause } from "./status.js";
import { type GroupVersionKind, gvkString, stopQuietly, type WatchHandlerContext } from "./watch.js";
import type { WatchInterrupter } from "./watch-interrupter.js";
import { watchListIntoStore } from "./watch-list.js";
import { watchWithResync } from "./watch-loop.js";

/** The expected `apiVersion`/`kind` of an example object, when both are set. */
export function expectedGVKOf(expectedType: KubeObject | undefined): GroupVersionKind | undefined {
  const apiVersion = expectedType?.apiVersion;
  const kind = expectedType?.kind;
  if (typeof apiVersion !== "string" || apiVersion === "" || typeof kind !== "string" || kind === "") return undefined;
  return { apiVersion, kind };
}

/** The type description of an example object: `group/version, Kind=K`, else its kind, else `<unspecified>`. */
export function typeDescriptionOf(expectedType: KubeObject | undefined): string {
  if (expectedType === undefined) return DEFAULT_EXPECTED_TYPE_NAME;
  const gvk = expectedGVKOf(expectedType);
  if (gvk !== undefined) return gvkString(gvk);
  return typeof expectedType.kind === "string" && expectedType.kind !== "" ? expectedType.kind : "Object";
}

/** Why an error ends a list-and-watch cycle, as a relist cause. */
function relistCauseOf(err: unknown): RelistCause {
  if (err instanceof VeryShortWatchError) return "very-short";
  if (isExpiredError(err)) return "expired";
  if (isTooLargeResourceVersionError(err)) return "too-large";
  if (isInternalError(err)) return "internal-error";
  return "watch-error";
}

/** The transformer a store applies to incoming objects, when it says (a RealFIFO or DeltaFIFO does). */
function transformerOfStore<T>(store: ReflectorStore<T>): TransformFunc<T> | undefined {
  if (typeof store.transformer !== "function") return undefined;
  try {
    const fn: unknown = store.transformer();
    return typeof fn === "function" ? (fn as TransformFunc<T>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The one owner of a reflector's list/watch state (internal): the settings, the last synced resource version and
 * whether it is still usable, the cycle's latches (a paginated RV "0" answer, bookmarks seen, why the cycle
 * ended), the status tracker, the failure reporter and the backoff — and the list-and-watch cycle that changes
 * them ({@link ReflectorState.listAndWatch}, {@link ReflectorState.runCycle}). Its collaborators are the three
 * paths of a cycle — the list path (`reflector/list.ts`), the watch-list path (`reflector/watch-list.ts`) and the
 * watch loop (`reflector/watch-loop.ts`): they read its settings and change its state only through its methods.
 * The `Reflector` class is the public face over it (options, run loop, streams).
 */
export class ReflectorState<T> {
  readonly name: string;
  readonly typeDescription: string;
  readonly logger: ReflectorLogger;
  readonly lw: ListerWatcher<T>;
  readonly store: ReflectorStore<T>;
  readonly expectedGVK: GroupVersionKind | undefined;
  readonly clock: Clock;
  readonly rand: Rand;
  readonly resyncPeriod: number;
  readonly minWatchTimeoutMs: number;
  readonly maxWatchTimeoutMs: number;
  readonly delayHandler: DelayFunc;
  readonly watchListEnabled: boolean;
  readonly transformer: TransformFunc<T> | undefined;
  readonly consistencyDetector: boolean;
  readonly initialEventsEndTimeout: number | undefined;
  /** Store shallow copies of LIST items instead of the response's objects. */
  readonly copyListItems: boolean;
  readonly livenessTimeoutMs: number | undefined;
  readonly livenessRequiresBookmarks: boolean;
  readonly tracker: ReflectorStatusTracker;
  /** Where errors thrown by consumers of the reflector's streams go (logged through the reflector's logger). */
  readonly reporter: SubscriberErrorReporter;
  readonly failures: FailureReporter;
  readonly watchCtx: WatchHandlerContext;

  /** Page size of LISTs; 0 = automatic (see the list path). */
  watchListPageSize: number;
  /** Asked before each periodic resync; undefined = always resync. */
  shouldResync: (() => boolean) | undefined;
  /** How long 500s ending a watch are retried in place without relisting (ms; 0 = never). */
  maxInternalErrorRetryDuration: number;
  private lastSyncRV: string;
  private isLastSyncResourceVersionUnavailable = false;
  /** A LIST at RV "0" once came back paginated: the watch cache is probably off, keep paging. */
  private paginatedResult = false;
  /** At least one BOOKMARK arrived (the liveness check only trusts servers known to send them). */
  private bookmarksObserved = false;
  /** Why the current cycle ended (recorded as a relist cause by {@link ReflectorState.runCycle}). */
  private exitCause: RelistCause | undefined;

  constructor(
    lw: ListerWatcher<T>,
    expectedType: KubeObject | undefined,
    store: ReflectorStore<T>,
    options: ReflectorOptions<T>,
  ) {
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
    this.transformer = options.transformer ?? transformerOfStore<T>(store);
    this.consistencyDetector = options.watchListConsistencyDetector ?? isDataConsistencyDetectionForWatchListEnabled();
    this.initialEventsEndTimeout = options.initialEventsEndTimeout;
    this.copyListItems = options.copyListItems ?? false;
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

    this.reporter = new SubscriberErrorReporter({ logger: this.logger });
    this.tracker = new ReflectorStatusTracker(
      this.name,
      this.typeDescription,
      this.clock,
      () => ({
        lastSyncResourceVersion: this.lastSyncRV,
        unavailable: this.isLastSyncResourceVersionUnavailable,
      }),
      this.reporter,
    );
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

  /** Computes the next backoff delay and records the backoff; returns the delay. */
  enterBackoff(reason: string): number {
    const delay = this.delayHandler();
    this.tracker.counts.backoffs++;
    this.tracker.backoffUntil = this.clock.now() + delay;
    this.tracker.emit({ type: "backoff", delayMs: delay, reason });
    this.tracker.setPhase("backing-off");
    this.tracker.publish();
    return delay;
  }

  /** Waits one backoff delay; false if stopped meanwhile. */
  async backoff(signal: AbortSignal, reason: string): Promise<boolean> {
    const delay = this.enterBackoff(reason);
    try {
      await this.clock.sleep(delay, signal);
      return true;
    } catch {
      return false;
    }
  }

  recordError(during: ReflectorErrorPhase, err: unknown): void {
    const failure = this.failures.failed(during, err);
    if (failure !== undefined) {
      this.tracker.failure = failure;
      this.tracker.emit({ type: "failure", failure });
    }
    this.tracker.recordError(during, errorInfo(err));
  }

  /** A list or watch succeeded: ends a failure streak of that phase (logged and published). */
  recordSuccess(phase: "list" | "watch"): void {
    const failure = this.tracker.failure;
    if (failure === undefined || !this.failures.succeeded(phase)) return;
    this.tracker.failure = undefined;
    this.tracker.emit({ type: "recovered", tries: failure.tries, since: failure.since });
    this.tracker.publish();
  }

  /** The resource version of the last list, watch-list or watch event. */
  get lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  setLastSyncResourceVersion(rv: string): void {
    this.lastSyncRV = rv;
  }

  /** Whether a LIST at RV "0" ever came back paginated (the list path then keeps paging). */
  get listWasPaginated(): boolean {
    return this.paginatedResult;
  }

  /** The list path saw a paginated answer to a LIST at RV "0": the watch cache is probably off. */
  notePaginatedList(): void {
    this.paginatedResult = true;
  }

  /** Whether at least one BOOKMARK arrived on any watch of this reflector. */
  get sawBookmarks(): boolean {
    return this.bookmarksObserved;
  }

  /** Records why the current cycle ends; {@link ReflectorState.runCycle} turns it into a relist cause. */
  endCycle(cause: RelistCause): void {
    this.exitCause = cause;
  }

  /** Records that `err` ends the current cycle, as the relist cause it stands for (expired, too large, …). */
  endCycleOnError(err: unknown): void {
    this.exitCause = relistCauseOf(err);
  }

  setIsLastSyncResourceVersionUnavailable(unavailable: boolean): void {
    if (this.isLastSyncResourceVersionUnavailable === unavailable) return;
    this.isLastSyncResourceVersionUnavailable = unavailable;
    this.tracker.publish();
  }

  /** `relistResourceVersion`: "" after Expired/too-large, "0" before any sync, else the last synced RV. */
  relistResourceVersion(): string {
    if (this.isLastSyncResourceVersionUnavailable) return "";
    if (this.lastSyncRV === "") return "0";
    return this.lastSyncRV;
  }

  /** `rewatchResourceVersion`: "" after Expired/too-large, else the last synced RV (initially ""). */
  rewatchResourceVersion(): string {
    if (this.isLastSyncResourceVersionUnavailable) return "";
    return this.lastSyncRV;
  }

  watchTimeoutSeconds(): number {
    const min = this.minWatchTimeoutMs / 1000;
    const max = this.maxWatchTimeoutMs / 1000;
    return Math.trunc(min + this.rand.float() * (max - min));
  }

  markSynced(): void {
    this.recordSuccess("list");
    this.tracker.hasSynced = true;
    this.tracker.lastSyncTime = this.clock.now();
    this.tracker.publish();
  }

  /** Fires `interrupter` with "stopped" when `signal` aborts; returns the un-wiring function. */
  wireStop(interrupter: WatchInterrupter, signal: AbortSignal): () => void {
    if (signal.aborted) {
      interrupter.fire({ reason: "stopped" });
      return () => {};
    }
    const onAbort = () => interrupter.fire({ reason: "stopped" });
    signal.addEventListener("abort", onAbort, { once: true });
    return () => signal.removeEventListener("abort", onAbort);
  }

  /**
   * One iteration of the run loop: {@link ReflectorState.listAndWatch}, any error it rejects with handed to
   * `onError` (the reflector's watch error handler), then the relist bookkeeping. Never rejects.
   */
  async runCycle(signal: AbortSignal, onError: (err: unknown) => void): Promise<void> {
    this.exitCause = undefined;
    try {
      await this.listAndWatch(signal);
    } catch (err) {
      if (err === STOP_REQUESTED || signal.aborted) return;
      onError(err);
    }
    if (signal.aborted) return;
    if (this.exitCause !== undefined) this.tracker.recordRelist(this.exitCause);
  }

  /**
   * One list-and-watch cycle (`ListAndWatchWithContext`): prime the store (watch-list, falling back to LIST
   * within the same call on any error), then watch until the watch loop gives up. Resolves when stopped or
   * when the watch ended in a way that requires a relist; rejects with the error that made it give up early
   * (a failed LIST or store replace, or a non-retriable watch request error).
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    safeLog(this.logger, "debug", "Listing and watching", { type: this.typeDescription, reflector: this.name });
    let w: Watch<T> | undefined;
    let fallbackToList = !this.watchListEnabled;
    try {
      if (this.watchListEnabled) {
        try {
          w = await watchListIntoStore(this, signal);
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
          await listIntoStore(this, signal);
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
      await watchWithResync(this, handedOver, signal);
    } finally {
      if (w !== undefined) stopQuietly(w);
    }
  }
}
