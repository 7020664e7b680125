import { isProbableEOF } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import type { Backoff, BackoffResetMode } from "../backoff.js";
import type { TransformFunc } from "../transform-func.js";
import { isExpiredError } from "./errors.js";
import { type ReflectorLogger, safeLog } from "./logger.js";
import { errorInfo, type ReflectorStatus } from "./status.js";

/** `defaultMinWatchTimeout`: 5 minutes. */
export const DEFAULT_MIN_WATCH_TIMEOUT_MS = 5 * 60_000;
/** A watch that ends sooner than this without events is a {@link VeryShortWatchError}. */
export const VERY_SHORT_WATCH_MS = 1000;
/** `defaultExpectedTypeName`. */
export const DEFAULT_EXPECTED_TYPE_NAME = "<unspecified>";

/** The read-only view of a reflector handed to a {@link WatchErrorHandler}. */
export interface ReflectorInfo {
  readonly name: string;
  readonly typeDescription: string;
  readonly logger: ReflectorLogger;
  lastSyncResourceVersion(): string;
  status(): ReflectorStatus;
}

/**
 * Called whenever `listAndWatch` returns an error (`WatchErrorHandler`): a LIST or store-replace failure,
 * or a watch request that failed with a non-retriable error. The reflector backs off and retries afterwards.
 * It must return quickly and should not throw (a throw is logged and ignored).
 */
export type WatchErrorHandler = (reflector: ReflectorInfo, err: unknown) => void;

/**
 * `DefaultWatchErrorHandler`: Expired → debug log; a probable EOF → info log; anything else → error log
 * `Failed to watch`. It never throws.
 */
export const defaultWatchErrorHandler: WatchErrorHandler = (r, err) => {
  const fields = { reflector: r.name, type: r.typeDescription, err: errorInfo(err).message };
  if (isExpiredError(err)) safeLog(r.logger, "debug", "Watch closed", fields);
  else if (isProbableEOF(err)) safeLog(r.logger, "info", "Watch closed with unexpected EOF", fields);
  else safeLog(r.logger, "error", "Failed to watch", fields);
};

/** Liveness deadline for established watches (not in client-go). */
export interface WatchLivenessOptions {
  /** The server's bookmark period (kube-apiserver sends a BOOKMARK to each watcher about every minute). */
  readonly bookmarkPeriod?: number;
  /** A watch is dead after `factor × bookmarkPeriod` without any event. Default 3. */
  readonly factor?: number;
  /**
   * Enforce the deadline only once this reflector has received at least one BOOKMARK, i.e. once the server is
   * known to send them (default true). With false, a quiet server without bookmarks is re-watched every deadline.
   */
  readonly requireBookmarks?: boolean;
}

/**
 * Options of a {@link Reflector} (`ReflectorOptions` plus the exported Reflector fields). Durations are
 * milliseconds.
 */
export interface ReflectorOptions<T> {
  /** Name in logs, status and events. Default: the caller's `file:line`. */
  readonly name?: string;
  /** Description of the type, for display. Default: from `expectedType`, else `<unspecified>`. */
  readonly typeDescription?: string;
  /** Period of `store.resync()` checks during watches; 0 (default) = never. */
  readonly resyncPeriod?: number;
  /** Minimum watch timeout; only values above 5 min are honoured. */
  readonly minWatchTimeout?: number;
  readonly clock?: Clock;
  /** Randomness for watch timeouts and backoff jitter. Default `Math.random`. */
  readonly rand?: Rand;
  /** Custom backoff (default 800 ms ×2, jitter 1.0, cap 30 s). */
  readonly backoff?: Backoff;
  /**
   * Backoff reset semantic: `periodic` (default; client-go v0.36+: reset every interval since the last
   * reset) or `gap` (client-go ≤ v0.35: reset after an interval without backoffs).
   */
  readonly backoffResetMode?: BackoffResetMode;
  /** Backoff reset interval, default 2 min. */
  readonly backoffResetInterval?: number;
  /** Page size of LISTs (`WatchListPageSize`); 0 = automatic. */
  readonly watchListPageSize?: number;
  /** Asked before each periodic resync; undefined = always resync. */
  readonly shouldResync?: () => boolean;
  /** How long 500s ending a watch are retried in place without relisting; 0 (default) = never. */
  readonly maxInternalErrorRetryDuration?: number;
  /**
   * Prime the store with a streaming watch-list. Default: `KUBE_FEATURE_WatchListClient` if set, else
   * true (client-go ≥ 1.35). A ListerWatcher with `watchListSemanticsUnsupported` always disables it.
   */
  readonly useWatchList?: boolean;
  /** Handler for errors returned by `listAndWatch`. Default {@link defaultWatchErrorHandler}. */
  readonly watchErrorHandler?: WatchErrorHandler;
  /** Default {@link consoleLogger} (warnings and errors to the console). */
  readonly logger?: ReflectorLogger;
  /**
   * Transformer of the temporary watch-list store. Default: the store's, when it has a `transformer()` method
   * (client-go's `TransformingStore`, e.g. RealFIFO). It must be idempotent: objects are transformed again by
   * the store on replace.
   */
  readonly transformer?: TransformFunc<T>;
  /** Compare each watch-list result with an exact LIST. Default: `KUBE_WATCHLIST_INCONSISTENCY_DETECTOR`. */
  readonly watchListConsistencyDetector?: boolean;
  /**
   * Beyond client-go: give up waiting for the watch-list's initial-events-end bookmark after this long and fall
   * back to LIST (upstream waits forever: kubernetes#140890). Undefined (default) = wait forever.
   */
  readonly initialEventsEndTimeout?: number;
  /** Beyond client-go: re-watch a watch that went silent (see {@link WatchLivenessOptions}). Off by default. */
  readonly watchLiveness?: WatchLivenessOptions;
  /**
   * Beyond client-go: start from a persisted resource version (the initial `lastSyncResourceVersion`), so the
   * first list / watch-list asks for data at least that new instead of RV "0" / "".
   */
  readonly initialResourceVersion?: string;
  /**
   * Store shallow copies of LIST items (`meta.ExtractListWithAlloc`: new top-level and `metadata` objects) instead
   * of the response's own objects. Default false. client-go always copies, because in Go an item pointer pins its
   * list's whole backing array (kubernetes#111370); in JavaScript nothing an item references leads back to its list
   * (the `list-memory` study measures it), so the copy only costs CPU and a transient second set of objects. Turn
   * it on when the ListerWatcher hands out objects it keeps using (e.g. frozen objects shared with a cache) and a
   * transform or handler must be able to replace their top-level fields.
   */
  readonly copyListItems?: boolean;
}
