import {
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeList,
  type KubeObject,
  type ListerWatcher,
  type ListOptions,
  newBadRequest,
  newInvalid,
  newResourceExpired,
  newTooLargeResourceVersion,
  type Status,
  stoppingIterator,
  type Watch,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import type { Clock, Rand, Timer } from "@informer-ts/clock";

/**
 * An in-memory {@link Watch} for tests: events pushed with {@link FakeWatch.push} are delivered in order;
 * {@link FakeWatch.close} ends the stream after the queued events (the server closed it);
 * {@link FakeWatch.fail} makes the iteration throw after the queued events (a transport or decode error);
 * {@link FakeWatch.stop} (the consumer) ends it at once and drops the queue.
 */
export class FakeWatch<T> implements Watch<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<WatchEvent<T>>) => void; reject: (e: unknown) => void } | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;
  private stoppedFlag = false;
  /** Called once when the watch stops or closes (the source uses it to forget the watch). */
  onDone: (() => void) | undefined;

  constructor(readonly options: ListOptions = {}) {}

  /** True once stopped by the consumer. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** True once closed, failed or stopped. */
  get isDone(): boolean {
    return this.closed;
  }

  /** Queues an event (ignored once closed). */
  push(event: WatchEvent<T>): void {
    if (this.closed) return;
    const w = this.waiter;
    if (w !== undefined) {
      this.waiter = undefined;
      w.resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
  }

  /** Ends the stream after the queued events (a clean server-side close). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.settleWaiter();
    this.finish();
  }

  /** Ends the stream with an iteration error after the queued events. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.failure = { error };
    this.close();
  }

  stop(): void {
    if (this.stoppedFlag) return;
    this.stoppedFlag = true;
    this.queue.length = 0;
    this.head = 0;
    this.failure = undefined;
    this.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return stoppingIterator(this);
  }

  next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head] as WatchEvent<T>;
      (this.queue as unknown[])[this.head] = undefined;
      this.head++;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.closed) {
      const f = this.failure;
      if (f !== undefined) {
        this.failure = undefined;
        return Promise.reject(f.error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private settleWaiter(): void {
    const w = this.waiter;
    if (w === undefined) return;
    this.waiter = undefined;
    const f = this.failure;
    if (f !== undefined) {
      this.failure = undefined;
      w.reject(f.error);
    } else {
      w.resolve({ value: undefined, done: true });
    }
  }

  private finish(): void {
    const cb = this.onDone;
    this.onDone = undefined;
    cb?.();
  }
}

/** How a {@link FakeControllerSource} answers `sendInitialEvents=true` watches. */
export type FakeWatchListSupport =
  /** Initial ADDED events, then the annotated BOOKMARK, then live events (KEP-3157). */
  | "supported"
  /** 422 Invalid, like a server without the WatchList feature. */
  | "invalid"
  /** Ignored: a plain watch without the end bookmark (a proxy or aggregated server; kubernetes#140890). */
  | "ignored";

/** Options of {@link FakeControllerSource}. */
export interface FakeControllerSourceOptions {
  /** Enables `timeoutSeconds` on watches (closed cleanly when due). */
  readonly clock?: Clock;
  /** Randomness for {@link FakeControllerSource.change}'s watch probability. Default `Math.random`. */
  readonly rand?: Rand;
  /** Honour `limit`/`continue` on LISTs (default false: one page, like the watch cache at RV "0"). */
  readonly paginate?: boolean;
  /** Default `supported`. */
  readonly watchList?: FakeWatchListSupport;
  /** Sets `watchListSemanticsUnsupported` on the ListerWatcher (F26). */
  readonly watchListSemanticsUnsupported?: boolean;
  /** `apiVersion`/`kind` put on BOOKMARK objects (and on nothing else). */
  readonly bookmarkKind?: { readonly apiVersion: string; readonly kind: string };
  /**
   * Start value of the global resource version counter (default 0, as client-go's fake). Until the first change a
   * LIST answers RV "0", from which a reflector watches with synthetic ADDED events and does not propagate RVs
   * (F15); pass 1 to behave like a fresh etcd, whose LISTs never answer "0".
   */
  readonly initialResourceVersion?: number;
}

interface Change<T> {
  readonly rv: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: T;
}

interface OpenWatch<T> {
  readonly watch: FakeWatch<T>;
  readonly bookmarks: boolean;
  timer: Timer | undefined;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function metaRecord(obj: KubeObject): NonNullable<KubeObject["metadata"]> {
  if (typeof obj.metadata !== "object" || obj.metadata === null) {
    throw new TypeError(`FakeControllerSource needs objects with metadata, got ${JSON.stringify(obj)}`);
  }
  return obj.metadata;
}

/**
 * An in-memory ListerWatcher with one global resource version (client-go `tools/cache/testing`
 * `FakeControllerSource`), for reflector and informer tests under virtual time.
 *
 * Every {@link FakeControllerSource.add}/`modify`/`delete` bumps the RV, stores a copy of the object and
 * broadcasts the event to open watches (the `…DropWatch` variants "forget" to broadcast). Lists return copies
 * of the current objects at the current RV. Watches replay the recorded changes after the requested RV
 * (410 Expired if they were compacted away), start with synthetic ADDED events from RV ""/"0", and support
 * watch-list (`sendInitialEvents`). Faults: {@link FakeControllerSource.failNextList},
 * {@link FakeControllerSource.failNextWatch}, {@link FakeControllerSource.listError}, ERROR events
 * ({@link FakeControllerSource.sendError}), clean closes ({@link FakeControllerSource.closeWatches}),
 * transport errors ({@link FakeControllerSource.failWatches}), compaction and {@link FakeControllerSource.resetWatch}.
 *
 * Differences from client-go: objects are keyed by namespace/name (not UID); a watch from an RV in the future
 * gets the apiserver's "too large resource version" error; watches from ""/"0" get synthetic ADDED events.
 */
export class FakeControllerSource<T extends KubeObject = KubeObject> implements ListerWatcher<T> {
  /** Current objects by `namespace/name`. */
  readonly items = new Map<string, T>();
  /** When set, every LIST rejects with it (`ListError`). */
  listError: unknown;
  /** Every LIST request's options, in order. */
  readonly listCalls: ListOptions[] = [];
  /** Every WATCH request's options, in order. */
  readonly watchCalls: ListOptions[] = [];
  /** Called on each LIST/WATCH request; a returned value is thrown as the request's error. */
  listHook: ((options: ListOptions) => unknown) | undefined;
  watchHook: ((options: ListOptions) => unknown) | undefined;
  readonly watchListSemanticsUnsupported?: boolean;
  watchListSupport: FakeWatchListSupport;

  private changes: Change<T>[] = [];
  private lastRV: number;
  private readonly open = new Set<OpenWatch<T>>();
  private readonly listFailures: unknown[] = [];
  private readonly watchFailures: unknown[] = [];
  private readonly snapshots = new Map<number, T[]>();
  private readonly clock: Clock | undefined;
  private readonly rand: Rand;
  private readonly paginate: boolean;
  private readonly bookmarkKind: { readonly apiVersion: string; readonly kind: string } | undefined;

  constructor(options: FakeControllerSourceOptions = {}) {
    this.clock = options.clock;
    this.rand = options.rand ?? { float: () => Math.random() };
    this.paginate = options.paginate ?? false;
    this.watchListSupport = options.watchList ?? "supported";
    if (options.watchListSemanticsUnsupported !== undefined) {
      this.watchListSemanticsUnsupported = options.watchListSemanticsUnsupported;
    }
    this.bookmarkKind = options.bookmarkKind;
    this.lastRV = options.initialResourceVersion ?? 0;
  }

  /** The current global resource version. */
  get resourceVersion(): string {
    return String(this.lastRV);
  }

  /** Number of watches currently open. */
  get openWatches(): number {
    return this.open.size;
  }

  /** The open watches (oldest first). */
  get watches(): FakeWatch<T>[] {
    return [...this.open].map((o) => o.watch);
  }

  /** RV of the oldest change still replayable (changes at or below `oldest - 1` are compacted). */
  get oldestResourceVersion(): number {
    return this.changes[0]?.rv ?? this.lastRV + 1;
  }

  static keyOf(obj: KubeObject): string {
    const m = metaRecord(obj);
    const ns = m.namespace ?? "";
    return ns === "" ? (m.name ?? "") : `${ns}/${m.name ?? ""}`;
  }

  add(obj: T): T {
    return this.change("ADDED", obj, 1);
  }

  modify(obj: T): T {
    return this.change("MODIFIED", obj, 1);
  }

  delete(lastValue: T): T {
    return this.change("DELETED", lastValue, 1);
  }

  addDropWatch(obj: T): T {
    return this.change("ADDED", obj, 0);
  }

  modifyDropWatch(obj: T): T {
    return this.change("MODIFIED", obj, 0);
  }

  deleteDropWatch(lastValue: T): T {
    return this.change("DELETED", lastValue, 0);
  }

  /**
   * Records a change at the next RV (on a copy of `obj`, whose RV is set) and broadcasts it to open watches with
   * probability `watchProbability`. Returns the stored copy.
   */
  change(type: "ADDED" | "MODIFIED" | "DELETED", obj: T, watchProbability: number): T {
    const copy = clone(obj);
    this.lastRV++;
    metaRecord(copy).resourceVersion = String(this.lastRV);
    const key = FakeControllerSource.keyOf(copy);
    this.changes.push({ rv: this.lastRV, type, object: copy });
    if (type === "DELETED") this.items.delete(key);
    else this.items.set(key, copy);
    if (watchProbability > 0 && this.rand.float() < watchProbability) {
      for (const o of this.open) o.watch.push({ type, object: clone(copy) });
    }
    return copy;
  }

  /** Queues errors for the next LIST requests (one per request). */
  failNextList(...errors: unknown[]): void {
    this.listFailures.push(...errors);
  }

  /** Queues errors for the next WATCH requests (one per request). */
  failNextWatch(...errors: unknown[]): void {
    this.watchFailures.push(...errors);
  }

  /** Drops queued request failures, the list error and the hooks: the source is healthy again. */
  clearFailures(): void {
    this.listFailures.length = 0;
    this.watchFailures.length = 0;
    this.listError = undefined;
    this.listHook = undefined;
    this.watchHook = undefined;
  }

  /** Forgets changes at or below `rv` (default: all), like etcd compaction; older watches get 410. */
  compact(rv: number = this.lastRV): void {
    this.changes = this.changes.filter((c) => c.rv > rv);
    for (const snapRV of [...this.snapshots.keys()]) if (snapRV <= rv) this.snapshots.delete(snapRV);
  }

  /** `ResetWatch`: closes every watch and flushes the change log, so clients must relist. */
  resetWatch(): void {
    this.closeWatches();
    this.compact();
  }

  /** Closes every open watch cleanly (like a server-side timeout). */
  closeWatches(): void {
    for (const o of [...this.open]) o.watch.close();
  }

  /** Makes every open watch's iteration throw `error` (a transport or decode failure). */
  failWatches(error: unknown): void {
    for (const o of [...this.open]) o.watch.fail(error);
  }

  /** Sends an ERROR event with `status` to every open watch and closes them (what the apiserver does). */
  sendError(status: Status): void {
    for (const o of [...this.open]) {
      o.watch.push({ type: "ERROR", object: status });
      o.watch.close();
    }
  }

  /** Sends a BOOKMARK at the current RV to every watch that allowed bookmarks. */
  bookmark(): void {
    for (const o of this.open) if (o.bookmarks) o.watch.push({ type: "BOOKMARK", object: this.bookmarkObject(false) });
  }

  /** Closes every watch and rejects nothing further (`Shutdown`). */
  shutdown(): void {
    for (const o of [...this.open]) o.watch.close();
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<T>> {
    this.listCalls.push({ ...options });
    if (signal?.aborted) throw signal.reason;
    const hooked = this.listHook?.(options);
    if (hooked !== undefined) throw hooked;
    if (this.listFailures.length > 0) throw this.listFailures.shift();
    if (this.listError !== undefined) throw this.listError;
    const rv = options.resourceVersion ?? "";
    if (rv !== "" && rv !== "0") {
      const n = this.parseRV(rv);
      if (n > this.lastRV) throw newTooLargeResourceVersion(n, this.lastRV, 1);
      if (options.resourceVersionMatch === "Exact" && n !== this.lastRV) {
        throw newResourceExpired(`too old resource version: ${n} (${this.lastRV})`);
      }
    }
    const limit = options.limit ?? 0;
    if (!this.paginate || (limit <= 0 && !options.continue)) {
      return { metadata: { resourceVersion: String(this.lastRV) }, items: [...this.items.values()].map(clone) };
    }
    let snapshotRV: number;
    let offset: number;
    let all: T[];
    if (options.continue) {
      const [rvText, offText] = options.continue.split(":");
      snapshotRV = Number(rvText);
      offset = Number(offText);
      const snap = this.snapshots.get(snapshotRV);
      if (snap === undefined || !(offset >= 0)) {
        throw newResourceExpired("The provided continue parameter is too old to display a consistent list result.");
      }
      all = snap;
    } else {
      snapshotRV = this.lastRV;
      offset = 0;
      all = [...this.items.values()].map(clone);
      this.snapshots.set(snapshotRV, all);
    }
    const size = limit > 0 ? limit : all.length;
    const items = all.slice(offset, offset + size).map(clone);
    const out: KubeList<T> = { metadata: { resourceVersion: String(snapshotRV) }, items };
    if (offset + size < all.length) out.metadata.continue = `${snapshotRV}:${offset + size}`;
    return out;
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<T>> {
    this.watchCalls.push({ ...options });
    if (signal?.aborted) throw signal.reason;
    const hooked = this.watchHook?.(options);
    if (hooked !== undefined) throw hooked;
    if (this.watchFailures.length > 0) throw this.watchFailures.shift();
    const rv = options.resourceVersion ?? "";
    const watchList = options.sendInitialEvents === true;
    if (watchList && this.watchListSupport === "invalid") {
      throw newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", [
        {
          type: "FieldValueForbidden",
          field: "sendInitialEvents",
          detail: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        },
      ]);
    }
    const w = new FakeWatch<T>(options);
    const initial: WatchEvent<T>[] = [];
    if (rv === "" || rv === "0" || (watchList && this.watchListSupport === "supported")) {
      if (rv !== "" && rv !== "0") {
        const n = this.parseRV(rv);
        if (n > this.lastRV) throw newTooLargeResourceVersion(n, this.lastRV, 1);
      }
      for (const obj of this.items.values()) initial.push({ type: "ADDED", object: clone(obj) });
      if (watchList && this.watchListSupport === "supported") {
        initial.push({ type: "BOOKMARK", object: this.bookmarkObject(true) });
      }
    } else {
      const n = this.parseRV(rv);
      if (n > this.lastRV) throw newTooLargeResourceVersion(n, this.lastRV, 1);
      if (n < this.lastRV) {
        const oldest = this.changes[0]?.rv;
        if (oldest === undefined || n < oldest - 1) {
          throw newResourceExpired(
            `too old resource version: ${n} (${oldest === undefined ? this.lastRV : oldest - 1})`,
          );
        }
        for (const c of this.changes) if (c.rv > n) initial.push({ type: c.type, object: clone(c.object) });
      }
    }
    for (const e of initial) w.push(e);
    const entry: OpenWatch<T> = { watch: w, bookmarks: options.allowWatchBookmarks === true, timer: undefined };
    this.open.add(entry);
    const onAbort = () => w.stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (this.clock !== undefined && options.timeoutSeconds !== undefined && options.timeoutSeconds > 0) {
      entry.timer = this.clock.afterFunc(options.timeoutSeconds * 1000, () => w.close());
    }
    w.onDone = () => {
      this.open.delete(entry);
      entry.timer?.stop();
      entry.timer = undefined;
      signal?.removeEventListener("abort", onAbort);
    };
    return w;
  }

  private parseRV(rv: string): number {
    const n = Number(rv);
    if (!Number.isInteger(n) || n < 0 || rv.trim() === "") {
      throw newBadRequest(`invalid resource version: ${JSON.stringify(rv)}`);
    }
    return n;
  }

  private bookmarkObject(initialEventsEnd: boolean): T {
    const obj: KubeObject = { metadata: { resourceVersion: String(this.lastRV) } };
    if (initialEventsEnd) obj.metadata!.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: "true" };
    if (this.bookmarkKind !== undefined) {
      obj.apiVersion = this.bookmarkKind.apiVersion;
      obj.kind = this.bookmarkKind.kind;
    }
    return obj as T;
  }
}
