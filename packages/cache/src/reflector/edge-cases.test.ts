import { test as fcTest } from "@fast-check/vitest";
import {
  failureStatus,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newForbidden,
  newInternalError,
  newResourceExpired,
  newTooManyRequests,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { FakeClock, type Rand, seededRand, settle } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_BACKOFF_RESET_MS, defaultReflectorBackoff, delayWithReset, gapResetDelayFunc } from "../backoff.js";
import { metaNamespaceKeyFunc } from "../keys.js";
import type { ListerWatcher, Watch } from "../listwatch.js";
import { newStore } from "../store-impl.js";
import { FakeControllerSource, FakeWatch } from "../testing/fake-controller-source.js";
import { RecordingStore } from "../testing/recording-store.js";
import { startRun } from "../testing/start-run.js";
import { silentLogger } from "./logger.js";
import { Reflector, type ReflectorOptions } from "./reflector.js";
import type { ReflectorEvent, ReflectorPhase, ReflectorStatus } from "./status.js";

type Obj = KubeObject;

function obj(name: string, rv = ""): Obj {
  return { metadata: { name, resourceVersion: rv } };
}

function list(rv: string, ...items: Obj[]): KubeList<Obj> {
  return { metadata: { resourceVersion: rv }, items };
}

function opts(clock: FakeClock, extra: ReflectorOptions<Obj> = {}, rand: Rand = seededRand(11)): ReflectorOptions<Obj> {
  return { clock, rand, logger: silentLogger, name: "edge", useWatchList: false, ...extra };
}

/** A ListerWatcher whose watches are created by the test; `watches` holds them in order. */
function controllable(listFn: (o: ListOptions) => KubeList<Obj>) {
  const watches: FakeWatch<Obj>[] = [];
  const listCalls: ListOptions[] = [];
  const watchCalls: ListOptions[] = [];
  let watchError: (() => unknown) | undefined;
  const lw: ListerWatcher<Obj> = {
    async list(o) {
      listCalls.push({ ...o });
      return listFn(o);
    },
    async watch(o): Promise<Watch<Obj>> {
      watchCalls.push({ ...o });
      const e = watchError?.();
      if (e !== undefined) throw e;
      const w = new FakeWatch<Obj>(o);
      watches.push(w);
      return w;
    },
  };
  return {
    lw,
    watches,
    listCalls,
    watchCalls,
    failWatchWith(fn: (() => unknown) | undefined) {
      watchError = fn;
    },
  };
}

function connRefused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:443"), { code: "ECONNREFUSED" });
}

describe("reflector edge cases (client-go.md §3, 21–30)", () => {
  it("21: RV sequence — '0'; a LIST 410 retried with '' in the same call; a watch 410 relists with lastSyncRV; only a second 410 falls to ''", async () => {
    const clock = new FakeClock();
    let phase = 0;
    const c = controllable((o) => {
      const rv = o.resourceVersion ?? "";
      if (phase === 0 && rv === "0") throw newResourceExpired("too old");
      if (phase === 0 && rv === "") {
        phase = 1;
        return list("10", obj("a", "10"));
      }
      if (phase === 1 && rv === "10") {
        phase = 2;
        throw newResourceExpired("too old again");
      }
      if (phase === 2 && rv === "") return list("20", obj("a", "20"));
      throw new Error(`unexpected list ${JSON.stringify(o)} in phase ${phase}`);
    });
    const r = new Reflector(c.lw, undefined, newStore(metaNamespaceKeyFunc), opts(clock, {}, { float: () => 0 }));
    const sub = startRun(r);
    await settle();
    expect(c.listCalls.map((o) => o.resourceVersion)).toEqual(["0", ""]);
    expect(r.lastSyncResourceVersion()).toBe("10");
    expect(c.watchCalls[0]?.resourceVersion).toBe("10");
    c.watches[0]!.push({ type: "ERROR", object: newResourceExpired("watch too old").status });
    await settle();
    expect(r.status().resourceVersionUnavailable).toBe(false);
    await clock.step(800);
    expect(c.listCalls.map((o) => o.resourceVersion)).toEqual(["0", "", "10", ""]);
    expect(r.lastSyncResourceVersion()).toBe("20");
    expect(c.watchCalls.map((o) => o.resourceVersion)).toEqual(["10", "20"]);
    await sub.stop();
  });

  it("22: an event with an older (or non-numeric) RV is applied blindly and lastSyncRV moves backwards", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("10"));
    const store = newStore<Obj>(metaNamespaceKeyFunc);
    const r = new Reflector(c.lw, undefined, store, opts(clock));
    const sub = startRun(r);
    await settle();
    c.watches[0]!.push({ type: "MODIFIED", object: obj("a", "15") });
    c.watches[0]!.push({ type: "MODIFIED", object: obj("b", "12") });
    await settle();
    expect(r.lastSyncResourceVersion()).toBe("12");
    expect(store.getByKey("b")?.metadata?.resourceVersion).toBe("12");
    c.watches[0]!.push({ type: "ADDED", object: obj("c", "opaque-token") });
    await settle();
    expect(r.lastSyncResourceVersion()).toBe("opaque-token");
    await sub.stop();
  });

  it("23: a MODIFIED with the same RV as the cached object is passed on as an update (classifying it as a sync is the informer's job, I7)", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("10", obj("a", "7")));
    const store = new RecordingStore<Obj>();
    const r = new Reflector(c.lw, undefined, store, opts(clock));
    const sub = startRun(r);
    await settle();
    c.watches[0]!.push({ type: "MODIFIED", object: obj("a", "7") });
    await settle();
    expect(store.calls[1]).toEqual({ op: "update", key: "a", object: obj("a", "7") });
    await sub.stop();
  });

  for (const startRV of ["", "0"]) {
    for (const first of ["BOOKMARK", "MODIFIED", "DELETED"] as const) {
      it(`24: a watch from RV ${JSON.stringify(startRV)} keeps lastSyncRV during the leading ADDED events and moves at the first ${first}`, async () => {
        const clock = new FakeClock();
        // A LIST answer without a (useful) RV makes the next watch start at "" or "0".
        const c = controllable(() => list(startRV));
        const store = new RecordingStore<Obj>();
        const r = new Reflector(c.lw, undefined, store, opts(clock));
        const sub = startRun(r);
        await settle();
        expect(c.watchCalls[0]?.resourceVersion).toBe(startRV === "" ? undefined : "0");
        const w = c.watches[0]!;
        w.push({ type: "ADDED", object: obj("x", "50") });
        w.push({ type: "ADDED", object: obj("y", "30") });
        await settle();
        expect(r.lastSyncResourceVersion()).toBe(startRV);
        expect(store.ops()).not.toContain("updateResourceVersion");
        w.push({ type: first, object: obj(first === "BOOKMARK" ? "" : "x", "60") });
        await settle();
        expect(r.lastSyncResourceVersion()).toBe("60");
        w.push({ type: "ADDED", object: obj("z", "61") });
        await settle();
        expect(r.lastSyncResourceVersion()).toBe("61");
        const told = store.calls.flatMap((x) => (x.op === "updateResourceVersion" ? [x.resourceVersion] : []));
        expect(told).toEqual(["60", "61"]);
        await sub.stop();
      });
    }
  }

  it("24 (faithful hazard): after a LIST answering RV '0', a deletion missed during a 429 backoff stays in the store", async () => {
    const clock = new FakeClock();
    const src = new FakeControllerSource<Obj>({ clock });
    const store = newStore<Obj>(metaNamespaceKeyFunc);
    const r = new Reflector(src, undefined, store, opts(clock, {}, { float: () => 0 }));
    const sub = startRun(r);
    await settle();
    expect(src.listCalls).toHaveLength(1);
    expect(r.lastSyncResourceVersion()).toBe("0");
    src.add(obj("o1"));
    await settle();
    // Only ADDED seen since the watch from "0": the RV is not propagated (F15).
    expect(r.lastSyncResourceVersion()).toBe("0");
    src.sendError(newTooManyRequests("slow down", 1).status);
    src.delete(obj("o1"));
    await clock.step(10 * 60_000);
    // The re-watch from "0" starts with the current state (no o1) and no DELETED event: nothing removes o1.
    expect(store.listKeys()).toEqual(["o1"]);
    expect(src.items.size).toBe(0);
    await sub.stop();
  });

  it("25: a 0-event watch closing in < 1 s backs off and relists; one lasting ≥ 1 s re-watches with no list and no delay", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("3"));
    const r = new Reflector(c.lw, undefined, newStore(metaNamespaceKeyFunc), opts(clock, {}, { float: () => 0 }));
    const sub = startRun(r);
    await clock.step(999);
    c.watches[0]!.close();
    await settle();
    expect(r.status().phase).toBe("backing-off");
    await clock.step(800);
    expect(c.listCalls).toHaveLength(2);
    await clock.step(1000);
    c.watches[1]!.close();
    await settle();
    expect(c.listCalls).toHaveLength(2);
    expect(c.watchCalls).toHaveLength(3);
    expect(r.status().counts).toMatchObject({ backoffs: 1, relists: { "very-short": 1 }, rewatches: { closed: 1 } });
    await sub.stop();
  });

  it("26: connection refused or 429 at watch start → backoff, re-watch from the same RV, no list; a 500 with no retry budget → relist", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("5"));
    const errors = [connRefused(), newTooManyRequests("slow down", 2)];
    c.failWatchWith(() => errors.shift());
    const r = new Reflector(c.lw, undefined, newStore(metaNamespaceKeyFunc), opts(clock, {}, { float: () => 0 }));
    const sub = startRun(r);
    await settle();
    expect(r.status().phase).toBe("backing-off");
    await clock.step(800);
    await clock.step(1600);
    expect(c.watchCalls.map((o) => o.resourceVersion)).toEqual(["5", "5", "5"]);
    expect(c.listCalls).toHaveLength(1);
    expect(r.status().counts.rewatches).toMatchObject({ "connection-refused": 1, "too-many-requests": 1 });
    c.watches[0]!.push({ type: "ERROR", object: newInternalError("etcdserver: leader changed").status });
    await settle();
    expect(r.status().counts.relists["internal-error"]).toBe(1);
    await clock.step(3200);
    expect(c.listCalls).toHaveLength(2);
    await sub.stop();
  });

  for (const mode of ["periodic", "gap"] as const) {
    it(`27: under repeated LIST failures the gaps follow F2's jitter ranges and reset per F3 (${mode})`, async () => {
      const clock = new FakeClock();
      const seed = 1234;
      const listTimes: number[] = [];
      const lw: ListerWatcher<Obj> = {
        list: async () => {
          listTimes.push(clock.now());
          throw newInternalError("etcd down");
        },
        watch: async () => new FakeWatch<Obj>(),
      };
      const r = new Reflector(lw, undefined, newStore(metaNamespaceKeyFunc), {
        ...opts(clock, { backoffResetMode: mode }, seededRand(seed)),
      });
      const start = clock.now();
      const sub = startRun(r);
      await clock.step(10 * 60_000);
      await sub.stop();
      const gaps = listTimes.slice(1).map((t, i) => t - listTimes[i]!);
      // Independent model: the same delay function stepped on its own clock.
      const modelClock = new FakeClock(start);
      const model =
        mode === "periodic"
          ? delayWithReset(defaultReflectorBackoff, modelClock, DEFAULT_BACKOFF_RESET_MS, seededRand(seed))
          : gapResetDelayFunc(defaultReflectorBackoff, modelClock, DEFAULT_BACKOFF_RESET_MS, seededRand(seed));
      const expected: number[] = [];
      for (let i = 0; i < gaps.length; i++) {
        const d = model();
        expected.push(d);
        await modelClock.step(d);
      }
      expect(gaps.length).toBeGreaterThan(12);
      for (let i = 0; i < gaps.length; i++) expect(gaps[i]).toBeCloseTo(expected[i]!, 3);
      // F2 ranges for the first six, then [30, 60) s until a reset.
      const bases = [800, 1600, 3200, 6400, 12_800, 25_600];
      for (let i = 0; i < 6; i++) {
        expect(gaps[i]).toBeGreaterThanOrEqual(bases[i]!);
        expect(gaps[i]).toBeLessThan(2 * bases[i]!);
      }
      const resetAt = gaps.findIndex((g, i) => i > 6 && g < 1600);
      if (mode === "periodic") {
        // The first call more than 2 min after the last reset (creation) starts over at [0.8, 1.6) s.
        expect(resetAt).toBeGreaterThan(6);
        const callTime = listTimes[resetAt + 1]! - start;
        expect(listTimes[resetAt]! - start).toBeLessThanOrEqual(DEFAULT_BACKOFF_RESET_MS + 60_000);
        expect(callTime).toBeGreaterThan(DEFAULT_BACKOFF_RESET_MS);
      } else {
        expect(resetAt).toBe(-1);
        for (const g of gaps.slice(6)) expect(g).toBeGreaterThanOrEqual(30_000);
      }
    });
  }

  it("29: resync every period while watching, gated by shouldResync; never with period 0", async () => {
    for (const period of [30_000, 0]) {
      const clock = new FakeClock();
      const c = controllable(() => list("1"));
      const store = new RecordingStore<Obj>();
      let asked = 0;
      const r = new Reflector(
        c.lw,
        undefined,
        store,
        opts(clock, {
          resyncPeriod: period,
          shouldResync: () => {
            asked++;
            return asked % 2 === 1;
          },
        }),
      );
      const sub = startRun(r);
      await clock.step(120_000);
      expect(asked).toBe(period === 0 ? 0 : 4);
      expect(store.ops().filter((o) => o === "resync")).toHaveLength(period === 0 ? 0 : 2);
      await sub.stop();
    }
  });

  it("30: wrong GVK, Table and metadata-less objects are skipped with no store change and do not count against the very-short rule", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("1"));
    const store = new RecordingStore<Obj>();
    const r = new Reflector(c.lw, { apiVersion: "v1", kind: "ConfigMap" }, store, opts(clock, {}, { float: () => 0 }));
    const skipped: ReflectorEvent[] = [];
    r.events$.subscribe((e) => {
      if (e.type === "skipped-object") skipped.push(e);
    });
    const sub = startRun(r);
    await settle();
    const w = c.watches[0]!;
    w.push({
      type: "ADDED",
      object: { apiVersion: "v1", kind: "Secret", metadata: { name: "s", resourceVersion: "2" } },
    });
    w.push({
      type: "ADDED",
      object: { apiVersion: "meta.k8s.io/v1", kind: "Table", metadata: { resourceVersion: "3" } },
    });
    w.push({ type: "ADDED", object: { apiVersion: "v1", kind: "ConfigMap" } } as WatchEvent<Obj>);
    w.push({ type: "ADDED", object: "not an object" } as unknown as WatchEvent<Obj>);
    w.close();
    await settle();
    expect(store.ops()).toEqual(["replace"]);
    expect(skipped.map((e) => (e.type === "skipped-object" ? e.reason : ""))).toEqual([
      "unexpected-gvk",
      "unexpected-gvk",
      "no-metadata",
      "unexpected-type",
    ]);
    expect(r.status().counts.relists["very-short"]).toBe(1);
    expect(r.lastSyncResourceVersion()).toBe("1");
    await sub.stop();

    // Without an expected GVK, the Table is recognised as such.
    const clock2 = new FakeClock();
    const c2 = controllable(() => list("1"));
    const r2 = new Reflector(c2.lw, undefined, new RecordingStore<Obj>(), opts(clock2));
    const reasons: string[] = [];
    r2.events$.subscribe((e) => {
      if (e.type === "skipped-object") reasons.push(e.reason);
    });
    const sub2 = startRun(r2);
    await settle();
    c2.watches[0]!.push({
      type: "ADDED",
      object: { apiVersion: "meta.k8s.io/v1beta1", kind: "Table", metadata: { resourceVersion: "3" } },
    });
    await settle();
    expect(reasons).toEqual(["table"]);
    await sub2.stop();
  });
});

describe("watch liveness (beyond client-go)", () => {
  it("a watch silent for factor × bookmark period is re-watched from lastSyncRV (no relist) once bookmarks were seen", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("5"));
    const r = new Reflector(
      c.lw,
      undefined,
      newStore(metaNamespaceKeyFunc),
      opts(clock, { watchLiveness: { bookmarkPeriod: 60_000 } }),
    );
    const sub = startRun(r);
    await settle();
    await clock.step(30_000);
    c.watches[0]!.push({ type: "BOOKMARK", object: obj("", "9") });
    await settle();
    await clock.step(179_999);
    expect(c.watchCalls).toHaveLength(1);
    await clock.step(1);
    expect(c.watchCalls.map((o) => o.resourceVersion)).toEqual(["5", "9"]);
    expect(c.watches[0]!.stopped).toBe(true);
    expect(c.listCalls).toHaveLength(1);
    expect(r.status().counts.rewatches.inactive).toBe(1);
    await sub.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a quiet watch that receives bookmarks every period is never churned", async () => {
    const clock = new FakeClock();
    const c = controllable(() => list("5"));
    const r = new Reflector(
      c.lw,
      undefined,
      newStore(metaNamespaceKeyFunc),
      opts(clock, { watchLiveness: { bookmarkPeriod: 60_000 } }),
    );
    const sub = startRun(r);
    await settle();
    for (let i = 0; i < 20; i++) {
      await clock.step(60_000);
      c.watches[0]!.push({ type: "BOOKMARK", object: obj("", "5") });
      await settle();
    }
    expect(c.watchCalls).toHaveLength(1);
    expect(r.status().counts.rewatches.inactive).toBe(0);
    await sub.stop();
  });

  it("without any bookmark seen, the deadline is not enforced unless requireBookmarks is false", async () => {
    for (const requireBookmarks of [true, false]) {
      const clock = new FakeClock();
      const c = controllable(() => list("5"));
      const r = new Reflector(
        c.lw,
        undefined,
        newStore(metaNamespaceKeyFunc),
        opts(clock, { watchLiveness: { bookmarkPeriod: 10_000, factor: 2, requireBookmarks } }),
      );
      const sub = startRun(r);
      await clock.step(60_000);
      expect(r.status().counts.rewatches.inactive).toBe(requireBookmarks ? 0 : 3);
      await sub.stop();
      expect(clock.pendingTimers()).toBe(0);
    }
  });

  it("rejects nonsense liveness settings", () => {
    const c = controllable(() => list("5"));
    expect(
      () => new Reflector(c.lw, undefined, newStore(metaNamespaceKeyFunc), { watchLiveness: { factor: 0.5 } }),
    ).toThrow(RangeError);
  });
});

describe("status and events", () => {
  it("the status stream shows phases, sync, and a 403 as Forbidden (not as a sync timeout)", async () => {
    const clock = new FakeClock();
    const forbidden = newForbidden({ group: "", resource: "secrets" }, "", "RBAC: access denied");
    let allow = false;
    const c = controllable(() => {
      if (!allow) throw forbidden;
      return list("8", obj("a", "8"));
    });
    const r = new Reflector(
      c.lw,
      { apiVersion: "v1", kind: "Secret" },
      newStore(metaNamespaceKeyFunc),
      opts(clock, {}, { float: () => 0 }),
    );
    const seen: ReflectorStatus[] = [];
    const statusSub = r.status$.subscribe((s) => seen.push(s));
    expect(seen[0]).toMatchObject({
      phase: "idle",
      hasSynced: false,
      name: "edge",
      typeDescription: "/v1, Kind=Secret",
    });
    const sub = startRun(r);
    await settle();
    const s = r.status();
    expect(s.phase).toBe("backing-off");
    expect(s.lastError).toMatchObject({ code: 403, reason: "Forbidden", during: "list", name: "StatusError" });
    expect(s.backoffUntil).toBe(clock.now() + 800);
    allow = true;
    await clock.step(800);
    expect(r.status()).toMatchObject({ phase: "watching", hasSynced: true, lastSyncResourceVersion: "8" });
    expect(r.status().lastSyncTime).toBe(clock.now());
    const phases = seen.map((x) => x.phase).filter((p, i, a) => i === 0 || a[i - 1] !== p);
    expect(phases).toEqual<ReflectorPhase[]>(["idle", "listing", "backing-off", "listing", "watching"]);
    await sub.stop();
    expect(seen.at(-1)?.phase).toBe("stopped");
    statusSub.unsubscribe();
  });

  it("events narrate a list/watch cycle with durations on the injected clock", async () => {
    const clock = new FakeClock();
    const src = new FakeControllerSource<Obj>({ clock });
    src.add(obj("a"));
    const r = new Reflector(src, undefined, newStore(metaNamespaceKeyFunc), opts(clock, {}, { float: () => 0 }));
    const events: ReflectorEvent[] = [];
    r.events$.subscribe((e) => events.push(e));
    const sub = startRun(r);
    await settle();
    src.sendError(failureStatus(410, "Expired", "too old resource version"));
    await settle();
    expect(events.map((e) => e.type)).toEqual([
      "started",
      "list-start",
      "list-done",
      "watch-start",
      "watch-end",
      "error",
      "relist",
      "backoff",
    ]);
    const end = events.find((e) => e.type === "watch-end");
    expect(end).toMatchObject({ reason: "error", error: { code: 410, reason: "Expired" }, reflector: "edge" });
    expect(events.find((e) => e.type === "backoff")).toMatchObject({ delayMs: 800, reason: "list-and-watch" });
    expect(events.every((e) => e.time === clock.now())).toBe(true);
    await sub.stop();
    expect(events.at(-1)?.type).toBe("stopped");
  });

  it("resume from a persisted RV on the LIST path: the first LIST asks for that RV without a limit", async () => {
    const clock = new FakeClock();
    const src = new FakeControllerSource<Obj>({ clock, paginate: true });
    for (let i = 0; i < 5; i++) src.add(obj(`o${i}`));
    const store = newStore<Obj>(metaNamespaceKeyFunc);
    const r = new Reflector(src, undefined, store, opts(clock, { initialResourceVersion: "3" }));
    const sub = startRun(r);
    await settle();
    expect(src.listCalls).toEqual([{ resourceVersion: "3" }]);
    expect(store.listKeys()).toHaveLength(5);
    await sub.stop();
  });
});

describe("convergence under faults (fake source, property)", () => {
  type Op =
    | { kind: "create" | "update" | "delete"; id: number }
    | { kind: "closeWatches" | "compact" | "bookmark" | "reset" }
    | { kind: "watchError"; code: 410 | 500 | 429 | 400 }
    | { kind: "failNextWatch"; what: "429" | "refused" | "403" | "500" }
    | { kind: "failNextList"; what: "500" | "410" }
    | { kind: "transport" }
    | { kind: "advance"; ms: number };

  const opArb: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constantFrom("create", "update", "delete" as const),
        id: fc.integer({ min: 0, max: 7 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constantFrom("closeWatches", "compact", "bookmark", "reset" as const) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("watchError" as const),
        code: fc.constantFrom(410, 500, 429, 400 as const),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("failNextWatch" as const),
        what: fc.constantFrom("429", "refused", "403", "500" as const),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("failNextList" as const),
        what: fc.constantFrom("500", "410" as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("transport" as const) }) },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
    },
  );

  const statusFor = (code: 410 | 500 | 429 | 400) =>
    code === 410
      ? failureStatus(410, "Expired", "too old resource version")
      : code === 500
        ? failureStatus(500, "InternalError", "etcd leader changed")
        : code === 429
          ? newTooManyRequests("slow down", 1).status
          : failureStatus(400, "BadRequest", "bad");

  fcTest.prop(
    [
      fc.array(opArb, { minLength: 1, maxLength: 35 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.boolean(),
      fc.boolean(),
    ],
    { numRuns: 200 },
  )(
    "after faults stop and time passes, the store equals the server's objects",
    async (ops, seed, useWatchList, paginate) => {
      const clock = new FakeClock();
      // RVs start at 1 as in etcd: a LIST answering "0" would make the reflector watch from "0", where (F15, as
      // upstream) a deletion missed during a backoff is never seen again.
      const src = new FakeControllerSource<Obj>({ clock, paginate, rand: seededRand(seed), initialResourceVersion: 1 });
      const store = newStore<Obj>(metaNamespaceKeyFunc);
      const r = new Reflector(src, undefined, store, {
        clock,
        rand: seededRand(seed),
        logger: silentLogger,
        name: "conv",
        useWatchList,
        watchListPageSize: paginate ? 3 : 0,
        maxInternalErrorRetryDuration: seed % 2 === 0 ? 10_000 : 0,
      });
      const sub = startRun(r);
      await settle();
      for (const op of ops) {
        switch (op.kind) {
          case "create":
          case "update":
          case "delete": {
            const name = `o${op.id}`;
            const exists = src.items.has(name);
            if (op.kind === "delete") {
              if (exists) src.delete(obj(name));
            } else if (exists) src.modify({ ...obj(name), data: { v: String(seed + op.id) } });
            else src.add(obj(name));
            break;
          }
          case "closeWatches":
            src.closeWatches();
            break;
          case "compact":
            src.compact();
            break;
          case "bookmark":
            src.bookmark();
            break;
          case "reset":
            src.resetWatch();
            break;
          case "watchError":
            src.sendError(statusFor(op.code));
            break;
          case "failNextWatch":
            src.failNextWatch(
              op.what === "429"
                ? newTooManyRequests("busy", 1)
                : op.what === "refused"
                  ? connRefused()
                  : op.what === "403"
                    ? newForbidden({ group: "", resource: "things" }, "", "nope")
                    : newInternalError("boom"),
            );
            break;
          case "failNextList":
            src.failNextList(op.what === "500" ? newInternalError("list boom") : newResourceExpired("gone"));
            break;
          case "transport":
            src.failWatches(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
            break;
          case "advance":
            await clock.step(op.ms);
            break;
        }
        await settle();
      }
      src.clearFailures();
      for (let t = 0; t < 180_000; t += 5000) await clock.step(5000);
      const want = Object.fromEntries([...src.items].map(([k, v]) => [k, v.metadata?.resourceVersion]));
      const got = Object.fromEntries(store.list().map((o) => [metaNamespaceKeyFunc(o), o.metadata?.resourceVersion]));
      expect(got).toEqual(want);
      expect(r.status().hasSynced).toBe(true);
      await sub.stop();
      expect(src.openWatches).toBe(0);
      expect(clock.pendingTimers()).toBe(0);
    },
  );
});
