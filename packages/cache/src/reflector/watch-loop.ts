import { isConnectionRefused, isInternalError, isTooManyRequests, type ListOptions } from "@informer-ts/apimachinery";
import type { Timer } from "@informer-ts/clock";
import { abortable, STOP_REQUESTED } from "../internal/abortable.js";
import type { Watch } from "../listwatch.js";
import { newRetryWithDeadline } from "../retry-with-deadline.js";
import { isExpiredError, isWatchErrorRetriable } from "./errors.js";
import { safeLog } from "./logger.js";
import type { ReflectorState } from "./state.js";
import { errorInfo } from "./status.js";
import { handleAnyWatch, stopQuietly, type WatchResult } from "./watch.js";
import { WatchInterrupter } from "./watch-interrupter.js";

// The reflector's watch loop: watches from the last synced resource version, re-opened when the server ends them,
// with the periodic resync and the optional liveness deadline beside each watch.

/** Window after which the internal-error retry budget resets (client-go's one minute in `watch`). */
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

/** Runs the watch loop with the periodic resync beside it (`watchWithResync`). */
export async function watchWithResync<T>(
  state: ReflectorState<T>,
  w: Watch<T> | undefined,
  signal: AbortSignal,
): Promise<void> {
  const resyncErrors = new ResyncErrorChannel();
  const stopResync = startResync(state, resyncErrors);
  try {
    await watchLoop(state, w, signal, resyncErrors);
  } finally {
    stopResync();
  }
}

/**
 * Arms the resync timer (`startResync`): every `resyncPeriod`, if `shouldResync` allows, `store.resync()`; a
 * throw is sent to the watch loop (which then ends the watch and relists) and stops the timer.
 */
function startResync<T>(state: ReflectorState<T>, errors: ResyncErrorChannel): () => void {
  if (state.resyncPeriod <= 0) return () => {};
  let t: Timer | undefined;
  const fire = () => {
    t = undefined;
    let should = true;
    try {
      should = state.shouldResync === undefined || state.shouldResync();
    } catch (err) {
      safeLog(state.logger, "error", "shouldResync threw; skipping this resync", { reflector: state.name, err });
      should = false;
    }
    if (should) {
      safeLog(state.logger, "debug", "Forcing resync", { reflector: state.name });
      try {
        state.store.resync();
        state.tracker.counts.resyncs++;
        state.tracker.emit({ type: "resync" });
      } catch (err) {
        errors.send(err);
        return;
      }
    }
    t = state.clock.afterFunc(state.resyncPeriod, fire);
  };
  t = state.clock.afterFunc(state.resyncPeriod, fire);
  return () => {
    t?.stop();
    t = undefined;
  };
}

/**
 * The watch loop (`watch`): opens watches from the last synced RV and consumes them until stopped or
 * until a watch ends in a way that needs a relist (returns) or a watch request fails for good (throws).
 */
async function watchLoop<T>(
  state: ReflectorState<T>,
  initial: Watch<T> | undefined,
  signal: AbortSignal,
  resyncErrors: ResyncErrorChannel,
): Promise<void> {
  let w = initial;
  const retry = newRetryWithDeadline(
    state.maxInternalErrorRetryDuration,
    INTERNAL_ERROR_RETRY_RESET_MS,
    isInternalError,
    state.clock,
  );
  try {
    for (;;) {
      if (signal.aborted) return;
      // Start the clock before the request: some proxies flush headers only with the first event.
      const start = state.clock.now();
      // A watch handed over by watch-list is past its synthetic ADDED events.
      let propagateRVFromStart = true;
      if (w === undefined) {
        const timeoutSeconds = state.watchTimeoutSeconds();
        const rv = state.lastSyncResourceVersion;
        const options: ListOptions = { timeoutSeconds, allowWatchBookmarks: true };
        if (rv !== "") options.resourceVersion = rv;
        // From "" or "0" the server starts with synthetic ADDED events in no RV order.
        if (rv === "" || rv === "0") propagateRVFromStart = false;
        state.tracker.counts.watches++;
        state.tracker.emit({ type: "watch-start", resourceVersion: rv, timeoutSeconds });
        state.tracker.setPhase("watching");
        try {
          w = await abortable(state.lw.watch(options, signal), signal, stopQuietly);
        } catch (err) {
          if (err === STOP_REQUESTED) return;
          state.recordError("watch", err);
          if (isWatchErrorRetriable(err)) {
            safeLog(state.logger, "debug", "Watch failed - backing off", { reflector: state.name, err });
            const cause = isConnectionRefused(err) ? "connection-refused" : "too-many-requests";
            if (!(await state.backoff(signal, cause))) return;
            state.tracker.recordRewatch(cause);
            continue;
          }
          state.endCycleOnError(err);
          throw err;
        }
      }
      state.tracker.setPhase("watching");
      const result = await consumeWatch(state, w, start, propagateRVFromStart, signal, resyncErrors);
      w = undefined;
      retry.after(result.error);
      state.tracker.emit({
        type: "watch-end",
        reason: result.end as Exclude<typeof result.end, "initial-events-end">,
        events: result.events,
        durationMs: state.clock.since(start),
        ...(result.error === undefined ? {} : { error: errorInfo(result.error) }),
      });
      if (result.end === "stopped") return;
      if (result.end === "inactive") {
        safeLog(state.logger, "info", "Watch received nothing within the liveness deadline; re-watching", {
          reflector: state.name,
          type: state.typeDescription,
        });
        state.tracker.recordRewatch("inactive");
        continue;
      }
      const err = result.error;
      if (err === undefined) {
        // A clean end (the server's timeout): re-watch at once, no relist, no backoff.
        state.recordSuccess("watch");
        state.tracker.recordRewatch("closed");
        continue;
      }
      state.recordError(result.end === "resync-error" ? "resync" : "watch", err);
      if (isExpiredError(err)) {
        // Relist from lastSyncRV (not ""): a LIST at RV is "at least as fresh as RV".
        safeLog(state.logger, "debug", "Watch closed", { reflector: state.name, type: state.typeDescription, err });
        state.endCycle("expired");
        return;
      }
      if (isTooManyRequests(err)) {
        safeLog(state.logger, "debug", "Watch returned 429 - backing off", { reflector: state.name });
        if (!(await state.backoff(signal, "too-many-requests"))) return;
        state.tracker.recordRewatch("too-many-requests");
        continue;
      }
      if (isInternalError(err) && retry.shouldRetry()) {
        safeLog(state.logger, "debug", "Retrying watch after internal error", { reflector: state.name, err });
        state.tracker.recordRewatch("internal-error");
        continue;
      }
      safeLog(state.logger, "warn", "watch ended with error", {
        reflector: state.name,
        type: state.typeDescription,
        err: errorInfo(err).message,
      });
      if (result.end === "resync-error") state.endCycle("resync-error");
      else state.endCycleOnError(err);
      return;
    }
  } finally {
    if (w !== undefined) stopQuietly(w);
  }
}

/** Consumes one watch with the stop, resync-error and liveness interrupts wired. */
async function consumeWatch<T>(
  state: ReflectorState<T>,
  w: Watch<T>,
  start: number,
  propagateRVFromStart: boolean,
  signal: AbortSignal,
  resyncErrors: ResyncErrorChannel,
): Promise<WatchResult> {
  const interrupter = new WatchInterrupter();
  const unwire = state.wireStop(interrupter, signal);
  const pending = resyncErrors.pending;
  if (pending !== undefined) {
    resyncErrors.pending = undefined;
    interrupter.fire({ reason: "resync-error", error: pending.error });
  }
  resyncErrors.listener = (error) => interrupter.fire({ reason: "resync-error", error });
  let lastEventAt = start;
  let livenessTimer: Timer | undefined;
  const timeout = state.livenessTimeoutMs;
  if (timeout !== undefined) {
    const check = () => {
      const silent = state.clock.now() - lastEventAt;
      const enforce = state.sawBookmarks || !state.livenessRequiresBookmarks;
      if (silent >= timeout && enforce) {
        interrupter.fire({ reason: "inactive" });
        return;
      }
      livenessTimer = state.clock.afterFunc(silent >= timeout ? timeout : timeout - silent, check);
    };
    livenessTimer = state.clock.afterFunc(timeout, check);
  }
  const store = state.store;
  const tellStore = typeof store.updateResourceVersion === "function";
  try {
    return await handleAnyWatch<T>(state.watchCtx, {
      start,
      watch: w,
      store: state.store,
      setLastSyncResourceVersion: (rv, eventReceivedBesidesAdded) => {
        if (propagateRVFromStart || eventReceivedBesidesAdded) {
          state.setLastSyncResourceVersion(rv);
          if (tellStore) store.updateResourceVersion!(rv);
        }
      },
      exitOnInitialEventsEndBookmark: false,
      interrupter,
      onEvent: (now) => {
        lastEventAt = now;
        if (state.tracker.failure !== undefined) state.recordSuccess("watch");
      },
    });
  } finally {
    unwire();
    resyncErrors.listener = undefined;
    livenessTimer?.stop();
  }
}
