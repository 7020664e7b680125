// WATCH through SimApiServer in virtual time: the rows W1–W6 and W8 of reference/apiserver.md §4.2 (W7, the
// etcd-served legacy watch, is not simulated: every watch is served by the watch cache), the watch 422 matrix of §2,
// 410 as an ERROR event, watch-list and its init-end bookmark, too-large RVs, bookmark timing (§5.5), progress
// notify, timeouts, selector transitions, DELETED state, cache re-initialization (§5.7), bookmark/watch faults and
// the silent close of a watcher whose unread history was overwritten (§5.2).
import { getEventListeners } from "node:events";
import {
  type KubeObject,
  type ListOptions,
  type Status,
  StatusError,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import {
  SimApiServer,
  type SimApiServerOptions,
  SimConnectionError,
  SimTruncatedWatchError,
  type SimWatch,
} from "./sim-apiserver.js";

function setup(opts: SimApiServerOptions = {}) {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: seededRand(42), compactionIntervalMs: 0, ...opts });
  return { clock, engine };
}

type Engine = SimApiServer;

function cm(name: string, data: Record<string, string> = { k: name }, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(labels !== undefined && { labels }) },
    data,
  };
}

/** Creates configmaps in "default" and returns the resourceVersion after the last one. */
async function seed(engine: Engine, names: readonly string[]): Promise<number> {
  for (const n of names) await engine.create("configmaps", "default", cm(n));
  return engine.currentResourceVersion;
}

/** `TYPE name@rv`, `BOOKMARK@rv` (+`end` for the init-end marker), `ERROR code message`. */
function label(e: WatchEvent): string {
  if (e.type === "ERROR") {
    const s = e.object as Status;
    return `ERROR ${s.code} ${s.message}`;
  }
  const m = (e.object as KubeObject).metadata;
  if (e.type === "BOOKMARK") {
    const end = m?.annotations?.["k8s.io/initial-events-end"] === "true" ? " end" : "";
    return `BOOKMARK@${m?.resourceVersion}${end}`;
  }
  return `${e.type} ${m?.name}@${m?.resourceVersion}`;
}

/** Drains a watch in the background, recording each event with the virtual time it arrived. */
function collect(clock: FakeClock, w: SimWatch) {
  const seen: string[] = [];
  const at: number[] = [];
  const raw: WatchEvent[] = [];
  const state: { error: unknown; endedAt: number | undefined } = { error: undefined, endedAt: undefined };
  const done = (async () => {
    try {
      for await (const e of w) {
        seen.push(label(e));
        raw.push(e);
        at.push(clock.now());
      }
    } catch (err) {
      state.error = err;
    }
    state.endedAt = clock.now();
  })();
  return { seen, at, raw, state, done };
}

/** Opens a watch and collects it; settles first so initial events are in. */
async function open(clock: FakeClock, engine: Engine, opts: ListOptions, namespace = "default") {
  const c = collect(clock, await engine.watch("configmaps", namespace, { timeoutSeconds: 3600, ...opts }));
  await settle();
  return c;
}

async function watchError(engine: Engine, opts: ListOptions): Promise<StatusError> {
  try {
    await engine.watch("configmaps", "default", opts);
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("watch was accepted");
}

describe("W1: resourceVersion=N without initial events", () => {
  it("W1: delivers exactly the changes after N in RV order, no synthetic events", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a", "b"]);
    const w = await open(clock, engine, { resourceVersion: String(rv) });
    await engine.update("configmaps", "default", "a", cm("a", { k: "2" }));
    await engine.delete("configmaps", "default", "b");
    await seed(engine, ["c"]);
    await settle();
    expect(w.seen).toEqual([`MODIFIED a@${rv + 1}`, `DELETED b@${rv + 2}`, `ADDED c@${rv + 3}`]);
    engine.stop();
  });

  it("W1: an RV inside the history replays the events after it from the ring buffer", async () => {
    const { clock, engine } = setup();
    const rv0 = await seed(engine, ["a"]);
    await seed(engine, ["b", "c"]);
    const w = await open(clock, engine, { resourceVersion: String(rv0) });
    expect(w.seen).toEqual([`ADDED b@${rv0 + 1}`, `ADDED c@${rv0 + 2}`]);
    engine.stop();
  });

  it("W1: N older than the ring buffer → one ERROR 410 `too old resource version: N (oldest-1)` in the stream, then the end", async () => {
    const { clock, engine } = setup({ historyLowerBound: 4, historyUpperBound: 4 });
    // RVs 2..11; the ring keeps the last four events (8..11), so the oldest startable RV is 7.
    await seed(
      engine,
      Array.from({ length: 10 }, (_, i) => `c${i}`),
    );
    expect(engine.caches.cacher("configmaps").historyStats).toMatchObject({ capacity: 4, oldestRV: 8 });
    const old = await open(clock, engine, { resourceVersion: "2" });
    await old.done;
    expect(old.seen).toEqual(["ERROR 410 too old resource version: 2 (7)"]);
    expect(old.raw[0]!.object).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "too old resource version: 2 (7)",
      reason: "Expired",
      code: 410,
    });
    // The boundary: oldest-1 is still served, with every kept event after it.
    const edge = await open(clock, engine, { resourceVersion: "7" });
    expect(edge.seen).toEqual(["ADDED c6@8", "ADDED c7@9", "ADDED c8@10", "ADDED c9@11"]);
    engine.stop();
  });

  it("W1: a future RV waits silently and then forwards only events past it", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const w = await open(clock, engine, { resourceVersion: String(rv + 2) });
    await clock.step(10_000);
    expect(w.seen).toEqual([]);
    await seed(engine, ["b", "c", "d", "e"]);
    await settle();
    expect(w.seen).toEqual([`ADDED d@${rv + 3}`, `ADDED e@${rv + 4}`]);
    expect(w.state.endedAt).toBeUndefined();
    engine.stop();
  });

  it("W1: the 410 boundary moves with the cache's list RV after a re-initialization", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a", "b"]);
    engine.faults.reinitializeCache("configmaps");
    const listRV = engine.caches.cacher("configmaps").resourceVersion;
    const old = await open(clock, engine, { resourceVersion: String(rv - 1) });
    await old.done;
    expect(old.seen).toEqual([`ERROR 410 too old resource version: ${rv - 1} (${listRV})`]);
    const fresh = await open(clock, engine, { resourceVersion: String(listRV) });
    await seed(engine, ["c"]);
    await settle();
    expect(fresh.seen).toEqual([`ADDED c@${listRV + 1}`]);
    engine.stop();
  });
});

describe("watch-list (W2–W5) and legacy defaulting", () => {
  it('W2: legacy RV="" is defaulted to a consistent watch-list: waits for the cache, snapshot, end bookmark', async () => {
    const { clock, engine } = setup({ cacheLagMs: 500 });
    await seed(engine, ["b", "a"]);
    const p = engine.watch("configmaps", "default", { allowWatchBookmarks: true, timeoutSeconds: 3600 });
    // The cache is 500 ms behind storage: the watch waits for it (no events yet, no error).
    await clock.step(600);
    const w = collect(clock, await p);
    await settle();
    // One synthetic ADDED per object in key order, each with its own RV, not RV-ordered.
    expect(w.seen).toEqual(["ADDED a@3", "ADDED b@2"]);
    await clock.step(1300);
    expect(w.seen).toEqual(["ADDED a@3", "ADDED b@2", "BOOKMARK@3 end"]);
    engine.stop();
  });

  it("a watch naming one object (kubectl wait, a ListWatch for one object) gets only it as initial events", async () => {
    const { clock, engine } = setup();
    await seed(engine, ["a", "b", "c"]);
    const one = { fieldSelector: "metadata.name=b", allowWatchBookmarks: true };
    const list = await open(clock, engine, { ...one, resourceVersion: "0" });
    const absent = await open(clock, engine, { fieldSelector: "metadata.name=zz", allowWatchBookmarks: true });
    await clock.step(1300);
    expect(list.seen).toEqual(["ADDED b@3", "BOOKMARK@4 end"]);
    expect(absent.seen).toEqual(["BOOKMARK@4 end"]);
    // Without WatchList, the legacy RV "0" watch's synthetic ADDED events are read by key too.
    const old = setup({ watchList: false });
    await seed(old.engine, ["a", "b", "c"]);
    const legacy = await open(old.clock, old.engine, { fieldSelector: "metadata.name=b", resourceVersion: "0" });
    expect(legacy.seen).toEqual(["ADDED b@3"]);
    old.engine.stop();
    // Later events of the object, and only of it, follow.
    await engine.update("configmaps", "default", "b", cm("b", { k: "2" }));
    await engine.update("configmaps", "default", "c", cm("c", { k: "2" }));
    await settle();
    expect(list.seen).toEqual(["ADDED b@3", "BOOKMARK@4 end", "MODIFIED b@5"]);
    engine.stop();
  });

  it('W3: RV="0" defaulted: no wait (the snapshot may be stale), end bookmark at the cache RV', async () => {
    const { clock, engine } = setup({ cacheLagMs: 500 });
    await seed(engine, ["a"]);
    await clock.step(600);
    await seed(engine, ["b"]); // not in the cache for 500 ms
    const w = await open(clock, engine, { resourceVersion: "0", allowWatchBookmarks: true });
    expect(w.seen).toEqual(["ADDED a@2"]);
    await clock.step(1300);
    // b arrives as a regular event, then the end marker (at or past the cache RV the watch started at).
    expect(w.seen).toEqual(["ADDED a@2", "ADDED b@3", "BOOKMARK@3 end"]);
    engine.stop();
  });

  it("W4: RV=N with sendInitialEvents waits until the cache has N, snapshot, end bookmark ≥ N", async () => {
    const { clock, engine } = setup({ cacheLagMs: 500 });
    const rv = await seed(engine, ["a", "b"]);
    const p = engine.watch("configmaps", "default", {
      resourceVersion: String(rv),
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 3600,
    });
    await clock.step(500);
    const w = collect(clock, await p);
    await clock.step(1300);
    expect(w.seen).toEqual(["ADDED a@2", "ADDED b@3", `BOOKMARK@${rv} end`]);
    engine.stop();
  });

  it("W4: an RV the cache does not reach in 3 s → ERROR 504 Too large resource version, then the end", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const p = engine.watch("configmaps", "default", {
      resourceVersion: String(rv + 10),
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
      allowWatchBookmarks: true,
    });
    let settled = false;
    void p.then(() => {
      settled = true;
    });
    await clock.step(2999);
    expect(settled).toBe(false);
    await clock.step(1);
    const w = collect(clock, await p);
    await w.done;
    expect(w.seen).toEqual([`ERROR 504 Timeout: Too large resource version: ${rv + 10}, current: ${rv}`]);
    expect(w.raw[0]!.object).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Timeout: Too large resource version: ${rv + 10}, current: ${rv}`,
      reason: "Timeout",
      details: {
        causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      },
      code: 504,
    });
    engine.stop();
  });

  it('W5: RV="0" with sendInitialEvents=false starts now: no synthetic events, later changes only', async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const w = await open(clock, engine, {
      resourceVersion: "0",
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: false,
      allowWatchBookmarks: true,
    });
    await clock.step(2000);
    expect(w.seen).toEqual([]);
    await seed(engine, ["b"]);
    await settle();
    expect(w.seen).toEqual([`ADDED b@${rv + 1}`]);
    engine.stop();
  });

  it('RV="" with sendInitialEvents=false starts at etcd\'s current RV, without waiting for the cache', async () => {
    const { clock, engine } = setup({ cacheLagMs: 500 });
    await seed(engine, ["a"]); // committed at RV 2; the cache sees it 500 ms later
    const w = await open(clock, engine, {
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: false,
      allowWatchBookmarks: true,
    });
    await seed(engine, ["b"]);
    await clock.step(1000);
    expect(w.seen).toEqual(["ADDED b@3"]);
    engine.stop();
  });

  it.each([
    { rv: "", bookmarks: true, want: ["ADDED a@2", "BOOKMARK@2 end"] },
    { rv: "0", bookmarks: true, want: ["ADDED a@2", "BOOKMARK@2 end"] },
    { rv: "", bookmarks: false, want: ["ADDED a@2"] },
    { rv: "0", bookmarks: false, want: ["ADDED a@2"] },
  ])(
    "legacy RV=$rv allowWatchBookmarks=$bookmarks (WatchList on): init-end marker only with bookmarks",
    async ({ rv, bookmarks, want }) => {
      const { clock, engine } = setup();
      await seed(engine, ["a"]);
      const w = await open(clock, engine, { resourceVersion: rv, allowWatchBookmarks: bookmarks });
      await clock.step(70_000); // past a periodic bookmark slot too: nothing advanced, so none
      expect(w.seen).toEqual(want);
      engine.stop();
    },
  );

  it.each(["", "0"])(
    "W6: legacy RV=%j with WatchList off: synthetic ADDED from the cache, not consistent, no end marker",
    async (rv) => {
      const { clock, engine } = setup({ watchList: false, cacheLagMs: 500 });
      await seed(engine, ["a"]);
      await clock.step(600);
      await seed(engine, ["b"]); // committed, not yet in the cache
      const w = await open(clock, engine, { resourceVersion: rv, allowWatchBookmarks: true });
      expect(w.seen).toEqual(["ADDED a@2"]);
      await clock.step(5000);
      expect(w.seen).toEqual(["ADDED a@2", "ADDED b@3"]);
      engine.stop();
    },
  );

  it("WatchList gate off: sendInitialEvents is a 422 naming the gate", async () => {
    const { engine } = setup({ watchList: false });
    const err = await watchError(engine, {
      sendInitialEvents: true,
      resourceVersionMatch: "NotOlderThan",
      allowWatchBookmarks: true,
    });
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    );
  });
});

describe("watch validation (§2)", () => {
  const prefix = 'ListOptions.meta.k8s.io "" is invalid: ';
  it.each([
    {
      name: "sendInitialEvents without resourceVersionMatch",
      opts: { sendInitialEvents: true },
      gate: true,
      want: "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    },
    {
      name: "resourceVersionMatch without sendInitialEvents",
      opts: { resourceVersion: "5", resourceVersionMatch: "NotOlderThan" },
      gate: true,
      want: "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    },
    {
      name: "RV unset with resourceVersionMatch (no defaulting when a match is given)",
      opts: { resourceVersionMatch: "NotOlderThan" },
      gate: true,
      want: "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    },
    {
      name: "resourceVersionMatch other than NotOlderThan",
      opts: { resourceVersion: "5", resourceVersionMatch: "Exact", sendInitialEvents: true },
      gate: true,
      want: '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    },
    {
      name: "sendInitialEvents=false without a match, gate off",
      opts: { sendInitialEvents: false },
      gate: false,
      want: "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]",
    },
  ])("422: $name", async ({ opts, gate, want }) => {
    const { engine } = setup({ watchList: gate });
    const err = await watchError(engine, opts as ListOptions);
    expect(err.code).toBe(422);
    expect(err.reason).toBe("Invalid");
    expect(err.message).toBe(prefix + want);
    expect(err.details).toMatchObject({ name: "", group: "meta.k8s.io", kind: "ListOptions" });
    expect(engine.accounting.count({ verb: "watch", code: 422 })).toBe(1);
  });

  it.each([
    {
      opts: { resourceVersion: "abc" },
      want: 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    },
    {
      opts: { fieldSelector: "data.k=v" },
      want: '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"',
    },
  ])("400: $want", async ({ opts, want }) => {
    const { engine } = setup();
    const err = await watchError(engine, opts);
    expect([err.code, err.reason, err.message]).toEqual([400, "BadRequest", want]);
  });
});

describe("bookmarks (§5.5) and progress notify", () => {
  /** Periodic BOOKMARKs as [seconds since start, rv]. */
  function bookmarks(w: ReturnType<typeof collect>, t0: number): Array<[number, string]> {
    return w.seen.flatMap((s, i) => (s.startsWith("BOOKMARK@") ? [[(w.at[i]! - t0) / 1000, s.slice(9)]] : []));
  }

  it("periodic bookmarks come about every 60 s, only once the RV moved past the watch's start", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const t0 = clock.now();
    const w = await open(clock, engine, { resourceVersion: String(rv), allowWatchBookmarks: true });
    await clock.step(61_000);
    expect(w.seen).toEqual([]); // the first slot came, nothing had moved
    // Another resource changes; progress notify brings this idle cache forward within 5 s.
    await engine.create("secrets", "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
    expect(engine.caches.cacher("configmaps").resourceVersion).toBe(rv);
    await clock.step(5000);
    expect(engine.caches.cacher("configmaps").resourceVersion).toBe(rv + 1);
    await clock.step(190_000);
    const got = bookmarks(w, t0);
    expect(got.map(([, r]) => r)).toEqual([String(rv + 1), String(rv + 1), String(rv + 1)]);
    // One per minute slot (each within the ~1 s tick granularity of its 60 s slot).
    got.forEach(([t], i) => {
      expect(t).toBeGreaterThanOrEqual(120 + 60 * i);
      expect(t).toBeLessThan(121.5 + 60 * i);
    });
    engine.stop();
  });

  it("without allowWatchBookmarks there are none", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const w = await open(clock, engine, { resourceVersion: String(rv) });
    await seed(engine, ["b"]);
    await clock.step(200_000);
    expect(w.seen).toEqual([`ADDED b@${rv + 1}`]);
    engine.stop();
  });

  it("a bookmark ~2 s before timeoutSeconds, then a clean close at the deadline", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const t0 = clock.now();
    const w = await open(clock, engine, { resourceVersion: String(rv), allowWatchBookmarks: true, timeoutSeconds: 30 });
    await seed(engine, ["b"]);
    await clock.step(40_000);
    await w.done;
    expect(w.seen).toEqual([`ADDED b@${rv + 1}`, `BOOKMARK@${rv + 1}`]);
    const t = (w.at[1]! - t0) / 1000;
    expect(t).toBeGreaterThanOrEqual(28);
    expect(t).toBeLessThan(29.5);
    expect(w.state.endedAt! - t0).toBe(30_000);
    expect(w.state.error).toBeUndefined();
  });

  it("timeoutSeconds without any change: no bookmark, no event, just the end", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const t0 = clock.now();
    const w = await open(clock, engine, { resourceVersion: String(rv), allowWatchBookmarks: true, timeoutSeconds: 10 });
    await clock.step(10_000);
    await w.done;
    expect(w.seen).toEqual([]);
    expect(w.state.endedAt! - t0).toBe(10_000);
    expect(engine.caches.watchers("configmaps")).toEqual([]);
  });

  it("without timeoutSeconds the server picks a deadline in [30 min, 60 min)", async () => {
    const { clock, engine } = setup();
    for (let i = 0; i < 20; i++) await engine.watch("configmaps", "default", { resourceVersion: "0" });
    for (const w of engine.caches.watchers("configmaps")) {
      const d = w.deadline - clock.now();
      expect(d).toBeGreaterThanOrEqual(1800_000);
      expect(d).toBeLessThan(3600_000);
    }
    engine.stop();
  });

  it("progress notify advances every idle cache to the global RV every 5 s", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    await engine.create("leases.coordination.k8s.io", "default", {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l" },
    });
    expect([engine.caches.cacher("configmaps").resourceVersion, engine.caches.cacher("pods").resourceVersion]).toEqual([
      rv,
      1,
    ]);
    await clock.step(4999);
    expect(engine.caches.cacher("configmaps").resourceVersion).toBe(rv);
    await clock.step(1);
    expect([engine.caches.cacher("configmaps").resourceVersion, engine.caches.cacher("pods").resourceVersion]).toEqual([
      rv + 1,
      rv + 1,
    ]);
  });

  it.each([
    { mode: "on" as const, want: ["ADDED a@2", "BOOKMARK@3 end", "BOOKMARK@4"] },
    { mode: "no-periodic" as const, want: ["ADDED a@2", "BOOKMARK@3 end"] },
    { mode: "off" as const, want: ["ADDED a@2"] },
  ])("bookmark fault $mode", async ({ mode, want }) => {
    const { clock, engine } = setup();
    await seed(engine, ["a"]);
    await engine.create("secrets", "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
    await clock.step(5000); // progress notify: configmaps cache at RV 3
    engine.faults.bookmarks(mode);
    const w = await open(clock, engine, { allowWatchBookmarks: true });
    await engine.create("secrets", "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "t" } });
    await clock.step(70_000);
    expect(w.seen).toEqual(want);
    engine.stop();
  });
});

describe("event contents", () => {
  it("selector transitions: entering is ADDED, staying MODIFIED, leaving DELETED with the previous object at the event RV", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const w = await open(clock, engine, { resourceVersion: String(rv), labelSelector: "app=x" });
    await engine.update("configmaps", "default", "a", cm("a", { k: "1" }, { app: "x" }));
    await engine.update("configmaps", "default", "a", cm("a", { k: "2" }, { app: "x" }));
    await engine.update("configmaps", "default", "a", cm("a", { k: "3" }, { app: "y" }));
    await engine.update("configmaps", "default", "a", cm("a", { k: "4" }, { app: "y" }));
    await settle();
    expect(w.seen).toEqual([`ADDED a@${rv + 1}`, `MODIFIED a@${rv + 2}`, `DELETED a@${rv + 3}`]);
    const deleted = w.raw[2]!.object as KubeObject;
    expect(deleted.metadata?.labels).toEqual({ app: "x" });
    expect(deleted.data).toEqual({ k: "2" });
    expect(deleted.metadata?.resourceVersion).toBe(String(rv + 3));
    engine.stop();
  });

  it("DELETED carries the last state with the delete's RV; objects carry kind and apiVersion", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const w = await open(clock, engine, { resourceVersion: String(rv) });
    await engine.update("configmaps", "default", "a", cm("a", { k: "last" }));
    await engine.delete("configmaps", "default", "a");
    await settle();
    const del = w.raw[1]!;
    expect(del.type).toBe("DELETED");
    expect(del.object).toMatchObject({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "a", namespace: "default", resourceVersion: String(rv + 2) },
      data: { k: "last" },
    });
    engine.stop();
  });

  it("a namespaced watch only sees its namespace; a watch on all namespaces sees both", async () => {
    const { clock, engine } = setup();
    const rv = engine.currentResourceVersion;
    const ns = await open(clock, engine, { resourceVersion: String(rv) }, "default");
    const all = await open(clock, engine, { resourceVersion: String(rv) }, "");
    await engine.create("configmaps", "kube-system", cm("o"));
    await engine.create("configmaps", "default", cm("d"));
    await settle();
    expect(ns.seen).toEqual([`ADDED d@${rv + 2}`]);
    expect(all.seen).toEqual([`ADDED o@${rv + 1}`, `ADDED d@${rv + 2}`]);
    engine.stop();
  });
});

describe("W8 and cache re-initialization (§5.7)", () => {
  it("W8: re-initialization closes every watcher, 429 with a growing Retry-After while pending, older RVs 410 after", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const ws = [
      await open(clock, engine, { resourceVersion: String(rv) }),
      await open(clock, engine, { resourceVersion: "0" }),
    ];
    engine.faults.reinitializeCache("configmaps", 60_000);
    await Promise.all(ws.map((w) => w.done));
    expect(ws.map((w) => w.state.error)).toEqual([undefined, undefined]);
    expect(engine.caches.watchers("configmaps")).toEqual([]);
    // Retry-After = floor(clamp(exp(0.06·downtime_s), 1, 30)).
    const retryAfter: number[] = [];
    for (const t of [0, 10, 20, 20, 9]) {
      await clock.step(t * 1000);
      const err = await watchError(engine, { resourceVersion: String(rv) });
      expect([err.code, err.reason, err.message]).toEqual([429, "TooManyRequests", "storage is (re)initializing"]);
      retryAfter.push(err.details?.retryAfterSeconds ?? -1);
    }
    // At 10 s: exp(0.6) = 1.82 → 1 (truncated, not rounded).
    expect(retryAfter).toEqual([1, 1, 6, 20, 30]);
    // Writes during the downtime are in storage; the cache relists them when it is ready again.
    await seed(engine, ["b"]);
    await clock.step(1000);
    const listRV = engine.caches.cacher("configmaps").resourceVersion;
    expect(listRV).toBe(engine.currentResourceVersion);
    const old = await open(clock, engine, { resourceVersion: String(rv) });
    await old.done;
    expect(old.seen).toEqual([`ERROR 410 too old resource version: ${rv} (${listRV})`]);
    const again = await open(clock, engine, {});
    expect(again.seen).toEqual(["ADDED a@2", `ADDED b@${listRV}`]);
    engine.stop();
  });
});

describe("W8: re-initialization during a freshness wait", () => {
  it("a watch-list still waiting for the cache is answered with a watch that ends at once (no events, no ERROR)", async () => {
    const { clock, engine } = setup({ cacheLagMs: 500 });
    await seed(engine, ["a"]);
    await engine.create("secrets", "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
    const p = engine.watch("configmaps", "default", { allowWatchBookmarks: true, timeoutSeconds: 3600 });
    await settle();
    engine.faults.reinitializeCache("configmaps");
    expect(engine.caches.cacher("configmaps").resourceVersion).toBe(3);
    const w = collect(clock, await p);
    await w.done;
    expect([w.seen, w.state.error]).toEqual([[], undefined]);
    expect(engine.caches.watchers("configmaps")).toEqual([]);
    // The lagged event that arrives after the relist is not applied twice; the cache does not go back.
    await clock.step(1000);
    expect(engine.caches.cacher("configmaps").resourceVersion).toBe(3);
    expect(engine.caches.cacher("configmaps").historyStats.size).toBe(0);
    const again = await open(clock, engine, { resourceVersion: "0" });
    expect(again.seen).toEqual(["ADDED a@2"]);
    engine.stop();
  });
});

describe("initial events log", () => {
  it("initial events handed over in more than 500 ms are logged (initProcessThreshold); faster ones are not", async () => {
    const logs: string[] = [];
    const { clock, engine } = setup({ logger: { log: (_level, l) => logs.push(l) } });
    await seed(
      engine,
      Array.from({ length: 30 }, (_, i) => `c${String(i).padStart(2, "0")}`),
    );
    const fast = await engine.watch("configmaps", "default", { resourceVersion: "0", labelSelector: "a!=b" });
    for (let i = 0; i < 30; i++) await fast.next();
    const slow = await engine.watch("configmaps", "default", { resourceVersion: "0" });
    for (let i = 0; i < 30; i++) {
      await slow.next();
      await clock.step(100);
    }
    // result holds 10: the 30th initial event went in when the 20th was read, at 1.9 s (reads every 100 ms).
    expect(logs).toEqual([
      'processing 30 initEvents of configmaps (key: "/configmaps/default", labels: "", fields: "") took 1.9s',
    ]);
    engine.stop();
  });
});

describe("initial events log timing", () => {
  it("the freshness wait before the initial events is not counted as hand-over time", async () => {
    const logs: string[] = [];
    const { clock, engine } = setup({ logger: { log: (_level, l) => logs.push(l) }, cacheLagMs: 2000 });
    await seed(engine, ["a", "b", "c"]);
    // A consistent watch-list waits ~2 s for the lagging cache, then hands three events over at once.
    const opening = engine.watch("configmaps", "default", {
      sendInitialEvents: true,
      resourceVersionMatch: "NotOlderThan",
      allowWatchBookmarks: true,
    });
    await clock.step(2000);
    const w = await opening;
    for (let i = 0; i < 3; i++) expect((await w.next()).value?.type).toBe("ADDED");
    expect(logs).toEqual([]);
    engine.stop();
  });
});

describe("watch faults", () => {
  it("dropWatches ends every watch (in-process iteration ends, or throws SimConnectionError with asError)", async () => {
    const { clock, engine } = setup();
    const rv = await seed(engine, ["a"]);
    const w1 = await open(clock, engine, { resourceVersion: String(rv) });
    expect(engine.faults.dropWatches("configmaps")).toBe(1);
    await w1.done;
    expect([w1.state.error, engine.caches.watchers("configmaps").length]).toEqual([undefined, 0]);
    const w2 = await open(clock, engine, { resourceVersion: String(rv) });
    expect(engine.faults.dropWatches(undefined, true)).toBe(1);
    await w2.done;
    expect(w2.state.error).toBeInstanceOf(SimConnectionError);
  });

  it("truncate-watch: the in-process watch delivers afterEvents events, then throws SimTruncatedWatchError", async () => {
    const { clock, engine } = setup();
    await seed(engine, ["a", "b", "c"]);
    engine.faults.request({ type: "truncate-watch", afterEvents: 2, count: 1 });
    const w = await open(clock, engine, { resourceVersion: "0" });
    await w.done;
    expect(w.seen).toEqual(["ADDED a@2", "ADDED b@3"]);
    expect(w.state.error).toBeInstanceOf(SimTruncatedWatchError);
    expect(engine.caches.watchers("configmaps")).toEqual([]);
    // count: 1 — the next watch is whole.
    const next = await open(clock, engine, { resourceVersion: "0" });
    expect(next.seen).toEqual(["ADDED a@2", "ADDED b@3", "ADDED c@4"]);
    engine.stop();
  });

  it("a caller's long-lived signal keeps one abort listener per open watch and none once they closed", async () => {
    const { clock, engine } = setup();
    const run = new AbortController(); // like a reflector's run signal, reused by every re-watch
    for (let i = 0; i < 12; i++) {
      const w = await engine.watch("configmaps", "default", { timeoutSeconds: 1 }, { signal: run.signal });
      expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
      await clock.step(1000); // the watch times out
      expect((await w.next()).done).toBe(true);
      expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    }
    const open = await engine.watch("configmaps", "default", { timeoutSeconds: 60 }, { signal: run.signal });
    run.abort();
    expect((await open.next()).done).toBe(true);
    expect(engine.caches.watchers("configmaps")).toEqual([]);
    engine.stop();
  });

  it("a watch through the engine's request API (the HTTP face) never reads the request's signal (it is created on first read)", async () => {
    const { engine } = setup();
    let reads = 0;
    const ctx = {
      userAgent: "http",
      get signal(): AbortSignal {
        reads++;
        return new AbortController().signal;
      },
    };
    const w = await engine.requests.watch("configmaps", "default", { timeoutSeconds: 60 }, ctx);
    expect(reads).toBe(0);
    w.object.stop();
    await engine.requests.list("configmaps", "default", {}, ctx);
    expect(reads).toBe(0);
    engine.stop();
  });

  it("a request context reused for a second call does not carry the first call's truncate fault over", async () => {
    const { clock, engine } = setup();
    await seed(engine, ["a", "b"]);
    engine.faults.request({ type: "truncate-watch", afterEvents: 1, count: 1 });
    const ctx = { userAgent: "reused" };
    const first = collect(clock, await engine.watch("configmaps", "default", { resourceVersion: "0" }, ctx));
    await first.done;
    expect(first.state.error).toBeInstanceOf(SimTruncatedWatchError);
    const second = collect(
      clock,
      await engine.watch("configmaps", "default", { resourceVersion: "0", timeoutSeconds: 5 }, ctx),
    );
    await settle();
    await clock.step(5000);
    await second.done;
    expect(second.state.error).toBeUndefined();
    expect(second.seen).toEqual(["ADDED a@2", "ADDED b@3"]);
    engine.stop();
  });

  it("a lagging watcher whose unread history is overwritten is closed silently; its re-watch gets 410", async () => {
    const { clock, engine } = setup({ historyLowerBound: 16, historyUpperBound: 16 });
    const rv0 = engine.currentResourceVersion;
    for (let i = 0; i < 16; i++) await engine.create("configmaps", "default", cm(`x${i}`, { k: "x" }, { app: "x" }));
    const w = await engine.watch("configmaps", "default", {
      resourceVersion: String(rv0),
      labelSelector: "app=x",
      timeoutSeconds: 3600,
    });
    const first = await w.next();
    expect(label(first.value as WatchEvent)).toBe(`ADDED x0@${rv0 + 1}`);
    // Sixteen non-matching writes overwrite the whole ring; none of them goes to this watcher's input.
    for (let i = 0; i < 16; i++) await engine.create("configmaps", "default", cm(`y${i}`, { k: "y" }, { app: "y" }));
    const rest = collect(clock, w);
    await rest.done;
    // What was already in result (chanSize 10) arrives, then the end: no ERROR event.
    expect(rest.seen).toEqual(Array.from({ length: 10 }, (_, i) => `ADDED x${i + 1}@${rv0 + 2 + i}`));
    expect(rest.state.error).toBeUndefined();
    const again = await open(clock, engine, { resourceVersion: String(rv0 + 11), labelSelector: "app=x" });
    await again.done;
    expect(again.seen).toEqual([`ERROR 410 too old resource version: ${rv0 + 11} (${rv0 + 16})`]);
    engine.stop();
  });
});

describe("side channels cannot break the engine", () => {
  it("a throwing log sink and audit sink lose their own output only: re-initialization and requests complete", async () => {
    const { clock, engine } = setup({
      logger: {
        log: () => {
          throw new Error("log sink is broken");
        },
      },
    });
    engine.accounting.auditLog = () => {
      throw new Error("audit sink is broken");
    };
    const w = await open(clock, engine, { resourceVersion: "0" });
    engine.faults.reinitializeCache("configmaps"); // logs a line through the broken sink
    await w.done;
    expect(engine.caches.watchers("configmaps")).toEqual([]);
    const created = await engine.create("configmaps", "default", cm("after"));
    expect(created.metadata?.name).toBe("after");
    expect(engine.accounting.count({ verb: "create" })).toBe(1);
    engine.stop();
  });
});
