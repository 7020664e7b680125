// The reflector's watch path (client-go.md §1E F1, F12–F20, F27; §3 edge cases 22–25, 29, 30) against the
// in-process simulated apiserver, everything on one FakeClock. Informer-level rows run a real SharedIndexInformer.
import {
  type KubeObject,
  newForbidden,
  newInternalError,
  newResourceExpired,
  newTooManyRequests,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { newSharedIndexInformer, type SharedIndexInformer, silentLogger } from "@informer-ts/cache";
import { startRun } from "@informer-ts/cache/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  CONFIGMAP_TYPE,
  fixedRand,
  flush,
  listOnly,
  NS,
  type Scenario,
  scenarios,
  syncedScenario,
} from "./kit-scenario.js";

const sc = scenarios();
afterEach(() => sc.stopAll());

const rvOf = (o: KubeObject | undefined) => o?.metadata?.resourceVersion;

/** Moves the global RV without touching ConfigMaps (a Secret write), so the next bookmark carries a newer RV. */
async function moveGlobalRV(s: Scenario): Promise<void> {
  await s.sim.create("secrets", NS, { metadata: { name: `s-${s.sim.currentResourceVersion}`, namespace: NS } });
}

/** An informer on the scenario's recording ListerWatcher, run until synced; stopped with the scenario. */
async function runInformer(s: Scenario, resyncPeriod: number, setup: (i: SharedIndexInformer<KubeObject>) => void) {
  const informer = newSharedIndexInformer<KubeObject>(s.lw, CONFIGMAP_TYPE, {
    clock: s.clock,
    rand: fixedRand(0),
    resyncPeriod,
    name: "sim-informer",
    reflector: { useWatchList: false, logger: silentLogger },
  });
  setup(informer);
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  s.onStop(async () => {
    ac.abort();
    await done;
  });
  await s.until(() => informer.hasSynced(), "informer sync");
  return informer;
}

/** Counts the sync updates (old and new with the same RV) a handler gets, per key, with their times. */
function syncRecorder(s: Scenario) {
  const syncs: { key: string; at: number }[] = [];
  const updates: { key: string; old: string | undefined; cur: string | undefined }[] = [];
  return {
    syncs,
    updates,
    handler: {
      onAdd: () => {},
      onDelete: () => {},
      onUpdate: (o: KubeObject, n: KubeObject) => {
        updates.push({ key: n.metadata?.name ?? "", old: rvOf(o), cur: rvOf(n) });
        if (rvOf(o) === rvOf(n)) syncs.push({ key: n.metadata?.name ?? "", at: s.clock.now() });
      },
    },
  };
}

describe("reflector watch path against the sim-apiserver", () => {
  it("F1: every watch asks timeoutSeconds in [300, 600) s; the server ends it then and the reflector re-watches at once", async () => {
    const s = await syncedScenario(sc.make, listOnly({ rand: fixedRand(0.5) }));
    const t = s.clock.now();
    await s.until(() => s.lw.watches().length === 2 && s.lw.openWatches === 1, "server timeout and re-watch");
    expect(s.lw.watches().map((r) => [r.opts.timeoutSeconds, r.at - t])).toEqual([
      [450, 0],
      [450, 450_000],
    ]);
    expect(s.status().counts).toMatchObject({ lists: 1, backoffs: 0, rewatches: { closed: 1 } });

    const m = await syncedScenario(sc.make, listOnly({ rand: fixedRand(0.5), minWatchTimeout: 400_000 }));
    expect(m.lw.watches()[0]!.opts.timeoutSeconds).toBe(600);
    const w = await syncedScenario(sc.make, { reflector: { rand: fixedRand(0.999) } });
    expect(w.lw.watches()[0]!.opts).toMatchObject({ sendInitialEvents: true, timeoutSeconds: 599 });
  });

  it("F12: 429s when re-watching back off (growing delays) and re-watch from the same RV, never relisting", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const rv = s.r.lastSyncResourceVersion();
    s.faults.request({ type: "apf-429", verbs: ["watch"], count: 3, retryAfterSeconds: 2 });
    const t = s.clock.now() + 300_000;
    await s.clock.step(300_000);
    await s.until(() => s.lw.watches().length === 5 && s.lw.openWatches === 1, "re-watches");
    expect(
      s.lw
        .watches()
        .slice(1)
        .map((r) => [r.opts.resourceVersion, r.outcome, r.at - t]),
    ).toEqual([
      [rv, 429, 0],
      [rv, 429, 800],
      [rv, 429, 2400],
      [rv, "ok", 5600],
    ]);
    expect(s.eventsOf("backoff").map((e) => e.reason)).toEqual(Array(3).fill("too-many-requests"));
    expect(s.status()).toMatchObject({
      phase: "watching",
      lastError: { code: 429, reason: "TooManyRequests", retryAfterSeconds: 2, during: "watch" },
      counts: { lists: 1, rewatches: { "too-many-requests": 3 } },
    });
    expect(s.phases()).toContain("backing-off");
  });

  it("F13: the watch request is {RV: last synced, timeoutSeconds, allowWatchBookmarks}; a 403 starting it is returned (Forbidden in the status), then backoff and relist", async () => {
    const handled: unknown[] = [];
    const s = await syncedScenario(sc.make, listOnly({ watchErrorHandler: (_r, e) => handled.push(e) }));
    expect(s.lw.watches()[0]!.opts).toEqual({
      resourceVersion: s.r.lastSyncResourceVersion(),
      timeoutSeconds: 300,
      allowWatchBookmarks: true,
    });
    s.lw.failNext.push({
      verb: "watch",
      error: newForbidden({ group: "", resource: "configmaps" }, "", "RBAC: watch denied"),
    });
    await s.clock.step(300_000);
    await s.until(() => s.lw.lists().length === 2 && s.lw.openWatches === 1, "relist");
    expect(handled).toEqual([expect.objectContaining({ code: 403 })]);
    expect(s.status()).toMatchObject({ counts: { relists: { "watch-error": 1 } } });
    expect(s.statuses.some((st) => st.lastError?.code === 403 && st.lastError.reason === "Forbidden")).toBe(true);
    expect(s.lw.lists()[1]!.at - s.lw.watches()[1]!.at).toBe(800);
  });

  it("F14: ADDED/MODIFIED/DELETED go to add/update/delete and BOOKMARK to bookmark(rv); the store follows the server", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const calls = s.recording.calls;
    const from = calls.length;
    await s.create("new");
    await s.update("cm-01", "2");
    await s.remove("cm-02");
    await moveGlobalRV(s);
    await s.until(() => calls.slice(from).some((c) => c.op === "bookmark"), "a periodic bookmark", 70_000);
    expect(
      calls
        .slice(from)
        .filter((c) => c.op !== "updateResourceVersion")
        .map((c) => (c.op === "bookmark" ? `bookmark@${c.resourceVersion}` : `${c.op}:${"key" in c ? c.key : ""}`)),
    ).toEqual(["add:default/new", "update:default/cm-01", "delete:default/cm-02", `bookmark@${s.serverRV}`]);
    expect(s.status().counts).toMatchObject({ events: 4, bookmarks: 1, skippedObjects: 0 });
    await s.converged();
  });

  it("F15: after every event lastSyncRV is that event's RV, and a ResourceVersionUpdater store is told (no order check)", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const from = s.recording.calls.length;
    const rvs: string[] = [];
    for (const write of [() => s.create("n"), () => s.update("n", "2"), () => s.remove("n")]) {
      await write();
      await flush();
      rvs.push(s.serverRV);
      expect(s.r.lastSyncResourceVersion()).toBe(s.serverRV);
    }
    expect(
      s.recording.calls
        .slice(from)
        .filter((c) => c.op === "updateResourceVersion")
        .map((c) => c.resourceVersion),
    ).toEqual(rvs);
    // An older RV on the stream is taken as is (see 22).
    s.lw.sendEvent({
      type: "BOOKMARK",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: "3" } },
    });
    await flush();
    expect(s.r.lastSyncResourceVersion()).toBe("3");
  });

  it("24: a watch from RV '' keeps lastSyncRV during the synthetic ADDED events and takes the first BOOKMARK's", async () => {
    // A LIST answer without a resourceVersion (some aggregated servers) leaves lastSyncRV at "", so the reflector
    // watches from ""; the server defaults that to initial events + the end bookmark.
    const s = await sc.make(listOnly());
    s.lw.rewriteList = (l) => ({ ...l, metadata: { ...l.metadata, resourceVersion: "" } });
    await s.seed(4);
    await s.update("cm-00", "2"); // cm-00 now has the newest RV but comes first in key order
    await s.start();
    await s.until(() => s.lw.openWatches === 1, "watch");
    expect(s.lw.watches()[0]!.opts.resourceVersion).toBeUndefined();
    await flush();
    const adds = s.recording.calls.filter((c) => c.op === "add");
    expect(adds.map((c) => ("key" in c ? c.key : ""))).toEqual(
      ["cm-00", "cm-01", "cm-02", "cm-03"].map((n) => `${NS}/${n}`),
    );
    expect(s.r.lastSyncResourceVersion()).toBe("");
    expect(s.recording.calls.some((c) => c.op === "updateResourceVersion")).toBe(false);
    await s.until(() => s.r.lastSyncResourceVersion() !== "", "the end bookmark");
    expect(s.r.lastSyncResourceVersion()).toBe(s.serverRV);
    expect(s.recording.calls.filter((c) => c.op === "updateResourceVersion").map((c) => c.resourceVersion)).toEqual([
      s.serverRV,
    ]);
    await s.create("later");
    await s.until(() => s.r.lastSyncResourceVersion() === s.serverRV, "RV follows events");
  });

  it("F16: a watch that ends cleanly after ≥ 1 s (server timeout, dropped connection) is re-opened at once from the last RV", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    await s.clock.step(5000);
    await s.create("x");
    await s.until(() => s.r.lastSyncResourceVersion() === s.serverRV, "event");
    expect(s.faults.dropWatches(undefined, true)).toBe(1); // a reset connection: a probable EOF, a clean end
    await s.until(() => s.lw.watches().length === 2 && s.lw.openWatches === 1, "re-watch");
    expect(s.lw.watches()[1]).toMatchObject({ at: s.clock.now(), opts: { resourceVersion: s.serverRV } });
    expect(s.status().counts).toMatchObject({ lists: 1, backoffs: 0, rewatches: { closed: 1 } });
    await s.until(() => s.lw.watches().length === 3, "server timeout");
    expect(s.status().counts).toMatchObject({ lists: 1, backoffs: 0, rewatches: { closed: 2 } });
  });

  it("F17: a watch closed in under 1 s with no event is a VeryShortWatchError: back off, then relist", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    expect(s.faults.dropWatches()).toBe(1);
    await s.until(() => s.lw.lists().length === 2 && s.lw.openWatches === 1, "relist");
    expect(s.status()).toMatchObject({
      lastError: { name: "VeryShortWatchError", during: "watch" },
      counts: { relists: { "very-short": 1 }, backoffs: 1 },
    });
    expect(s.lw.lists()[1]!.at - s.lw.watches()[0]!.at).toBe(800);
    expect(s.phases()).toEqual(["idle", "listing", "watching", "backing-off", "listing", "watching"]);
  });

  it("F18: 410 mid-watch (re-watch below a re-initialized cache) relists at the last RV; 429 re-watches; 500 and others relist", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const last = s.r.lastSyncResourceVersion();
    await s.clock.step(2000);
    s.faults.reinitializeCache("configmaps", 5000);
    await s.create("during-outage"); // lost by the cache's history: the re-watch at `last` is too old
    await s.until(() => s.status().counts.relists.expired === 1 && s.lw.openWatches === 1, "410 and relist");
    expect(s.lw.rvs("list")).toEqual(["0", last]);
    expect(s.status().lastError).toMatchObject({ code: 410, reason: "Expired", during: "watch" });
    await s.converged();

    const watches = s.lw.watches().length;
    const rewatches429 = s.status().counts.rewatches["too-many-requests"]; // 429s while the cache was down
    s.lw.sendError(newTooManyRequests("slow down", 1).status);
    await s.until(() => s.lw.watches().length === watches + 1 && s.lw.openWatches === 1, "re-watch after 429");
    expect(s.status().counts.rewatches["too-many-requests"]).toBe(rewatches429 + 1);
    expect(s.lw.lists()).toHaveLength(2);

    s.lw.sendError(newInternalError("etcd leader changed").status);
    await s.until(() => s.lw.lists().length === 3 && s.lw.openWatches === 1, "relist after 500");
    s.lw.sendError(newForbidden({ group: "", resource: "configmaps" }, "", "token revoked").status);
    await s.until(() => s.lw.lists().length === 4 && s.lw.openWatches === 1, "relist after 403");
    expect(s.status().counts.relists).toMatchObject({ expired: 1, "internal-error": 1, "watch-error": 1 });
    expect(s.status().lastError).toMatchObject({ code: 403, reason: "Forbidden", during: "watch" });
    await s.converged();
  });

  it("F19: with maxInternalErrorRetryDuration, 500s ending watches are retried in place for that window (reset after 1 min quiet)", async () => {
    const s = await syncedScenario(sc.make, listOnly({ maxInternalErrorRetryDuration: 30_000 }));
    const boom = async (after: number) => {
      await s.clock.step(after);
      s.lw.sendError(newInternalError("etcdserver: request timed out").status);
      await s.until(() => s.lw.openWatches === 1 && s.status().phase === "watching", "watching again");
    };
    await boom(1000); // first error: window opens
    await boom(20_000); // 20 s later: inside the window
    expect(s.status().counts).toMatchObject({ lists: 1, rewatches: { "internal-error": 2 } });
    await boom(20_000); // 40 s after the first: outside, relist
    expect(s.status().counts).toMatchObject({ lists: 2, relists: { "internal-error": 1 } });
    await boom(90_000); // more than 1 min after the last error: a new window
    expect(s.status().counts).toMatchObject({ lists: 2, rewatches: { "internal-error": 3 } });
  });

  it("F20: resync runs every period only while watching; shouldResync gates it; a failing resync ends the watch and relists", async () => {
    let allow = true;
    const s = await syncedScenario(sc.make, listOnly({ resyncPeriod: 30_000, shouldResync: () => allow }));
    const resyncs = () => s.recording.calls.filter((c) => c.op === "resync").length;
    await s.clock.step(90_000);
    expect(resyncs()).toBe(3);
    allow = false;
    await s.clock.step(60_000);
    expect(resyncs()).toBe(3);
    allow = true;
    s.recording.failOn = (op) => (op === "resync" ? new Error("resync failed") : undefined);
    await s.until(() => s.lw.lists().length === 2 && s.lw.openWatches === 1, "relist after a resync error");
    s.recording.failOn = undefined;
    expect(s.status()).toMatchObject({ counts: { relists: { "resync-error": 1 } }, lastError: { during: "resync" } });
    const relistAt = s.lw.lists()[1]!.at;
    await s.until(() => resyncs() === 4, "first resync after the relist");
    expect(s.clock.now() - relistAt).toBe(30_000); // the timer restarted with the new watch
  });

  it("F27: lastSyncResourceVersion moves with bookmarks although the store did not change (not synchronised with it)", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const stored = s.stored();
    const before = s.r.lastSyncResourceVersion();
    await moveGlobalRV(s);
    await s.until(() => s.r.lastSyncResourceVersion() !== before, "bookmark", 70_000);
    expect(s.r.lastSyncResourceVersion()).toBe(s.serverRV);
    expect(s.stored()).toEqual(stored);
    expect(stored.every((e) => !e.endsWith(`@${s.serverRV}`))).toBe(true);
    expect(s.status().counts.bookmarks).toBe(1);
    // A re-watch starts from the bookmark's RV.
    await s.until(() => s.lw.watches().length === 2, "server timeout");
    expect(s.lw.watches()[1]!.opts.resourceVersion).toBe(s.serverRV);
  });

  it("22: an event with an older RV is applied blindly and lastSyncRV moves backwards (RVs are opaque)", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    const current = s.r.lastSyncResourceVersion();
    const old = { ...(s.recording.items.get(`${NS}/cm-00`) as KubeObject) };
    const stale = { ...old, metadata: { ...old.metadata, resourceVersion: "2" }, data: { v: "stale" } };
    s.lw.sendEvent({ type: "MODIFIED", object: { apiVersion: "v1", kind: "ConfigMap", ...stale } });
    await flush();
    expect(Number(current)).toBeGreaterThan(2);
    expect(s.r.lastSyncResourceVersion()).toBe("2");
    expect(s.recording.items.get(`${NS}/cm-00`)).toMatchObject({ data: { v: "stale" } });
    // Eventually consistent again after a relist.
    s.lw.sendError(newResourceExpired("too old").status);
    await s.converged();
  });

  it("23: a MODIFIED with the object's current RV is a sync update: only handlers currently due a resync see it", async () => {
    const s = await sc.make({ noReflector: true });
    await s.seed(3);
    const resyncing = syncRecorder(s);
    const quiet = syncRecorder(s);
    const informer = await runInformer(s, 60_000, (i) => {
      i.addEventHandlerWithResyncPeriod(resyncing.handler, 60_000);
      i.addEventHandlerWithResyncPeriod(quiet.handler, 0);
    });
    const dup = (): WatchEvent<KubeObject> => ({
      type: "MODIFIED",
      object: { apiVersion: "v1", kind: "ConfigMap", ...(informer.getIndexer().getByKey(`${NS}/cm-01`) as KubeObject) },
    });
    await s.clock.step(61_000); // the first resync check: the resyncing handler is due, the other is not
    const from = [resyncing.syncs.length, quiet.syncs.length];
    s.lw.sendEvent(dup());
    await s.until(() => resyncing.syncs.length > from[0]!, "the sync update");
    expect(resyncing.syncs.slice(from[0]).map((x) => x.key)).toEqual(["cm-01"]);
    expect(quiet.syncs.length).toBe(from[1]);
    expect(quiet.updates).toEqual([]);
    // A real change reaches both.
    await s.update("cm-02", "2");
    await s.until(() => quiet.updates.length === 1, "real update");
    expect(quiet.updates[0]).toMatchObject({ key: "cm-02" });
  });

  it("25: a watch closed in < 1 s but after an event, or after ≥ 1 s without events, re-watches with no list and no delay", async () => {
    const s = await syncedScenario(sc.make, listOnly());
    await s.create("quick");
    await flush();
    s.faults.dropWatches(); // 0 s, 1 event: not very short
    await s.until(() => s.lw.watches().length === 2 && s.lw.openWatches === 1, "re-watch");
    await s.clock.step(1000);
    s.faults.dropWatches(); // 1 s, 0 events: not very short
    await s.until(() => s.lw.watches().length === 3 && s.lw.openWatches === 1, "re-watch");
    expect(s.lw.watches().map((r) => r.at - s.lw.watches()[0]!.at)).toEqual([0, 0, 1000]);
    expect(s.status().counts).toMatchObject({ lists: 1, backoffs: 0, rewatches: { closed: 2 } });
    s.faults.dropWatches(); // 0 s, 0 events: very short
    await s.until(() => s.lw.lists().length === 2, "relist");
    expect(s.status().counts.relists["very-short"]).toBe(1);
  });

  it("29: sync updates come no more often than max(R, check period, 1 s), and never when the informer's resync is 0", async () => {
    const s = await sc.make({ noReflector: true });
    await s.seed(2);
    const r45 = syncRecorder(s);
    await runInformer(s, 30_000, (i) => {
      i.addEventHandlerWithResyncPeriod(r45.handler, 45_000);
    });
    await s.clock.step(300_000);
    const times = [...new Set(r45.syncs.map((x) => x.at))];
    expect(times.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(45_000);

    const z = await sc.make({ noReflector: true });
    await z.seed(2);
    const r10 = syncRecorder(z);
    await runInformer(z, 0, (i) => {
      i.addEventHandlerWithResyncPeriod(r10.handler, 10_000);
    });
    await z.clock.step(300_000);
    expect(r10.syncs).toEqual([]);
  });

  it("30: objects of the wrong GVK and Table objects are skipped, not stored, and do not count against the very-short rule", async () => {
    const s = await syncedScenario(sc.make, { ...listOnly(), expectedType: { apiVersion: "v1", kind: "Secret" } });
    await s.create("x");
    await flush();
    expect(s.recording.items.has(`${NS}/x`)).toBe(false);
    expect(s.eventsOf("skipped-object")).toEqual([
      expect.objectContaining({ reason: "unexpected-gvk", eventType: "ADDED" }),
    ]);
    s.faults.dropWatches(); // 0 s and only a skipped event: very short
    await s.until(() => s.lw.lists().length === 2, "relist");
    expect(s.status().counts).toMatchObject({ skippedObjects: 1, relists: { "very-short": 1 } });

    const t = await syncedScenario(sc.make, { ...listOnly(), expectedType: undefined });
    t.lw.rewriteEvent = (e) =>
      e.type === "ADDED"
        ? [
            {
              type: "ADDED",
              object: { apiVersion: "meta.k8s.io/v1", kind: "Table", metadata: { resourceVersion: "1" } },
            },
            e,
          ]
        : [e];
    await t.create("y");
    await t.until(() => t.recording.items.has(`${NS}/y`), "the real event after the Table");
    expect(t.eventsOf("skipped-object")).toEqual([expect.objectContaining({ reason: "table" })]);
    expect(t.status().counts.skippedObjects).toBe(1);
    await t.converged();
  });

  it("stop: unsubscribing mid-LIST, mid-backoff, mid-watch or mid-watch-list closes the server watch and restarts nothing", async () => {
    for (const when of ["list", "backoff", "watch", "watch-list"] as const) {
      const s = await sc.make(when === "watch-list" ? {} : listOnly());
      await s.seed(3);
      if (when === "list") s.faults.latency({ ms: 5000, verbs: ["list"] });
      if (when === "backoff") s.faults.request({ type: "status", code: 500, verbs: ["list"] });
      if (when === "watch-list") s.faults.bookmarks("off");
      const sub = startRun(s.r);
      await s.clock.step(when === "backoff" ? 100 : 0);
      await flush();
      expect(s.status().phase).toBe(
        { list: "listing", backoff: "backing-off", watch: "watching", "watch-list": "watch-listing" }[when],
      );
      await sub.stop();
      expect(s.status().phase).toBe("stopped");
      await flush(); // the client's abort reaches the server one in-process I/O turn later (no clock movement)
      expect(s.sim.caches.watchers("configmaps")).toHaveLength(0);
      s.skipFinalConvergence = true;
      const requests = s.lw.requests.length;
      await s.clock.step(600_000); // nothing restarts (teardown then checks no timer is left once the engine stops)
      expect(s.lw.requests.length).toBe(requests);
      expect(s.status().phase).toBe("stopped");
    }
  });
});
