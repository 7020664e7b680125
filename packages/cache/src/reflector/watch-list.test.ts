import {
  INITIAL_EVENTS_END_ANNOTATION,
  isResourceExpired,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newInvalid,
  newResourceExpired,
  newTooLargeResourceVersion,
  newTooManyRequests,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle, type Timer } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { metaNamespaceKeyFunc } from "../keys.js";
import type { ListerWatcher, Watch } from "../listwatch.js";
import { newStore } from "../store-impl.js";
import { FakeControllerSource, FakeWatch } from "../testing/fake-controller-source.js";
import { RecordingStore } from "../testing/recording-store.js";
import { runUntilSettled } from "../testing/run-until-settled.js";
import { startRun } from "../testing/start-run.js";
import { checkWatchListDataConsistency } from "./data-consistency-detector.js";
import { InitialEventsEndTimeoutError } from "./errors.js";
import { InitialEventsEndBookmarkTicker } from "./initial-events-end-bookmark-ticker.js";
import { silentLogger } from "./logger.js";
import { Reflector, type ReflectorOptions } from "./reflector.js";
import type { ReflectorEvent } from "./status.js";
import { ReflectorStatusTracker } from "./status.js";
import { handleAnyWatch } from "./watch.js";
import { WatchInterrupter } from "./watch-interrupter.js";

type Pod = KubeObject;
type Event = WatchEvent<Pod>;

function makePod(name: string, rv: string, extra: Record<string, unknown> = {}): Pod {
  return { metadata: { name, resourceVersion: rv, uid: name }, ...extra };
}

function endBookmark(rv: string, value = "true"): Event {
  return {
    type: "BOOKMARK",
    object: { metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: value } } },
  };
}

const WL: ListOptions = { sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: "NotOlderThan" };

function opts(clock: FakeClock, extra: ReflectorOptions<Pod> = {}): ReflectorOptions<Pod> {
  return { clock, rand: seededRand(3), logger: silentLogger, name: "wl", useWatchList: true, ...extra };
}

/** Strips `timeoutSeconds` after checking it is a positive integer (TestWatchList ignores its value). */
function withoutTimeout(calls: { kind: string; options: ListOptions }[]) {
  return calls.map(({ kind, options }) => {
    const { timeoutSeconds, ...rest } = options;
    if (kind === "watch") expect(Number.isInteger(timeoutSeconds) && (timeoutSeconds ?? 0) > 0).toBe(true);
    else expect(timeoutSeconds).toBeUndefined();
    return rest;
  });
}

interface ScriptedWatch {
  error?: unknown;
  events?: Event[];
  /** open: keep streaming; close: the server closes after the events; cancel: stop the reflector after them. */
  end?: "open" | "close" | "cancel";
}

/** client-go's `fakeListWatcher` for TestWatchList: one scripted answer per watch request. */
function scripted(clock: FakeClock, ac: AbortController, watches: ScriptedWatch[], list?: KubeList<Pod>) {
  const requests: { kind: string; options: ListOptions }[] = [];
  let watchCount = 0;
  let listCount = 0;
  const lw: ListerWatcher<Pod> = {
    async list(options) {
      listCount++;
      requests.push({ kind: "list", options: { ...options } });
      if (list === undefined) throw new Error("not implemented");
      return list;
    },
    async watch(options) {
      requests.push({ kind: "watch", options: { ...options } });
      const script = watches[watchCount++];
      if (script === undefined) {
        ac.abort();
        return new FakeWatch<Pod>();
      }
      if (script.error !== undefined) throw script.error;
      const w = new FakeWatch<Pod>(options);
      for (const e of script.events ?? []) w.push(e);
      if (script.end === "close") w.close();
      if (script.end === "cancel") clock.afterFunc(0, () => ac.abort());
      return w;
    },
  };
  return { lw, requests, counts: () => ({ watches: watchCount, lists: listCount }) };
}

describe("TestWatchList (F22–F24)", () => {
  interface Scenario {
    name: string;
    disableUseWatchList?: boolean;
    watches: ScriptedWatch[];
    list?: KubeList<Pod>;
    expectedRequestOptions: ListOptions[];
    expectedWatchRequests: number;
    expectedListRequests?: number;
    expectedStore: Pod[];
    expectedError?: (e: unknown) => boolean;
  }
  const p = makePod;
  const scenarios: Scenario[] = [
    {
      name: "the reflector won't be synced if the bookmark event has not been received",
      watches: [{ events: [{ type: "ADDED", object: p("p1", "1") }], end: "cancel" }],
      expectedRequestOptions: [WL],
      expectedWatchRequests: 1,
      expectedStore: [],
    },
    {
      name: "the reflector uses the old LIST/WATCH semantics if the UseWatchList is turned off",
      disableUseWatchList: true,
      list: { metadata: { resourceVersion: "1" }, items: [p("p1", "1")] },
      watches: [{ end: "cancel" }],
      expectedRequestOptions: [
        { resourceVersion: "0", limit: 500 },
        { allowWatchBookmarks: true, resourceVersion: "1" },
      ],
      expectedWatchRequests: 1,
      expectedListRequests: 1,
      expectedStore: [p("p1", "1")],
    },
    {
      name: "returning any other error than apierrors.NewInvalid forces fallback",
      list: { metadata: { resourceVersion: "1" }, items: [p("p1", "1")] },
      watches: [
        { error: new Error("dummy error") },
        { events: [{ type: "ADDED", object: p("p2", "2") }], end: "cancel" },
      ],
      expectedRequestOptions: [
        WL,
        { resourceVersion: "0", limit: 500 },
        { allowWatchBookmarks: true, resourceVersion: "1" },
      ],
      expectedWatchRequests: 2,
      expectedListRequests: 1,
      expectedStore: [p("p1", "1"), p("p2", "2")],
    },
    {
      name: "the reflector can fall back to old LIST/WATCH semantics when a server doesn't support streaming",
      list: { metadata: { resourceVersion: "1" }, items: [p("p1", "1")] },
      watches: [
        { error: newInvalid({ group: "", kind: "" }, "streaming is not allowed", []) },
        { events: [{ type: "ADDED", object: p("p2", "2") }], end: "cancel" },
      ],
      expectedRequestOptions: [
        WL,
        { resourceVersion: "0", limit: 500 },
        { allowWatchBookmarks: true, resourceVersion: "1" },
      ],
      expectedWatchRequests: 2,
      expectedListRequests: 1,
      expectedStore: [p("p1", "1"), p("p2", "2")],
    },
    {
      name: "prove that the reflector is synced after receiving a bookmark event",
      watches: [
        {
          events: [{ type: "ADDED", object: p("p1", "1") }, { type: "ADDED", object: p("p2", "2") }, endBookmark("2")],
          end: "cancel",
        },
      ],
      expectedRequestOptions: [WL],
      expectedWatchRequests: 1,
      expectedStore: [p("p1", "1"), p("p2", "2")],
    },
    {
      name: "check if Updates and Deletes events are propagated during streaming (until the bookmark is received)",
      watches: [
        {
          events: [
            { type: "ADDED", object: p("p1", "1") },
            { type: "ADDED", object: p("p2", "2") },
            { type: "MODIFIED", object: p("p1", "3", { spec: { activeDeadlineSeconds: 12 } }) },
            { type: "ADDED", object: p("p3", "4") },
            { type: "DELETED", object: p("p3", "5") },
            endBookmark("5"),
          ],
          end: "cancel",
        },
      ],
      expectedRequestOptions: [WL],
      expectedWatchRequests: 1,
      expectedStore: [p("p2", "2"), p("p1", "3", { spec: { activeDeadlineSeconds: 12 } })],
    },
    {
      name: "checks if the reflector retries 429",
      watches: [
        { error: newTooManyRequests("busy, check again later", 1) },
        { error: newTooManyRequests("busy, check again later", 1) },
        { events: [{ type: "ADDED", object: p("p1", "1") }, endBookmark("2")], end: "cancel" },
      ],
      expectedRequestOptions: [WL, WL, WL],
      expectedWatchRequests: 3,
      expectedStore: [p("p1", "1")],
    },
    {
      name: "check if stopping a watcher before sync results in creating a new watch-list request",
      watches: [
        { events: [{ type: "ADDED", object: p("p1", "1") }], end: "close" },
        { events: [{ type: "ADDED", object: p("p1", "1") }, endBookmark("1")], end: "cancel" },
      ],
      expectedRequestOptions: [WL, WL],
      expectedWatchRequests: 2,
      expectedStore: [p("p1", "1")],
    },
    {
      name: "stopping a watcher after synchronization results in creating a new watch request",
      watches: [
        {
          events: [
            { type: "ADDED", object: p("p1", "1") },
            { type: "ADDED", object: p("p2", "2") },
            endBookmark("2"),
            { type: "ADDED", object: p("p3", "3") },
          ],
          end: "close",
        },
        { events: [{ type: "ADDED", object: p("p4", "4") }], end: "cancel" },
      ],
      expectedRequestOptions: [WL, { allowWatchBookmarks: true, resourceVersion: "3" }],
      expectedWatchRequests: 2,
      expectedStore: [p("p1", "1"), p("p2", "2"), p("p3", "3"), p("p4", "4")],
    },
    {
      name: "expiring an established watcher results in returning an error from the reflector",
      watches: [
        {
          events: [{ type: "ADDED", object: p("p1", "1") }, endBookmark("2"), { type: "ADDED", object: p("p3", "3") }],
          end: "close",
        },
        { error: newResourceExpired("rv already expired") },
      ],
      expectedRequestOptions: [WL, { allowWatchBookmarks: true, resourceVersion: "3" }],
      expectedWatchRequests: 2,
      expectedStore: [p("p1", "1"), p("p3", "3")],
      expectedError: isResourceExpired,
    },
    {
      name: "prove that the reflector is checking the value of the initialEventsEnd annotation",
      watches: [
        {
          events: [
            { type: "ADDED", object: p("p1", "1") },
            { type: "ADDED", object: p("p2", "2") },
            endBookmark("2", "false"),
          ],
          end: "cancel",
        },
      ],
      expectedRequestOptions: [WL],
      expectedWatchRequests: 1,
      expectedStore: [],
    },
  ];

  for (const sc of scenarios) {
    it(sc.name, async () => {
      const clock = new FakeClock();
      const ac = new AbortController();
      const { lw, requests, counts } = scripted(clock, ac, sc.watches, sc.list);
      const store = newStore<Pod>(metaNamespaceKeyFunc);
      const r = new Reflector(lw, undefined, store, opts(clock, { useWatchList: !sc.disableUseWatchList }));
      let err: unknown;
      try {
        await runUntilSettled(clock, r.listAndWatch(ac.signal));
      } catch (e) {
        err = e;
      }
      if (sc.expectedError === undefined) expect(err).toBeUndefined();
      else expect(sc.expectedError(err)).toBe(true);
      expect(counts().watches).toBe(sc.expectedWatchRequests);
      expect(counts().lists).toBe(sc.expectedListRequests ?? 0);
      expect(withoutTimeout(requests)).toEqual(sc.expectedRequestOptions);
      const byName = (a: Pod, b: Pod) => String(a.metadata?.name).localeCompare(String(b.metadata?.name));
      expect([...store.list()].sort(byName)).toEqual([...sc.expectedStore].sort(byName));
    });
  }
});

describe("TestWatchListResourceVersion (F23)", () => {
  const cases: { name: string; events: Event[]; expected: string }[] = [
    { name: "empty resource version", events: [], expected: "" },
    {
      name: "empty resource version without bookmark event",
      events: [{ type: "ADDED", object: makePod("p1", "1") }],
      expected: "",
    },
    {
      name: "non empty resource version with bookmark event and initial events annotation",
      events: [{ type: "ADDED", object: makePod("p1", "1") }, endBookmark("2")],
      expected: "2",
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const clock = new FakeClock();
      const status = new ReflectorStatusTracker("wl", "t", clock, () => ({
        lastSyncResourceVersion: "",
        unavailable: false,
      }));
      const w = new FakeWatch<Pod>();
      for (const e of tc.events) w.push(e);
      const interrupter = new WatchInterrupter();
      clock.afterFunc(0, () => interrupter.fire({ reason: "stopped" }));
      let curRV = "";
      await runUntilSettled(
        clock,
        handleAnyWatch(
          { name: "wl", typeDescription: "t", expectedGVK: undefined, clock, logger: silentLogger, status },
          {
            start: clock.now(),
            watch: w,
            store: newStore(metaNamespaceKeyFunc),
            setLastSyncResourceVersion: (rv, besidesAdded) => {
              if (besidesAdded) curRV = rv;
            },
            exitOnInitialEventsEndBookmark: true,
            interrupter,
          },
        ),
      );
      expect(curRV).toBe(tc.expected);
    });
  }
});

describe("TestInitialEventsEndBookmarkTicker (F25)", () => {
  it("testing InitialEventsEndBookmarkTicker backed by a fake clock", async () => {
    const clock = new FakeClock();
    const status = new ReflectorStatusTracker("testName", "t", clock, () => ({
      lastSyncResourceVersion: "",
      unavailable: false,
    }));
    const ctx = { name: "testName", typeDescription: "t", expectedGVK: undefined, clock, logger: silentLogger, status };
    const target = new InitialEventsEndBookmarkTicker(ctx, clock.now(), 1000);
    const warnings: string[] = [];
    status.events.events$.subscribe((e) => {
      if (e.type === "initial-events-end-warning") warnings.push(e.message);
    });
    target.start();
    await clock.step(500);
    expect(warnings).toEqual([]);
    await clock.step(500);
    expect(warnings).toEqual([
      "testName: awaiting required bookmark event for initial events stream, no events received for 1s",
    ]);
    await clock.step(1000);
    expect(warnings[1]).toBe(
      "testName: awaiting required bookmark event for initial events stream, no events received for 2s",
    );
    target.observeLastEventTimeStamp(clock.now());
    await clock.step(500);
    expect(target.produceWarningIfExpired()).toBeUndefined();
    await clock.step(500);
    expect(warnings[2]).toBe(
      "testName: hasn't received required bookmark event marking the end of initial events stream, received last event 1s ago",
    );
    await clock.step(1000);
    expect(warnings[3]).toBe(
      "testName: hasn't received required bookmark event marking the end of initial events stream, received last event 2s ago",
    );
    target.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("F25: a reflector waiting for the bookmark warns every 10 s; the ticker is gone after sync", async () => {
    const clock = new FakeClock();
    const w = new FakeWatch<Pod>();
    const lw: ListerWatcher<Pod> = { list: async () => ({ metadata: {}, items: [] }), watch: async () => w };
    const r = new Reflector(lw, undefined, newStore(metaNamespaceKeyFunc), opts(clock));
    const warnings: ReflectorEvent[] = [];
    r.events$.subscribe((e) => {
      if (e.type === "initial-events-end-warning") warnings.push(e);
    });
    const sub = startRun(r);
    await clock.step(25_000);
    expect(warnings).toHaveLength(2);
    w.push(endBookmark("1"));
    await settle();
    expect(r.status().hasSynced).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    await sub.stop();
  });
});

describe("TestNewReflectorWithDisablementWatchList (F26)", () => {
  const saved = process.env.KUBE_FEATURE_WatchListClient;
  afterEach(() => {
    if (saved === undefined) delete process.env.KUBE_FEATURE_WatchListClient;
    else process.env.KUBE_FEATURE_WatchListClient = saved;
  });
  const base = { list: async () => ({ metadata: {}, items: [] }), watch: async () => new FakeWatch<Pod>() };
  const store = newStore<Pod>(metaNamespaceKeyFunc);
  it("WatchListClient off, client supports WatchList semantics", () => {
    expect(new Reflector(base, undefined, store, { name: "x", useWatchList: false }).useWatchList).toBe(false);
  });
  it("WatchListClient on (default), client supports WatchList semantics", () => {
    delete process.env.KUBE_FEATURE_WatchListClient;
    expect(new Reflector(base, undefined, store, { name: "x" }).useWatchList).toBe(true);
    expect(
      new Reflector({ ...base, watchListSemanticsUnsupported: false }, undefined, store, { name: "x" }).useWatchList,
    ).toBe(true);
  });
  it("WatchListClient on, client doesn't support the WatchList semantics", () => {
    const lw = { ...base, watchListSemanticsUnsupported: true };
    expect(new Reflector(lw, undefined, store, { name: "x", useWatchList: true }).useWatchList).toBe(false);
  });
  it("KUBE_FEATURE_WatchListClient=false turns it off by default; the option wins", () => {
    process.env.KUBE_FEATURE_WatchListClient = "false";
    expect(new Reflector(base, undefined, store, { name: "x" }).useWatchList).toBe(false);
    expect(new Reflector(base, undefined, store, { name: "x", useWatchList: true }).useWatchList).toBe(true);
  });
});

describe("F22–F24, edge case 28: watch-list against the fake source", () => {
  function source(clock: FakeClock, n = 3) {
    const src = new FakeControllerSource<Pod>({ clock });
    for (let i = 0; i < n; i++) src.add(makePod(`p${i}`, ""));
    return src;
  }

  it("28: events before the annotated bookmark are invisible to the store; Replace(temp, bookmarkRV) runs once; later events apply", async () => {
    const clock = new FakeClock();
    const w = new FakeWatch<Pod>();
    const lw: ListerWatcher<Pod> = { list: async () => ({ metadata: {}, items: [] }), watch: async () => w };
    const store = new RecordingStore<Pod>();
    const r = new Reflector(lw, undefined, store, opts(clock));
    const sub = startRun(r);
    await settle();
    w.push({ type: "ADDED", object: makePod("a", "5") });
    w.push({ type: "ADDED", object: makePod("b", "3") });
    w.push({ type: "BOOKMARK", object: { metadata: { resourceVersion: "6" } } });
    await settle();
    expect(store.calls).toEqual([]);
    expect(r.status().hasSynced).toBe(false);
    expect(r.status().phase).toBe("watch-listing");
    w.push(endBookmark("7"));
    w.push({ type: "MODIFIED", object: makePod("a", "8") });
    await settle();
    expect(store.calls[0]).toEqual({ op: "replace", keys: ["a", "b"], resourceVersion: "7" });
    expect(store.ops()).toEqual(["replace", "update", "updateResourceVersion"]);
    expect(r.lastSyncResourceVersion()).toBe("8");
    expect(r.status()).toMatchObject({ hasSynced: true, phase: "watching" });
    await sub.stop();
    expect(w.stopped).toBe(true);
  });

  it("28: a 422 from a server without WatchList falls back to LIST within the same run", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.watchListSupport = "invalid";
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(src, undefined, store, opts(clock));
    const events: string[] = [];
    r.events$.subscribe((e) => events.push(e.type));
    const sub = startRun(r);
    await settle();
    expect(store.listKeys().sort()).toEqual(["p0", "p1", "p2"]);
    expect(src.listCalls).toEqual([{ resourceVersion: "0", limit: 500 }]);
    expect(r.status().counts.watchListFallbacks).toBe(1);
    expect(r.status().lastError).toMatchObject({ code: 422, reason: "Invalid", during: "watch-list" });
    expect(events).toEqual([
      "started",
      "watch-list-start",
      "watch-list-fallback",
      "error",
      "list-start",
      "list-done",
      "watch-start",
    ]);
    await sub.stop();
    expect(src.openWatches).toBe(0);
  });

  it("28, F24: a stream that closes without the bookmark is retried at once (forever, no backoff)", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.watchListSupport = "ignored";
    // The fake sends the initial ADDED events but no bookmark, then the "proxy" cuts the stream after 2 s.
    const cuts: Timer[] = [];
    src.watchHook = () => {
      cuts.push(clock.afterFunc(2000, () => src.closeWatches()));
      return undefined;
    };
    const store = new RecordingStore<Pod>();
    const r = new Reflector(src, undefined, store, opts(clock));
    const sub = startRun(r);
    await clock.step(10_000);
    expect(src.watchCalls).toHaveLength(6);
    expect(src.watchCalls.every((o) => o.sendInitialEvents === true)).toBe(true);
    expect(src.listCalls).toEqual([]);
    expect(store.calls).toEqual([]);
    expect(r.status().counts.backoffs).toBe(0);
    await sub.stop();
    for (const t of cuts) t.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("F24 (faithful default, kubernetes#140890): a server that ignores sendInitialEvents leaves the reflector unsynced", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.watchListSupport = "ignored";
    const r = new Reflector(src, undefined, new RecordingStore<Pod>(), opts(clock));
    const sub = startRun(r);
    await clock.step(10 * 60_000);
    expect(r.status()).toMatchObject({ hasSynced: false, phase: "watch-listing" });
    expect(src.listCalls).toEqual([]);
    await sub.stop();
  });

  it("initialEventsEndTimeout (beyond client-go): no end bookmark within the bound → fall back to LIST", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.watchListSupport = "ignored";
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(src, undefined, store, opts(clock, { initialEventsEndTimeout: 30_000 }));
    const fallbacks: ReflectorEvent[] = [];
    r.events$.subscribe((e) => {
      if (e.type === "watch-list-fallback") fallbacks.push(e);
    });
    const sub = startRun(r);
    await clock.step(29_999);
    expect(src.listCalls).toEqual([]);
    await clock.step(1);
    expect(src.listCalls).toHaveLength(1);
    expect(store.listKeys().sort()).toEqual(["p0", "p1", "p2"]);
    expect(fallbacks).toHaveLength(1);
    expect(r.status().lastError).toMatchObject({ name: "InitialEventsEndTimeoutError", during: "watch-list" });
    // The watch-list stream was stopped; a plain watch follows the LIST.
    expect(src.watchCalls.map((o) => o.sendInitialEvents === true)).toEqual([true, false]);
    expect(src.openWatches).toBe(1);
    await sub.stop();
    expect(src.openWatches).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    expect(new InitialEventsEndTimeoutError("x", 5).message).toMatch(/^x: no initial-events-end bookmark after 5 ms/);
  });

  it("initialEventsEndTimeout also bounds the closed-without-bookmark retry loop", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.watchListSupport = "ignored";
    src.watchHook = (o) => {
      if (o.sendInitialEvents) clock.afterFunc(2000, () => src.closeWatches());
      return undefined;
    };
    const r = new Reflector(
      src,
      undefined,
      newStore<Pod>(metaNamespaceKeyFunc),
      opts(clock, { initialEventsEndTimeout: 5000 }),
    );
    const sub = startRun(r);
    await clock.step(5000);
    expect(src.watchCalls.filter((o) => o.sendInitialEvents)).toHaveLength(3);
    expect(src.listCalls).toHaveLength(1);
    expect(r.status().hasSynced).toBe(true);
    await sub.stop();
  });

  it("F24: Expired at watch-list start marks the RV unavailable and retries with RV ''", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.failNextWatch(newResourceExpired("too old"));
    const r = new Reflector(
      src,
      undefined,
      newStore<Pod>(metaNamespaceKeyFunc),
      opts(clock, { initialResourceVersion: "2" }),
    );
    const sub = startRun(r);
    await settle();
    expect(src.watchCalls.map((o) => o.resourceVersion)).toEqual(["2", undefined]);
    expect(r.status()).toMatchObject({ hasSynced: true, resourceVersionUnavailable: false });
    await sub.stop();
  });

  it("F24: too-large RV (an ERROR event during the stream) also retries with RV ''", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    let n = 0;
    src.watchHook = () => {
      n++;
      if (n === 1) clock.afterFunc(0, () => src.sendError(newTooLargeResourceVersion(99, 3, 1).status));
      return undefined;
    };
    src.watchListSupport = "ignored";
    const r = new Reflector(
      src,
      undefined,
      newStore<Pod>(metaNamespaceKeyFunc),
      opts(clock, { initialResourceVersion: "3" }),
    );
    const sub = startRun(r);
    await clock.step(0);
    src.watchListSupport = "supported";
    await clock.step(0);
    expect(src.watchCalls.map((o) => o.resourceVersion)).toEqual(["3", undefined]);
    await sub.stop();
  });

  it("F24: a 429 during watch-list backs off and retries; a very short watch falls back to LIST", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    src.failNextWatch(newTooManyRequests("busy", 1));
    let n = 0;
    src.watchHook = () => {
      n++;
      return undefined;
    };
    src.watchListSupport = "supported";
    const r = new Reflector(
      src,
      undefined,
      newStore<Pod>(metaNamespaceKeyFunc),
      opts(clock, { rand: { float: () => 0 } }),
    );
    const sub = startRun(r);
    await settle();
    expect(r.status().phase).toBe("backing-off");
    await clock.step(800);
    expect(r.status().hasSynced).toBe(true);
    expect(r.status().counts.backoffs).toBe(1);
    expect(n).toBe(2);
    await sub.stop();

    // Very short: closed at once with nothing.
    const clock2 = new FakeClock();
    const lw: ListerWatcher<Pod> & { lists: number } = {
      lists: 0,
      async list() {
        this.lists++;
        return { metadata: { resourceVersion: "1" }, items: [] };
      },
      async watch(o): Promise<Watch<Pod>> {
        const w = new FakeWatch<Pod>(o);
        if (o.sendInitialEvents) w.close();
        return w;
      },
    };
    const r2 = new Reflector(lw, undefined, newStore<Pod>(metaNamespaceKeyFunc), opts(clock2));
    const sub2 = startRun(r2);
    await settle();
    expect(lw.lists).toBe(1);
    expect(r2.status().lastError).toMatchObject({ name: "VeryShortWatchError", during: "watch-list" });
    await sub2.stop();
  });

  it("F22: the watch-list request carries the last RV with NotOlderThan once synced; '' after Expired", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    const r = new Reflector(
      src,
      undefined,
      newStore<Pod>(metaNamespaceKeyFunc),
      opts(clock, { rand: { float: () => 0 } }),
    );
    const sub = startRun(r);
    await settle();
    src.add(makePod("x", ""));
    await settle();
    expect(r.lastSyncResourceVersion()).toBe("4");
    src.sendError(newResourceExpired("compacted").status);
    await clock.step(800);
    expect(
      src.watchCalls.map((o) => [o.sendInitialEvents === true, o.resourceVersion, o.resourceVersionMatch]),
    ).toEqual([
      [true, undefined, "NotOlderThan"],
      [true, "4", "NotOlderThan"],
    ]);
    await sub.stop();
  });

  it("F23: the same stream is reused after the bookmark (no new watch request)", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(src, undefined, store, opts(clock));
    const sub = startRun(r);
    await settle();
    src.add(makePod("late", ""));
    src.delete(makePod("p0", ""));
    await settle();
    expect(src.watchCalls).toHaveLength(1);
    expect(store.listKeys().sort()).toEqual(["late", "p1", "p2"]);
    expect(r.status().counts).toMatchObject({ watchLists: 1, watches: 0, lists: 0 });
    await sub.stop();
  });

  it("F30: the consistency detector compares the watch-list result with an exact LIST; a mismatch is an event, not a crash", async () => {
    for (const tamper of [false, true]) {
      const clock = new FakeClock();
      const src = source(clock);
      const mismatches: ReflectorEvent[] = [];
      const origList = src.list.bind(src);
      src.listError = undefined;
      let failures = tamper ? 0 : 1;
      let calls = 0;
      src.list = async (o, s) => {
        calls++;
        if (failures-- > 0) throw new Error("transient");
        const l = await origList(o, s);
        if (tamper) l.items = l.items.slice(1);
        return l;
      };
      const store = newStore<Pod>(metaNamespaceKeyFunc);
      const r = new Reflector(src, undefined, store, opts(clock, { watchListConsistencyDetector: true }));
      r.events$.subscribe((e) => {
        if (e.type === "consistency-mismatch") mismatches.push(e);
      });
      const sub = startRun(r);
      await clock.step(1000);
      expect(src.listCalls.at(-1)).toEqual({ resourceVersion: "3", resourceVersionMatch: "Exact" });
      expect(calls).toBe(tamper ? 1 : 2);
      expect(mismatches).toHaveLength(tamper ? 1 : 0);
      expect(r.status().hasSynced).toBe(true);
      expect(store.listKeys()).toHaveLength(3);
      if (tamper) expect(r.status().lastError).toMatchObject({ during: "consistency" });
      await sub.stop();
      expect(clock.pendingTimers()).toBe(0);
    }
  });

  it("F30: the detector ignores item apiVersion/kind (LIST items of built-ins have none, watch objects have them)", async () => {
    const clock = new FakeClock();
    const details: string[] = [];
    const streamed = [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", uid: "1", resourceVersion: "5" } }];
    const run = (listed: Pod[]) =>
      checkWatchListDataConsistency<Pod>({
        identity: "d",
        resourceVersion: "5",
        list: async () => ({ metadata: { resourceVersion: "5" }, items: listed }),
        retrieveItems: () => streamed,
        clock,
        logger: silentLogger,
        signal: new AbortController().signal,
        onMismatch: (d) => details.push(d),
      });
    await run([{ metadata: { name: "a", uid: "1", resourceVersion: "5" } }]);
    expect(details).toEqual([]);
    await run([{ metadata: { name: "a", uid: "1", resourceVersion: "4" } }]);
    expect(details).toHaveLength(1);
  });

  it("resume from a persisted RV (beyond client-go): the first watch-list asks for data at least that new", async () => {
    const clock = new FakeClock();
    const src = source(clock);
    const r = new Reflector(
      src,
      undefined,
      newStore<Pod>(metaNamespaceKeyFunc),
      opts(clock, { initialResourceVersion: "2" }),
    );
    expect(r.lastSyncResourceVersion()).toBe("2");
    const sub = startRun(r);
    await settle();
    expect(src.watchCalls[0]).toMatchObject({ resourceVersion: "2", sendInitialEvents: true });
    expect(r.lastSyncResourceVersion()).toBe("3");
    await sub.stop();
  });
});
