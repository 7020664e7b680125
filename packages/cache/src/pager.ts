import {
  isResourceExpired,
  type KubeList,
  type KubeObject,
  type ListOptions,
  shallowCopyObject,
} from "@informer-ts/apimachinery";
import { BoundedChannel } from "./internal/bounded-channel.js";

/** `pager.defaultPageSize`. */
export const DEFAULT_PAGE_SIZE = 500;
/** `pager.defaultPageBufferSize`. */
export const DEFAULT_PAGE_BUFFER_SIZE = 10;

/**
 * Fetches one page (`pager.ListPageFunc`). `signal` aborts the request; the function rejects with the server's
 * error (a `StatusError`) or the transport error.
 */
export type ListPageFunc<T> = (options: ListOptions, signal?: AbortSignal) => Promise<KubeList<T>>;

/** The result of {@link ListPager.list}: the list and whether more than one page was fetched. */
export interface PagedListResult<T> {
  readonly list: KubeList<T>;
  /**
   * True once a page with a `continue` token was received, i.e. the server paginated (`paginatedResult`). Also
   * true when an expired continuation fell back to a full list.
   */
  readonly paginated: boolean;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error("the operation was aborted");
}

function checkList<T>(obj: unknown): KubeList<T> {
  if (typeof obj !== "object" || obj === null || !Array.isArray((obj as { items?: unknown }).items)) {
    throw new TypeError(`returned object must be a list: got ${obj === null ? "null" : typeof obj} without items`);
  }
  return obj as KubeList<T>;
}

function detach<T>(item: T): T {
  return typeof item === "object" && item !== null ? (shallowCopyObject(item as KubeObject) as T) : item;
}

/**
 * Breaks a large LIST into pages of `pageSize` (`pager.ListPager`).
 *
 * - {@link ListPager.list} returns one list: the first page unchanged when it has no `continue`, else every page
 *   accumulated into a new list whose `resourceVersion` is the first page's. Continue requests clear
 *   `resourceVersion` and `resourceVersionMatch` (the server forbids them with `continue`). When a continue
 *   page fails with reason `Expired` (not `Gone`) and `fullListIfExpired` is set, one full list (`limit` 0) at
 *   the originally requested RV/RVM is returned instead.
 * - {@link ListPager.eachListItem} streams items while a background producer fetches up to
 *   `pageBufferSize` pages ahead; an error thrown by `fn` stops the producer at once.
 *
 * The `…WithAlloc` variants hand out shallow copies of the items (new top-level and `metadata` objects) so that
 * no consumer can hold a page's objects; in JavaScript an item never pins the page that contained it, so the
 * plain variants are equally safe for garbage collection and cheaper.
 *
 * Differences from client-go: methods take an `AbortSignal` instead of a context and reject instead of
 * returning `error`; `list` resolves `{ list, paginated }`. The accumulated list keeps the first page's
 * `apiVersion`/`kind` (Go builds an internal `List`).
 */
export class ListPager<T> {
  /** Page size used when the request's `limit` is 0 (0 = no pagination). */
  pageSize: number = DEFAULT_PAGE_SIZE;
  /** Fall back to one full list when a continue page reports `Expired`. */
  fullListIfExpired = true;
  /** Pages fetched ahead of the consumer by {@link ListPager.eachListItem} (must be ≥ 0). */
  pageBufferSize: number = DEFAULT_PAGE_BUFFER_SIZE;

  constructor(readonly pageFn: ListPageFunc<T>) {
    if (typeof pageFn !== "function") throw new TypeError("ListPager needs a page function");
  }

  /** Lists everything, page by page (`List`). Rejects with the first page error, or `signal.reason`. */
  list(options: ListOptions, signal?: AbortSignal): Promise<PagedListResult<T>> {
    return this.doList(options, false, signal);
  }

  /** Like {@link ListPager.list}, with every accumulated item shallow-copied off its page (`ListWithAlloc`). */
  listWithAlloc(options: ListOptions, signal?: AbortSignal): Promise<PagedListResult<T>> {
    return this.doList(options, true, signal);
  }

  private async doList(input: ListOptions, allocNew: boolean, signal?: AbortSignal): Promise<PagedListResult<T>> {
    const options = withDefaultLimit(input, this.pageSize);
    const requestedResourceVersion = options.resourceVersion;
    const requestedResourceVersionMatch = options.resourceVersionMatch;
    let accumulated: KubeList<T> | undefined;
    let paginated = false;

    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      let page: KubeList<T>;
      try {
        page = checkList<T>(await this.pageFn({ ...options }, signal));
      } catch (err) {
        // Only an Expired continuation falls back to a full list: the first page fixed the RV, and that RV was
        // compacted while we were paging.
        if (!isResourceExpired(err) || !this.fullListIfExpired || !options.continue) throw err;
        const full: ListOptions = { ...options };
        delete full.continue;
        delete full.limit;
        setOrDelete(full, "resourceVersion", requestedResourceVersion);
        setOrDelete(full, "resourceVersionMatch", requestedResourceVersionMatch);
        const list = checkList<T>(await this.pageFn(full, signal));
        return { list, paginated };
      }
      const cont = page.metadata?.continue ?? "";
      if (cont === "" && accumulated === undefined) return { list: page, paginated };

      if (accumulated === undefined) {
        accumulated = { metadata: {}, items: [] };
        if (page.apiVersion !== undefined) accumulated.apiVersion = page.apiVersion;
        if (page.kind !== undefined) accumulated.kind = page.kind;
        const rv = page.metadata?.resourceVersion;
        if (rv !== undefined) accumulated.metadata.resourceVersion = rv;
        const selfLink = page.metadata?.selfLink;
        if (selfLink !== undefined) accumulated.metadata.selfLink = selfLink;
      }
      const into = accumulated.items;
      const items = page.items;
      for (let i = 0; i < items.length; i++) into.push(allocNew ? detach(items[i] as T) : (items[i] as T));

      if (cont === "") return { list: accumulated, paginated };
      options.continue = cont;
      // The server rejects resourceVersion(Match) together with continue (kubernetes#85221).
      delete options.resourceVersion;
      delete options.resourceVersionMatch;
      paginated = true;
    }
  }

  /**
   * Calls `fn` on every item, fetching pages in the background (`EachListItem`). If `fn` throws (or its
   * promise rejects) processing stops, the producer is cancelled and that error is thrown; otherwise the first
   * page error is thrown. Unlike {@link ListPager.list} there is no full-list fallback, and — as upstream —
   * `resourceVersion` is not cleared on continue requests.
   *
   * @throws RangeError when `pageBufferSize` < 0.
   */
  eachListItem(options: ListOptions, fn: (item: T) => void | Promise<void>, signal?: AbortSignal): Promise<void> {
    return this.eachListChunkBuffered(options, (page) => eachItem(page, fn, false), signal);
  }

  /** Like {@link ListPager.eachListItem}, with each item shallow-copied off its page (`EachListItemWithAlloc`). */
  eachListItemWithAlloc(
    options: ListOptions,
    fn: (item: T) => void | Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    return this.eachListChunkBuffered(options, (page) => eachItem(page, fn, true), signal);
  }

  /**
   * Calls `fn` on every page with up to `pageBufferSize` pages buffered ahead (`eachListChunkBuffered`).
   * Exposed for tests and for callers that want whole pages.
   */
  async eachListChunkBuffered(
    options: ListOptions,
    fn: (page: KubeList<T>) => void | Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    if (!(this.pageBufferSize >= 0)) {
      throw new RangeError(`ListPager.pageBufferSize must be >= 0, got ${this.pageBufferSize}`);
    }
    if (signal?.aborted) throw abortReason(signal);
    // Our own controller stops the producer when the consumer exits early, whatever the reason.
    const inner = new AbortController();
    const onOuterAbort = () => inner.abort(signal?.reason);
    signal?.addEventListener("abort", onOuterAbort, { once: true });
    const chunks = new BoundedChannel<KubeList<T>>(this.pageBufferSize);
    const producer = this.eachListChunk(
      options,
      async (page) => {
        if (!(await chunks.send(page))) throw abortReason(inner.signal);
      },
      inner.signal,
    ).finally(() => chunks.close());
    // The producer's error is read below; never let it be reported as unhandled meanwhile.
    producer.catch(() => {});
    try {
      for (;;) {
        const next = await chunks.receive();
        if (next === undefined) break;
        if (inner.signal.aborted) throw abortReason(inner.signal);
        const r = fn(next.value);
        if (r !== undefined) await r;
      }
      await producer;
    } finally {
      signal?.removeEventListener("abort", onOuterAbort);
      if (!inner.signal.aborted) inner.abort(new Error("pager consumer finished"));
      chunks.close();
      chunks.drain();
    }
  }

  /** Fetches pages one after another and calls `fn` on each (`eachListChunk`). */
  private async eachListChunk(
    input: ListOptions,
    fn: (page: KubeList<T>) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const options = withDefaultLimit(input, this.pageSize);
    for (;;) {
      if (signal.aborted) throw abortReason(signal);
      const page = checkList<T>(await this.pageFn({ ...options }, signal));
      const cont = page.metadata?.continue ?? "";
      await fn(page);
      if (cont === "") return;
      options.continue = cont;
    }
  }
}

/** A copy of `input` whose `limit` defaults to `pageSize` (absent when both are 0). */
function withDefaultLimit(input: ListOptions, pageSize: number): ListOptions {
  const options: ListOptions = { ...input };
  if (!options.limit) {
    if (pageSize > 0) options.limit = pageSize;
    else delete options.limit;
  }
  return options;
}

function setOrDelete<K extends "resourceVersion" | "resourceVersionMatch">(
  o: ListOptions,
  key: K,
  value: ListOptions[K],
): void {
  if (value === undefined) delete o[key];
  else o[key] = value;
}

async function eachItem<T>(page: KubeList<T>, fn: (item: T) => void | Promise<void>, allocNew: boolean): Promise<void> {
  const items = page.items;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    const r = fn(allocNew ? detach(item) : item);
    if (r !== undefined) await r;
  }
}

/** `pager.New`: a {@link ListPager} with the defaults (page size 500, buffer 10, full list if expired). */
export function newListPager<T>(fn: ListPageFunc<T>): ListPager<T> {
  return new ListPager(fn);
}
