import { type KubeList, type KubeObject, type ListOptions, metaOf, shallowCopyObject } from "@informer-ts/apimachinery";
import { abortable, STOP_REQUESTED } from "../internal/abortable.js";
import { newListPager } from "../pager.js";
import { isExpiredError, isTooLargeResourceVersionError } from "./errors.js";
import type { ReflectorState } from "./state.js";
import { errorInfo } from "./status.js";
import { isUnsupportedTableObject } from "./watch.js";

// The reflector's list path: a (paginated) LIST at the relist resource version that replaces the store.

/**
 * LISTs and replaces the store (`list`). Resolves when done or stopped; rejects with
 * `failed to list <type>: …`, `unable to sync list result: …` (store replace) and the like.
 */
export async function listIntoStore<T>(state: ReflectorState<T>, signal: AbortSignal): Promise<void> {
  const options: ListOptions = { resourceVersion: state.relistResourceVersion() };
  const pager = newListPager<T>((opts, s) => state.lw.list(opts, s));
  if (state.watchListPageSize !== 0) pager.pageSize = state.watchListPageSize;
  else if (state.listWasPaginated) {
    // The watch cache is probably off (a paginated answer to RV "0"): keep paging.
  } else if (options.resourceVersion !== "" && options.resourceVersion !== "0") {
    // An exact-or-newer RV without limit can be served from the watch cache.
    pager.pageSize = 0;
  }
  const started = state.clock.now();
  state.tracker.setPhase("listing");
  const attempt = (opts: ListOptions) => {
    state.tracker.counts.lists++;
    state.tracker.emit({ type: "list-start", resourceVersion: opts.resourceVersion ?? "" });
    return abortable(pager.list(opts, signal), signal);
  };
  let result: { list: KubeList<T>; paginated: boolean };
  try {
    try {
      result = await attempt(options);
    } catch (err) {
      if (err === STOP_REQUESTED) throw err;
      if (!isExpiredError(err) && !isTooLargeResourceVersionError(err)) throw err;
      // The RV is gone or not reached yet: retry at once with a consistent read.
      state.recordError("list", err);
      state.setIsLastSyncResourceVersionUnavailable(true);
      result = await attempt({ resourceVersion: state.relistResourceVersion() });
    }
    if (isUnsupportedTableObject(result.list)) {
      throw new Error(
        `unsupported list gvk: ${String(result.list.apiVersion)}, Kind=Table, type: ${state.typeDescription}`,
      );
    }
  } catch (err) {
    if (err === STOP_REQUESTED || signal.aborted) throw STOP_REQUESTED;
    state.recordError("list", err);
    throw new Error(`failed to list ${state.typeDescription}: ${errorInfo(err).message}`, { cause: err });
  }

  if (options.resourceVersion === "0" && result.paginated) state.notePaginatedList();
  state.setIsLastSyncResourceVersionUnavailable(false);
  const list = result.list;
  const rv = typeof list.metadata?.resourceVersion === "string" ? list.metadata.resourceVersion : "";
  if (!Array.isArray(list.items)) {
    const err = new Error(`unable to understand list result: items is not an array (${typeof list.items})`);
    state.recordError("list", err);
    throw err;
  }
  // client-go copies every item (ExtractListWithAlloc) so that no item pins the list's array; in JavaScript nothing
  // does, so by default the store takes the response's objects, in a new array (the response is not modified).
  const items = state.copyListItems ? extractListWithAlloc(list.items) : list.items.slice();
  try {
    state.store.replace(items, rv);
  } catch (err) {
    state.recordError("store", err);
    throw new Error(`unable to sync list result: ${errorInfo(err).message}`, { cause: err });
  }
  state.setLastSyncResourceVersion(rv);
  state.markSynced();
  state.tracker.emit({
    type: "list-done",
    resourceVersion: rv,
    items: items.length,
    paginated: result.paginated,
    durationMs: state.clock.since(started),
  });
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
