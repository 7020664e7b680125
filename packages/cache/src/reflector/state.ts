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
import { nameFromCallsite } from "../internal/callsite-name.js";
import { envVar, parseGoBool } from "../internal/go-helpers.js";
import type { ListerWatcher } from "../listwatch.js";
import type { ReflectorStore } from "../store.js";
import type { TransformFunc } from "../transform-func.js";
import { isDataConsistencyDetectionForWatchListEnabled } from "./data-consistency-detector.js";
import { errorInfo, isExpiredError, isTooLargeResourceVersionError, VeryShortWatchError } from "./errors.js";
import { FailureReporter } from "./failures.js";
import { consoleLogger, type ReflectorLogger, safeLog } from "./logger.js";
import { DEFAULT_EXPECTED_TYPE_NAME, DEFAULT_MIN_WATCH_TIMEOUT_MS, type ReflectorOptions } from "./options.js";
import { type ReflectorErrorPhase, ReflectorStatusTracker, type RelistCause } from "./status.js";
import { type GroupVersionKind, gvkString, type WatchHandlerContext } from "./watch.js";
import type { WatchInterrupter } from "./watch-interrupter.js";

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
export function relistCauseOf(err: unknown): RelistCause {
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
 * The state and bookkeeping one reflector's list path, watch-list path and watch loop share (internal): the
 * settings, the last synced resource version and whether it is still usable, the status tracker, the failure
 * reporter and the backoff. The `Reflector` class is the public face over it; the paths live in
 * `reflector/list.ts`, `reflector/watch-list.ts` and `reflector/watch-loop.ts`.
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
  lastSyncRV: string;
  isLastSyncResourceVersionUnavailable = false;
  /** A LIST at RV "0" once came back paginated: the watch cache is probably off, keep paging. */
  paginatedResult = false;
  /** At least one BOOKMARK arrived (the liveness check only trusts servers known to send them). */
  bookmarksObserved = false;
  /** Why the last `listAndWatch` ended (recorded as a relist cause by the run loop). */
  exitCause: RelistCause | undefined;

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

  setLastSyncResourceVersion(rv: string): void {
    this.lastSyncRV = rv;
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
}
