// The reflector end to end over real HTTP: @informer-ts/client's listWatchFor → loopback HTTP → the simulated
// apiserver's HTTP face served by its engine. Every timer — the reflector's backoffs, the engine's watch timeouts,
// bookmarks and freshness waits — runs on one FakeClock; only socket I/O happens in real time, and the test waits for
// it through store and event notifications, never sleeps.
//
// Faults are the engine's own (request faults shared with the HTTP face, cache re-initialization, dropped watches,
// bookmark modes). The only wrapper is a recording subclass of EngineBackend: it logs the options of every list and
// watch request as the server decoded them, which the engine's accounting does not keep.
import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import {
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type StoreWithTransactions,
  silentLogger,
} from "@informer-ts/cache";
import { startRun } from "@informer-ts/cache/testing";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import {
  type BackendRequestContext,
  EngineBackend,
  type ServedResource,
  SimApiServer,
  SimHttpServer,
} from "@informer-ts/sim-apiserver";
import type { WatchSource } from "@informer-ts/sim-apiserver/http";
import { afterEach, describe, expect, it } from "vitest";

const { configmaps } = builtinResources;

/** The engine's backend, logging each list/watch request's decoded options (FakeClock time included). */
class RecordingBackend extends EngineBackend {
  readonly requests: { verb: "list" | "watch"; opts: ListOptions; at: number }[] = [];

  override list(r: ServedResource, ns: string, opts: ListOptions, ctx: BackendRequestContext): Promise<KubeList> {
    if (r.resource === "configmaps") this.requests.push({ verb: "list", opts, at: this.engine.clock.now() });
    return super.list(r, ns, opts, ctx);
  }

  override watch(r: ServedResource, ns: string, opts: ListOptions, ctx: BackendRequestContext): Promise<WatchSource> {
    if (r.resource === "configmaps") this.requests.push({ verb: "watch", opts, at: this.engine.clock.now() });
    return super.watch(r, ns, opts, ctx);
  }

  watchRequests() {
    return this.requests.filter((q) => q.verb === "watch");
  }

  /** First pages of LISTs (no continue token). */
  listRequests() {
    return this.requests.filter((q) => q.verb === "list" && q.opts.continue === undefined);
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
  for (let i = 0; i < 100_000 && !cond(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

/**
 * Advances the clock timer by timer, letting socket I/O settle in between, until the reflector emits an event matching
 * `pred` (bounded in virtual time).
 */
async function stepUntilEvent(
  r: Reflector<KubeObject>,
  pred: (e: ReflectorEvent) => boolean,
  what: string,
  maxMs = 600_000,
): Promise<ReflectorEvent> {
  let got: ReflectorEvent | undefined;
  const sub = r.events$.subscribe((e) => {
    if (got === undefined && pred(e)) got = e;
  });
  try {
    const deadline = clock.now() + maxMs;
    for (;;) {
      for (let i = 0; i < 50 && got === undefined; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      if (got !== undefined) return got;
      const due = clock.nextDue();
      if (due === undefined || due > deadline) throw new Error(`no ${what} within ${maxMs} ms of virtual time`);
      await clock.advanceTo(due);
    }
  } finally {
    sub.unsubscribe();
  }
}

const cm = (name: string, v = "1"): KubeObject => ({ metadata: { name, namespace: "default" }, data: { v } });

let backend: RecordingBackend;
let engine: SimApiServer;
let clock: FakeClock;
let sim: SimHttpServer;
let client: KubeClient;
let running: { stop: () => Promise<void> }[] = [];

function serverRV(): string {
  return String(engine.currentResourceVersion);
}

function reflectorFor(store: ReturnType<typeof watchedStore>, options: ReflectorOptions<KubeObject> = {}) {
  const r = new Reflector(
    listWatchFor(client, configmaps, { namespace: "default" }),
    { apiVersion: "v1", kind: "ConfigMap" },
    store,
    { clock, rand: seededRand(5), logger: silentLogger, name: "http", ...options },
  );
  const sub = startRun(r);
  running.push({ stop: () => sub.stop() });
  return r;
}

/** Options of a LIST+WATCH reflector with exact (jitter-free) delays and 300 s watch timeouts. */
const LIST_WATCH: ReflectorOptions<KubeObject> = { useWatchList: false, rand: { float: () => 0 } };

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

afterEach(async () => {
  for (const { stop } of running) await stop();
  running = [];
  await ioUntil(() => sim.stats.openWatches === 0, "the server to see every watch closed");
  engine.stop();
  expect(clock.pendingTimers()).toBe(0);
  await client.close();
  await sim.close();
});

async function startServer(options: { watchList?: boolean } = {}): Promise<void> {
  clock = new FakeClock();
  const watchList = options.watchList ?? true;
  engine = new SimApiServer({ clock, rand: seededRand(5), watchList });
  backend = new RecordingBackend(engine);
  sim = new SimHttpServer({ backend, clock });
  const url = await sim.start();
  client = new KubeClient({ server: url, qps: -1 }, { clock, rateLimiter: null, maxRetries: 0, quiet: true });
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
    expect(r.lastSyncResourceVersion()).toBe(serverRV());
    expect(r.status()).toMatchObject({ hasSynced: true, phase: "watching", counts: { watchLists: 1, lists: 0 } });
  });

  it("a server without WatchList (422) makes the reflector fall back to LIST + WATCH", async () => {
    await startServer({ watchList: false });
    const store = watchedStore();
    const r = reflectorFor(store);
    await store.until(() => store.size === 20);
    expect(r.status().lastError).toMatchObject({ code: 422, reason: "Invalid", during: "watch-list" });
    expect(r.status().counts.watchListFallbacks).toBe(1);
    await newWatchOpen(0); // the 422 is answered by the HTTP face before the backend sees the request
    await client.create(configmaps, cm("after-fallback"));
    await storeMatchesServer(store);
    expect(engine.accounting.count({ verb: "watch", code: 422 })).toBe(1);
  });

  it("a truncated watch line ends the watch like an unexpected EOF: re-watch from the last RV, no relist", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, LIST_WATCH);
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    engine.faults.request({ type: "truncate-watch", verbs: ["watch"], count: 1, afterEvents: 1 });
    await clock.step(300_000); // the engine times the watch out; the re-watch carries the fault
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
    const r = reflectorFor(store, LIST_WATCH);
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    engine.faults.request({ type: "drop-connection", verbs: ["watch"], count: 1 });
    const backoff = nextEvent(r, (e) => e.type === "backoff");
    await clock.step(300_000); // the engine times the first watch out; the re-watch request is dropped
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
    const r = reflectorFor(store, LIST_WATCH);
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    engine.faults.request({ type: "apf-429", verbs: ["watch"], count: 1, retryAfterSeconds: 3 });
    const backoff = nextEvent(r, (e) => e.type === "backoff");
    await clock.step(300_000); // the engine times the watch out; the immediate re-watch gets the 429
    await backoff;
    expect(r.status().lastError).toMatchObject({
      code: 429,
      reason: "TooManyRequests",
      retryAfterSeconds: 3,
      during: "watch",
    });
    const before = backend.watchRequests().length;
    await clock.step(800);
    await newWatchOpen(before);
    const rvs = backend.watchRequests().map((q) => q.opts.resourceVersion);
    expect(new Set(rvs).size).toBe(1);
    expect(r.status().counts).toMatchObject({ lists: 1, rewatches: { "too-many-requests": 1, closed: 1 } });
    await client.create(configmaps, cm("after-429"));
    await storeMatchesServer(store);
  });

  it("410 mid-watch (history lost by a cache re-initialization) relists from the last RV; a 500 storm on LIST backs off", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, LIST_WATCH);
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    const synced = r.lastSyncResourceVersion();
    engine.faults.request({ type: "status", code: 500, verbs: ["list"], resource: "configmaps", count: 4 });
    await clock.step(2000);
    // The cache breaks for 5 s and a write lands meanwhile: the re-watch from `synced` is older than its history.
    engine.faults.reinitializeCache("configmaps", 5000);
    await engine.create("configmaps", "default", cm("during-outage"));
    expect(await stepUntilEvent(r, (e) => e.type === "relist", "relist")).toMatchObject({ cause: "expired" });
    // The LIST at `synced` fails 4 times (backing off each time), then succeeds.
    await stepUntilEvent(r, (e) => e.type === "list-done", "a successful relist");
    // The 500s are answered by the HTTP face (engine fault rules) before the backend: count them in the accounting.
    expect(engine.accounting.count({ verb: "list", code: 500 })).toBe(4);
    expect(backend.listRequests().map((q) => q.opts.resourceVersion)).toEqual(["0", synced]);
    await newWatchOpen(backend.watchRequests().length - 1);
    await client.create(configmaps, cm("after-storm"));
    await storeMatchesServer(store);
    expect(r.status()).toMatchObject({
      lastError: { code: 500, reason: "InternalError", during: "list" },
      counts: { relists: { expired: 1, "list-error": 4 } },
    });
  });

  it("bookmarks advance the RV without store changes; a watch closed at once (< 1 s, no event) relists", async () => {
    await startServer();
    const store = watchedStore();
    const r = reflectorFor(store, LIST_WATCH);
    await store.until(() => store.size === 20);
    await newWatchOpen(0);
    // A write to another resource moves the global RV; the watch cache's next periodic bookmark carries it.
    await client.create(builtinResources.secrets, { metadata: { name: "s", namespace: "default" } });
    const rv = serverRV();
    expect(await stepUntilEvent(r, (e) => e.type === "bookmark", "a bookmark", 70_000)).toMatchObject({
      resourceVersion: rv,
    });
    expect(r.lastSyncResourceVersion()).toBe(rv);
    expect(store.size).toBe(20);
    const relist = nextEvent(r, (e) => e.type === "relist");
    // The engine times the watch out; the immediate re-watch is dropped by the server at once (same instant).
    await stepUntilEvent(r, (e) => e.type === "watch-start", "the re-watch");
    await newWatchOpen(1);
    expect(backend.watchRequests()[1]!.opts.resourceVersion).toBe(rv);
    expect(engine.faults.dropWatches()).toBe(1);
    expect(await relist).toMatchObject({ cause: "very-short" });
    const before = backend.watchRequests().length;
    await clock.step(800);
    await newWatchOpen(before);
    await client.create(configmaps, cm("after-short"));
    await storeMatchesServer(store);
  });

  it("a watch-list whose end bookmark never comes is bounded by initialEventsEndTimeout (kubernetes#140890)", async () => {
    await startServer();
    engine.faults.bookmarks("off"); // as behind a proxy that drops the initial-events-end annotation
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
