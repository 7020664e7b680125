import { FakeClock, realClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { LONG_WAIT_BUCKETS_SECONDS, LongHistogram } from "./long-histogram.js";
import { costFunction } from "./processing-cost.js";
import { ScenarioRuntime, ScenarioStalledError } from "./study-runtime.js";

describe("ScenarioRuntime", () => {
  it("one worker at 40 ms per item drains 100 keys in 4 s of virtual time, waits growing linearly", async () => {
    const clock = new FakeClock(0);
    const waits = new Map<string, number>();
    const rt = new ScenarioRuntime({
      clock,
      rand: seededRand(1),
      workers: 1,
      cost: 40,
      onTaken: (k, w) => waits.set(k, w),
    });
    for (let i = 0; i < 100; i++) rt.enqueue(`k${i}`);
    await rt.run({ forMs: 10_000, until: () => rt.processed() === 100 });
    expect(clock.now()).toBe(4000);
    expect(waits.get("k0")).toBe(0);
    expect(waits.get("k99")).toBe(99 * 40);
    expect(rt.waitHistogram.count()).toBe(100);
    await rt.stop();
  });

  it("N workers divide the drain time; skip costs nothing", async () => {
    const clock = new FakeClock(0);
    const rt = new ScenarioRuntime({
      clock,
      rand: seededRand(1),
      workers: 4,
      cost: 40,
      process: (k) => (k.endsWith("skip") ? "skip" : undefined),
    });
    for (let i = 0; i < 100; i++) rt.enqueue(`k${i}`);
    for (let i = 0; i < 50; i++) rt.enqueue(`k${i}-skip`);
    await rt.run({ forMs: 10_000, stepMs: 100, until: () => rt.processed() === 150 });
    expect(clock.now()).toBe(1000);
    expect(rt.skipped()).toBe(50);
    await rt.stop();
  });

  it("samples queue depth and events per second on the clock", async () => {
    const clock = new FakeClock(0);
    const rt = new ScenarioRuntime({ clock, rand: seededRand(1), workers: 1, cost: 90, sampleIntervalMs: 1000 });
    for (let i = 0; i < 30; i++) rt.enqueue(`k${i}`);
    await rt.run({ forMs: 3000 });
    const s = rt.samples();
    expect(s.map((x) => x.t)).toEqual([0, 1000, 2000, 3000]);
    expect(s[0]?.queueDepth).toBe(30);
    // by t=1 s, 11 items finished (at 90 … 990 ms) and the 12th is in flight
    expect(s[1]).toMatchObject({ queueDepth: 18, inFlight: 1, processedPerSecond: 11, eventsPerSecond: 0 });
    // every key was queued at 0: the oldest still queued has waited the whole second
    expect(s[1]?.oldestWaitMs).toBe(1000);
    expect(s[0]?.oldestWaitMs).toBe(0);
    await rt.stop();
    expect(rt.samples().at(-1)?.t).toBe(3000);
  });

  it("fails with the pending work named when nothing is left to fire, instead of hanging", async () => {
    const clock = new FakeClock(0);
    const never = new Promise<undefined>(() => {});
    const rt = new ScenarioRuntime({
      clock,
      rand: seededRand(1),
      workers: 1,
      cost: 0,
      process: (k) => (k === "stuck" ? never : undefined),
    });
    rt.enqueue("stuck");
    rt.enqueue("next");
    const err = await rt.run({ forMs: 60_000, until: () => false, untilLabel: "all keys processed" }).catch((e) => e);
    expect(err).toBeInstanceOf(ScenarioStalledError);
    expect(err.message).toContain('worker 0 is processing "stuck"');
    expect(err.message).toContain('1 key(s) queued ("next")');
    expect(err.message).toContain("all keys processed is unmet");
    expect(err.message).toContain("stalled at virtual t=0 ms: the clock has nothing left to fire");
    expect(err.clock).toBe("virtual");
    expect(clock.now()).toBe(0);
  });

  it("detects a stall while a recurring timer (a resync, bookmarks) keeps the clock busy, after stallAfterMs", async () => {
    const clock = new FakeClock(0);
    const ticks: number[] = [];
    const resync = clock.newTicker(1000, () => ticks.push(clock.now()));
    const never = new Promise<undefined>(() => {});
    const rt = new ScenarioRuntime({
      clock,
      rand: seededRand(1),
      workers: 1,
      cost: 10,
      process: (k) => (k === "stuck" ? never : undefined),
    });
    rt.enqueue("a");
    rt.enqueue("stuck");
    rt.enqueue("b");
    const err = await rt.run({ forMs: 3_600_000, stallAfterMs: 5000 }).catch((e) => e);
    expect(err).toBeInstanceOf(ScenarioStalledError);
    expect(err.idleMs).toBe(5000);
    expect(err.message).toMatch(/no progress for 5000 ms \(only recurring timers fired\)/);
    expect(err.message).toContain('worker 0 is processing "stuck"');
    // "a" was done at 10 ms and "stuck" taken then; the stall is called 5 s after the last change, not at 1 h
    expect(clock.now()).toBeLessThanOrEqual(6000);
    expect(ticks.length).toBeGreaterThan(0);
    resync.stop();
  });

  it("a long processing cost or a study's own activity is progress, not a stall", async () => {
    const clock = new FakeClock(0);
    const resync = clock.newTicker(1000, () => {});
    const rt = new ScenarioRuntime({ clock, rand: seededRand(1), workers: 1, cost: 120_000 });
    rt.enqueue("slow");
    rt.enqueue("next");
    await rt.run({ forMs: 600_000, stallAfterMs: 5000, until: () => rt.processed() === 2 });
    expect(clock.now()).toBe(240_000);
    // nothing queued, `until` unmet, but the study reports activity (e.g. its store growing) every 2 s
    let grown = 0;
    const grow = clock.newTicker(2000, () => grown++);
    await rt.run({ forMs: 30_000, stallAfterMs: 5000, until: () => grown >= 10, activity: () => grown });
    expect(grown).toBe(10);
    grow.stop();
    // …and without activity the same unmet condition is a stall after 5 s
    const err = await rt.run({ forMs: 30_000, stallAfterMs: 5000, until: () => false }).catch((e) => e);
    expect(err).toBeInstanceOf(ScenarioStalledError);
    expect(err.message).toContain("the run's condition is unmet");
    resync.stop();
    await rt.stop();
  });

  it("records a failing item as data and keeps working", async () => {
    const clock = new FakeClock(0);
    const rt = new ScenarioRuntime({
      clock,
      rand: seededRand(1),
      workers: 1,
      cost: 10,
      process: (k) => {
        if (k === "bad") throw new Error("boom");
        return undefined;
      },
    });
    rt.enqueue("bad");
    rt.enqueue("good");
    await rt.run({ forMs: 1000, until: () => rt.processed() === 1 });
    expect(rt.errors).toEqual([{ key: "bad", message: "boom" }]);
    await rt.stop();
  });

  it("rejects a bad worker count", () => {
    expect(() => new ScenarioRuntime({ clock: new FakeClock(0), rand: seededRand(1), workers: 0, cost: 1 })).toThrow(
      /workers must be an integer ≥ 1, got 0/,
    );
  });
});

describe("LongHistogram", () => {
  it("puts a 60 s wait in its own bucket (client-go's buckets would say +Inf) and reaches hours", () => {
    const h = new LongHistogram();
    h.observe(60);
    h.observe(0.0005);
    h.observe(5 * 3600);
    h.observe(1e6);
    const b = h.buckets();
    expect(b.find((x) => x.le === 60)?.count).toBe(1);
    expect(b.find((x) => x.le === 21600)?.count).toBe(1);
    expect(b.at(-1)).toEqual({ le: Number.POSITIVE_INFINITY, count: 1 });
    expect(h.stats()).toMatchObject({ count: 4, min: 0.0005, max: 1e6 });
    expect(LONG_WAIT_BUCKETS_SECONDS.at(-1)).toBeGreaterThanOrEqual(3600);
    expect(() => h.observe(-1)).toThrow(/got -1/);
  });
});

describe("costFunction", () => {
  it("draws distributions from the seeded rand, deterministically", () => {
    const a = costFunction({ kind: "uniform", minMs: 10, maxMs: 20 }, seededRand(7));
    const b = costFunction({ kind: "uniform", minMs: 10, maxMs: 20 }, seededRand(7));
    const xs = Array.from({ length: 50 }, () => a("k"));
    expect(xs).toEqual(Array.from({ length: 50 }, () => b("k")));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...xs)).toBeLessThan(20);
    const e = costFunction({ kind: "exponential", meanMs: 40 }, seededRand(3));
    const mean = Array.from({ length: 4000 }, () => e("k")).reduce((s, x) => s + x, 0) / 4000;
    expect(mean).toBeGreaterThan(35);
    expect(mean).toBeLessThan(45);
    expect(costFunction((k) => k.length, seededRand(1))("abc")).toBe(3);
    expect(() => costFunction((): number => -1, seededRand(1))("x")).toThrow(/for key "x" must be .* got -1/);
  });

  // A study's --real-time: the same runtime waits on the real clock (tiny sizes: a few hundred ms of real time).
  it("on the real clock waits for the work instead of driving time, and reports progress per step", async () => {
    const rt = new ScenarioRuntime({
      clock: realClock,
      rand: seededRand(1),
      workers: 2,
      cost: 10,
      sampleIntervalMs: 50,
    });
    for (let i = 0; i < 6; i++) rt.enqueue(`k${i}`);
    const reported: number[] = [];
    const t0 = realClock.now();
    await rt.run({ forMs: 5000, stepMs: 20, until: () => rt.processed() === 6, onProgress: (ms) => reported.push(ms) });
    expect(rt.processed()).toBe(6);
    // 3 rounds of 10 ms on 2 workers: at least 30 ms of real time passed, and every report is a whole step
    expect(realClock.now() - t0).toBeGreaterThanOrEqual(30);
    expect(reported.length).toBeGreaterThan(0);
    expect(reported.every((ms, i) => ms === 20 * (i + 1))).toBe(true);
    expect(rt.waitHistogram.count()).toBe(6);
    await rt.stop();
  });

  it("on the real clock names a stall instead of idling to the deadline", async () => {
    const rt = new ScenarioRuntime({
      clock: realClock,
      rand: seededRand(1),
      workers: 1,
      cost: 0,
      process: () => new Promise<undefined>(() => {}), // never finishes
    });
    rt.enqueue("stuck");
    const err = await rt.run({ forMs: 60_000, stallAfterMs: 150 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioStalledError);
    expect((err as Error).message).toContain('worker 0 is processing "stuck"');
    expect((err as ScenarioStalledError).idleMs).toBeGreaterThanOrEqual(150);
    // the run was on the real clock: the message says real elapsed time, not a virtual instant
    const stalled = err as ScenarioStalledError;
    expect(stalled.clock).toBe("real");
    expect(stalled.message).toMatch(/^scenario stalled after \d+ ms of real time: no progress for \d+ ms but work/);
    expect(stalled.message).not.toContain("virtual");
    expect(stalled.message).not.toContain("recurring timers");
  });
});
