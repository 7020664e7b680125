import { type Clock, realClock } from "@informer-ts/clock";
import type { DoneChecker } from "./synctrack.js";

/** `syncedPollPeriod`: how often {@link waitForCacheSync} polls (ms; I1, I17). */
export const syncedPollPeriod = 100;

/** `cache.InformerSynced`: reports whether an informer (or a handler registration) has synced. */
export type InformerSynced = () => boolean;

/** Where {@link waitForCacheSync} waits: a cancellation signal and the clock that paces polling. */
export interface WaitForCacheSyncOptions {
  /** Stops waiting (the result is then false). */
  readonly signal?: AbortSignal;
  /** Paces the 100 ms polling. Default `realClock`. */
  readonly clock?: Clock;
}

function toOptions(arg: AbortSignal | WaitForCacheSyncOptions | undefined): WaitForCacheSyncOptions {
  if (arg === undefined) return {};
  if (arg instanceof AbortSignal) return { signal: arg };
  return arg;
}

/**
 * Waits until every function in `cacheSyncs` returns true (`cache.WaitForCacheSync`, I17): checks at once, then
 * every {@link syncedPollPeriod} ms on the clock. Resolves `true` once all are synced, or `false` when the signal
 * aborts first (never rejects). Typical use: `await waitForCacheSync(signal, informer.hasSynced, reg.hasSynced)`
 * (the functions are called unbound, so pass arrow functions or bound methods).
 *
 * Differences from client-go: the stop channel becomes an `AbortSignal` (or an options object that also carries
 * the clock); no logging.
 */
export async function waitForCacheSync(
  signalOrOptions: AbortSignal | WaitForCacheSyncOptions | undefined,
  ...cacheSyncs: InformerSynced[]
): Promise<boolean> {
  const { signal, clock = realClock } = toOptions(signalOrOptions);
  for (const fn of cacheSyncs) {
    if (typeof fn !== "function") throw new TypeError(`waitForCacheSync: expected functions, got ${String(fn)}`);
  }
  const allSynced = () => cacheSyncs.every((fn) => fn());
  for (;;) {
    if (allSynced()) return true;
    if (signal?.aborted) return false;
    try {
      await clock.sleep(syncedPollPeriod, signal);
    } catch {
      return false;
    }
  }
}

/**
 * Waits for every checker to be done without polling (client-go v0.36 `cache.WaitFor`). Resolves `true` when all
 * are done, `false` if `signal` aborts first (checkers already done at that moment count as done). Never rejects.
 */
export async function waitFor(signal: AbortSignal | undefined, ...checkers: DoneChecker[]): Promise<boolean> {
  if (checkers.every((c) => c.isDone())) return true;
  if (signal === undefined) {
    await Promise.all(checkers.map((c) => c.done()));
    return true;
  }
  if (signal.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    const listener = () => resolve();
    onAbort = listener;
    signal.addEventListener("abort", listener, { once: true });
  });
  try {
    await Promise.race([Promise.all(checkers.map((c) => c.done())), aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
  return checkers.every((c) => c.isDone());
}
