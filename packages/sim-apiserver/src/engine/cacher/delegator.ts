import {
  type KubeList,
  type KubeObject,
  type ListOptions,
  newBadRequest,
  newResourceExpired,
  newTooLargeResourceVersion,
  parseResourceVersion,
  type StatusError,
} from "@informer-ts/apimachinery";
import type { KubeVersionGates } from "../kube-version.js";
import { deepFreeze, isDeepFrozen } from "../object-util.js";
import { apiVersionOf, type SimResource } from "../resources.js";
import type { Selection } from "../selection.js";
import {
  decodeContinue,
  encodeContinue,
  encodeContinueFrom,
  keyOf,
  type MvccStorage,
  prefixOf,
  type StoragePage,
} from "../storage/index.js";
import { answeredBy, type ServedFrom } from "./served-from.js";
import type { WatchCache } from "./watch-cache.js";

/** Result of a list. */
export interface CacherListResult {
  readonly list: KubeList;
  readonly servedFrom: ServedFrom;
  /** Keys the read examined, matching or not (the cost model's keys scanned). */
  readonly scanned: number;
}

/**
 * What the delegator's routing depends on besides the request: the gates of {@link KubeVersionGates}. An absent field
 * takes v1.34's default.
 */
export interface DelegatorConfig {
  /**
   * The `ListFromCacheSnapshot` gate (beta, on in v1.34; default true): exact-RV lists and continuations are served
   * from the cache's state at that RV while its history covers it. Off (≤ v1.33): always from storage.
   */
  readonly listFromCacheSnapshot?: boolean;
  /** `ConsistentListFromCache` (default true); see {@link KubeVersionGates.consistentListFromCache}. */
  readonly consistentListFromCache?: boolean;
  /** `ResilientWatchCacheInitialization` (default true); see {@link KubeVersionGates.resilientWatchCacheInitialization}. */
  readonly resilientWatchCacheInitialization?: boolean;
  /** Pre-1.31 `hasLimit` (default false); see {@link KubeVersionGates.limitedListsFromStorage}. */
  readonly limitedListsFromStorage?: boolean;
}

const INCONSISTENT_CONTINUE_MESSAGE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list " +
  "without the continue parameter, or use the continue token in this response to retrieve the remainder of the " +
  "results. Continuing with the provided token results in an inconsistent list - objects that were created, " +
  "modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/**
 * The storage key of the one object a list selects by name, if it does (`MatchesSingle`: the field selector requires
 * `metadata.name` to equal a value), and the registry's key function accepts it: a namespaced resource needs the
 * request's namespace (a list across namespaces scans), and the name must be a valid path segment (not `.` or `..`,
 * no `/` or `%`). Undefined otherwise: the list scans its prefix.
 */
export function singleObjectKey(r: SimResource, namespace: string, sel: Selection): string | undefined {
  const name = sel.fields.requiresExactMatch("metadata.name");
  if (name === undefined || name === "" || name === "." || name === ".." || /[/%]/.test(name)) return undefined;
  if (r.namespaced && namespace === "") return undefined;
  return keyOf(r, namespace, name);
}

/**
 * The reads of one resource (kube-apiserver's `CacheDelegator` with the cacher's `GetList`/`Get`): decides per
 * request whether the watch cache or storage answers — consistent reads, "not older than", exact RVs, continuations,
 * reads while the cache is not ready — and builds the list.
 */
export class Delegator {
  constructor(
    private readonly resource: SimResource,
    private readonly storage: MvccStorage,
    private readonly cache: WatchCache,
    private readonly cfg: DelegatorConfig,
  ) {}

  /**
   * LIST: RV unset (consistent), "0" (any), N (not older than, or exact with a limit), `Exact`, continue — routed as
   * the configured release does (see {@link KubeVersionGates}).
   */
  async list(namespace: string, opts: ListOptions, sel: Selection): Promise<CacherListResult> {
    const cache = this.cache;
    const cfg = this.cfg;
    const rvStr = opts.resourceVersion ?? "";
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    const prefix = prefixOf(this.resource, namespace);
    const match = opts.resourceVersionMatch;
    // A list naming one object by `metadata.name` is a non-recursive read of its key (the registry's MatchesSingle).
    const key = opts.continue ? undefined : singleObjectKey(this.resource, namespace, sel);
    if (key !== undefined) return this.listOne(key, rvStr, limit, match, sel);
    if (opts.continue !== undefined && opts.continue !== "") {
      // storage.ValidateListOptions: the token is decoded before the RV is looked at.
      const tok = decodeContinue(opts.continue, prefix);
      if (rvStr !== "" && rvStr !== "0") {
        throw newBadRequest("specifying resource version is not allowed when using continue");
      }
      if (tok.rv > 0) return this.exact(prefix, tok.fromKey, tok.rv, limit, sel, true);
      // rv -1: continue at the latest revision (storage only, without ListFromCacheSnapshot).
      if (cfg.listFromCacheSnapshot === false) return this.fromStorage(prefix, tok.fromKey, 0, limit, sel);
      return this.consistent(prefix, tok.fromKey, limit, sel);
    }
    const rv = Number(parseResourceVersion(rvStr));
    if (match === "Exact" || (match === undefined && limit > 0 && rv > 0)) {
      return this.exact(prefix, undefined, rv, limit, sel, false); // L5
    }
    if (rvStr === "") {
      // Without ConsistentListFromCache an RV-unset list is a quorum read from etcd.
      if (cfg.consistentListFromCache === false) return this.fromStorage(prefix, undefined, 0, limit, sel);
      return this.consistent(prefix, undefined, limit, sel); // L1/L2
    }
    // Before 1.31 (`hasLimit`): a limit with an RV other than "0" is etcd's, "not older than" at its revision.
    if (cfg.limitedListsFromStorage === true && limit > 0 && rv > 0)
      return this.notOlderThanFromStorage(prefix, rv, limit, sel);
    if (!cache.ready) {
      if (cfg.resilientWatchCacheInitialization !== false) {
        // ResilientWatchCacheInitialization: a paged list without selectors goes to storage (which serves "not older
        // than N" at its current revision, or 504 without Retry-After when N is in its future); anything else is 429.
        if (!(limit > 0 && sel.empty)) throw cache.notReady();
        return this.notOlderThanFromStorage(prefix, rv, limit, sel);
      }
      // Before it: RV "0" goes to etcd (which honours the limit); RV=N waits until the cache is ready.
      if (rv === 0) return this.fromStorage(prefix, undefined, 0, limit, sel);
      await cache.whenReady();
    }
    if (rv === 0) return this.fromCache(prefix, undefined, 0, sel); // L3: limit ignored
    await cache.waitFresh(rv); // L4
    return this.fromCache(prefix, undefined, match === "NotOlderThan" ? limit : 0, sel);
  }

  /**
   * A list that names one object (`fieldSelector=metadata.name=x` in a namespace, no continue token: the registry's
   * `MatchesSingle` with a key its `KeyFunc` accepts), served as kube-apiserver serves a non-recursive `GetList`: by
   * the object's key, from storage or from the watch cache, never by scanning the namespace (one key examined). The
   * routing is the list's, except that an exact-RV read (`Exact`, or an RV with a limit) always goes to storage:
   * upstream's cacher delegates non-recursive exact reads (`ShouldDelegateExactRV` with `recursive` false), there is
   * no snapshot read by key. At most one item, so no `continue` and no `remainingItemCount`.
   */
  private async listOne(
    key: string,
    rvStr: string,
    limit: number,
    match: ListOptions["resourceVersionMatch"],
    sel: Selection,
  ): Promise<CacherListResult> {
    const cache = this.cache;
    const cfg = this.cfg;
    const rv = Number(parseResourceVersion(rvStr));
    if (match === "Exact" || (match === undefined && limit > 0 && rv > 0)) return this.oneFromStorage(key, rv, sel);
    if (rvStr === "") {
      if (cfg.consistentListFromCache === false) return this.oneFromStorage(key, 0, sel);
      // A consistent read: the cache once it caught up with storage (storage when it does not), 429 while it is not
      // ready (a list with a field selector is never delegated to storage then).
      if (!cache.ready) throw cache.notReady();
      if (!(await cache.consistentWait())) return this.oneFromStorage(key, 0, sel);
      return this.oneFromCache(key, sel);
    }
    if (cfg.limitedListsFromStorage === true && limit > 0 && rv > 0) {
      const current = this.storage.currentRevision;
      if (rv > current) throw answeredBy(newTooLargeResourceVersion(rv, current, 0), "storage");
      return this.oneFromStorage(key, 0, sel);
    }
    if (!cache.ready) {
      if (cfg.resilientWatchCacheInitialization !== false) throw cache.notReady();
      if (rv === 0) return this.oneFromStorage(key, 0, sel);
      await cache.whenReady();
    }
    if (rv > 0) await cache.waitFresh(rv);
    return this.oneFromCache(key, sel);
  }

  private oneFromCache(key: string, sel: Selection): CacherListResult {
    const page = this.cache.pageOfKey(key, sel);
    return { list: this.toList(page, "", sel, page.rev), servedFrom: "cache", scanned: page.scanned };
  }

  private oneFromStorage(key: string, rev: number, sel: Selection): CacherListResult {
    let page: StoragePage;
    try {
      page = this.storage.listKey(this.resource, key, rev, sel.matches);
    } catch (err) {
      throw answeredBy(err, "storage");
    }
    return { list: this.toList(page, "", sel, page.rev), servedFrom: "storage", scanned: page.scanned };
  }

  /** etcd's "not older than N": its current revision, or 504 (no Retry-After) when N is in its future. */
  private notOlderThanFromStorage(prefix: string, rv: number, limit: number, sel: Selection): CacherListResult {
    const current = this.storage.currentRevision;
    if (rv > current) throw answeredBy(newTooLargeResourceVersion(rv, current, 0), "storage");
    return this.fromStorage(prefix, undefined, 0, limit, sel);
  }

  /**
   * GET (L7–L9): RV unset → storage; "0" → cache, no wait; N → cache once fresh (504 with Retry-After after 3 s).
   * While the cache is not ready every GET goes to storage, which answers an RV in its future with 504 (no
   * Retry-After); before ResilientWatchCacheInitialization only RV "0" does, and RV=N waits until the cache is ready.
   */
  async get(
    namespace: string,
    name: string,
    rvStr: string,
  ): Promise<{ object: KubeObject | undefined; servedFrom: ServedFrom }> {
    const rv = Number(parseResourceVersion(rvStr));
    const key = this.resource.namespaced ? `${namespace}/${name}` : name;
    const resilient = this.cfg.resilientWatchCacheInitialization !== false;
    if (rvStr === "" || (!this.cache.ready && (resilient || rv === 0))) {
      const current = this.storage.currentRevision;
      if (rv > current) throw answeredBy(newTooLargeResourceVersion(rv, current, 0), "storage");
      return { object: this.storage.get(this.resource, namespace, name), servedFrom: "storage" };
    }
    if (!this.cache.ready) await this.cache.whenReady();
    if (rv > 0) await this.cache.waitFresh(rv);
    return { object: this.cache.state.get(key), servedFrom: "cache" };
  }

  private toList(page: StoragePage, prefix: string, sel: Selection, tokenRV: number): KubeList {
    const r = this.resource;
    const items = r.custom === true ? page.items : page.items.map(stripTypeMeta);
    const metadata: KubeList["metadata"] = { resourceVersion: String(page.rev) };
    if (page.lastKey !== undefined) {
      metadata.continue = encodeContinue(page.lastKey, prefix, tokenRV);
      if (sel.empty) metadata.remainingItemCount = page.remaining;
    }
    return { kind: `${r.kind}List`, apiVersion: apiVersionOf(r), metadata, items };
  }

  private fromCache(prefix: string, fromKey: string | undefined, limit: number, sel: Selection): CacherListResult {
    const page = this.cache.page(prefix, fromKey, limit, sel);
    return { list: this.toList(page, prefix, sel, this.cache.rv), servedFrom: "cache", scanned: page.scanned };
  }

  private fromStorage(
    prefix: string,
    fromKey: string | undefined,
    rev: number,
    limit: number,
    sel: Selection,
  ): CacherListResult {
    let page: StoragePage;
    try {
      page = this.storage.list(this.resource, {
        prefix,
        ...(fromKey !== undefined && { fromKey }),
        rev,
        limit,
        predicate: sel.matches,
      });
    } catch (err) {
      throw answeredBy(err, "storage");
    }
    return { list: this.toList(page, prefix, sel, page.rev), servedFrom: "storage", scanned: page.scanned };
  }

  /**
   * An exact-RV read (L5: legacy exact with limit or `Exact`; L6: a continuation pinned to its first page's RV): waits
   * while the cache is behind `rv` (3 s, then 504 with Retry-After), serves from the cache's snapshot at `rv` while
   * its history covers it, else from storage at revision `rv` (410 below compaction; a continuation's 410 carries the
   * inconsistent token). While the cache is not ready: storage when the cache had already passed `rv` or the request
   * is a paged list without selectors, else 429.
   */
  private async exact(
    prefix: string,
    fromKey: string | undefined,
    rv: number,
    limit: number,
    sel: Selection,
    continuation: boolean,
  ): Promise<CacherListResult> {
    const cache = this.cache;
    if (this.cfg.listFromCacheSnapshot !== false) {
      if (!cache.ready) {
        if (rv > cache.rv && !(limit > 0 && sel.empty)) throw cache.notReady();
      } else {
        if (rv > cache.rv) await cache.waitFresh(rv);
        const page = cache.ready ? cache.snapshotPage(prefix, fromKey, rv, limit, sel) : undefined;
        if (page !== undefined)
          return { list: this.toList(page, prefix, sel, rv), servedFrom: "cache", scanned: page.scanned };
      }
    }
    try {
      return this.fromStorage(prefix, fromKey, rv, limit, sel);
    } catch (err) {
      if (continuation && (err as StatusError).code === 410 && fromKey !== undefined) {
        const e = newResourceExpired(INCONSISTENT_CONTINUE_MESSAGE);
        // The same start key re-encoded at "latest" (storage.EncodeContinue of the decoded key, unchanged).
        e.status.metadata.continue = encodeContinueFrom(fromKey, prefix, -1);
        throw answeredBy(e, "storage");
      }
      throw err;
    }
  }

  /**
   * A consistent read (L1/L2, and L6 with an inconsistent token): from the cache once it caught up with storage's
   * current revision, from storage when it does not within the block timeout. Cache not ready: storage for a paged
   * list without selectors, else 429.
   */
  private async consistent(
    prefix: string,
    fromKey: string | undefined,
    limit: number,
    sel: Selection,
  ): Promise<CacherListResult> {
    if (!this.cache.ready) {
      if (limit > 0 && sel.empty) return this.fromStorage(prefix, fromKey, 0, limit, sel);
      throw this.cache.notReady();
    }
    if (!(await this.cache.consistentWait())) return this.fromStorage(prefix, fromKey, 0, limit, sel);
    return this.fromCache(prefix, fromKey, limit, sel);
  }
}

/**
 * The list-item form of each stored object, made once: stored objects are deep-frozen and immutable, so every list
 * serves the same frozen copy, and the HTTP layer encodes it once (`http/encoding-cache.ts`) however often it is
 * relisted. Weak: a copy lives only as long as storage or the watch cache keeps its object.
 */
const listItems = new WeakMap<KubeObject, KubeObject>();

function stripTypeMeta(o: KubeObject): KubeObject {
  let item = listItems.get(o);
  if (item === undefined) {
    const { kind: _k, apiVersion: _a, ...rest } = o;
    if (!isDeepFrozen(o)) return rest;
    item = deepFreeze(rest);
    listItems.set(o, item);
  }
  return item;
}
