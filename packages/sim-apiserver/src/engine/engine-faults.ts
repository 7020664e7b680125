import type { BookmarkMode, WatcherFaults, WatcherSelector } from "./cacher/index.js";
import type {
  HttpFault,
  HttpFaultInjector,
  HttpFaultRule,
  HttpFaultState,
  HttpRequestDescriptor,
  LatencyRule,
  RequestLatency,
} from "./filters/index.js";
import type { ResourceTable } from "./registry/index.js";
import type { ResourceRef } from "./request-context.js";
import { groupResourceString } from "./resources.js";
import type { MvccStorage } from "./storage/index.js";

/** What {@link EngineFaults} drives (the engine's parts). */
export interface EngineFaultsDeps {
  readonly requestFaults: HttpFaultInjector;
  readonly storage: MvccStorage;
  readonly table: ResourceTable;
  readonly watcherFaults: WatcherFaults;
  readonly latency: RequestLatency;
  readonly log: (line: string) => void;
}

/**
 * The engine's fault injection in one place (`SimApiServer.faults`), shaped like the testing kit's `SimFaults`:
 * request faults (APF 429, error Statuses, dropped connections, truncated watches — decided by the request filters of
 * both faces), storage compaction, watch-cache re-initialization, dropped, stalled and resumed watches, the bookmark
 * mode and request latency on the engine's clock. Each method that takes a resource throws `UnknownResourceError`
 * (a 404 naming it), changing nothing, when the resource is not served.
 */
export class EngineFaults {
  /** The request-fault rules with their counters (the admin API lists and edits them). */
  readonly requestFaults: HttpFaultInjector;
  /** Removers of the latency rules added through {@link latency}, for {@link clearAll}. */
  private readonly latencies = new Set<() => void>();

  constructor(private readonly deps: EngineFaultsDeps) {
    this.requestFaults = deps.requestFaults;
  }

  /** Adds a request fault (429 with Retry-After, a status, a dropped connection, a truncated watch); returns its id. */
  request(rule: HttpFaultRule): number {
    return this.deps.requestFaults.add(rule);
  }

  /** Removes one request fault (or all); returns how many were removed. */
  clearRequests(id?: number): number {
    return this.deps.requestFaults.clear(id);
  }

  /** Compacts history below `rev` (default: now; an integer ≥ 0, else a RangeError). Older lists then get 410. */
  compact(rev?: number): number {
    return this.deps.storage.compact(rev);
  }

  /**
   * Re-initializes watch caches (all, or one resource) as after their etcd watch broke: every watcher is closed, the
   * history is emptied (older RVs now get 410), and for `downtimeMs` watches get 429. Throws a `RangeError` for a
   * negative or non-finite `downtimeMs`.
   */
  reinitializeCache(ref?: ResourceRef, downtimeMs = 0): void {
    if (!(downtimeMs >= 0 && Number.isFinite(downtimeMs))) {
      throw new RangeError(`reinitializeCache: downtimeMs must be a finite number ≥ 0, got ${downtimeMs}`);
    }
    const targets = ref === undefined ? this.deps.table.allCachers() : [this.deps.table.cacher(ref)];
    for (const c of targets) {
      this.deps.log(`cacher (${groupResourceString(c.resource)}): re-initializing, ${c.watcherCount} watchers closed`);
      c.reinitialize(downtimeMs);
    }
  }

  /**
   * Closes open watches (all, or of one resource) the way a dropped connection does. In-process iteration ends, or
   * throws `SimConnectionError` with `asError`. Returns how many were closed.
   */
  dropWatches(ref?: ResourceRef, asError = false): number {
    return this.deps.watcherFaults.drop(ref, asError);
  }

  /** Bookmarks: `on`, `no-periodic` (only the watch-list end marker) or `off` (that too); else a RangeError. */
  bookmarks(mode: BookmarkMode): void {
    this.deps.watcherFaults.setBookmarkMode(mode);
  }

  /** The bookmark mode in effect. */
  get bookmarkMode(): BookmarkMode {
    return this.deps.watcherFaults.bookmarkMode;
  }

  /**
   * "A watcher that stops reading": the matching open watchers stop draining their result buffer, so under churn
   * their buffers fill and the dispatcher's time budget closes them. With `future`, watchers opened later that match
   * are stalled too, until {@link resumeWatchers}. Returns how many open watchers were stalled.
   */
  stallWatchers(sel: WatcherSelector = {}, future = false): number {
    return this.deps.watcherFaults.stall(sel, future);
  }

  /** Undoes {@link stallWatchers}: removes the stall rules and resumes the matching stalled watchers. */
  resumeWatchers(sel: WatcherSelector = {}): number {
    return this.deps.watcherFaults.resume(sel);
  }

  /**
   * Adds request latency (engine clock); returns a function that removes the rule. A request waiting on it ends
   * when its signal aborts or the engine stops. Throws naming a bad `ms` or a resource that is not served.
   */
  latency(rule: LatencyRule): () => void {
    const remove = this.deps.latency.add(rule);
    const once = () => {
      this.latencies.delete(once);
      remove();
    };
    this.latencies.add(once);
    return once;
  }

  /**
   * Ends every fault: request faults and the latency rules added here removed, stalled watches resumed, bookmarks
   * back `on` (the quiet phase of a property).
   */
  clearAll(): void {
    this.clearRequests();
    for (const remove of [...this.latencies]) remove();
    this.resumeWatchers();
    this.bookmarks("on");
  }

  /** The request fault for a request (the request filters apply it). */
  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    return this.deps.requestFaults.faultFor(req);
  }

  /**
   * Adds a request fault.
   *
   * @deprecated `SimApiServer.faults` was the request-fault injector; use {@link request}.
   */
  add(rule: HttpFaultRule): number {
    return this.request(rule);
  }

  /**
   * Removes request faults.
   *
   * @deprecated `SimApiServer.faults` was the request-fault injector; use {@link clearRequests}.
   */
  clear(id?: number): number {
    return this.clearRequests(id);
  }

  /**
   * The request-fault rules with their counters.
   *
   * @deprecated `SimApiServer.faults` was the request-fault injector; use `requestFaults.list()`.
   */
  list(): readonly HttpFaultState[] {
    return this.deps.requestFaults.list();
  }
}
