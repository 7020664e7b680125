import type { KubeList, ListOptions, WatchEvent } from "./types.js";

/**
 * An open watch (`watch.Interface`). Iterate it to receive events; iteration ends normally when the server
 * ends the stream, and throws on a transport or decode error. ERROR events arrive as events.
 *
 * Iteration is pull-based: a consumer that stops reading applies back-pressure to the server (which is how
 * a slow client gets its watch closed by the apiserver's dispatcher).
 */
export interface Watch<T> extends AsyncIterable<WatchEvent<T>> {
  /** Closes the watch; a pending or later iteration ends. Idempotent. */
  stop(): void;
  /**
   * Optional batch path of iteration: resolves with every event the watch has already decoded (at least one), or
   * the end, and fails like iteration does. A consumer uses either this or the iterator for a given watch; the
   * reflector uses it when present to take a whole chunk's events in one turn.
   */
  nextBatch?(): Promise<IteratorResult<readonly WatchEvent<T>[]>>;
}

/**
 * Lists and watches one resource (`cache.ListerWatcher`). `signal` cancels the request. Failures reject with
 * a `StatusError` (apimachinery) when the server answered, or with the transport error.
 *
 * The contract between the sources and the consumers of list/watch: implemented by `@informer-ts/client`
 * (`listWatchFor`, over HTTP) and `@informer-ts/sim-apiserver` (in-process, under virtual time), consumed by
 * `@informer-ts/cache`'s reflector and `watcher()`. It lives here, on the floor both stand on.
 *
 * Differences from client-go: `cache.ListerWatcher` lives in `tools/cache`; here it is in apimachinery so that the
 * client does not import the cache.
 */
export interface ListerWatcher<T> {
  list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<T>>;
  watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<T>>;
  /**
   * `IsWatchListSemanticsUnSupported`: true disables watch-list for this source (the reflector then primes its
   * cache with LIST).
   */
  readonly watchListSemanticsUnsupported?: boolean;
  /**
   * Optional description of what this ListerWatcher reads, used only in the hints of failure log lines (the URL
   * tried when the server does not answer, the user on a 401/403, the group/version/resource on a 404).
   */
  readonly target?: ListerWatcherTarget;
}

/** What a {@link ListerWatcher} lists and watches, for messages (every field optional). */
export interface ListerWatcherTarget {
  /** The server URL requests go to (e.g. `https://127.0.0.1:6443`). */
  readonly url?: string;
  /** The user the requests authenticate as. */
  readonly user?: string;
  /** API group ("" or absent for the core group). */
  readonly group?: string;
  readonly version?: string;
  /** Plural resource name (`configmaps`, `widgets`). */
  readonly resource?: string;
  /** Namespace, when the ListerWatcher is namespaced. */
  readonly namespace?: string;
}

/**
 * The scope a {@link ListerWatcher} applies to every list and watch: a namespace (unset = all namespaces) and
 * selectors that replace the caller's (as client-go's `NewFilteredListWatchFromClient` options modifier does).
 * `@informer-ts/client`'s `listWatchFor` and the simulator's in-process `listerWatcher` take it.
 */
export interface ListWatchScope {
  readonly namespace?: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}
