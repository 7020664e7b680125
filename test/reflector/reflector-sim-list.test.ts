// The reflector's list path (client-go.md §1E F2–F11, F21, F26, F28, F29; §1F P1–P6; §3 edge cases 21, 26, 27)
// against the in-process simulated apiserver, everything on one FakeClock.
import { type KubeObject, newGone, newResourceExpired } from "@informer-ts/apimachinery";
import {
  ListWatch,
  newFilteredListWatch,
  newListPager,
  Reflector,
  type ReflectorMetricsProvider,
  type ReflectorOptions,
  reflectorMetricsProvider,
  setReflectorMetricsProvider,
  silentLogger,
} from "@informer-ts/cache";
import { RecordingStore, startRun } from "@informer-ts/cache/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  CONFIGMAP_TYPE,
  fixedRand,
  flush,
  isWatchList,
  listOnly,
  type Scenario,
  scenarios,
  syncedScenario,
} from "./kit-scenario.js";

const sc = scenarios();
afterEach(() => sc.stopAll());

/** Ends the open watch at once (0 events, 0 s): a VeryShortWatchError, so the reflector backs off and relists. */
async function forceVeryShortRelist(s: Scenario): Promise<void> {
  const lists = s.lw.lists().length;
  expect(s.faults.dropWatches()).toBe(1);
  await s.until(() => s.lw.lists().length > lists && s.lw.openWatches === 1, "relist after a very short watch");
}

/** Ends the open watch with a 410 ERROR event: the reflector backs off and relists at its last RV (F18). */
async function forceRelist(s: Scenario): Promise<void> {
  const lists = s.lw.lists().length;
  expect(s.lw.sendError(newResourceExpired("too old resource version").status)).toBe(1);
  await s.until(() => s.lw.lists().length > lists && s.lw.openWatches === 1, "relist after a 410");
}

/** Runs a LIST 500 storm of `n` failures with jitter 0.5 and returns the backoff delays the reflector used. */
async function listStorm(n: number, extra: ReflectorOptions<KubeObject> = {}): Promise<Scenario> {
  const s = await sc.make(listOnly({ rand: fixedRand(0.5), ...extra }));
  await s.seed(3);
  s.faults.request({ type: "status", code: 500, verbs: ["list"], count: n, message: "etcdserver: request timed out" });
  await s.start();
  await s.until(() => s.status().hasSynced, "sync after the storm");
  return s;
}

const delays = (s: Scenario) => s.eventsOf("backoff").map((e) => e.delayMs);
const firstPages = (s: Scenario) => s.lw.lists().filter((r) => r.opts.continue === undefined);

describe("reflector list path against the sim-apiserver", () => {
  it("F2: a 500 storm on LIST backs off 800 ms ×2 with full jitter up to the 30 s cap (each delay d + rand·d)", async () => {
    const s = await listStorm(7);
    // d = 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30 (cap) s; rand 0.5 adds half of each.
    expect(delays(s)).toEqual([1200, 2400, 4800, 9600, 19_200, 38_400, 45_000]);
    const at = s.lw.lists().map((r) => r.at - s.lw.lists()[0]!.at);
    expect(at).toEqual([0, 1200, 3600, 8400, 18_000, 37_200, 75_600, 120_600]);
    expect(s.lw.lists().map((r) => r.outcome)).toEqual([500, 500, 500, 500, 500, 500, 500, "ok"]);
    expect(s.served("list", 500)).toBe(7);
    expect(s.status()).toMatchObject({
      phase: "watching",
      lastError: { code: 500, reason: "InternalError", during: "list" },
      counts: { lists: 8, backoffs: 7, relists: { "list-error": 7 } },
    });
    expect(s.phases()).toEqual(
      ["idle", "listing", "backing-off", "listing", "backing-off", "listing"].concat(
        ["backing-off", "listing", "backing-off", "listing", "backing-off", "listing", "backing-off", "listing"],
        ["backing-off", "listing", "watching"],
      ),
    );
    await s.converged();
  });

  it("F3: the default (client-go v0.36) reset is periodic: 2 min after the last reset, even in the middle of an outage", async () => {
    const s = await listStorm(9);
    // The 8th delay is computed at t = 120.6 s > 2 min since the reflector was built: back to 0.8 s (+ jitter).
    expect(delays(s)).toEqual([1200, 2400, 4800, 9600, 19_200, 38_400, 45_000, 1200, 2400]);
  });

  it("F3: backoffResetMode 'gap' (client-go ≤ v0.35) stays at the cap through an outage, resets after 2 quiet minutes", async () => {
    const s = await listStorm(9, { backoffResetMode: "gap" });
    expect(delays(s)).toEqual([1200, 2400, 4800, 9600, 19_200, 38_400, 45_000, 45_000, 45_000]);
    await s.clock.step(180_000);
    await forceRelist(s);
    expect(delays(s).at(-1)).toBe(1200);
  });

  it("F4: the run loop waits one backoff delay even when listAndWatch returned without error (410 on the watch)", async () => {
    const handled: unknown[] = [];
    const s = await syncedScenario(sc.make, listOnly({ watchErrorHandler: (_r, e) => handled.push(e) }));
    const t = s.clock.now();
    s.lw.sendError(newResourceExpired("too old resource version: 1 (2)").status);
    await s.until(() => s.lw.lists().length === 2, "relist");
    expect(s.lw.lists()[1]!.at - t).toBe(800);
    expect(handled).toEqual([]);
    expect(s.eventsOf("backoff").map((e) => e.reason)).toEqual(["list-and-watch"]);
    expect(s.status().counts.relists.expired).toBe(1);
  });

  it("F5: watch-list first; a 422 from a server without WatchList falls back to LIST in the same call, and every relist tries watch-list again", async () => {
    const s = await syncedScenario(sc.make, { watchList: false });
    await forceVeryShortRelist(s);
    const shape = s.lw.requests.map((r) => `${isWatchList(r) ? "watch-list" : r.verb}:${r.outcome}`);
    expect(shape).toEqual(["watch-list:422", "list:ok", "watch:ok", "watch-list:422", "list:ok", "watch:ok"]);
    expect(s.status()).toMatchObject({
      lastError: { code: 422, reason: "Invalid", during: "watch-list" },
      counts: { watchLists: 2, watchListFallbacks: 2, lists: 2, relists: { "very-short": 1 } },
    });
    expect(s.served("watch", 422)).toBe(2);
    await s.create("after");
    await s.converged();
  });

  it("F6: relistResourceVersion is '0' before the first sync, then the last synced RV", async () => {
    const s = await sc.make(listOnly());
    await s.seed(3);
    expect(s.r.relistResourceVersion()).toBe("0");
    await s.start();
    await s.until(() => s.lw.openWatches === 1, "watch");
    const synced = s.r.lastSyncResourceVersion();
    expect(synced).toBe(s.serverRV);
    expect(s.r.relistResourceVersion()).toBe(synced);
    await forceVeryShortRelist(s);
    expect(s.lw.rvs("list")).toEqual(["0", synced]);
    expect(s.status().resourceVersionUnavailable).toBe(false);
  });

  it("F7: page size 500 for RV '0' (the cache ignores it), no limit for an RV relist; watchListPageSize wins always", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    await forceVeryShortRelist(s);
    expect(s.lw.lists().map((r) => r.opts.limit)).toEqual([500, undefined]);
    expect(s.eventsOf("list-done").map((e) => e.paginated)).toEqual([false, false]);

    const p = await syncedScenario(sc.make, listOnly({ watchListPageSize: 2 }));
    await forceVeryShortRelist(p);
    // RV "0" is served whole from the cache; the RV relist is an exact read paged 2 by 2.
    expect(p.lw.lists().map((r) => [r.opts.resourceVersion, r.opts.limit, r.opts.continue !== undefined])).toEqual([
      ["0", 2, false],
      [p.lw.rvs("list")[1], 2, false],
      [undefined, 2, true],
      [undefined, 2, true],
    ]);
    expect(p.eventsOf("list-done").map((e) => e.paginated)).toEqual([false, true]);
    await p.converged();
  });

  it("F8: a paginated answer to RV '0' (watch cache off) latches paginatedResult: later RV lists keep the 500 page size", async () => {
    const s = await sc.make(listOnly());
    // A server with its watch cache disabled serves RV "0" from etcd, honouring limit.
    s.lw.rewriteOptions = (verb, o) =>
      verb === "list" && o.resourceVersion === "0" ? { ...o, resourceVersion: "" } : o;
    await s.seed(501);
    await s.start();
    await s.until(() => s.lw.openWatches === 1, "sync");
    await forceVeryShortRelist(s);
    expect(firstPages(s).map((r) => [r.opts.resourceVersion, r.opts.limit])).toEqual([
      ["0", 500],
      [s.lw.rvs("list").at(-2), 500],
    ]);
    expect(s.eventsOf("list-done").map((e) => e.paginated)).toEqual([true, true]);
    await s.converged();
  });

  it("F9: a LIST that hits Expired (compacted below the RV, cache history gone) retries at once with RV '' in the same call", async () => {
    const s = await syncedScenario(sc.make, listOnly({ watchListPageSize: 2 }));
    const synced = s.r.lastSyncResourceVersion();
    expect(s.faults.dropWatches()).toBe(1); // very short: the reflector backs off 0.8 s, then relists at `synced`
    await flush();
    await s.update("cm-00", "2");
    // etcd compacted past `synced`, and the watch cache's history no longer covers it either (ListFromCacheSnapshot
    // would otherwise serve the exact read from the cache).
    s.faults.compact();
    s.faults.reinitializeCache("configmaps");
    await s.until(() => s.status().counts.lists === 3 && s.lw.openWatches === 1, "relist");
    expect(firstPages(s).map((r) => [r.opts.resourceVersion, r.outcome])).toEqual([
      ["0", "ok"],
      [synced, 410],
      ["", "ok"],
    ]);
    expect(firstPages(s)[2]!.at).toBe(firstPages(s)[1]!.at); // no backoff between them
    expect(s.status()).toMatchObject({
      resourceVersionUnavailable: false,
      lastError: { code: 410, reason: "Expired", during: "list" },
      counts: { relists: { "very-short": 1, "list-error": 0 } },
    });
    await s.converged();
  });

  it("F9: a LIST whose RV is ahead of the watch cache (504 too large after the 3 s freshness wait) retries with RV ''", async () => {
    // Resuming from a persisted RV the server has not reached (beyond client-go: initialResourceVersion).
    const s = await sc.make(listOnly({ initialResourceVersion: "1000" }));
    await s.seed(3);
    await s.start();
    await s.until(() => s.lw.openWatches === 1, "sync");
    expect(
      s.lw.lists().map((r) => [r.opts.resourceVersion, r.opts.limit, r.outcome, r.at - s.lw.lists()[0]!.at]),
    ).toEqual([
      ["1000", undefined, 504, 0],
      ["", undefined, "ok", 3000], // the same pager (page size 0) as in client-go
    ]);
    expect(s.status()).toMatchObject({
      lastError: { code: 504, reason: "Timeout", during: "list" },
      lastSyncResourceVersion: s.serverRV,
      counts: { lists: 2, backoffs: 0 },
    });
    await s.converged();
  });

  it("F10: Expired and Gone on the watch are both 'expired': relist from the last synced RV", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    s.lw.sendError(newResourceExpired("too old resource version").status);
    await s.until(() => s.status().counts.relists.expired === 1 && s.lw.openWatches === 1, "first relist");
    s.lw.sendError(newGone("gone").status);
    await s.until(() => s.status().counts.relists.expired === 2 && s.lw.openWatches === 1, "second relist");
    expect(s.status().lastError).toMatchObject({ code: 410, reason: "Gone", during: "watch" });
    expect(s.lw.rvs("list")).toEqual(["0", s.lw.rvs("list")[1], s.lw.rvs("list")[1]]);
    expect(s.lw.rvs("list")[1]).toBe(s.serverRV);
  });

  it("F11: the legacy too-large form (504 Timeout saying 'Too large resource version') is recognized too", async () => {
    const s = await sc.make(listOnly());
    await s.seed(2);
    s.faults.request({
      type: "status",
      code: 504,
      verbs: ["list"],
      count: 1,
      message: "Too large resource version: 10, current: 3",
    });
    await s.start();
    await s.until(() => s.lw.openWatches === 1, "sync");
    expect(s.lw.lists().map((r) => [r.opts.resourceVersion, r.outcome])).toEqual([
      ["0", 504],
      ["", "ok"],
    ]);
    expect(s.status()).toMatchObject({ lastError: { code: 504, reason: "Timeout" }, counts: { backoffs: 0 } });
  });

  it("F21: the watch error handler gets what listAndWatch returns (LIST 500, watch-start 500), not watch-stream errors", async () => {
    const handled: unknown[] = [];
    const s = await sc.make(listOnly({ watchErrorHandler: (_r, e) => handled.push(e) }));
    await s.seed(2);
    s.faults.request({ type: "status", code: 500, verbs: ["list"], count: 1 });
    await s.start();
    await s.until(() => s.lw.openWatches === 1, "sync");
    expect(handled).toHaveLength(1);
    expect(String(handled[0])).toMatch(/failed to list \/v1, Kind=ConfigMap: Internal error occurred: injected fault/);
    s.lw.sendError(newResourceExpired("too old").status); // returns nil: not handed over
    await s.until(() => s.status().counts.relists.expired === 1 && s.lw.openWatches === 1, "relist");
    expect(handled).toHaveLength(1);
    s.faults.request({ type: "status", code: 500, verbs: ["watch"], count: 1 });
    await s.clock.step(300_000); // the server ends the watch; the re-watch fails to start
    await s.until(() => handled.length === 2, "watch-start error handed over");
    expect(handled[1]).toMatchObject({ code: 500 });
  });

  it("F26: a ListerWatcher declaring watchListSemanticsUnsupported disables watch-list", async () => {
    const s = await syncedScenario(sc.make, {
      lwSetup: (lw) => {
        lw.watchListSemanticsUnsupported = true;
      },
    });
    expect(s.r.useWatchList).toBe(false);
    expect(s.lw.requests.map((r) => (isWatchList(r) ? "watch-list" : r.verb))).toEqual(["list", "watch"]);
  });

  it("F28: the default name is the caller's file:line; the type description comes from the expected GVK", async () => {
    const s = await sc.make({ noReflector: true });
    const named = new Reflector(s.lw, CONFIGMAP_TYPE, new RecordingStore(), { clock: s.clock, logger: silentLogger });
    expect(named.name).toMatch(/reflector-sim-list\.test\.ts:\d+/);
    expect(named.typeDescription).toBe("/v1, Kind=ConfigMap");
    const plain = new Reflector(s.lw, undefined, new RecordingStore(), { clock: s.clock, logger: silentLogger });
    expect(plain.typeDescription).toBe("<unspecified>");
    expect(plain.status()).toMatchObject({ phase: "idle", typeDescription: "<unspecified>" });
  });

  it("F29: reflector metrics are not wired: a provider set process-wide is never called through a list/watch/relist cycle", async () => {
    const calls: string[] = [];
    const metric = { set: () => calls.push("set"), inc: () => calls.push("inc"), observe: () => calls.push("obs") };
    const recording = new Proxy({} as ReflectorMetricsProvider, {
      get: (_t, prop) => () => {
        calls.push(String(prop));
        return metric;
      },
    });
    setReflectorMetricsProvider(recording);
    const s = await syncedScenario(sc.make, listOnly());
    await s.create("x");
    await forceRelist(s);
    await s.converged();
    expect(reflectorMetricsProvider()).toBe(recording);
    expect(calls).toEqual([]);
  });

  it("P2: pages after the first carry the continue token and no resourceVersion; the list RV is the first page's", async () => {
    const s = await syncedScenario(sc.make, { ...listOnly({ watchListPageSize: 2 }), seed: 5 });
    await s.create("late");
    await s.until(() => s.r.lastSyncResourceVersion() === s.serverRV, "watch event");
    const synced = s.r.lastSyncResourceVersion();
    await forceRelist(s);
    const relist = s.lw.lists().slice(1);
    expect(relist.map((r) => r.opts.resourceVersion)).toEqual([synced, undefined, undefined]);
    expect(
      relist.slice(1).every((r) => r.opts.continue !== undefined && r.opts.resourceVersionMatch === undefined),
    ).toBe(true);
    expect(s.eventsOf("list-done").at(-1)).toMatchObject({ resourceVersion: s.serverRV, items: 6, paginated: true });
  });

  it("P3: a continue page that hits Expired (compacted between pages) falls back to one full list at the original RV", async () => {
    const s = await syncedScenario(sc.make, listOnly({ watchListPageSize: 2 }));
    const synced = s.r.lastSyncResourceVersion();
    let compacted = false;
    s.lw.rewriteOptions = (verb, o) => {
      if (verb === "list" && o.continue !== undefined && !compacted) {
        compacted = true;
        // A write and a compaction land between the first page and the second (synchronous storage calls).
        const r = s.sim.resource("configmaps");
        s.sim.storage.update(r, "default", "cm-01", { ...s.sim.storage.get(r, "default", "cm-01")!, data: { v: "2" } });
        s.faults.compact();
        s.faults.reinitializeCache("configmaps"); // the cache's history no longer covers the token's RV either
      }
      return o;
    };
    expect(s.faults.dropWatches()).toBe(1);
    await s.until(() => s.lw.lists().length >= 4 && s.lw.openWatches === 1, "relist with fallback");
    const relist = s.lw.lists().slice(1);
    expect(relist.map((r) => [r.opts.resourceVersion, r.opts.limit, r.opts.continue !== undefined, r.outcome])).toEqual(
      [
        [synced, 2, false, "ok"],
        [undefined, 2, true, 410],
        [synced, undefined, false, "ok"],
      ],
    );
    await s.converged();
  });

  it("21: RV progression '0' → last RV → '': a watch 410 relists at the last RV; only the LIST's own 410 falls to ''", async () => {
    const s = await syncedScenario(sc.make, listOnly({ watchListPageSize: 2 }));
    await s.update("cm-00", "2");
    await s.until(() => s.r.lastSyncResourceVersion() === s.serverRV, "watch event");
    const last = s.r.lastSyncResourceVersion();
    await s.clock.step(2000);
    // The watch cache breaks for 10 s: the watch ends, re-watches get 429 meanwhile, and writes during the outage
    // never reach the cache's history, so the re-watch from `last` is too old afterwards (410 event).
    s.faults.reinitializeCache("configmaps", 10_000);
    await s.update("cm-01", "2");
    await s.create("during-outage");
    s.faults.compact();
    await s.until(() => s.status().counts.relists.expired === 1, "410 on the watch");
    await s.until(() => s.lw.openWatches === 1 && s.status().phase === "watching", "relisted");
    expect(s.status().counts.rewatches["too-many-requests"]).toBeGreaterThan(0);
    expect(s.lw.watches().at(-2)).toMatchObject({ opts: { resourceVersion: last }, outcome: "ok" });
    expect(firstPages(s).map((r) => [r.opts.resourceVersion, r.outcome])).toEqual([
      ["0", "ok"],
      [last, 410],
      ["", "ok"],
    ]);
    expect(s.status()).toMatchObject({
      resourceVersionUnavailable: false,
      lastSyncResourceVersion: s.serverRV,
      lastError: { code: 410, reason: "Expired", during: "list" },
    });
    await s.converged();
  });

  it("26: 429 (Retry-After) or connection refused when starting a watch: back off, re-watch at the same RV, no list; a 500 relists", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const rv = s.r.lastSyncResourceVersion();
    s.faults.request({ type: "apf-429", verbs: ["watch"], count: 1, retryAfterSeconds: 5 });
    s.lw.failNext.push({
      verb: "watch",
      error: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    // The apf fault fires on the 1st re-watch, the refused connection on the 2nd.
    await s.clock.step(300_000);
    await s.until(() => s.lw.watches().length === 4 && s.lw.openWatches === 1, "re-watches");
    expect(s.lw.watches().map((r) => [r.opts.resourceVersion, r.outcome])).toEqual([
      [rv, "ok"],
      [rv, "ECONNREFUSED"],
      [rv, 429],
      [rv, "ok"],
    ]);
    expect(s.lw.lists()).toHaveLength(1);
    expect(s.status().counts.rewatches).toMatchObject({ closed: 1, "too-many-requests": 1, "connection-refused": 1 });
    expect(s.status().lastError).toMatchObject({ code: 429, reason: "TooManyRequests", retryAfterSeconds: 5 });

    s.faults.request({ type: "status", code: 500, verbs: ["watch"], count: 1 });
    await s.clock.step(300_000);
    await s.until(() => s.lw.lists().length === 2 && s.lw.openWatches === 1, "relist after the 500");
    expect(s.status().counts.relists["internal-error"]).toBe(1);
    expect(s.lw.rvs("list")).toEqual(["0", rv]);
  });

  it("27: backoff delays stay in F2's jitter ranges and restart from 0.8 s after the periodic 2-minute reset (F3)", async () => {
    const rands = [0.1, 0.9, 0.3, 0.7, 0.05, 0.95, 0.5, 0.2, 0.6, 0.4];
    let i = 0;
    const s = await sc.make(listOnly({ rand: { float: () => rands[i++ % rands.length]! } }));
    await s.seed(2);
    s.faults.request({ type: "status", code: 503, verbs: ["list"], count: 10 });
    await s.start();
    await s.until(() => s.status().hasSynced, "sync");
    const ranges = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30].map((d) => [d * 1000, 2 * d * 1000]);
    const got = delays(s);
    let step = 0;
    let lastReset = s.lw.lists()[0]!.at;
    for (const [k, d] of got.entries()) {
      const at = s.lw.lists()[k]!.at;
      if (at - lastReset > 120_000) {
        step = 0;
        lastReset = at;
      }
      const [lo, hi] = ranges[Math.min(step++, ranges.length - 1)]!;
      expect(d).toBeGreaterThanOrEqual(lo!);
      expect(d).toBeLessThan(hi!);
    }
    expect(got).toHaveLength(10);
    expect(s.status().lastError).toMatchObject({ code: 503, reason: "ServiceUnavailable" });
  });
});

describe("pager and ListWatch against the sim-apiserver (§1F)", () => {
  it("P1: pager defaults are page size 500, buffer 10, full list if expired; a large consistent LIST comes in 500-item pages", async () => {
    const s = await sc.make({ noReflector: true });
    await s.seed(1201);
    const pager = newListPager<KubeObject>((o, sig) => s.lw.list(o, sig));
    expect([pager.pageSize, pager.pageBufferSize, pager.fullListIfExpired]).toEqual([500, 10, true]);
    const { list, paginated } = await pager.list({});
    expect(paginated).toBe(true);
    expect(list.items).toHaveLength(1201);
    expect(list.metadata.resourceVersion).toBe(s.serverRV);
    expect(s.lw.lists().map((r) => [r.opts.limit, r.opts.continue !== undefined])).toEqual([
      [500, false],
      [500, true],
      [500, true],
    ]);
  });

  it("P4: eachListItem streams with a bounded page buffer and stops fetching as soon as fn throws", async () => {
    const s = await sc.make({ noReflector: true });
    await s.seed(40);
    const pager = newListPager<KubeObject>((o, sig) => s.lw.list(o, sig));
    pager.pageSize = 2;
    pager.pageBufferSize = 1;
    const seen: string[] = [];
    const err = await pager
      .eachListItem({}, (item) => {
        seen.push(item.metadata?.name ?? "");
        if (seen.length === 3) throw new Error("stop here");
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ message: "stop here" });
    expect(seen).toEqual(["cm-00", "cm-01", "cm-02"]);
    await flush();
    // 2 pages consumed, at most 1 buffered and 1 in flight: far from the 20 pages of the whole list.
    expect(s.lw.lists().length).toBeLessThanOrEqual(4);
    const all: string[] = [];
    await pager.eachListItem({}, (item) => {
      all.push(item.metadata?.name ?? "");
    });
    expect(all).toHaveLength(40);
  });

  it("P5: with copyListItems the reflector stores detached copies, never the in-process server's own objects", async () => {
    const s = await syncedScenario(sc.make, { ...listOnly({ copyListItems: true }), direct: true });
    const r = s.sim.resource("configmaps");
    const server = s.sim.storage.get(r, "default", "cm-00")!;
    const stored = s.recording.items.get("default/cm-00")!;
    expect(stored).toEqual(expect.objectContaining({ data: server.data }));
    expect(stored).not.toBe(server);
    expect(stored.metadata).not.toBe(server.metadata);
    (stored.metadata as { labels?: Record<string, string> }).labels = { mutated: "by-client" };
    expect(s.sim.storage.get(r, "default", "cm-00")!.metadata?.labels).toBeUndefined();
  });

  it("P5b: by default the store takes the LIST's objects as handed out (in-process: the server's, to be read only)", async () => {
    const s = await syncedScenario(sc.make, { ...listOnly(), direct: true });
    const r = s.sim.resource("configmaps");
    // The engine hands out its stored objects' parts (a new top level with kind and apiVersion, the same metadata).
    const stored = s.recording.items.get("default/cm-00")!;
    expect(stored.metadata).toBe(s.sim.storage.get(r, "default", "cm-00")!.metadata);
  });

  it("P6: a ListWatch of functions with an options modifier (label selector) feeds a reflector only the selected objects", async () => {
    const s = await sc.make({ noReflector: true });
    for (const [name, team] of [
      ["a", "x"],
      ["b", "y"],
      ["c", "x"],
    ] as const) {
      await s.sim.create("configmaps", "default", { metadata: { name, namespace: "default", labels: { team } } });
    }
    const lw = newFilteredListWatch(
      new ListWatch<KubeObject>({ listFunc: (o, sig) => s.lw.list(o, sig), watchFunc: (o, sig) => s.lw.watch(o, sig) }),
      (o) => {
        o.labelSelector = "team=x";
      },
    );
    const store = new RecordingStore();
    const r = new Reflector(lw, CONFIGMAP_TYPE, store, { clock: s.clock, logger: silentLogger, useWatchList: false });
    const sub = startRun(r);
    s.onStop(async () => {
      await sub.stop();
    });
    await s.until(() => s.lw.openWatches === 1, "sync");
    await s.sim.create("configmaps", "default", {
      metadata: { name: "d", namespace: "default", labels: { team: "x" } },
    });
    await s.sim.create("configmaps", "default", {
      metadata: { name: "e", namespace: "default", labels: { team: "y" } },
    });
    await flush();
    expect(store.keys()).toEqual(["default/a", "default/c", "default/d"]);
    expect(s.lw.requests.every((q) => q.opts.labelSelector === "team=x")).toBe(true);
  });
});
