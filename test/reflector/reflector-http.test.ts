// The reflector end to end over real HTTP: @informer-ts/client's listWatchFor → loopback HTTP → the simulated
// apiserver's HTTP face (with its minimal in-memory backend, wrapped here to inject faults). Every timer — the
// reflector's backoffs, the server's watch timeouts, the client's Retry-After sleeps — runs on one FakeClock; only
// socket I/O happens in real time, and the test waits for it through store and event notifications, never sleeps.
//
// NOTE: the sim is imported from its HTTP public surface by path because `@informer-ts/sim-apiserver`'s index does
// not re-export it yet (same as packages/client/src/sim-apiserver.test.ts). The engine-backed scenarios
// (compaction below the last RV, too-large RV, bookmarks from the watch cache, 500 storms from etcd) move to the
// engine's in-process `SimApiServer` once it lands; here the equivalent faults are injected by the wrapper.
import {
  type KubeList,
  type KubeObject,
  type ListOptions,
  newInternalError,
  newResourceExpired,
  type Status,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import {
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type StoreWithTransactions,
  silentLogger,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { WatchSource } from "../../packages/sim-apiserver/src/http/watch-server.js";
import {
  type ApiBackend,
  type BackendRequestContext,
  type DeletePreconditions,
  EngineBackend,
  type HttpFault,
  type HttpRequestDescriptor,
  type ServedResource,
  SimApiServer,
  SimHttpServer,
} from "../../packages/sim-apiserver/src/index.js";

const { configmaps } = builtinResources;

/** A watch source that can be given extra events (an ERROR that ends it, or a BOOKMARK) from the test. */
class InjectableSource implements WatchSource {
  private readonly queue: WatchEvent[] = [];
  private endAfterQueue = false;
  private ended = false;
  private innerNext: Promise<IteratorResult<WatchEvent>> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly inner: WatchSource) {}

  inject(event: WatchEvent, end: boolean): void {
    if (this.ended) return;
    this.queue.push(event);
    if (end) this.endAfterQueue = true;
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
    if (this.endAfterQueue) this.stop();
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    const pending = this.innerNext ?? this.inner.next();
    this.innerNext = pending;
    return new Promise((resolve, reject) => {
      let settled = false;
      this.wake = () => {
        if (settled) return;
        settled = true;
        resolve(this.next());
      };
      pending.then(
        (r) => {
          if (settled) return;
          settled = true;
          this.wake = undefined;
          this.innerNext = undefined;
          if (r.done === true) this.ended = true;
          resolve(r);
        },
        (e: unknown) => {
          if (settled) return;
          settled = true;
          reject(e);
        },
      );
    });
  }

  /** Ends the stream cleanly after the queued events (the server's watch timeout). */
  end(): void {
    this.endAfterQueue = true;
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Called once when the source is stopped. */
  onStop: (() => void) | undefined;

  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.onStop?.();
    this.inner.stop();
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/** The in-memory backend plus fault scripts: per-request HTTP faults, request errors, and injected watch events. */
class FaultyBackend implements ApiBackend {
  // The engine on the test's FakeClock (the same clock as the reflector): watch timeouts, bookmarks and freshness
  // waits happen in virtual time while the bytes travel over a real socket.
  readonly inner: EngineBackend;

  constructor(clock: FakeClock, watchList: boolean) {
    this.inner = new EngineBackend(new SimApiServer({ clock, rand: seededRand(5), watchList }));
  }
  readonly requests: { verb: string; opts: ListOptions }[] = [];

  watchRequests(): { verb: string; opts: ListOptions }[] {
    return this.requests.filter((q) => q.verb === "watch");
  }
  /** HTTP-layer faults, consumed in order by the first request of a matching verb. */
  readonly httpFaults: { verb: string; fault: HttpFault }[] = [];
  /** Errors thrown by the next list / watch requests. */
  readonly listErrors: unknown[] = [];
  readonly watchErrors: unknown[] = [];
  private readonly sources = new Set<InjectableSource>();

  resources(): readonly ServedResource[] {
    return this.inner.resources();
  }

  async list(r: ServedResource, ns: string, opts: ListOptions, ctx: BackendRequestContext): Promise<KubeList> {
    this.requests.push({ verb: "list", opts });
    if (this.listErrors.length > 0) throw this.listErrors.shift();
    return this.inner.list(r, ns, opts, ctx);
  }

  get(
    r: ServedResource,
    ns: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    ctx: BackendRequestContext,
  ) {
    return this.inner.get(r, ns, name, opts, ctx);
  }

  create(r: ServedResource, ns: string, obj: KubeObject, ctx: BackendRequestContext) {
    return this.inner.create(r, ns, obj, ctx);
  }

  update(r: ServedResource, ns: string, name: string, obj: KubeObject, ctx: BackendRequestContext) {
    return this.inner.update(r, ns, name, obj, ctx);
  }

  delete(
    r: ServedResource,
    ns: string,
    name: string,
    pre: DeletePreconditions | undefined,
    ctx: BackendRequestContext,
  ) {
    return this.inner.delete(r, ns, name, pre, ctx);
  }

  /** The next N watches are answered 200 and ended at once, with no event (a watch "closed in under a second"). */
  closeNextWatchesAtOnce = 0;

  async watch(r: ServedResource, ns: string, opts: ListOptions, ctx: BackendRequestContext): Promise<WatchSource> {
    this.requests.push({ verb: "watch", opts });
    if (this.watchErrors.length > 0) throw this.watchErrors.shift();
    if (this.closeNextWatchesAtOnce > 0) {
      this.closeNextWatchesAtOnce--;
      return { next: async () => ({ value: undefined, done: true }), stop: () => {} };
    }
    const source = new InjectableSource(await this.inner.watch(r, ns, opts, ctx));
    this.sources.add(source);
    // The engine's job, missing from the in-memory backend: end the watch after timeoutSeconds.
    const timeout = opts.timeoutSeconds ?? 0;
    const timer = timeout > 0 ? clock.afterFunc(timeout * 1000, () => source.end()) : undefined;
    source.onStop = () => {
      timer?.stop();
      this.sources.delete(source);
    };
    return source;
  }

  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    const i = this.httpFaults.findIndex((f) => f.verb === req.verb);
    return i < 0 ? undefined : this.httpFaults.splice(i, 1)[0]!.fault;
  }

  /** Sends an ERROR event with `status` to every open watch, which then ends (what the apiserver does). */
  sendError(status: Status): void {
    for (const s of this.sources) s.inject({ type: "ERROR", object: status }, true);
    this.sources.clear();
  }

  /** Sends a BOOKMARK at `rv` to every open watch. */
  bookmark(rv: string): void {
    for (const s of this.sources)
      s.inject(
        { type: "BOOKMARK", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: rv } } },
        false,
      );
  }
}

/** A store that lets the test await a condition on its contents (re-checked after every write). */
function watchedStore() {
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const waiters: { cond: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i]!.cond()) waiters.splice(i, 1)[0]!.resolve();
    }
  };
  const wrap =
    <A extends unknown[]>(fn: (...a: A) => void) =>
    (...a: A) => {
      fn(...a);
      check();
    };
  const s: StoreWithTransactions<KubeObject> & { until(cond: () => boolean): Promise<void> } = Object.assign(store, {
    add: wrap(store.add.bind(store)),
    update: wrap(store.update.bind(store)),
    delete: wrap(store.delete.bind(store)),
    replace: wrap(store.replace.bind(store)),
    bookmark: wrap(store.bookmark.bind(store)),
    until(cond: () => boolean): Promise<void> {
      if (cond()) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ cond, resolve }));
    },
  });
  return s;
}

function nextEvent(r: Reflector<KubeObject>, pred: (e: ReflectorEvent) => boolean): Promise<ReflectorEvent> {
  return new Promise((resolve) => {
    const sub = r.events$.subscribe((e) => {
      if (!pred(e)) return;
      sub.unsubscribe();
      resolve(e);
    });
  });
}

/** Lets sockets make progress until `cond` holds (bounded; I/O completes between event-loop turns). */
async function ioUntil(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 20_000 && !cond(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

const cm = (name: string, v = "1"): KubeObject => ({ metadata: { name, namespace: "default" }, data: { v } });

let backend: FaultyBackend;
let clock: FakeClock;
let sim: SimHttpServer;
let client: KubeClient;
let running: { reflector: Reflector<KubeObject>; stop: () => void }[] = [];

function serverRV(): Promise<string> {
  return client.list(configmaps, { namespace: "default" }).then((l) => l.metadata.resourceVersion ?? "");
}

function reflectorFor(store: ReturnType<typeof watchedStore>, options: ReflectorOptions<KubeObject> = {}) {
  const r = new Reflector(
    listWatchFor(client, configmaps, { namespace: "default" }),
    { apiVersion: "v1", kind: "ConfigMap" },
    store,
    {
      clock,
      rand: seededRand(5),
      logger: silentLogger,
      name: "http",
      ...options,
    },
  );
  const sub = r.run();
  running.push({ reflector: r, stop: () => sub.unsubscribe() });
  return r;
}

async function storeMatchesServer(store: ReturnType<typeof watchedStore>): Promise<void> {
  const truth = await client.list(configmaps, { namespace: "default" });
  const want = truth.items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
  const got = () =>
    store
      .list()
      .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
      .sort();
  await store.until(() => JSON.stringify(got()) === JSON.stringify(want));
  expect(got()).toEqual(want);
}

beforeAll(async () => {
  clock = new FakeClock();
});

afterEach(async () => {
  for (const { reflector, stop } of running) {
    stop();
    await reflector.whenStopped();
  }
  running = [];
  await ioUntil(() => sim.stats.openWatches === 0, "the server to see every watch closed");
  backend.inner.engine.stop();
  expect(clock.pendingTimers()).toBe(0);
  await client.close();
  await sim.close();
});

afterAll(async () => {
  await sim?.close();
});

async function startServer(options: { watchListEnabled?: boolean } = {}): Promise<void> {
  backend = new FaultyBackend(clock, options.watchListEnabled ?? true);
  sim = new SimHttpServer({ backend, clock, rand: seededRand(9), ...options });
  const url = await sim.start();
  client = new KubeClient({ server: url, qps: -1 }, { clock, rateLimiter: null, maxRetries: 0 });
  for (let i = 0; i < 20; i++) await client.create(configmaps, cm(`cm-${i}`));
}

/** Waits until the server streams a watch opened after `before` watch requests (and only that one). */
async function newWatchOpen(before: number): Promise<void> {
  await ioUntil(() => backend.watchRequests().length > before && sim.stats.openWatches === 1, "a new watch to be open");
}

describe("reflector over HTTP against the simulated apiserver", () => {
  it("watch-list (default) primes the store over HTTP, then the same stream carries creates, updates and deletes", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store);
    // The initial events stream at once; the end bookmark comes with the cacher's next bookmark tick (≤ 1.25 s).
    await ioUntil(() => sim.stats.openWatches === 1 && store.size === 0, "the watch-list stream");
    await clock.step(1300);
    await store.until(() => store.size === 20);
    expect(backend.watchRequests().map((q) => q.opts)).toEqual([
      expect.objectContaining({
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
      }),
    ]);
    await client.create(configmaps, cm("late"));
    const cur = await client.list(configmaps, { namespace: "default" });
    await client.update(configmaps, { ...cur.items.find((o) => o.metadata?.name === "cm-3")!, data: { v: "2" } });
    await client.delete(configmaps, "cm-4", { namespace: "default" });
    await storeMatchesServer(store);
    expect(r.lastSyncResourceVersion()).toBe(await serverRV());
    expect(r.status()).toMatchObject({ hasSynced: true, phase: "watching", counts: { watchLists: 1, lists: 0 } });
  });

  it("a server without WatchList (422) makes the reflector fall back to LIST + WATCH", async () => {
    await startServer({ watchListEnabled: false });
    const store = watchedStore();
    const r = reflectorFor(store);
    await store.until(() => store.size === 20);
    expect(r.status().lastError).toMatchObject({ code: 422, reason: "Invalid", during: "watch-list" });
    expect(r.status().counts.watchListFallbacks).toBe(1);
    await newWatchOpen(0);
    await client.create(configmaps, cm("after-fallback"));
    await storeMatchesServer(store);
  });

  it("a truncated watch line ends the watch like an unexpected EOF: re-watch from the last RV, no relist", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, { useWatchList: false, rand: { float: () => 0 } });
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    backend.httpFaults.push({ verb: "watch", fault: { type: "truncate-watch", afterEvents: 1 } });
    await clock.step(300_000); // the server times the watch out; the re-watch carries the fault
    await newWatchOpen(1);
    const rewatch = nextEvent(r, (e) => e.type === "rewatch");
    await client.create(configmaps, cm("a"));
    await client.create(configmaps, cm("b")); // its line is cut in half, then the response ends
    expect(await rewatch).toMatchObject({ cause: "closed" });
    await newWatchOpen(2);
    await client.create(configmaps, cm("c"));
    await store.until(() => store.getByKey("default/c") !== undefined);
    expect(store.getByKey("default/a")).toBeDefined();
    // No relist: the watch was re-opened from the RV of "a"; the engine's history replays "b".
    await store.until(() => store.getByKey("default/b") !== undefined);
    expect(r.status().counts.lists).toBe(1);
    expect(r.status().counts.relists["internal-error"]).toBe(0);
    expect(backend.watchRequests().at(-1)!.opts.resourceVersion).toBe(
      store.getByKey("default/a")!.metadata?.resourceVersion,
    );
  });

  it("a connection dropped when a watch starts: back off and relist (F13 or F17)", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, { useWatchList: false, rand: { float: () => 0 } });
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    backend.httpFaults.push({ verb: "watch", fault: { type: "drop-connection" } });
    const backoff = nextEvent(r, (e) => e.type === "backoff");
    await clock.step(300_000); // the server times the first watch out; the re-watch request is dropped
    await backoff;
    // Depending on where the transport notices the reset, the request fails (F13, watch-error) or an empty
    // stream ends at once (F17, very-short): either way the reflector backs off and relists.
    expect(r.status().lastError).toMatchObject({ during: "watch" });
    const { relists } = r.status().counts;
    expect(relists["watch-error"] + relists["very-short"]).toBe(1);
    const before = backend.watchRequests().length;
    await clock.step(800);
    await newWatchOpen(before);
    await client.create(configmaps, cm("after-drop"));
    await storeMatchesServer(store);
    expect(r.status().counts.lists).toBe(2);
  });

  it("429 with Retry-After when starting a watch: back off, re-watch from the same RV, no relist", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, { useWatchList: false, rand: { float: () => 0 } });
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    backend.httpFaults.push({ verb: "watch", fault: { type: "apf-429", retryAfterSeconds: 3 } });
    const backoff = nextEvent(r, (e) => e.type === "backoff");
    await clock.step(300_000); // the server times the watch out; the immediate re-watch gets the 429
    await backoff;
    expect(r.status().lastError).toMatchObject({ code: 429, reason: "TooManyRequests", during: "watch" });
    const before = backend.watchRequests().length;
    await clock.step(800);
    await newWatchOpen(before);
    const rvs = backend.watchRequests().map((q) => q.opts.resourceVersion);
    expect(new Set(rvs).size).toBe(1);
    expect(r.status().counts).toMatchObject({ lists: 1, rewatches: { "too-many-requests": 1, closed: 1 } });
    await client.create(configmaps, cm("after-429"));
    await storeMatchesServer(store);
  });

  it("410 on the watch relists from the last RV; a 500 storm on LIST backs off until the server recovers", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, { useWatchList: false, rand: { float: () => 0 } });
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    const synced = r.lastSyncResourceVersion();
    for (let i = 0; i < 4; i++) backend.listErrors.push(newInternalError("etcdserver: request timed out"));
    const relist = nextEvent(r, (e) => e.type === "relist");
    backend.sendError(newResourceExpired("too old resource version").status);
    expect(await relist).toMatchObject({ cause: "expired" });
    for (const d of [800, 1600, 3200, 6400, 12_800]) {
      const next = nextEvent(r, (e) => e.type === "backoff" || e.type === "list-done");
      await clock.step(d);
      await next;
    }
    await newWatchOpen(1);
    await client.create(configmaps, cm("after-storm"));
    await storeMatchesServer(store);
    const lists = backend.requests.filter((q) => q.verb === "list" && q.opts.resourceVersion !== undefined);
    expect(lists.map((q) => q.opts.resourceVersion)).toEqual(["0", synced, synced, synced, synced, synced]);
    expect(r.status().counts.relists).toMatchObject({ expired: 1, "list-error": 4 });
  });

  it("bookmarks advance the RV without store changes; a watch closed at once (< 1 s, no event) relists", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, { useWatchList: false, rand: { float: () => 0 } });
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    // A write to another resource moves the global RV; a bookmark carries it to the ConfigMap watcher.
    await client.create(builtinResources.secrets, { metadata: { name: "s", namespace: "default" } });
    const rv = Number(await serverRV());
    const bookmarked = nextEvent(r, (e) => e.type === "bookmark");
    backend.bookmark(String(rv));
    await bookmarked;
    expect(r.lastSyncResourceVersion()).toBe(String(rv));
    expect(store.size).toBe(20);
    backend.closeNextWatchesAtOnce = 1;
    const relist = nextEvent(r, (e) => e.type === "relist");
    await clock.step(300_000); // timeout → immediate re-watch → closed at once
    expect(await relist).toMatchObject({ cause: "very-short" });
    const before = backend.watchRequests().length;
    await clock.step(800);
    await newWatchOpen(before);
    await client.create(configmaps, cm("after-short"));
    await storeMatchesServer(store);
  });

  it("a watch-list whose end bookmark never comes is bounded by initialEventsEndTimeout (kubernetes#140890)", async () => {
    await startServer();
    // A proxy that drops the initial-events-end annotation.
    const inner = backend.inner;
    const original = inner.watch.bind(inner);
    inner.watch = async (res, ns, opts, ctx) => {
      const src = await original(res, ns, opts, ctx);
      return {
        stop: () => src.stop(),
        next: async () => {
          const n = await src.next();
          if (n.done !== true && n.value.type === "BOOKMARK") {
            const obj = n.value.object as KubeObject;
            return {
              value: {
                type: "BOOKMARK",
                object: { ...obj, metadata: { resourceVersion: obj.metadata?.resourceVersion } },
              },
              done: false,
            };
          }
          return n;
        },
      };
    };
    const store = watchedStore();
    const r = reflectorFor(store, { initialEventsEndTimeout: 30_000 });
    await ioUntil(() => sim.stats.openWatches === 1, "the watch-list stream");
    expect(store.size).toBe(0);
    await clock.step(30_000);
    await store.until(() => store.size === 20);
    expect(r.status().lastError).toMatchObject({ name: "InitialEventsEndTimeoutError" });
    expect(r.status().counts.watchListFallbacks).toBe(1);
  });
});
