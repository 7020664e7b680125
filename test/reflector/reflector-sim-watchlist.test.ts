// The reflector's watch-list path (client-go.md §1E F22–F25, F30; §3 edge case 28), the truncated watch line, and
// the beyond-client-go options (bounded wait for the end bookmark, liveness deadline, resume from a persisted RV)
// against the in-process simulated apiserver, everything on one FakeClock.
import { type KubeObject, newInternalError, newResourceExpired } from "@informer-ts/apimachinery";
import { afterEach, describe, expect, it } from "vitest";
import { flush, isWatchList, NS, type Scenario, scenarios, syncedScenario } from "./kit-scenario.js";

const sc = scenarios();
afterEach(() => sc.stopAll());

const WATCH_LIST_OPTS = { allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" };

/** Starts a default (watch-list) reflector over `seed` ConfigMaps and lets the initial events flow. */
async function started(s: Scenario, seed = 4): Promise<void> {
  await s.seed(seed);
  await s.start();
  await s.until(() => s.lw.openWatches === 1, "the watch-list stream");
  await flush();
}

const storeOps = (s: Scenario) => s.recording.calls.filter((c) => c.op !== "updateResourceVersion").map((c) => c.op);

describe("reflector watch-list path against the sim-apiserver", () => {
  it("F22: the watch-list request has sendInitialEvents, NotOlderThan, bookmarks and a timeout; events go to a temporary store", async () => {
    const seen: string[] = [];
    const s = await sc.make({
      reflector: {
        transformer: (o: KubeObject) => {
          seen.push(o.metadata?.name ?? "");
          return { ...o, metadata: { ...o.metadata, labels: { transformed: "yes" } } };
        },
      },
    });
    s.faults.bookmarks("off"); // hold the end bookmark back
    await started(s);
    expect(s.lw.requests).toHaveLength(1);
    expect(s.lw.requests[0]!.opts).toEqual({ ...WATCH_LIST_OPTS, timeoutSeconds: 300 });
    expect(s.status()).toMatchObject({ phase: "watch-listing", hasSynced: false, counts: { events: 4 } });
    expect(storeOps(s)).toEqual([]); // the real store has seen nothing yet
    expect(seen).toEqual(["cm-00", "cm-01", "cm-02", "cm-03"]); // transformed inside the temporary store
    s.faults.bookmarks("on");
    await s.until(() => s.status().hasSynced, "end bookmark");
    expect([...s.recording.items.values()].every((o) => o.metadata?.labels?.transformed === "yes")).toBe(true);
  });

  it("F23: the annotated end bookmark replaces the store once at its RV, and the same stream carries later events", async () => {
    const s = await sc.make();
    await started(s);
    await s.until(() => s.status().hasSynced, "end bookmark");
    const rv = s.serverRV;
    expect(s.recording.calls.filter((c) => c.op === "replace")).toEqual([
      { op: "replace", keys: ["cm-00", "cm-01", "cm-02", "cm-03"].map((n) => `${NS}/${n}`), resourceVersion: rv },
    ]);
    expect(s.r.lastSyncResourceVersion()).toBe(rv);
    expect(s.eventsOf("watch-list-done")).toEqual([expect.objectContaining({ resourceVersion: rv, items: 4 })]);
    await s.create("late");
    await s.update("cm-00", "2");
    await s.converged();
    expect(s.lw.requests).toHaveLength(1);
    // The server saw one watch (still open, so not in the finished-request log) and no list.
    expect(s.sim.caches.watchers("configmaps")).toHaveLength(1);
    expect([s.served("watch"), s.served("list")]).toEqual([0, 0]);
    expect(storeOps(s)).toEqual(["replace", "add", "update"]);
    expect(s.status()).toMatchObject({ phase: "watching", counts: { watchLists: 1, watches: 0, lists: 0 } });
  });

  it("F24: a 429 backs off and retries the watch-list; Expired and too-large retry with RV ''; the RV is never dropped otherwise", async () => {
    const s = await sc.make({ reflector: { initialResourceVersion: "1000" } });
    s.faults.request({ type: "apf-429", verbs: ["watch"], count: 1, retryAfterSeconds: 1 });
    await started(s);
    await s.until(() => s.status().hasSynced, "sync");
    const wl = s.lw.requests.filter(isWatchList);
    // 429 at the start → backoff 0.8 s → RV 1000 is beyond the cache: 504 too large after the 3 s wait → RV "".
    expect(wl.map((r) => [r.opts.resourceVersion, r.outcome, r.at - wl[0]!.at])).toEqual([
      ["1000", 429, 0],
      ["1000", "ok", 800],
      [undefined, "ok", 3800],
    ]);
    expect(s.eventsOf("watch-end").map((e) => e.error?.code)).toEqual([504]);
    expect(s.status()).toMatchObject({ resourceVersionUnavailable: false, counts: { backoffs: 1, lists: 0 } });

    const e = await sc.make();
    e.lw.failNext.push({ verb: "watch", error: newResourceExpired("too old resource version") });
    await started(e);
    await e.until(() => e.status().hasSynced, "sync");
    expect(e.lw.requests.map((r) => r.outcome)).toEqual([410, "ok"]);
    expect(e.status()).toMatchObject({ lastError: { code: 410, during: "watch-list" }, counts: { backoffs: 0 } });
  });

  it("F24: a watch-list stream that ends without the end bookmark is retried at once, with no backoff, until it arrives", async () => {
    const s = await sc.make();
    s.faults.bookmarks("off");
    await started(s);
    await s.until(() => s.lw.requests.length === 3, "two retries", 1_000_000); // server timeouts at 300 s
    expect(s.lw.requests.map((r) => [isWatchList(r), r.at - s.lw.requests[0]!.at])).toEqual([
      [true, 0],
      [true, 300_000],
      [true, 600_000],
    ]);
    expect(s.status()).toMatchObject({ hasSynced: false, phase: "watch-listing", counts: { backoffs: 0, lists: 0 } });
    s.faults.bookmarks("on");
    await s.until(() => s.status().hasSynced, "sync");
    await s.converged();
  });

  it("F24: a watch-list that closes at once (very short) or ends with a 500 falls back to LIST within the same run", async () => {
    const s = await sc.make();
    await started(s, 0); // nothing to stream: the stream is idle until the end bookmark tick
    expect(s.faults.dropWatches()).toBe(1);
    await s.until(() => s.status().hasSynced, "LIST fallback");
    expect(s.lw.requests.map((r) => (isWatchList(r) ? "watch-list" : r.verb))).toEqual(["watch-list", "list", "watch"]);
    expect(s.lw.lists()[0]!.at).toBe(s.lw.requests[0]!.at); // no backoff before the fallback
    expect(s.status()).toMatchObject({
      lastError: { name: "VeryShortWatchError", during: "watch-list" },
      counts: { watchListFallbacks: 1, backoffs: 0 },
    });

    const e = await sc.make();
    e.faults.bookmarks("off");
    await started(e);
    e.lw.sendError(newInternalError("etcd cluster is unavailable").status);
    await e.until(() => e.status().hasSynced, "LIST fallback");
    expect(e.status()).toMatchObject({
      lastError: { code: 500, during: "watch-list" },
      counts: { watchListFallbacks: 1 },
    });
    expect(e.lw.lists()).toHaveLength(1);
  });

  it("F25: while the end bookmark is missing, a warning every 10 s says so", async () => {
    const s = await sc.make();
    s.faults.bookmarks("off");
    await started(s);
    await s.clock.step(20_000);
    expect(s.eventsOf("initial-events-end-warning").map((e) => e.message)).toEqual([
      "sim: hasn't received required bookmark event marking the end of initial events stream, received last event 10s ago",
      "sim: hasn't received required bookmark event marking the end of initial events stream, received last event 20s ago",
    ]);
    const empty = await sc.make();
    empty.faults.bookmarks("off");
    await started(empty, 0);
    await empty.clock.step(10_000);
    expect(empty.eventsOf("initial-events-end-warning").map((e) => e.message)).toEqual([
      "sim: awaiting required bookmark event for initial events stream, no events received for 10s",
    ]);
  });

  it("F30: the consistency detector compares the watch-list result with an Exact LIST and reports a mismatch", async () => {
    const ok = await sc.make({ reflector: { watchListConsistencyDetector: true } });
    await started(ok);
    await ok.until(() => ok.status().hasSynced, "sync");
    expect(ok.lw.lists().map((r) => r.opts)).toEqual([{ resourceVersion: ok.serverRV, resourceVersionMatch: "Exact" }]);
    expect(ok.eventsOf("consistency-mismatch")).toEqual([]);

    const bad = await sc.make({ reflector: { watchListConsistencyDetector: true } });
    // A proxy that loses one initial event.
    bad.lw.rewriteEvent = (e) => (e.type === "ADDED" && e.object.metadata?.name === "cm-02" ? [] : [e]);
    await started(bad);
    await bad.until(() => bad.status().hasSynced, "sync");
    expect(bad.eventsOf("consistency-mismatch")).toHaveLength(1);
    expect(bad.status().lastError).toMatchObject({ during: "consistency" });
    // Reported, not repaired (client-go panics instead): the store still lacks the lost object.
    expect(bad.convergence().violations).toEqual([expect.stringMatching(/^the store lacks default\/cm-02 /)]);
    bad.skipFinalConvergence = true;
  });

  it("28: priming is invisible to the store, a plain BOOKMARK does not end it, the annotated one replaces once; 422 falls back to LIST", async () => {
    const s = await sc.make();
    s.faults.bookmarks("off");
    await started(s);
    await s.create("during-priming");
    await flush();
    s.lw.sendEvent({
      type: "BOOKMARK",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: s.serverRV } },
    });
    await flush();
    expect(storeOps(s)).toEqual([]);
    expect(s.status()).toMatchObject({ hasSynced: false, counts: { bookmarks: 1, events: 6 } });
    s.faults.bookmarks("on");
    await s.until(() => s.status().hasSynced, "end bookmark");
    expect(storeOps(s)).toEqual(["replace"]);
    expect(s.recording.items.has(`${NS}/during-priming`)).toBe(true);
    await s.remove("cm-01");
    await s.converged();
    expect(storeOps(s)).toEqual(["replace", "delete"]);

    const old = await syncedScenario(sc.make, { watchList: false });
    expect(old.lw.requests.map((r) => [isWatchList(r) ? "watch-list" : r.verb, r.outcome])).toEqual([
      ["watch-list", 422],
      ["list", "ok"],
      ["watch", "ok"],
    ]);
    await old.converged();
  });

  it("F16 (truncated watch line, engine fault): the stream ends like an unexpected EOF, re-watch from the last RV with no relist", async () => {
    const s = await syncedScenario(sc.make, { reflector: { useWatchList: false } });
    s.faults.request({ type: "truncate-watch", verbs: ["watch"], count: 1, afterEvents: 1 });
    await s.clock.step(300_000); // the server ends the first watch; the re-watch carries the fault
    await s.until(() => s.lw.watches().length === 2, "re-watch");
    await s.create("a");
    await s.create("b"); // cut in the middle of its line
    await flush();
    await s.until(() => s.lw.watches().length === 3 && s.lw.openWatches === 1, "re-watch after the cut");
    expect(s.lw.watches()[2]!.opts.resourceVersion).toBe(String(Number(s.serverRV) - 1)); // the RV of "a"
    expect(s.eventsOf("watch-end")).toContainEqual(expect.objectContaining({ reason: "closed", events: 1 }));
    await s.converged();
    expect(s.status().counts).toMatchObject({ lists: 1, rewatches: { closed: 2 }, relists: { "internal-error": 0 } });
  });

  it("beyond client-go: initialEventsEndTimeout bounds the wait for a missing end bookmark and falls back to LIST (kubernetes#140890)", async () => {
    const s = await sc.make({ reflector: { initialEventsEndTimeout: 30_000 } });
    s.faults.bookmarks("off");
    await started(s);
    await s.until(() => s.status().hasSynced, "fallback sync");
    expect(s.lw.requests.map((r) => (isWatchList(r) ? "watch-list" : r.verb))).toEqual(["watch-list", "list", "watch"]);
    expect(s.lw.lists()[0]!.at - s.lw.requests[0]!.at).toBe(30_000);
    expect(s.status()).toMatchObject({
      lastError: { name: "InitialEventsEndTimeoutError", during: "watch-list" },
      counts: { watchListFallbacks: 1 },
    });
    await s.create("after");
    await s.converged();
  });

  it("beyond client-go: the liveness deadline keeps a quiet watch that gets bookmarks, and re-watches a silent one", async () => {
    const s = await syncedScenario(sc.make, {
      reflector: { useWatchList: false, minWatchTimeout: 1_800_000, watchLiveness: { bookmarkPeriod: 60_000 } },
    });
    // Lease-like writes elsewhere keep the global RV moving, so the server sends a bookmark every minute.
    for (let i = 0; i < 16; i++) {
      await s.sim.create("secrets", NS, { metadata: { name: `lease-${i}`, namespace: NS } });
      await s.clock.step(30_000);
    }
    expect(s.status().counts.bookmarks).toBeGreaterThanOrEqual(7);
    expect(s.status().counts.rewatches.inactive).toBe(0);
    // A proxy that stops forwarding anything: after 3 × 60 s of silence the reflector re-watches.
    s.lw.rewriteEvent = () => [];
    const watches = s.lw.watches().length;
    await s.clock.step(180_000);
    await flush();
    expect(s.status().counts.rewatches.inactive).toBe(1);
    expect(s.lw.watches().length).toBe(watches + 1);
    expect(s.lw.lists()).toHaveLength(1);
  });

  it('beyond client-go: initialResourceVersion resumes from a persisted RV (watch-list NotOlderThan it, no RV "" read)', async () => {
    const s = await sc.make({ reflector: { initialResourceVersion: "3" } });
    await started(s, 5);
    await s.until(() => s.status().hasSynced, "sync");
    expect(s.lw.requests.map((r) => r.opts)).toEqual([
      { ...WATCH_LIST_OPTS, resourceVersion: "3", timeoutSeconds: 300 },
    ]);
    expect(s.r.lastSyncResourceVersion()).toBe(s.serverRV);
    await s.converged();
  });
});
