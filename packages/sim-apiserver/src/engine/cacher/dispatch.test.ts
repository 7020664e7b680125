// The dispatcher in virtual time (reference/apiserver.md §5.3–§5.4): per-watcher channel sizes, the shared
// 100 ms / +50 ms·s⁻¹ budget for blocked watchers (empty when the cacher starts, full after 2 s, as in
// kube-apiserver v1.34), forced close without an ERROR event (metric + log line), the graceful variant, and the
// deterministic reproduction of the production failure: an RV "0" watch whose initial events are still being read is
// closed under churn once `matching_event_rate × init_duration > chanSize` (+ the budget), and survives below that.
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { SimApiServer, type SimApiServerOptions, type SimWatch } from "../sim-apiserver.js";

function setup(opts: SimApiServerOptions = {}) {
  const clock = new FakeClock();
  const logs: string[] = [];
  const logAt: number[] = [];
  const metrics = new InMemoryMetrics();
  const engine = new SimApiServer({
    clock,
    rand: seededRand(3),
    compactionIntervalMs: 0,
    metrics,
    logger: {
      log: (_level, l) => {
        logs.push(l);
        logAt.push(clock.now());
      },
    },
    ...opts,
  });
  return { clock, engine, logs, logAt, metrics };
}

/**
 * The budget starts empty when a cacher is created and is full (100 ms) after 2 s: scenarios about a running
 * apiserver first let the caches run that long.
 */
const STEADY_STATE_MS = 2000;

/** {@link setup}, then {@link STEADY_STATE_MS} of virtual time so that every dispatch budget is full. */
async function steady(opts: SimApiServerOptions = {}) {
  const s = setup(opts);
  await s.clock.step(STEADY_STATE_MS);
  return s;
}

function cm(name: string, v = "0", labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(labels !== undefined && { labels }) },
    data: { v },
  };
}

function label(e: WatchEvent): string {
  const m = (e.object as KubeObject).metadata;
  return `${e.type} ${m?.name ?? ""}@${m?.resourceVersion ?? ""}`;
}

/** Reads a watch in the background; `ended` records the virtual time the stream ended. */
function collect(clock: FakeClock, w: SimWatch) {
  const seen: string[] = [];
  const state: { endedAt: number | undefined; error: unknown } = { endedAt: undefined, error: undefined };
  const done = (async () => {
    try {
      for await (const e of w) seen.push(label(e));
    } catch (err) {
      state.error = err;
    }
    state.endedAt = clock.now();
  })();
  return { seen, state, done };
}

const terminated = (m: InMemoryMetrics, resource = "configmaps") =>
  m.value("apiserver_terminated_watchers_total", { group: "", resource });

describe("§5.3 per-watcher channel sizes", () => {
  // chanSize = clamp(ceil(capacity / 75 s), 10, max): max 10 when the watch selects on the resource's trigger,
  // 1000 when the resource has a trigger the watch does not use, 100 when the resource has no trigger.
  const cases: Array<{
    capacity: number;
    resource: string;
    fieldSelector?: string;
    labelSelector?: string;
    want: number;
  }> = [
    { capacity: 100, resource: "configmaps", want: 10 },
    { capacity: 100, resource: "configmaps", fieldSelector: "metadata.name=x", want: 10 },
    { capacity: 100, resource: "leases.coordination.k8s.io", want: 10 },
    { capacity: 1600, resource: "configmaps", want: 22 },
    { capacity: 1600, resource: "configmaps", labelSelector: "app=x", want: 22 },
    { capacity: 1600, resource: "configmaps", fieldSelector: "metadata.name=x", want: 10 },
    { capacity: 1600, resource: "pods", fieldSelector: "spec.nodeName=node-1", want: 10 },
    { capacity: 1600, resource: "pods", fieldSelector: "status.phase=Running", want: 22 },
    { capacity: 1600, resource: "leases.coordination.k8s.io", want: 22 },
    { capacity: 1600, resource: "leases.coordination.k8s.io", fieldSelector: "metadata.name=x", want: 22 },
    { capacity: 7600, resource: "configmaps", want: 102 },
    { capacity: 7600, resource: "leases.coordination.k8s.io", want: 100 },
    { capacity: 102_400, resource: "configmaps", want: 1000 },
    { capacity: 102_400, resource: "secrets", fieldSelector: "metadata.name=s", want: 10 },
    { capacity: 102_400, resource: "nodes", fieldSelector: "metadata.name=n", want: 10 },
    { capacity: 102_400, resource: "pods", want: 1000 },
    { capacity: 102_400, resource: "leases.coordination.k8s.io", want: 100 },
  ];
  it.each(cases)("capacity $capacity, $resource fields=$fieldSelector labels=$labelSelector → $want", async (c) => {
    const { engine } = setup({ historyLowerBound: c.capacity, historyUpperBound: c.capacity });
    expect(engine.caches.cacher(c.resource).historyStats.capacity).toBe(c.capacity);
    const namespaced = c.resource !== "nodes";
    await engine.watch(c.resource, namespaced ? "default" : "", {
      resourceVersion: "1",
      ...(c.fieldSelector !== undefined && { fieldSelector: c.fieldSelector }),
      ...(c.labelSelector !== undefined && { labelSelector: c.labelSelector }),
    });
    expect(engine.caches.watchers(c.resource).map((w) => w.chanSize)).toEqual([c.want]);
    engine.stop();
  });

  it("the capacity follows churn: a ring grown by 801 fresh events gives new watchers 22 slots", async () => {
    const { engine } = setup();
    for (let i = 0; i < 801; i++) await engine.create("configmaps", "default", cm(`c${i}`));
    expect(engine.caches.cacher("configmaps").historyStats.capacity).toBe(1600);
    await engine.watch("configmaps", "default", { resourceVersion: "0" });
    expect(engine.caches.watchers("configmaps")[0]!.chanSize).toBe(22);
    engine.stop();
  });

  it("a re-initialization keeps the ring's capacity (upstream's ResetLocked): channels follow it until it resizes", async () => {
    // A 10 s freshness window, so channel sizes above the minimum of 10 show small capacities: ceil(capacity / 10).
    const { clock, engine } = setup({ eventFreshMs: 10_000 });
    for (let i = 0; i < 201; i++) await engine.create("configmaps", "default", cm(`burst${i}`));
    expect(engine.caches.cacher("configmaps").historyStats.capacity).toBe(400);
    engine.faults.reinitializeCache("configmaps");
    // The history is empty, its capacity is the burst's: a watch opened now gets the burst's channel size, not the
    // slow churn's that follows (this is what a study measuring a watch right after a re-initialization sees).
    expect(engine.caches.cacher("configmaps").historyStats).toMatchObject({ capacity: 400, size: 0 });
    const early = await engine.watch("configmaps", "default", { resourceVersion: "0" });
    expect(engine.caches.watchers("configmaps")[0]!.chanSize).toBe(40);
    early.stop();
    // One event per second: the ring only resizes when it is full; at the 401st event its newest quarter is older
    // than the window, so it halves, and new watchers get half the slots.
    for (let i = 0; i < 400; i++) {
      await engine.update("configmaps", "default", "burst0", cm("burst0", String(i + 1)));
      await clock.step(1000);
    }
    expect(engine.caches.cacher("configmaps").historyStats.capacity).toBe(400);
    await engine.update("configmaps", "default", "burst0", cm("burst0", "last"));
    expect(engine.caches.cacher("configmaps").historyStats.capacity).toBe(200);
    await engine.watch("configmaps", "default", { resourceVersion: "0" });
    expect(engine.caches.watchers("configmaps").map((w) => w.chanSize)).toEqual([20]);
    engine.stop();
  });

  it("the window is eventFreshDuration: 1600 slots over 150 s is 11 per watcher", async () => {
    const { engine } = setup({ historyLowerBound: 1600, historyUpperBound: 1600, eventFreshMs: 150_000 });
    await engine.watch("configmaps", "default", { resourceVersion: "1" });
    expect(engine.caches.watchers("configmaps")[0]!.chanSize).toBe(11);
    engine.stop();
  });
});

describe("§5.4 shared dispatch budget and forced close", () => {
  /** A watch whose consumer never reads: after 2·chanSize events (result, then input) it blocks the dispatcher. */
  async function deafWatch(engine: SimApiServer, labelSelector?: string) {
    return engine.watch("configmaps", "default", {
      resourceVersion: String(engine.currentResourceVersion),
      timeoutSeconds: 3600,
      ...(labelSelector !== undefined && { labelSelector }),
    });
  }

  async function writes(engine: SimApiServer, n: number, prefix = "w") {
    for (let i = 0; i < n; i++) await engine.create("configmaps", "default", cm(`${prefix}${i}`));
  }

  it("a blocked watcher is closed when the 100 ms budget runs out: no ERROR event, metric and log line", async () => {
    const { clock, engine, logs, metrics } = await steady();
    const w = await deafWatch(engine);
    await writes(engine, 20);
    const cacher = engine.caches.cacher("configmaps");
    expect([
      engine.caches.watchers("configmaps")[0]!.resultLength,
      engine.caches.watchers("configmaps")[0]!.inputLength,
    ]).toEqual([10, 10]);
    expect(cacher.dispatchBudget).toBe(100);
    await writes(engine, 1, "x"); // the 21st event blocks: the dispatcher takes the whole budget
    expect(cacher.dispatchBudget).toBe(0);
    await clock.step(99);
    expect(engine.caches.watchers("configmaps")).toHaveLength(1);
    await clock.step(1);
    expect(engine.caches.watchers("configmaps")).toHaveLength(0);
    expect(cacher.terminatedWatchers).toBe(1);
    expect(terminated(metrics)).toBe(1);
    expect(logs).toEqual([
      'Forcing configmaps watcher close due to unresponsiveness: key: "/configmaps/default", labels: "", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false',
    ]);
    // The client reads what the result channel already held, then a normal end: no ERROR event.
    const c = collect(clock, w);
    await c.done;
    expect(c.seen).toHaveLength(10);
    expect(c.seen.every((s) => s.startsWith("ADDED w"))).toBe(true);
    expect(c.state.error).toBeUndefined();
    // The dispatcher went on: a new watch gets later events.
    const next = collect(clock, await deafWatch(engine));
    await writes(engine, 1, "y");
    await settle();
    expect(next.seen).toEqual([`ADDED y0@${engine.currentResourceVersion}`]);
    engine.stop();
  });

  it("two blocked watchers share one budget: both are closed after 100 ms, not 200", async () => {
    const { clock, engine, metrics } = await steady();
    await deafWatch(engine);
    await deafWatch(engine);
    const healthy = collect(clock, await deafWatch(engine));
    await writes(engine, 21);
    const t0 = clock.now();
    await clock.step(100);
    expect(engine.caches.watchers("configmaps")).toHaveLength(1);
    expect(clock.now() - t0).toBe(100);
    expect(terminated(metrics)).toBe(2);
    // Refilled at 50 ms per second of the 100 ms it waited.
    expect(engine.caches.cacher("configmaps").dispatchBudget).toBe(5);
    await settle();
    expect(healthy.seen).toHaveLength(21);
    engine.stop();
  });

  it("time not spent waiting is returned to the budget", async () => {
    const { clock, engine } = await steady();
    const slow = await deafWatch(engine);
    await writes(engine, 21);
    await clock.step(30);
    // The consumer wakes up after 30 ms and reads one event: input has room, the blocked event goes in.
    await slow.next();
    // 100 taken, 70 returned, 30 ms · 50 ms/s = 1.5 ms refilled.
    expect(engine.caches.cacher("configmaps").dispatchBudget).toBe(71.5);
    expect(engine.caches.watchers("configmaps")).toHaveLength(1);
    engine.stop();
  });

  it("the budget is shared across events: right after a forced close the next blocked watcher gets only the refill", async () => {
    const { clock, engine, metrics } = await steady();
    await deafWatch(engine, "app!=late");
    await writes(engine, 21); // the first watcher blocks, budget 100 → 0
    const late = await deafWatch(engine); // registered now, it starts filling up
    await clock.step(100); // first watcher closed; budget refilled to 5 ms
    expect(terminated(metrics)).toBe(1);
    await writes(engine, 20, "z"); // late watcher: result 10, input 10
    await writes(engine, 1, "zz"); // blocks: 5 ms left
    await clock.step(4);
    expect(engine.caches.watchers("configmaps")).toHaveLength(1);
    await clock.step(1);
    expect(engine.caches.watchers("configmaps")).toHaveLength(0);
    expect(terminated(metrics)).toBe(2);
    const c = collect(clock, late);
    await c.done;
    expect(c.seen).toHaveLength(10);
    engine.stop();
  });

  it("a watcher blocked right after the cache starts is closed at once: the budget starts empty", async () => {
    const { clock, engine, logs, logAt, metrics } = setup();
    const start = clock.now();
    expect(engine.caches.cacher("configmaps").dispatchBudget).toBe(0);
    const w = await deafWatch(engine);
    await writes(engine, 21); // no virtual time has passed since the cacher was created
    expect(terminated(metrics)).toBe(1);
    expect(logAt).toEqual([start]);
    expect(logs[0]).toMatch(/^Forcing configmaps watcher close due to unresponsiveness: .*graceful = false$/);
    const c = collect(clock, w);
    await c.done;
    expect(c.seen).toHaveLength(10);
    expect(c.state.error).toBeUndefined();
    engine.stop();
  });

  it("half a second after the cache starts a blocked watcher gets the 25 ms earned so far", async () => {
    const { clock, engine, metrics } = setup();
    await clock.step(500);
    await deafWatch(engine);
    await writes(engine, 21);
    expect(engine.caches.cacher("configmaps").dispatchBudget).toBe(0);
    await clock.step(24);
    expect([engine.caches.watchers("configmaps").length, terminated(metrics)]).toEqual([1, 0]);
    await clock.step(1);
    expect([engine.caches.watchers("configmaps").length, terminated(metrics)]).toEqual([0, 1]);
    engine.stop();
  });

  it("with no refill the budget stays at 0 and a blocked watcher is closed at once, however long the cache ran", async () => {
    const { clock, engine, metrics } = setup({ budgetRefreshMsPerSecond: 0 });
    await clock.step(60_000);
    expect(engine.caches.cacher("configmaps").dispatchBudget).toBe(0);
    const w = await deafWatch(engine);
    await writes(engine, 21);
    expect(terminated(metrics)).toBe(1);
    const c = collect(clock, w);
    await c.done;
    expect(c.seen).toHaveLength(10);
    engine.stop();
  });

  it("the budget fills at 50 ms per second from the cache's start up to 100 ms, and again after being spent", async () => {
    const { clock, engine } = setup();
    const fromStart: number[] = [engine.caches.cacher("configmaps").dispatchBudget];
    for (let i = 0; i < 3; i++) {
      await clock.step(1000);
      fromStart.push(engine.caches.cacher("configmaps").dispatchBudget);
    }
    expect(fromStart).toEqual([0, 50, 100, 100]);
    await deafWatch(engine);
    await writes(engine, 21);
    await clock.step(100);
    const afterSpending: number[] = [engine.caches.cacher("configmaps").dispatchBudget];
    for (let i = 0; i < 3; i++) {
      await clock.step(1000);
      afterSpending.push(engine.caches.cacher("configmaps").dispatchBudget);
    }
    expect(afterSpending).toEqual([5, 55, 100, 100]);
    engine.stop();
  });

  it("graceful close: a watch-list watcher holding its init-end bookmark in input is drained, not cut", async () => {
    const { clock, engine, logs } = await steady();
    for (let i = 0; i < 15; i++) await engine.create("configmaps", "default", cm(`o${i}`));
    const w = await engine.watch("configmaps", "default", {
      resourceVersion: "0",
      allowWatchBookmarks: true,
      timeoutSeconds: 3600,
    });
    const rv = engine.currentResourceVersion;
    await clock.step(1300); // the bookmark tick puts the end marker into input (result is full of initial events)
    expect(engine.caches.watchers("configmaps")[0]!.holdsEndBookmark).toBe(true);
    await writes(engine, 10); // input: bookmark + 9 events; the 10th blocks
    await clock.step(100);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/len\(c\.input\) = 10, len\(c\.result\) = 10, graceful = true$/);
    const c = collect(clock, w);
    await c.done;
    // Every initial event, the end marker and what input held; not the event that could not be delivered.
    expect(c.seen).toHaveLength(15 + 1 + 9);
    expect(c.seen[15]).toBe(`BOOKMARK @${rv}`);
    expect(c.seen.at(-1)).toBe(`ADDED w8@${rv + 9}`);
    expect(c.state.error).toBeUndefined();
  });
});

describe("§5.4 reproduction: RV=0 watches closed during their initial events under churn", () => {
  interface Scenario {
    /** Objects in the initial list. */
    readonly objects: number;
    /** How fast the client reads (events per second, in batches of 10). */
    readonly readPerSecond: number;
    /** Matching updates per second while the watch initializes. */
    readonly churnPerSecond: number;
    /** WatchList gate: off = legacy RV=0 watch (W6), on = defaulted watch-list (W3). */
    readonly watchList: boolean;
    /** Dispatch budget (default 100 ms). */
    readonly budgetMs?: number;
    /**
     * Open the watch right after the caches start, with the budget still empty (default: after
     * {@link STEADY_STATE_MS}, with the budget full).
     */
    readonly coldStart?: boolean;
  }

  /**
   * Opens an RV "0" watch over `objects` configmaps while a ticker updates them at `churnPerSecond`, and reads it at
   * `readPerSecond`, for 5 s of virtual time.
   */
  async function run(s: Scenario) {
    const { clock, engine, logs, logAt, metrics } = setup({
      watchList: s.watchList,
      progressNotifyIntervalMs: 0,
      ...(s.budgetMs !== undefined && { dispatchBudgetMs: s.budgetMs }),
    });
    if (s.coldStart !== true) await clock.step(STEADY_STATE_MS);
    for (let i = 0; i < s.objects; i++) await engine.create("configmaps", "default", cm(`cm-${i}`));
    const t0 = clock.now();
    const w = await engine.watch("configmaps", "default", { resourceVersion: "0", timeoutSeconds: 3600 });
    const chanSize = engine.caches.watchers("configmaps")[0]!.chanSize;
    const seen: string[] = [];
    const state: { endedAt: number | undefined } = { endedAt: undefined };
    const reader = (async () => {
      for await (const e of w) {
        seen.push(label(e));
        if (seen.length % 10 === 0) await clock.sleep((10 * 1000) / s.readPerSecond);
      }
      state.endedAt = clock.now() - t0;
    })();
    let k = 0;
    const churn = clock.newTicker(1000 / s.churnPerSecond, () => {
      const i = k++ % s.objects;
      void engine.update("configmaps", "default", `cm-${i}`, cm(`cm-${i}`, String(k)));
    });
    await clock.step(2000);
    churn.stop();
    await clock.step(3000);
    const survived = engine.caches.watchers("configmaps").length === 1;
    engine.stop();
    await reader;
    return {
      chanSize,
      initDuration: (s.objects / s.readPerSecond) * 1000,
      updates: k,
      survived,
      endedAt: state.endedAt,
      killedAt: logAt.length > 0 ? logAt[0]! - t0 : undefined,
      seen,
      logs,
      terminated: terminated(metrics),
    };
  }

  // 1000 objects read at 1000 events/s: the initial events take 1 s. The creates grew the ring to 1600 slots, so the
  // watcher has 22-slot channels; updates during that second land in input and are not drained until the initial
  // events are done.
  const base = { objects: 1000, readPerSecond: 1000 };
  it.each([
    { ...base, churnPerSecond: 10, watchList: false, killed: false },
    { ...base, churnPerSecond: 20, watchList: false, killed: false },
    { ...base, churnPerSecond: 40, watchList: false, killed: true },
    { ...base, churnPerSecond: 100, watchList: false, killed: true },
    { ...base, churnPerSecond: 10, watchList: true, killed: false },
    { ...base, churnPerSecond: 100, watchList: true, killed: true },
  ])("churn $churnPerSecond/s (watchList=$watchList): killed=$killed", async (s) => {
    const r = await run(s);
    expect(r.chanSize).toBe(22);
    // The threshold: matching events during the initial events vs the input channel.
    const overflow = (s.churnPerSecond * r.initDuration) / 1000 > r.chanSize;
    expect(overflow).toBe(s.killed);
    expect(r.survived).toBe(!s.killed);
    expect(r.terminated).toBe(s.killed ? 1 : 0);
    const initial = r.seen.filter((e) => e.startsWith("ADDED"));
    if (s.killed) {
      // Closed before the client had its initial list; the stream just ends (no ERROR event).
      expect(initial.length).toBeLessThan(s.objects);
      expect(r.seen.some((e) => e.startsWith("ERROR"))).toBe(false);
      expect(r.killedAt).toBeLessThan(r.initDuration);
      expect(r.endedAt).toBeLessThan(r.initDuration);
      expect(r.logs).toEqual([
        `Forcing configmaps watcher close due to unresponsiveness: key: "/configmaps/default", labels: "", fields: "". len(c.input) = ${r.chanSize}, len(c.result) = ${r.chanSize}, graceful = false`,
      ]);
    } else {
      // Every object once, then every update in order.
      expect(initial).toHaveLength(s.objects);
      expect(r.seen.slice(s.objects)).toHaveLength(r.updates);
      expect(r.seen.slice(s.objects).every((e) => e.startsWith("MODIFIED"))).toBe(true);
      // initProcessThreshold: the hand-over took more than 500 ms. The last initial event entered result once the
      // reader (10 events per 10 ms) had taken 980 of them, 22 slots ahead: at 970 ms.
      expect(r.logs).toEqual([
        'processing 1000 initEvents of configmaps (key: "/configmaps/default", labels: "", fields: "") took 970ms',
      ]);
    }
  });

  it("the budget buys time: input overflowing less than 100 ms before the initial events end is survived", async () => {
    // 25 updates/s × 1 s > 22 slots, but the 23rd update (at 920 ms) blocks only until the reader finishes the
    // initial events at 1 s and starts draining input.
    const r = await run({ ...base, churnPerSecond: 25, watchList: false });
    expect((25 * r.initDuration) / 1000).toBeGreaterThan(r.chanSize);
    expect(r.survived).toBe(true);
    expect(r.terminated).toBe(0);
    // Control: with a 50 ms budget the same watcher is closed (its timer fires at 970 ms, before the reader drains).
    const short = await run({ ...base, churnPerSecond: 25, watchList: false, budgetMs: 50 });
    expect([short.survived, short.terminated]).toEqual([false, 1]);
    expect(short.killedAt).toBe(970);
  });

  it("right after the caches start the budget is still filling: the same 25/s watch is closed", async () => {
    // The 23rd update (at 920 ms) blocks when the budget has earned only 920 ms · 50 ms/s = 46 ms: the timer fires at
    // 966 ms, before the reader finishes the initial events at 1 s.
    const r = await run({ ...base, churnPerSecond: 25, watchList: false, coldStart: true });
    expect([r.survived, r.terminated, r.killedAt]).toEqual([false, 1, 966]);
    expect(r.seen.filter((e) => e.startsWith("ADDED")).length).toBeLessThan(base.objects);
    // Faster churn overflows earlier, with even less budget earned: 100/s blocks at 230 ms with 11.5 ms.
    const fast = await run({ ...base, churnPerSecond: 100, watchList: false, coldStart: true });
    expect(fast.killedAt).toBe(241.5);
  });

  it("is deterministic: the same scenario gives the same stream, close time and log every run", async () => {
    const s = { ...base, churnPerSecond: 60, watchList: false };
    const a = await run(s);
    const b = await run(s);
    expect(a.survived).toBe(false);
    expect([b.seen, b.endedAt, b.killedAt, b.logs, b.updates]).toEqual([
      a.seen,
      a.endedAt,
      a.killedAt,
      a.logs,
      a.updates,
    ]);
  });

  it("a watch-list retry rebuilds the same initial interval and is closed the same way", async () => {
    const { clock, engine, metrics } = await steady({ progressNotifyIntervalMs: 0 });
    for (let i = 0; i < 1000; i++) await engine.create("configmaps", "default", cm(`cm-${i}`));
    let k = 0;
    const churn = clock.newTicker(10, () => {
      const i = k++ % 1000;
      void engine.update("configmaps", "default", `cm-${i}`, cm(`cm-${i}`, String(k)));
    });
    const attempts: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const w = await engine.watch("configmaps", "default", {
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
        timeoutSeconds: 3600,
      });
      let n = 0;
      const reader = (async () => {
        for await (const _ of w) if (++n % 10 === 0) await clock.sleep(10);
      })();
      await clock.step(2000);
      await reader;
      attempts.push(n);
    }
    churn.stop();
    expect(terminated(metrics)).toBe(3);
    for (const n of attempts) expect(n).toBeLessThan(1000);
    expect(new Set(attempts).size).toBe(1);
    engine.stop();
  });
});
