import { getEventListeners } from "node:events";
import {
  failureStatus,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newForbidden,
  newInternalError,
  newResourceExpired,
  newTimeoutError,
  newTooManyRequests,
  StatusError,
} from "@informer-ts/apimachinery";
import { FakeClock, type Rand, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { takeEscapedRxjsErrors } from "../../../test/setup/rxjs-unhandled.js";
import { type Backoff, delayWithReset } from "./backoff.js";
import { newReflector } from "./deprecated.js";
import { metaNamespaceKeyFunc } from "./keys.js";
import type { ListerWatcher, Watch } from "./listwatch.js";
import {
  DEFAULT_EXPECTED_TYPE_NAME,
  defaultWatchErrorHandler,
  newNamespaceKeyedIndexerAndReflector,
  Reflector,
  type ReflectorInfo,
  type ReflectorOptions,
} from "./reflector.js";
import { isExpiredError, isTooLargeResourceVersionError, VeryShortWatchError } from "./reflector-errors.js";
import { type LogLevel, type ReflectorLogger, silentLogger } from "./reflector-logger.js";
import {
  noopReflectorMetricsProvider,
  reflectorMetricsProvider,
  setReflectorMetricsProvider,
} from "./reflector-metrics.js";
import { ReflectorStatusTracker } from "./reflector-status.js";
import { handleAnyWatch, isUnsupportedTableObject, WatchInterrupter } from "./reflector-watch.js";
import { newStore } from "./store-impl.js";
import { FakeWatch } from "./testing/fake-controller-source.js";
import { RecordingStore } from "./testing/recording-store.js";
import { runUntilSettled } from "./testing/run-until-settled.js";
import { startRun } from "./testing/start-run.js";

type Pod = KubeObject;

const POD_GVK = { apiVersion: "v1", kind: "Pod" } as const;

function pod(name: string, rv = "", extra: Partial<KubeObject> = {}): Pod {
  return { ...POD_GVK, metadata: { name, resourceVersion: rv }, ...extra };
}

function podList(rv: string, ...items: Pod[]): KubeList<Pod> {
  return { metadata: { resourceVersion: rv }, items };
}

function connRefused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" });
}

/** A ListerWatcher from two functions (client-go's `ListWatch{ListFunc, WatchFunc}`). */
function lwOf(
  list: (o: ListOptions) => Promise<KubeList<Pod>> | KubeList<Pod>,
  watch: (o: ListOptions, signal?: AbortSignal) => Promise<Watch<Pod>> | Watch<Pod>,
  extra: { watchListSemanticsUnsupported?: boolean } = {},
): ListerWatcher<Pod> & { listCalls: ListOptions[]; watchCalls: ListOptions[] } {
  const listCalls: ListOptions[] = [];
  const watchCalls: ListOptions[] = [];
  return {
    listCalls,
    watchCalls,
    ...extra,
    list: async (o) => {
      listCalls.push({ ...o });
      return list(o);
    },
    watch: async (o, signal) => {
      watchCalls.push({ ...o });
      return watch(o, signal);
    },
  };
}

/** Events pushed now into a new watch. */
function watchOf(...events: Parameters<FakeWatch<Pod>["push"]>[0][]): FakeWatch<Pod> {
  const w = new FakeWatch<Pod>();
  for (const e of events) w.push(e);
  return w;
}

interface Harness {
  clock: FakeClock;
  options: ReflectorOptions<Pod>;
}

function harness(extra: ReflectorOptions<Pod> = {}, rand: Rand = seededRand(7)): Harness {
  const clock = new FakeClock();
  return {
    clock,
    options: { clock, rand, logger: silentLogger, name: "test-reflector", useWatchList: false, ...extra },
  };
}

function capturingLogger(): ReflectorLogger & { lines: { level: LogLevel; message: string }[] } {
  const lines: { level: LogLevel; message: string }[] = [];
  return {
    lines,
    log(level, message) {
      lines.push({ level, message });
    },
  };
}

describe("reflector: upstream reflector_test.go", () => {
  it("TestCloseWatchChannelOnError (F14): an ERROR event ends the watch and stops it", async () => {
    const { clock, options } = harness();
    const fw = new FakeWatch<Pod>();
    const lw = lwOf(
      () => podList("1"),
      () => fw,
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    const ac = new AbortController();
    const done = r.listAndWatch(ac.signal);
    await settle();
    fw.push({ type: "ERROR", object: pod("bar") as never });
    await runUntilSettled(clock, done);
    expect(fw.stopped).toBe(true);
  });

  it("TestRunUntil (F4): stopping a run stops the watch and the loop", async () => {
    const { clock, options } = harness();
    const fw = new FakeWatch<Pod>();
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(
      lwOf(
        () => podList("1"),
        () => fw,
      ),
      pod(""),
      store,
      options,
    );
    const events: string[] = [];
    r.events$.subscribe((e) => events.push(e.type === "watch-end" ? `watch-end:${e.reason}` : e.type));
    const sub = startRun(r);
    await settle();
    fw.push({ type: "ADDED", object: pod("bar", "2") });
    await settle();
    expect(store.listKeys()).toEqual(["bar"]);
    await sub.stop();
    expect(fw.stopped).toBe(true);
    expect(r.status().phase).toBe("stopped");
    expect(events.slice(-2)).toEqual(["watch-end:stopped", "stopped"]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("TestReflectorResyncChan (F20): the resync timer fires after the resync period", async () => {
    const { clock, options } = harness({ resyncPeriod: 1 });
    const store = new RecordingStore<Pod>();
    const r = new Reflector(
      lwOf(
        () => podList("1"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      store,
      options,
    );
    const sub = startRun(r);
    await settle();
    expect(store.ops()).toEqual(["replace"]);
    await clock.step(1);
    expect(store.ops()).toEqual(["replace", "resync"]);
    await sub.stop();
  });

  it("TestReflectorWatchStoppedBefore: neither List nor Watch is called when already stopped", async () => {
    const { options } = harness();
    const lw = lwOf(
      () => {
        throw new Error("ListFunc called unexpectedly");
      },
      () => {
        throw new Error("WatchFunc called unexpectedly");
      },
    );
    const r = new Reflector(lw, undefined, newStore(metaNamespaceKeyFunc), options);
    const ac = new AbortController();
    ac.abort();
    await r.listAndWatch(ac.signal);
    expect(lw.listCalls).toEqual([]);
    expect(lw.watchCalls).toEqual([]);
  });

  it("TestReflectorWatchStoppedAfter: stopping after the watch started stops the watcher", async () => {
    const { clock, options } = harness();
    const ac = new AbortController();
    const watchers: FakeWatch<Pod>[] = [];
    const lw = lwOf(
      () => podList("1"),
      () => {
        clock.afterFunc(10, () => ac.abort());
        const w = new FakeWatch<Pod>();
        watchers.push(w);
        return w;
      },
    );
    const r = new Reflector(lw, undefined, newStore(metaNamespaceKeyFunc), options);
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(watchers).toHaveLength(1);
    expect(watchers[0]!.stopped).toBe(true);
  });

  describe("handleAnyWatch (TestReflectorHandleWatch*)", () => {
    function ctx(clock: FakeClock) {
      const status = new ReflectorStatusTracker("test-reflector", "v1/Pod", clock, () => ({
        lastSyncResourceVersion: "",
        unavailable: false,
      }));
      return {
        name: "test-reflector",
        typeDescription: "/v1, Kind=Pod",
        expectedGVK: POD_GVK,
        clock,
        logger: silentLogger,
        status,
      };
    }

    it("TestReflectorHandleWatchStoppedBefore: returns 'stopped' and stops the watch", async () => {
      const clock = new FakeClock();
      const w = new FakeWatch<Pod>();
      const interrupter = new WatchInterrupter();
      interrupter.fire({ reason: "stopped" });
      const result = await handleAnyWatch(ctx(clock), {
        start: clock.now(),
        watch: w,
        store: newStore(metaNamespaceKeyFunc),
        setLastSyncResourceVersion: () => {},
        exitOnInitialEventsEndBookmark: false,
        interrupter,
      });
      expect(result.end).toBe("stopped");
      expect(w.stopped).toBe(true);
    });

    it("TestReflectorHandleWatchStoppedAfter: a stop while waiting for events returns 'stopped'", async () => {
      const clock = new FakeClock();
      const w = new FakeWatch<Pod>();
      const interrupter = new WatchInterrupter();
      clock.afterFunc(10, () => interrupter.fire({ reason: "stopped" }));
      const p = handleAnyWatch(ctx(clock), {
        start: clock.now(),
        watch: w,
        store: newStore(metaNamespaceKeyFunc),
        setLastSyncResourceVersion: () => {},
        exitOnInitialEventsEndBookmark: false,
        interrupter,
      });
      const result = await runUntilSettled(clock, p);
      expect(result.end).toBe("stopped");
      expect(w.stopped).toBe(true);
    });

    it("TestReflectorHandleWatchResultChanClosedBefore (F17): a stream closed at once is a VeryShortWatchError", async () => {
      const clock = new FakeClock();
      const w = new FakeWatch<Pod>();
      w.close();
      const result = await handleAnyWatch(ctx(clock), {
        start: clock.now(),
        watch: w,
        store: newStore(metaNamespaceKeyFunc),
        setLastSyncResourceVersion: () => {},
        exitOnInitialEventsEndBookmark: false,
        interrupter: new WatchInterrupter(),
      });
      expect(result.end).toBe("very-short");
      expect(result.error).toBeInstanceOf(VeryShortWatchError);
      expect((result.error as Error).message).toBe(
        "very short watch: test-reflector: Unexpected watch close - watch lasted less than a second and no items received",
      );
    });

    it("TestReflectorHandleWatchResultChanClosedAfter (F17): closed after 10 ms with no events is very short", async () => {
      const clock = new FakeClock();
      const w = new FakeWatch<Pod>();
      clock.afterFunc(10, () => w.close());
      const p = handleAnyWatch(ctx(clock), {
        start: clock.now(),
        watch: w,
        store: newStore(metaNamespaceKeyFunc),
        setLastSyncResourceVersion: () => {},
        exitOnInitialEventsEndBookmark: false,
        interrupter: new WatchInterrupter(),
      });
      expect((await runUntilSettled(clock, p)).end).toBe("very-short");
    });

    it("TestReflectorWatchHandler (F14, edge 30): events update the store; a wrong GVK is skipped", async () => {
      const clock = new FakeClock();
      const s = newStore<Pod>(metaNamespaceKeyFunc);
      s.add(pod("foo"));
      s.add(pod("bar"));
      let lastRV = "";
      const interrupter = new WatchInterrupter();
      const w = watchOf(
        { type: "ADDED", object: { apiVersion: "v1", kind: "Service", metadata: { name: "rejected" } } },
        { type: "DELETED", object: pod("foo") },
        { type: "MODIFIED", object: pod("bar", "55") },
        { type: "ADDED", object: pod("baz", "32") },
      );
      const c = ctx(clock);
      const result = await handleAnyWatch(c, {
        start: clock.now(),
        watch: w,
        store: s,
        setLastSyncResourceVersion: (rv) => {
          lastRV = rv;
          if (rv === "32") interrupter.fire({ reason: "stopped" });
        },
        exitOnInitialEventsEndBookmark: false,
        interrupter,
      });
      expect(result.end).toBe("stopped");
      expect(result.events).toBe(3);
      expect(s.getByKey("foo")).toBeUndefined();
      expect(s.getByKey("rejected")).toBeUndefined();
      expect(s.getByKey("bar")?.metadata?.resourceVersion).toBe("55");
      expect(s.getByKey("baz")?.metadata?.resourceVersion).toBe("32");
      expect(lastRV).toBe("32");
      expect(c.status.counts.skippedObjects).toBe(1);
    });
  });

  describe("TestReflectorListAndWatch", () => {
    const events = [
      { type: "MODIFIED" as const, object: pod("foo", "2") },
      { type: "ADDED" as const, object: pod("bar", "3") },
      { type: "ADDED" as const, object: pod("baz", "4") },
      { type: "ADDED" as const, object: pod("qux", "5") },
      { type: "ADDED" as const, object: pod("zoo", "6") },
    ];
    const expectedStore = { foo: "2", bar: "3", baz: "4", qux: "5", zoo: "6" };

    async function run(useWatchList: boolean, first: Parameters<FakeWatch<Pod>["push"]>[0][]) {
      const { clock, options } = harness({ useWatchList });
      let lists = 0;
      const watchers: FakeWatch<Pod>[] = [];
      const lw = lwOf(
        () => {
          if (++lists > 1) throw new Error("Expected ListerWatcher.List to only be called once");
          return podList("1", pod("foo", "1"));
        },
        () => {
          if (watchers.length >= 1) throw new Error("Expected ListerWatcher.Watch to only be called once");
          const w = new FakeWatch<Pod>();
          watchers.push(w);
          return w;
        },
      );
      const store = newStore<Pod>(metaNamespaceKeyFunc);
      const r = new Reflector(lw, pod(""), store, options);
      const ac = new AbortController();
      const done = r.listAndWatch(ac.signal);
      await settle();
      for (const e of [...first, ...events]) watchers[0]!.push(e);
      await settle();
      ac.abort();
      await runUntilSettled(clock, done);
      const got = Object.fromEntries(store.list().map((o) => [o.metadata?.name, o.metadata?.resourceVersion]));
      return { got, lw };
    }

    it("UseWatchList enabled (F22, F23): watch-list then the same stream", async () => {
      const { got, lw } = await run(true, [
        { type: "ADDED", object: pod("foo", "1") },
        {
          type: "BOOKMARK",
          object: {
            ...POD_GVK,
            metadata: { name: "foo", resourceVersion: "1", annotations: { "k8s.io/initial-events-end": "true" } },
          },
        },
      ]);
      expect(got).toEqual(expectedStore);
      expect(lw.listCalls).toEqual([]);
      expect(lw.watchCalls).toEqual([
        {
          allowWatchBookmarks: true,
          sendInitialEvents: true,
          resourceVersionMatch: "NotOlderThan",
          timeoutSeconds: lw.watchCalls[0]!.timeoutSeconds,
        },
      ]);
    });

    it("UseWatchList disabled (F6, F7, F13): LIST at RV 0 with limit 500, then WATCH from the list RV", async () => {
      const { got, lw } = await run(false, []);
      expect(got).toEqual(expectedStore);
      expect(lw.listCalls).toEqual([{ resourceVersion: "0", limit: 500 }]);
      expect(lw.watchCalls).toEqual([
        { allowWatchBookmarks: true, resourceVersion: "1", timeoutSeconds: lw.watchCalls[0]!.timeoutSeconds },
      ]);
    });
  });

  it("TestReflectorListAndWatchWithErrors (F13): list and watch errors are returned; the store follows the lists", async () => {
    const mkList = (rv: string, ...pods: Pod[]) => podList(rv, ...pods);
    const table: {
      list?: KubeList<Pod>;
      listErr?: Error;
      events?: Parameters<FakeWatch<Pod>["push"]>[0][];
      watchErr?: Error;
    }[] = [
      {
        list: mkList("1"),
        events: [
          { type: "ADDED", object: pod("foo", "2") },
          { type: "ADDED", object: pod("bar", "3") },
        ],
      },
      {
        list: mkList("3", pod("foo", "2"), pod("bar", "3")),
        events: [
          { type: "DELETED", object: pod("foo", "4") },
          { type: "ADDED", object: pod("qux", "5") },
        ],
      },
      { listErr: new Error("a list error") },
      { list: mkList("5", pod("bar", "3"), pod("qux", "5")), watchErr: new Error("a watch error") },
      { list: mkList("5", pod("bar", "3"), pod("qux", "5")), events: [{ type: "ADDED", object: pod("baz", "6") }] },
      { list: mkList("6", pod("bar", "3"), pod("qux", "5"), pod("baz", "6")) },
    ];
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    for (const [line, item] of table.entries()) {
      if (item.list !== undefined) {
        const current = Object.fromEntries(s.list().map((o) => [o.metadata?.name, o.metadata?.resourceVersion]));
        const want = Object.fromEntries(item.list.items.map((o) => [o.metadata?.name, o.metadata?.resourceVersion]));
        expect(current, `line ${line}`).toEqual(want);
      }
      const { clock, options } = harness();
      const ac = new AbortController();
      let watchErr = item.watchErr;
      const lw = lwOf(
        () => {
          if (item.listErr !== undefined) throw item.listErr;
          return item.list!;
        },
        () => {
          if (watchErr !== undefined) throw watchErr;
          watchErr = new Error("second watch");
          const w = watchOf(...(item.events ?? []));
          clock.afterFunc(0, () => ac.abort());
          return w;
        },
      );
      const r = new Reflector(lw, pod(""), s, options);
      let err: unknown;
      try {
        await runUntilSettled(clock, r.listAndWatch(ac.signal));
      } catch (e) {
        err = e;
      }
      if (item.listErr !== undefined) expect((err as Error).cause).toBe(item.listErr);
      if (item.watchErr !== undefined) expect(err).toBe(item.watchErr);
      if (item.listErr === undefined && item.watchErr === undefined) expect(err).toBeUndefined();
    }
  });

  it("TestReflectorListAndWatchInitConnBackoff (F12): connection refused backs off exponentially", async () => {
    for (const numConnFails of [5, 40]) {
      const clock = new FakeClock();
      const backoff: Backoff = { duration: 1, cap: 50, steps: 1000, factor: 2, jitter: 1 };
      const seed = 99;
      const ac = new AbortController();
      let fails = numConnFails;
      const lw = lwOf(
        () => podList("1"),
        () => {
          if (fails > 0) {
            fails--;
            throw connRefused();
          }
          ac.abort();
          return new FakeWatch<Pod>();
        },
      );
      const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), {
        clock,
        rand: seededRand(seed),
        logger: silentLogger,
        useWatchList: false,
        backoff,
        backoffResetInterval: 100,
      });
      const start = clock.now();
      await runUntilSettled(clock, r.listAndWatch(ac.signal));
      const elapsed = clock.since(start);
      // Model: the same delay function on its own clock, stepped by each delay. The reflector draws one
      // watch-timeout random number before each watch request, then one jitter number per backoff.
      const modelClock = new FakeClock(start);
      const modelRand = seededRand(seed);
      const modelDelay = delayWithReset(backoff, modelClock, 100, {
        float: () => {
          modelRand.float();
          return modelRand.float();
        },
      });
      for (let i = 0; i < numConnFails; i++) await modelClock.step(modelDelay());
      expect(elapsed).toBe(modelClock.since(start));
      if (numConnFails === 5) {
        expect(elapsed).toBeGreaterThanOrEqual(31);
        expect(elapsed).toBeLessThan(62);
      }
      expect(r.status().counts.rewatches["connection-refused"]).toBe(numConnFails);
      expect(lw.listCalls).toHaveLength(1);
    }
  });

  it("TestNewReflectorWithCustomBackoff (F2): a custom backoff replaces the default", async () => {
    const { clock } = harness();
    const ac = new AbortController();
    let fails = 5;
    const lw = lwOf(
      () => podList("1"),
      () => {
        if (fails-- > 0) throw connRefused();
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), {
      clock,
      logger: silentLogger,
      useWatchList: false,
      backoff: { duration: 10, factor: 2, jitter: 0, steps: 100, cap: 100 },
    });
    const start = clock.now();
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(clock.since(start)).toBe(250);
  });

  it("TestBackoffOnTooManyRequests (F12, F18): a 429 at watch start and as an ERROR event both back off", async () => {
    const { clock, options } = harness();
    let calls = 0;
    const tooMany = newTooManyRequests("too many requests", 1);
    const lw = lwOf(
      () => podList("1"),
      () => {
        calls++;
        if (calls === 1) throw tooMany;
        if (calls === 2) {
          const w = watchOf({ type: "ERROR", object: tooMany.status });
          w.close();
          return w;
        }
        const w = new FakeWatch<Pod>();
        w.stop();
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    await runUntilSettled(clock, r.listAndWatch(new AbortController().signal));
    expect(r.status().counts.backoffs).toBe(2);
    expect(r.status().counts.rewatches["too-many-requests"]).toBe(2);
  });

  it("TestNoRelistOnTooManyRequests (F12): 429s re-watch without relisting", async () => {
    const { clock, options } = harness();
    const lw = lwOf(
      () => podList("1"),
      () => {
        if (lw.watchCalls.length < 5) throw newTooManyRequests("too many requests", 1);
        const w = new FakeWatch<Pod>();
        w.stop();
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    await runUntilSettled(clock, r.listAndWatch(new AbortController().signal));
    expect(lw.listCalls).toHaveLength(1);
    expect(lw.watchCalls).toHaveLength(5);
    expect(lw.watchCalls.every((o) => o.resourceVersion === "1")).toBe(true);
  });

  describe("TestRetryInternalError (F18, F19)", () => {
    const cases = [
      { name: "retries off", maxInternalDuration: 0, rewindTime: 0, wantRetries: 0 },
      { name: "retries on, all calls fail", maxInternalDuration: 30_000, rewindTime: 0, wantRetries: 31 },
      { name: "retries on, one call successful", maxInternalDuration: 30_000, rewindTime: 10, wantRetries: 40 },
    ];
    for (const tc of cases) {
      it(tc.name, async () => {
        const { clock, options } = harness({ maxInternalErrorRetryDuration: tc.maxInternalDuration });
        const err = newInternalError("etcdserver: no leader");
        let counter = 0;
        const lw = lwOf(
          () => podList("1"),
          async () => {
            counter++;
            if (counter === tc.rewindTime) await clock.step(60_000);
            await clock.step(1000);
            const w = watchOf({ type: "ERROR", object: err.status });
            w.close();
            return w;
          },
        );
        const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
        await runUntilSettled(clock, r.listAndWatch(new AbortController().signal));
        expect(counter - 1).toBe(tc.wantRetries);
        expect(r.status().counts.rewatches["internal-error"]).toBe(tc.wantRetries);
      });
    }
  });

  it("TestReflectorResync (F20): a failing resync ends the watch without an error from listAndWatch", async () => {
    const { clock, options } = harness({ resyncPeriod: 1 });
    let iteration = 0;
    const store = new RecordingStore<Pod>();
    store.failOn = (op) => {
      if (op !== "resync") return undefined;
      iteration++;
      return iteration === 2 ? new Error("expected resync reached") : undefined;
    };
    const r = new Reflector(
      lwOf(
        () => podList("0"),
        () => new FakeWatch<Pod>(),
      ),
      pod(""),
      store,
      options,
    );
    await runUntilSettled(clock, r.listAndWatch(new AbortController().signal));
    expect(iteration).toBe(2);
    expect(r.status().lastError).toMatchObject({ during: "resync", message: "expected resync reached" });
  });

  it("TestReflectorWatchListPageSize (F7): WatchListPageSize paginates even non-consistent reads", async () => {
    const { clock, options } = harness({ watchListPageSize: 4, initialResourceVersion: "10" });
    const pods = Array.from({ length: 10 }, (_, i) => pod(`pod-${i}`, String(i)));
    const ac = new AbortController();
    const lw = lwOf(
      (o) => {
        if (o.limit !== 4) throw new Error(`Expected list Limit of 4 but got ${o.limit}`);
        if (!o.continue) return { metadata: { resourceVersion: "10", continue: "C1" }, items: pods.slice(0, 4) };
        if (o.continue === "C1")
          return { metadata: { resourceVersion: "10", continue: "C2" }, items: pods.slice(4, 8) };
        return { metadata: { resourceVersion: "10" }, items: pods.slice(8) };
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    await runUntilSettled(clock, new Reflector(lw, pod(""), s, options).listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(10);
  });

  it("TestReflectorNotPaginatingNotConsistentReads (F7): an RV other than ''/'0' lists without limit", async () => {
    const { clock, options } = harness({ initialResourceVersion: "10" });
    const ac = new AbortController();
    const lw = lwOf(
      (o) => {
        if (o.resourceVersion !== "10") throw new Error(`Expected ResourceVersion "10", got ${o.resourceVersion}`);
        if (o.limit !== undefined) throw new Error(`Expected no list Limit but got ${o.limit}`);
        return podList("10", ...Array.from({ length: 10 }, (_, i) => pod(`pod-${i}`, String(i))));
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    await runUntilSettled(clock, new Reflector(lw, pod(""), s, options).listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(10);
  });

  it("TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled (F8): a paginated RV-0 answer latches paging", async () => {
    const { clock, options } = harness();
    const pods = Array.from({ length: 10 }, (_, i) => pod(`pod-${i}`, String(i)));
    let ac = new AbortController();
    const lw = lwOf(
      (o) => {
        if (o.limit !== 500) throw new Error(`Expected list Limit of 500 but got ${o.limit}`);
        if (!o.continue) return { metadata: { resourceVersion: "10", continue: "C1" }, items: pods.slice(0, 4) };
        if (o.continue === "C1")
          return { metadata: { resourceVersion: "10", continue: "C2" }, items: pods.slice(4, 8) };
        return { metadata: { resourceVersion: "10" }, items: pods.slice(8) };
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(lw, pod(""), s, options);
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(10);
    ac = new AbortController();
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(10);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual(["0", undefined, undefined, "10", undefined, undefined]);
  });

  it("TestReflectorResyncWithResourceVersion (F6): a relist uses the last synced RV", async () => {
    const { clock, options } = harness();
    const pods = Array.from({ length: 8 }, (_, i) => pod(`pod-${i}`, String(i)));
    let ac = new AbortController();
    const lw = lwOf(
      (o) => {
        if (o.resourceVersion === "0") return podList("10", ...pods.slice(0, 4));
        if (o.resourceVersion === "10") return podList("11", ...pods);
        throw new Error(`Unrecognized ResourceVersion: ${o.resourceVersion}`);
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(lw, pod(""), s, options);
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(4);
    ac = new AbortController();
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(8);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual(["0", "10"]);
  });

  it("TestReflectorExpiredExactResourceVersion (F9): an expired RV is retried with '' in the same call", async () => {
    const { clock, options } = harness();
    const pods = Array.from({ length: 8 }, (_, i) => pod(`pod-${i}`, String(i)));
    let ac = new AbortController();
    const lw = lwOf(
      (o) => {
        if (o.resourceVersion === "0") return podList("10", ...pods.slice(0, 4));
        if (o.resourceVersion === "10")
          throw newResourceExpired("The resourceVersion for the provided watch is too old.");
        if (o.resourceVersion === "" || o.resourceVersion === undefined) return podList("11", ...pods);
        throw new Error(`Unrecognized ResourceVersion: ${o.resourceVersion}`);
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(lw, pod(""), s, options);
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(4);
    ac = new AbortController();
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(8);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual(["0", "10", ""]);
    expect(r.status().resourceVersionUnavailable).toBe(false);
  });

  it("TestReflectorFullListIfExpired (P3, F9): an expired continue page falls back to a full list at the RV", async () => {
    const { clock, options } = harness({ watchListPageSize: 4 });
    const pods = Array.from({ length: 8 }, (_, i) => pod(`pod-${i}`, String(i)));
    let ac = new AbortController();
    const lw = lwOf(
      (o) => {
        const key = `${o.resourceVersion ?? ""}|${o.continue ?? ""}|${o.limit ?? 0}`;
        switch (key) {
          case "0||4":
            return podList("10", ...pods.slice(0, 4));
          case "10||4":
            return { metadata: { continue: "C1", resourceVersion: "11" }, items: pods.slice(0, 4) };
          case "|C1|4":
            throw newResourceExpired("The resourceVersion for the provided watch is too old.");
          case "10||0":
            return podList("11", ...pods);
          default:
            throw new Error(`unexpected list options: ${JSON.stringify(o)}`);
        }
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc);
    const r = new Reflector(lw, pod(""), s, options);
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(4);
    ac = new AbortController();
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    expect(s.list()).toHaveLength(8);
    expect(lw.listCalls.map((o) => o.resourceVersion ?? "")).toEqual(["0", "10", "", "10"]);
  });

  it("TestReflectorFullListIfTooLarge (F9, F11): every too-large variant relists from etcd with ''", async () => {
    const { clock, options } = harness();
    let version = 30;
    let ac = new AbortController();
    const lw = lwOf(
      (o) => {
        const rv = o.resourceVersion ?? "";
        switch (rv) {
          case "0":
            return podList("20");
          case "20": {
            const e = newTimeoutError("too large resource version", 1);
            e.status.details = { ...e.status.details, causes: [{ reason: "ResourceVersionTooLarge" }] };
            throw e;
          }
          case "30": {
            const e = newTimeoutError("too large resource version", 1);
            e.status.details = { ...e.status.details, causes: [{ message: "Too large resource version" }] };
            throw e;
          }
          case "40":
            throw newTimeoutError("Too large resource version", 1);
          case "": {
            const current = String(version);
            version += 10;
            return podList(current);
          }
          default:
            throw new Error(`unexpected List call: ${rv}`);
        }
      },
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    await runUntilSettled(clock, r.listAndWatch(ac.signal));
    for (let i = 1; i <= 3; i++) {
      ac = new AbortController();
      await runUntilSettled(clock, r.listAndWatch(ac.signal));
    }
    expect(lw.listCalls.map((o) => o.resourceVersion ?? "")).toEqual(["0", "20", "", "30", "", "40", ""]);
  });

  describe("TestGetTypeDescriptionFromObject / TestGetExpectedGVKFromObject (F28)", () => {
    const lw = lwOf(
      () => podList("1"),
      () => new FakeWatch<Pod>(),
    );
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    it("Nil type", () => {
      expect(new Reflector(lw, undefined, store, { name: "x" }).typeDescription).toBe(DEFAULT_EXPECTED_TYPE_NAME);
    });
    it("Object type with a kind only", () => {
      expect(new Reflector(lw, { kind: "Pod" }, store, { name: "x" }).typeDescription).toBe("Pod");
    });
    it("Object without GVK", () => {
      expect(new Reflector(lw, {}, store, { name: "x" }).typeDescription).toBe("Object");
    });
    it("Object with GVK", () => {
      const r = new Reflector(lw, { apiVersion: "mygroup/v1", kind: "MyKind" }, store, { name: "x" });
      expect(r.typeDescription).toBe("mygroup/v1, Kind=MyKind");
      expect(new Reflector(lw, POD_GVK, store, { name: "x" }).typeDescription).toBe("/v1, Kind=Pod");
    });
    it("F28: an explicit TypeDescription wins", () => {
      expect(new Reflector(lw, POD_GVK, store, { name: "x", typeDescription: "pods" }).typeDescription).toBe("pods");
    });
    it("F28: the default name is the caller's file:line outside the cache package", () => {
      const r = newReflector(lw, undefined, store, 0);
      expect(r.name).toMatch(/^reflector\.test\.ts:\d+$/);
    });
  });

  describe("TestWatchTimeout (F1)", () => {
    const cases = [
      { name: "no timeout", minWatchTimeout: 0, expectedMin: 300 },
      { name: "small timeout not honored", minWatchTimeout: 1000, expectedMin: 300 },
      { name: "30m timeout", minWatchTimeout: 30 * 60_000, expectedMin: 1800 },
    ];
    for (const tc of cases) {
      it(tc.name, async () => {
        for (const r of [0, 0.5, 0.999_999]) {
          const { clock, options } = harness({ minWatchTimeout: tc.minWatchTimeout }, { float: () => r });
          const ac = new AbortController();
          const lw = lwOf(
            () => podList("10"),
            () => {
              ac.abort();
              return new FakeWatch<Pod>();
            },
          );
          await runUntilSettled(
            clock,
            new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options).listAndWatch(ac.signal),
          );
          const got = lw.watchCalls[0]!.timeoutSeconds!;
          expect(Number.isInteger(got)).toBe(true);
          expect(got).toBe(Math.trunc(tc.expectedMin + r * tc.expectedMin));
          expect(got).toBeGreaterThanOrEqual(tc.expectedMin);
          expect(got).toBeLessThan(2 * tc.expectedMin);
        }
      });
    }
  });

  it("TestReflectorResourceVersionUpdate (F15): a ResourceVersionUpdater store hears every event RV", async () => {
    const { clock, options } = harness();
    const s = new RecordingStore<Pod>();
    const ac = new AbortController();
    const fw = new FakeWatch<Pod>();
    const lw = lwOf(
      () => podList("10"),
      () => fw,
    );
    const r = new Reflector(lw, pod(""), s, options);
    const done = r.listAndWatch(ac.signal);
    await settle();
    fw.push({ type: "ADDED", object: pod("a", "10") });
    fw.push({ type: "MODIFIED", object: pod("a", "20") });
    fw.push({ type: "BOOKMARK", object: pod("", "30") });
    fw.push({ type: "DELETED", object: pod("a", "40") });
    await settle();
    ac.abort();
    await runUntilSettled(clock, done);
    const rvs = s.calls.flatMap((c) => (c.op === "updateResourceVersion" ? [c.resourceVersion] : []));
    expect(rvs).toEqual(["10", "20", "30", "40"]);
    expect(s.ops()).toEqual([
      "replace",
      "add",
      "updateResourceVersion",
      "update",
      "updateResourceVersion",
      "bookmark",
      "updateResourceVersion",
      "delete",
      "updateResourceVersion",
    ]);
  });

  it("TestReflectorListExtract (P5, §4 memory): with copyListItems the store holds detached copies; by default the response's objects", async () => {
    const { clock, options } = harness();
    const response = podList("5", pod("a", "1"), pod("b", "2"));
    const sync = async (copyListItems: boolean | undefined) => {
      const ac = new AbortController();
      const lw = lwOf(
        () => response,
        () => {
          ac.abort();
          return new FakeWatch<Pod>();
        },
      );
      const s = newStore<Pod>(metaNamespaceKeyFunc);
      const opts = copyListItems === undefined ? options : { ...options, copyListItems };
      await runUntilSettled(clock, new Reflector(lw, pod(""), s, opts).listAndWatch(ac.signal));
      return s;
    };
    const copied = await sync(true);
    expect(copied.getByKey("a")).toEqual(response.items[0]);
    expect(copied.getByKey("a")).not.toBe(response.items[0]);
    expect(copied.getByKey("a")!.metadata).not.toBe(response.items[0]!.metadata);
    const shared = await sync(undefined);
    expect(shared.getByKey("a")).toBe(response.items[0]);
    expect(shared.getByKey("b")).toBe(response.items[1]);
    // the response itself is not modified
    expect(response.items.map((p) => p.metadata?.name)).toEqual(["a", "b"]);
  });

  it("TestReflectorReplacesStoreOnUnsafeDelete (F18): a 500 ERROR event leads to a relist that drops the corrupt object", async () => {
    const { clock, options } = harness();
    const pods = [pod("foo-1", "1"), pod("foo-2", "2"), pod("foo-3", "3")];
    const lists = [podList("3", ...pods), podList("5", ...pods)];
    let first = true;
    const lw = lwOf(
      () => lists.shift() ?? podList("5", ...pods),
      () => {
        const w = new FakeWatch<Pod>();
        if (first) {
          first = false;
          w.push({ type: "ADDED", object: pod("foo", "4") });
          w.push({
            type: "ERROR",
            object: failureStatus(
              500,
              "InternalError",
              "failed to prepare current and previous objects: corrupt object has been deleted",
            ),
          });
        }
        return w;
      },
    );
    const store = new RecordingStore<Pod>();
    const r = new Reflector(lw, pod(""), store, options);
    const sub = startRun(r);
    for (let i = 0; i < 50 && r.lastSyncResourceVersion() !== "5"; i++) await clock.step(1000);
    expect(r.lastSyncResourceVersion()).toBe("5");
    expect(store.keys()).toEqual(["foo-1", "foo-2", "foo-3"]);
    const replaces = store.calls.filter((c) => c.op === "replace");
    expect(replaces.map((c) => (c.op === "replace" ? c.resourceVersion : ""))).toEqual(["3", "5"]);
    expect(r.status().counts.relists["internal-error"]).toBe(1);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("TestReflectorRespectStoreTransformer (F22, S9): the watch-list temporary store applies the transformer", async () => {
    const { clock, options } = harness({ useWatchList: true });
    let invoked = 0;
    const transformer = (o: Pod): Pod => {
      invoked++;
      return { ...o, spec: { hostname: "transformed" } };
    };
    const events = [
      {
        type: "ADDED" as const,
        object: pod("foo-1", "1", { metadata: { namespace: "ns", name: "foo-1", resourceVersion: "1" } }),
      },
      {
        type: "ADDED" as const,
        object: pod("foo-2", "2", { metadata: { namespace: "ns", name: "foo-2", resourceVersion: "2" } }),
      },
      {
        type: "BOOKMARK" as const,
        object: {
          ...POD_GVK,
          metadata: { resourceVersion: "3", annotations: { "k8s.io/initial-events-end": "true" } },
        },
      },
      {
        type: "ADDED" as const,
        object: pod("foo-3", "3", { metadata: { namespace: "ns", name: "foo-3", resourceVersion: "3" } }),
      },
    ];
    const lw = lwOf(
      () => {
        throw new Error("list call not expected in WatchList mode");
      },
      () => watchOf(...events),
    );
    const s = newStore<Pod>(metaNamespaceKeyFunc, { transformer });
    const r = new Reflector(lw, pod(""), s, { ...options, transformer });
    const sub = startRun(r);
    await settle();
    expect(r.lastSyncResourceVersion()).toBe("3");
    expect(s.list()).toHaveLength(3);
    for (const o of s.list()) expect((o.spec as { hostname: string }).hostname).toBe("transformed");
    // Twice in the temporary store, twice on replace, once for the following add.
    expect(invoked).toBe(5);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("TestReflectorRespectStoreTransformer: the transformer is found on a TransformingStore (a transformer() method)", async () => {
    const { options } = harness({ useWatchList: true });
    let invoked = 0;
    const transformer = (o: Pod): Pod => {
      invoked++;
      return o;
    };
    class TransformingRecordingStore extends RecordingStore<Pod> {
      transformer() {
        return transformer;
      }
    }
    const lw = lwOf(
      () => podList("1"),
      () =>
        watchOf(
          { type: "ADDED", object: pod("a", "1") },
          {
            type: "BOOKMARK",
            object: {
              ...POD_GVK,
              metadata: { resourceVersion: "2", annotations: { "k8s.io/initial-events-end": "true" } },
            },
          },
        ),
    );
    const r = new Reflector(lw, pod(""), new TransformingRecordingStore(), options);
    const sub = startRun(r);
    await settle();
    expect(invoked).toBe(1);
    await sub.stop();
    // A plain store's own `transformer` field is not mistaken for the method.
    let plainCalls = 0;
    const plain = newStore<Pod>(metaNamespaceKeyFunc, {
      transformer: (o) => {
        plainCalls++;
        return o;
      },
    });
    const r2 = new Reflector(lw, pod(""), plain, { ...options, name: "plain" });
    const sub2 = startRun(r2);
    await settle();
    expect(plainCalls).toBe(1); // only the store's own replace
    await sub2.stop();
  });

  it("TestIsUnsupportedTableObject (edge 30)", () => {
    expect(isUnsupportedTableObject({ apiVersion: "meta.k8s.io/v1", kind: "Table" })).toBe(true);
    expect(isUnsupportedTableObject({ apiVersion: "meta.k8s.io/v1beta1", kind: "Table" })).toBe(true);
    expect(isUnsupportedTableObject({ apiVersion: "example.com/v1", kind: "Table" })).toBe(false);
    expect(isUnsupportedTableObject({ apiVersion: "meta.k8s.io/v1", kind: "Pod" })).toBe(false);
    expect(isUnsupportedTableObject(null)).toBe(false);
  });

  it("newNamespaceKeyedIndexerAndReflector: an indexer with the namespace index fed by a reflector", async () => {
    const ac = new AbortController();
    const lw = lwOf(
      () => podList("3", { metadata: { name: "a", namespace: "x", resourceVersion: "1" } }),
      () => {
        ac.abort();
        return new FakeWatch<Pod>();
      },
      { watchListSemanticsUnsupported: true },
    );
    const { indexer, reflector } = newNamespaceKeyedIndexerAndReflector(lw, undefined, 0);
    expect(reflector.name).toMatch(/reflector\.test\.ts/);
    reflector.watchErrorHandler = () => {};
    await reflector.listAndWatch(ac.signal);
    expect(indexer.byIndex("namespace", "x").map((o) => o.metadata?.name)).toEqual(["a"]);
  });
});

describe("reflector: F rows", () => {
  it("F4: the run loop always waits one backoff delay between listAndWatch runs, even after a clean return", async () => {
    const { clock, options } = harness({}, { float: () => 0 });
    const listTimes: number[] = [];
    const lw = lwOf(
      () => {
        listTimes.push(clock.now());
        return podList("1");
      },
      () => {
        // Each watch ends with 410, so listAndWatch returns without an error.
        const w = watchOf({ type: "ERROR", object: newResourceExpired("too old").status });
        w.close();
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    const handled: unknown[] = [];
    r.watchErrorHandler = (_r, e) => handled.push(e);
    const sub = startRun(r);
    await clock.step(800 + 1600 + 3200);
    const t0 = listTimes[0]!;
    expect(listTimes.map((t) => t - t0)).toEqual([0, 800, 2400, 5600]);
    expect(handled).toEqual([]);
    expect(r.status().counts.relists.expired).toBe(4);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("F6: relistResourceVersion progression '0' → lastSyncRV → '' after Expired", async () => {
    const { clock, options } = harness();
    const r = new Reflector(
      lwOf(
        () => podList("7"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      options,
    );
    expect(r.relistResourceVersion()).toBe("0");
    expect(r.rewatchResourceVersion()).toBe("");
    const ac = new AbortController();
    const p = r.listAndWatch(ac.signal);
    await settle();
    expect(r.relistResourceVersion()).toBe("7");
    expect(r.rewatchResourceVersion()).toBe("7");
    ac.abort();
    await runUntilSettled(clock, p);
  });

  it("F9: a failed LIST is returned as 'failed to list <type>: …' and the status shows the HTTP code and reason", async () => {
    const { clock, options } = harness();
    const forbidden = newForbidden(
      { group: "", resource: "pods" },
      "",
      'User "system:anonymous" cannot list resource "pods"',
    );
    const handled: unknown[] = [];
    const r = new Reflector(
      lwOf(
        () => {
          throw forbidden;
        },
        () => new FakeWatch<Pod>(),
      ),
      POD_GVK,
      newStore(metaNamespaceKeyFunc),
      { ...options, watchErrorHandler: (_r, e) => handled.push(e) },
    );
    const sub = startRun(r);
    await settle();
    expect(handled).toHaveLength(1);
    expect((handled[0] as Error).message).toBe(`failed to list /v1, Kind=Pod: ${forbidden.message}`);
    expect((handled[0] as Error).cause).toBe(forbidden);
    const s = r.status();
    expect(s.phase).toBe("backing-off");
    expect(s.hasSynced).toBe(false);
    expect(s.lastError).toMatchObject({ code: 403, reason: "Forbidden", during: "list" });
    expect(s.counts.relists["list-error"]).toBe(1);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("F9: a Table list is rejected", async () => {
    const { clock, options } = harness();
    const r = new Reflector(
      lwOf(
        () => ({ apiVersion: "meta.k8s.io/v1", kind: "Table", metadata: { resourceVersion: "1" }, items: [] }),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      options,
    );
    await expect(runUntilSettled(clock, r.listAndWatch(new AbortController().signal))).rejects.toThrow(
      /^failed to list <unspecified>: unsupported list gvk: meta.k8s.io\/v1, Kind=Table/,
    );
  });

  it("F9: a failing store replace is returned as 'unable to sync list result'", async () => {
    const { clock, options } = harness();
    const store = new RecordingStore<Pod>();
    store.failOn = (op) => (op === "replace" ? new Error("boom") : undefined);
    const r = new Reflector(
      lwOf(
        () => podList("1"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      store,
      options,
    );
    await expect(runUntilSettled(clock, r.listAndWatch(new AbortController().signal))).rejects.toThrow(
      "unable to sync list result: boom",
    );
    expect(r.status().lastError).toMatchObject({ during: "store", message: "boom" });
  });

  it("F10, F11: expired and too-large predicates", () => {
    expect(isExpiredError(newResourceExpired("x"))).toBe(true);
    expect(isExpiredError(new StatusError(failureStatus(410, "Gone", "gone")))).toBe(true);
    expect(isExpiredError(newInternalError("x"))).toBe(false);
    expect(isTooLargeResourceVersionError(newTimeoutError("Too large resource version", 1))).toBe(true);
    expect(isTooLargeResourceVersionError(newTimeoutError("slow", 1))).toBe(false);
  });

  it("F13: a non-retriable error when starting a watch is returned from listAndWatch (handler, backoff, relist)", async () => {
    const { clock, options } = harness({}, { float: () => 0 });
    const forbidden = newForbidden({ group: "", resource: "pods" }, "", "no watch for you");
    let watches = 0;
    const lw = lwOf(
      () => podList("4"),
      () => {
        watches++;
        if (watches === 1) throw forbidden;
        return new FakeWatch<Pod>();
      },
    );
    const handled: unknown[] = [];
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), {
      ...options,
      watchErrorHandler: (_r, e) => handled.push(e),
    });
    const sub = startRun(r);
    await settle();
    expect(handled).toEqual([forbidden]);
    expect(r.status().lastError).toMatchObject({ code: 403, reason: "Forbidden", during: "watch" });
    expect(lw.listCalls).toHaveLength(1);
    await clock.step(800);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual(["0", "4"]);
    expect(lw.watchCalls).toHaveLength(2);
    expect(r.status().counts.relists["watch-error"]).toBe(1);
    await sub.stop();
  });

  it("F14: store failures on watch events are logged and recorded, not fatal", async () => {
    const { clock } = harness();
    const logger = capturingLogger();
    const store = new RecordingStore<Pod>();
    store.failOn = (op) => (op === "add" ? new Error("no adds today") : undefined);
    const fw = new FakeWatch<Pod>();
    const r = new Reflector(
      lwOf(
        () => podList("1"),
        () => fw,
      ),
      undefined,
      store,
      { clock, logger, useWatchList: false, name: "t" },
    );
    const ac = new AbortController();
    const p = r.listAndWatch(ac.signal);
    await settle();
    fw.push({ type: "ADDED", object: pod("a", "2") });
    fw.push({ type: "MODIFIED", object: pod("b", "3") });
    await settle();
    expect(store.keys()).toEqual(["b"]);
    expect(r.lastSyncResourceVersion()).toBe("3");
    expect(r.status().lastError).toMatchObject({ during: "store", message: "no adds today" });
    expect(logger.lines).toContainEqual({ level: "error", message: "Unable to add watch event object to store" });
    ac.abort();
    await runUntilSettled(clock, p);
  });

  it("F16: a watch ending after ≥ 1 s without events re-watches at once from lastSyncRV, no list, no backoff", async () => {
    const { clock, options } = harness();
    const watchers: FakeWatch<Pod>[] = [];
    const lw = lwOf(
      () => podList("9"),
      () => {
        const w = new FakeWatch<Pod>();
        watchers.push(w);
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    const sub = startRun(r);
    await clock.step(1000);
    watchers[0]!.close();
    await settle();
    expect(lw.watchCalls.map((o) => o.resourceVersion)).toEqual(["9", "9"]);
    expect(lw.listCalls).toHaveLength(1);
    expect(r.status().counts.backoffs).toBe(0);
    expect(r.status().counts.rewatches.closed).toBe(1);
    // With events, even a fast close is clean.
    watchers[1]!.push({ type: "ADDED", object: pod("x", "10") });
    watchers[1]!.close();
    await settle();
    expect(lw.watchCalls.map((o) => o.resourceVersion)).toEqual(["9", "9", "10"]);
    expect(r.status().counts.backoffs).toBe(0);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("F17: a watch closing in under 1 s with no events backs off and relists", async () => {
    const { clock, options } = harness({}, { float: () => 0 });
    const lw = lwOf(
      () => podList("9"),
      () => {
        const w = new FakeWatch<Pod>();
        w.close();
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    const sub = startRun(r);
    await settle();
    expect(lw.listCalls).toHaveLength(1);
    expect(r.status().counts.relists["very-short"]).toBe(1);
    expect(r.status().phase).toBe("backing-off");
    await clock.step(800);
    expect(lw.listCalls).toHaveLength(2);
    expect(lw.listCalls[1]!.resourceVersion).toBe("9");
    await sub.stop();
  });

  it("F18: a 410 ending the watch relists from lastSyncRV (not ''), without calling the error handler", async () => {
    const { clock, options } = harness({}, { float: () => 0 });
    let n = 0;
    const lw = lwOf(
      () => podList(String(10 + lw.listCalls.length)),
      () => {
        n++;
        const w = new FakeWatch<Pod>();
        if (n === 1) {
          w.push({ type: "ADDED", object: pod("a", "12") });
          w.push({ type: "ERROR", object: newResourceExpired("too old resource version").status });
          w.close();
        }
        return w;
      },
    );
    const handled: unknown[] = [];
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), {
      ...options,
      watchErrorHandler: (_r, e) => handled.push(e),
    });
    const sub = startRun(r);
    await clock.step(800);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual(["0", "12"]);
    expect(handled).toEqual([]);
    expect(r.status().resourceVersionUnavailable).toBe(false);
    expect(r.status().counts.relists.expired).toBe(1);
    await sub.stop();
  });

  it("F18: any other error ending the watch is logged as 'watch ended with error' and relists", async () => {
    const { clock } = harness();
    const logger = capturingLogger();
    let n = 0;
    const lw = lwOf(
      () => podList("1"),
      () => {
        n++;
        const w = new FakeWatch<Pod>();
        if (n === 1) w.push({ type: "ERROR", object: failureStatus(400, "BadRequest", "nope") });
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), {
      clock,
      logger,
      useWatchList: false,
      rand: { float: () => 0 },
      name: "t",
    });
    const sub = startRun(r);
    await clock.step(800);
    expect(logger.lines).toContainEqual({ level: "warn", message: "watch ended with error" });
    expect(lw.listCalls).toHaveLength(2);
    expect(r.status().counts.relists["watch-error"]).toBe(1);
    await sub.stop();
  });

  it("F14/F16: a connection reset mid-stream ends the watch normally (re-watch); an undecodable line is a 500 (relist)", async () => {
    const { clock, options } = harness({}, { float: () => 0 });
    const watchers: FakeWatch<Pod>[] = [];
    const lw = lwOf(
      () => podList("2"),
      () => {
        const w = new FakeWatch<Pod>();
        watchers.push(w);
        return w;
      },
    );
    const r = new Reflector(lw, pod(""), newStore(metaNamespaceKeyFunc), options);
    const sub = startRun(r);
    await settle();
    watchers[0]!.push({ type: "ADDED", object: pod("a", "3") });
    watchers[0]!.fail(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    await settle();
    expect(lw.watchCalls.map((o) => o.resourceVersion)).toEqual(["2", "3"]);
    expect(r.status().counts.rewatches.closed).toBe(1);
    watchers[1]!.push({ type: "ADDED", object: pod("b", "4") });
    watchers[1]!.fail(new SyntaxError("Unexpected end of JSON input"));
    await settle();
    expect(r.status().lastError).toMatchObject({ code: 500, reason: "InternalError", during: "watch" });
    expect(r.status().counts.relists["internal-error"]).toBe(1);
    await clock.step(800);
    expect(lw.listCalls.map((o) => o.resourceVersion)).toEqual(["0", "4"]);
    await sub.stop();
  });

  it("F20: shouldResync gates each resync; a resync period of 0 arms no timer", async () => {
    const { clock, options } = harness({ resyncPeriod: 1000 });
    const store = new RecordingStore<Pod>();
    let allow = false;
    const r = new Reflector(
      lwOf(
        () => podList("1"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      store,
      { ...options, shouldResync: () => allow },
    );
    const sub = startRun(r);
    await clock.step(3000);
    expect(store.ops().filter((o) => o === "resync")).toHaveLength(0);
    allow = true;
    await clock.step(2000);
    expect(store.ops().filter((o) => o === "resync")).toHaveLength(2);
    expect(r.status().counts.resyncs).toBe(2);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);

    const h2 = harness();
    const r2 = new Reflector(
      lwOf(
        () => podList("1"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      new RecordingStore<Pod>(),
      h2.options,
    );
    const sub2 = startRun(r2);
    await settle();
    expect(r2.status().phase).toBe("watching");
    expect(h2.clock.pendingTimers()).toBe(0);
    await sub2.stop();
  });

  it("F20: a relist restarts the resync timer", async () => {
    const { clock, options } = harness({ resyncPeriod: 1000 }, { float: () => 0 });
    const store = new RecordingStore<Pod>();
    let n = 0;
    const lw = lwOf(
      () => podList("1"),
      () => {
        n++;
        const w = new FakeWatch<Pod>();
        if (n === 1) clock.afterFunc(900, () => w.push({ type: "ERROR", object: newResourceExpired("old").status }));
        return w;
      },
    );
    const r = new Reflector(lw, undefined, store, options);
    const sub = startRun(r);
    // 0.9 s: 410 → backoff 0.8 s → relist at 1.7 s; the first resync would have been at 1 s.
    await clock.step(2600);
    expect(store.ops().filter((o) => o === "resync")).toHaveLength(0);
    await clock.step(100);
    expect(store.ops().filter((o) => o === "resync")).toHaveLength(1);
    await sub.stop();
  });

  it("F21: the default watch error handler classifies by level and never throws", () => {
    const logger = capturingLogger();
    const info: ReflectorInfo = {
      name: "r",
      typeDescription: "t",
      logger,
      lastSyncResourceVersion: () => "",
      status: () => {
        throw new Error("unused");
      },
    };
    defaultWatchErrorHandler(info, newResourceExpired("old"));
    defaultWatchErrorHandler(info, Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    defaultWatchErrorHandler(info, newForbidden({ group: "", resource: "pods" }, "", "no"));
    expect(logger.lines.map((l) => l.level)).toEqual(["debug", "info", "error"]);
    expect(logger.lines[2]!.message).toBe("Failed to watch");
    const throwing: ReflectorInfo = {
      ...info,
      logger: {
        log: () => {
          throw new Error("broken logger");
        },
      },
    };
    expect(() => defaultWatchErrorHandler(throwing, new Error("x"))).not.toThrow();
  });

  it("F21: a throwing custom handler is logged, and the reflector keeps running", async () => {
    const { clock } = harness();
    const logger = capturingLogger();
    const r = new Reflector(
      lwOf(
        () => {
          throw new Error("list down");
        },
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      {
        clock,
        logger,
        name: "t",
        useWatchList: false,
        rand: { float: () => 0 },
        watchErrorHandler: () => {
          throw new Error("handler bug");
        },
      },
    );
    const sub = startRun(r);
    await clock.step(800);
    expect(logger.lines.filter((l) => l.message === "watch error handler threw")).toHaveLength(2);
    expect(r.status().counts.lists).toBe(2);
    await sub.stop();
  });

  it("F27: lastSyncResourceVersion follows lists and watch events", async () => {
    const { clock, options } = harness();
    const fw = new FakeWatch<Pod>();
    const r = new Reflector(
      lwOf(
        () => podList("3"),
        () => fw,
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      options,
    );
    expect(r.lastSyncResourceVersion()).toBe("");
    const ac = new AbortController();
    const p = r.listAndWatch(ac.signal);
    await settle();
    expect(r.lastSyncResourceVersion()).toBe("3");
    fw.push({ type: "ADDED", object: pod("a", "4") });
    await settle();
    expect(r.lastSyncResourceVersion()).toBe("4");
    ac.abort();
    await runUntilSettled(clock, p);
  });

  it("F29: the reflector metrics provider is a no-op that is set once and never used", () => {
    expect(reflectorMetricsProvider()).toBe(noopReflectorMetricsProvider);
    const counted: string[] = [];
    const custom = {
      ...noopReflectorMetricsProvider,
      newListsMetric: (name: string) => {
        counted.push(name);
        return { inc() {} };
      },
    };
    setReflectorMetricsProvider(custom);
    setReflectorMetricsProvider(noopReflectorMetricsProvider);
    expect(reflectorMetricsProvider()).toBe(custom);
    noopReflectorMetricsProvider.newListsMetric("x").inc();
    expect(counted).toEqual([]);
  });

  it("stop during a LIST, a watch, a backoff: no timer and no watch is left", async () => {
    for (const phase of ["listing", "watching", "backing-off"] as const) {
      const { clock, options } = harness({ resyncPeriod: 5000 });
      let open = 0;
      let pendingList: ((l: KubeList<Pod>) => void) | undefined;
      const lw: ListerWatcher<Pod> = {
        list: () =>
          new Promise<KubeList<Pod>>((resolve) => {
            if (phase === "listing") pendingList = resolve;
            else resolve(podList("1"));
          }),
        watch: async () => {
          if (phase === "backing-off") throw connRefused();
          open++;
          const w = new FakeWatch<Pod>();
          w.onDone = () => open--;
          return w;
        },
      };
      const r = new Reflector(lw, undefined, newStore(metaNamespaceKeyFunc), options);
      const sub = startRun(r);
      await settle();
      expect(r.status().phase).toBe(phase);
      await sub.stop();
      pendingList?.(podList("1"));
      await settle();
      expect(clock.pendingTimers(), phase).toBe(0);
      expect(open, phase).toBe(0);
      expect(r.status().phase).toBe("stopped");
    }
  });

  it("run(signal): aborting the signal stops the run and resolves once all is released; running twice at once is an error", async () => {
    const { clock, options } = harness();
    const fw = new FakeWatch<Pod>();
    let watches = 0;
    const r = new Reflector(
      lwOf(
        () => podList("1"),
        () => (watches++ === 0 ? fw : new FakeWatch<Pod>()),
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      { ...options, resyncPeriod: 30_000 },
    );
    const ac = new AbortController();
    const done = r.run(ac.signal);
    await expect(r.run(new AbortController().signal)).rejects.toThrow("reflector test-reflector is already running");
    await settle();
    expect(clock.pendingTimers()).toBe(1); // the resync timer
    ac.abort();
    await done;
    // Resolved only after everything is released: watch stopped, timers cleared, phase stopped.
    expect(fw.stopped).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    expect(r.status().phase).toBe("stopped");
    // It can run again after a stop.
    const again = startRun(r);
    await settle();
    expect(r.status().phase).toBe("watching");
    await again.stop();
    expect(r.status().phase).toBe("stopped");
  });

  it("run(signal) with an already aborted signal resolves at once without a request", async () => {
    const { options } = harness();
    const lw = lwOf(
      () => podList("1"),
      () => new FakeWatch<Pod>(),
    );
    const r = new Reflector(lw, undefined, newStore(metaNamespaceKeyFunc), options);
    await r.run(AbortSignal.abort());
    expect(lw.listCalls).toEqual([]);
    expect(r.status().phase).toBe("stopped");
  });

  it("100 reflectors sharing one AbortSignal: one listener on it, none after they stop, no MaxListenersExceededWarning", async () => {
    const { clock, options } = harness();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const ac = new AbortController();
      const reflectors = Array.from(
        { length: 100 },
        (_, i) =>
          new Reflector(
            lwOf(
              () => podList("1"),
              () => new FakeWatch<Pod>(),
            ),
            undefined,
            newStore(metaNamespaceKeyFunc),
            { ...options, name: `r${i}` },
          ),
      );
      const runs = reflectors.map((r) => r.run(ac.signal));
      await settle();
      expect(reflectors.every((r) => r.status().phase === "watching")).toBe(true);
      expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
      ac.abort();
      await Promise.all(runs);
      expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
      expect(clock.pendingTimers()).toBe(0);
      // A run that ends leaves nothing on a signal that never aborts either.
      const longLived = new AbortController();
      const r0 = reflectors[0]!;
      const child = new AbortController();
      const run = r0.run(child.signal);
      expect(getEventListeners(longLived.signal, "abort")).toHaveLength(0);
      child.abort();
      await run;
      expect(getEventListeners(child.signal, "abort")).toHaveLength(0);
      await settle();
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("status$: the current value on subscribe, every change, and completion when the run stops", async () => {
    const { options } = harness();
    const r = new Reflector(
      lwOf(
        () => podList("7"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      options,
    );
    const first: string[] = [];
    let firstCompleted = false;
    r.status$.subscribe({
      next: (st) => first.push(st.phase),
      complete: () => {
        firstCompleted = true;
      },
    });
    expect(first).toEqual(["idle"]);
    const run = startRun(r);
    await settle();
    // A late subscriber gets the current state at once, not a stale one.
    const late: { phase: string; rv: string }[] = [];
    r.status$.subscribe((st) => late.push({ phase: st.phase, rv: st.lastSyncResourceVersion }));
    expect(late).toEqual([{ phase: "watching", rv: "7" }]);
    expect(firstCompleted).toBe(false);
    await run.stop();
    expect(firstCompleted).toBe(true);
    expect(first.at(-1)).toBe("stopped");
    expect(first).toContain("listing");
    // Subscribing to a stopped reflector: its final status, then completion.
    const after: string[] = [];
    let afterCompleted = false;
    r.status$.subscribe({ next: (st) => after.push(st.phase), complete: () => (afterCompleted = true) });
    expect(after).toEqual(["stopped"]);
    expect(afterCompleted).toBe(true);
  });

  it("run$(): the subscription is the run; it emits the status and unsubscribing stops everything", async () => {
    const { clock, options } = harness();
    const fw = new FakeWatch<Pod>();
    const r = new Reflector(
      lwOf(
        () => podList("3"),
        () => fw,
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      options,
    );
    const phases: string[] = [];
    const sub = r.run$().subscribe((st) => phases.push(st.phase));
    await settle();
    expect(phases[0]).toBe("listing"); // the run starts on subscribe: its state at that moment
    expect(phases.at(-1)).toBe("watching");
    let error: unknown;
    r.run$().subscribe({ error: (e: unknown) => (error = e) });
    await settle();
    expect((error as Error).message).toBe("reflector test-reflector is already running");
    sub.unsubscribe();
    await settle();
    expect(fw.stopped).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    expect(r.status().phase).toBe("stopped");
  });

  it("status$, events$ and run$(): a throwing subscriber is reported through the logger and the others are still served", async () => {
    const { options } = harness();
    const lines: string[] = [];
    const r = new Reflector(
      lwOf(
        () => podList("5"),
        () => new FakeWatch<Pod>(),
      ),
      undefined,
      newStore(metaNamespaceKeyFunc),
      { ...options, logger: { log: (_l, m) => lines.push(m) } },
    );
    const bad = () => {
      throw new Error("consumer bug");
    };
    const good: string[] = [];
    r.status$.subscribe(bad);
    r.status$.subscribe((st) => good.push(st.phase));
    r.events$.subscribe(bad);
    const sub = r.run$().subscribe(bad);
    await settle();
    expect(takeEscapedRxjsErrors()).toEqual([]); // nothing reached RxJS's unhandled-error path (the host)
    expect(good.at(-1)).toBe("watching");
    expect(lines).toContain("a subscriber of reflector test-reflector status$ threw in next");
    expect(lines).toContain("a subscriber of reflector test-reflector events$ threw in next");
    expect(lines).toContain("a subscriber of reflector test-reflector run$ threw in next");
    sub.unsubscribe();
    await settle();
    expect(r.status().phase).toBe("stopped");
  });
});
