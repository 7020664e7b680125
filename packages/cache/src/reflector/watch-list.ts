import { isTooManyRequests, type ListOptions } from "@informer-ts/apimachinery";
import type { Timer } from "@informer-ts/clock";
import { abortable, STOP_REQUESTED } from "../internal/abortable.js";
import { deletionHandlingMetaNamespaceKeyFunc } from "../keys.js";
import type { Watch } from "../listwatch.js";
import { newStore, type StoreWithTransactions } from "../store-impl.js";
import { checkWatchListDataConsistency } from "./data-consistency-detector.js";
import {
  InitialEventsEndTimeoutError,
  isExpiredError,
  isTooLargeResourceVersionError,
  isWatchErrorRetriable,
} from "./errors.js";
import { safeLog } from "./logger.js";
import type { ReflectorState } from "./state.js";
import { errorInfo, type ReflectorErrorPhase } from "./status.js";
import { handleAnyWatch, stopQuietly, type WatchResult } from "./watch.js";
import { WatchInterrupter } from "./watch-interrupter.js";

// The reflector's watch-list path: a watch with sendInitialEvents=true primes a temporary store until the
// initial-events-end bookmark, then replaces the store at once and hands the still-open watch to the watch loop.

/**
 * Primes the store with a watch-list (`watchList`): returns the still-open watch after the
 * initial-events-end bookmark, `undefined` when stopped; throws on errors that should fall back to LIST.
 */
export async function watchListIntoStore<T>(
  state: ReflectorState<T>,
  signal: AbortSignal,
): Promise<Watch<T> | undefined> {
  const started = state.clock.now();
  const deadline = state.initialEventsEndTimeout === undefined ? undefined : started + state.initialEventsEndTimeout;
  let temporaryStore: StoreWithTransactions<T>;
  let resourceVersion: string;
  let w: Watch<T>;
  for (;;) {
    if (signal.aborted) return undefined;
    if (deadline !== undefined && state.clock.now() >= deadline) {
      throw new InitialEventsEndTimeoutError(state.name, state.clock.since(started));
    }
    let rv = "";
    const lastKnownRV = state.rewatchResourceVersion();
    temporaryStore = newStore<T>(
      deletionHandlingMetaNamespaceKeyFunc,
      state.transformer === undefined ? {} : { transformer: state.transformer },
    );
    const timeoutSeconds = state.watchTimeoutSeconds();
    const options: ListOptions = {
      allowWatchBookmarks: true,
      sendInitialEvents: true,
      resourceVersionMatch: "NotOlderThan",
      timeoutSeconds,
    };
    if (lastKnownRV !== "") options.resourceVersion = lastKnownRV;
    const start = state.clock.now();
    state.tracker.counts.watchLists++;
    state.tracker.emit({ type: "watch-list-start", resourceVersion: lastKnownRV, timeoutSeconds });
    state.tracker.setPhase("watch-listing");
    try {
      w = await abortable(state.lw.watch(options, signal), signal, stopQuietly);
    } catch (err) {
      if (err === STOP_REQUESTED) return undefined;
      if (await isErrorRetriableWithSideEffects(state, err, signal, "watch-list")) continue;
      throw err;
    }
    const interrupter = new WatchInterrupter();
    const unwire = state.wireStop(interrupter, signal);
    let deadlineTimer: Timer | undefined;
    if (deadline !== undefined) {
      deadlineTimer = state.clock.afterFunc(deadline - state.clock.now(), () =>
        interrupter.fire({ reason: "initial-events-timeout" }),
      );
    }
    let result: WatchResult;
    try {
      result = await handleAnyWatch<T>(state.watchCtx, {
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
      state.tracker.emit({
        type: "watch-end",
        reason: result.end,
        events: result.events,
        durationMs: state.clock.since(start),
        ...(result.error === undefined ? {} : { error: errorInfo(result.error) }),
      });
    }
    if (result.end === "stopped") return undefined;
    if (result.end === "initial-events-timeout") {
      throw new InitialEventsEndTimeoutError(state.name, state.clock.since(started));
    }
    if (result.error !== undefined) {
      if (await isErrorRetriableWithSideEffects(state, result.error, signal, "watch-list")) continue;
      throw result.error;
    }
    if (result.initialEventsEnd) {
      resourceVersion = rv;
      break;
    }
    // Closed without the bookmark: try again at once (upstream retries forever, kubernetes#140890).
    safeLog(state.logger, "debug", "watch-list stream closed before the initial-events-end bookmark; retrying", {
      reflector: state.name,
    });
  }

  state.setIsLastSyncResourceVersionUnavailable(false);
  try {
    if (state.consistencyDetector) {
      await checkWatchListDataConsistency<T>({
        identity: state.name,
        resourceVersion,
        list: (o, s) => state.lw.list(o, s),
        transformer: state.transformer,
        retrieveItems: () => temporaryStore.list(),
        clock: state.clock,
        logger: state.logger,
        signal,
        onMismatch: (detail) => {
          state.tracker.emit({ type: "consistency-mismatch", resourceVersion, detail });
          state.recordError("consistency", new Error(detail));
          safeLog(state.logger, "error", detail, { reflector: state.name });
        },
      });
      if (signal.aborted) {
        stopQuietly(w);
        return undefined;
      }
    }
    const items = temporaryStore.list();
    try {
      state.store.replace(items, resourceVersion);
    } catch (err) {
      state.recordError("store", err);
      throw new Error(`unable to sync watch-list result: ${errorInfo(err).message}`, { cause: err });
    }
    state.setLastSyncResourceVersion(resourceVersion);
    state.markSynced();
    state.tracker.emit({
      type: "watch-list-done",
      resourceVersion,
      items: items.length,
      durationMs: state.clock.since(started),
    });
    return w;
  } catch (err) {
    stopQuietly(w);
    throw err;
  }
}

/**
 * `isErrorRetriableWithSideEffectsFn` of `watchList`: retriable errors back off (true); Expired and
 * too-large mark the RV unavailable (true, retry with RV ""); anything else is false.
 */
async function isErrorRetriableWithSideEffects<T>(
  state: ReflectorState<T>,
  err: unknown,
  signal: AbortSignal,
  during: ReflectorErrorPhase,
): Promise<boolean> {
  if (isWatchErrorRetriable(err)) {
    state.recordError(during, err);
    safeLog(state.logger, "debug", "watch-list failed - backing off", { reflector: state.name, err });
    await state.backoff(signal, isTooManyRequests(err) ? "too-many-requests" : "connection-refused");
    return true;
  }
  if (isExpiredError(err) || isTooLargeResourceVersionError(err)) {
    state.recordError(during, err);
    state.setIsLastSyncResourceVersionUnavailable(true);
    return true;
  }
  // Recorded by listAndWatch when it falls back to LIST.
  return false;
}
