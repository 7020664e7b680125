import { describe, expect, it } from "vitest";
import { runStatefulSetResync } from "./statefulset-resync.js";

// Small: 500 StatefulSets × 40 ms = a 20 s pass against a 5 s resync (the write-up's ratio is 80 s against 30 s).
const small = {
  statefulsets: 500,
  costMs: 40,
  resyncSeconds: 5,
  workers: 5,
  durationSeconds: 60,
  probes: 3,
  probeStartSeconds: 30,
  probeIntervalSeconds: 5,
} as const;

describe("statefulset-resync (003)", () => {
  it("with resync a new StatefulSet waits longer than the resync period; without, under a second", async () => {
    const r = await runStatefulSetResync({ ...small, variants: ["resync", "no-resync", "skip-processed-rv"] });
    const [resync, noResync, skip] = r.variants;
    expect(resync?.figures.probesUnprocessed).toBe(0);
    expect(resync?.figures.probeWaitMinSeconds).toBeGreaterThan(small.resyncSeconds);
    // the queue never drains: it cycles well above zero after the first pass
    expect(resync?.figures.steadyQueueMin).toBeGreaterThan(100);
    expect(noResync?.figures.probeWaitMaxSeconds).toBeLessThan(1);
    expect(noResync?.figures.steadyQueueMax).toBe(0);
    // the write-up's second fix: resync stays, unchanged keys are skipped, new ones are not kept waiting
    expect(skip?.figures.probeWaitMaxSeconds).toBeLessThan(1);
    expect(skip?.figures.skipped).toBeGreaterThan(0);
    expect(r.summary.some((row) => row.writeUp.includes("2000+ down to 1525"))).toBe(true);
    // the long histogram holds the multi-second waits the faithful 10 s buckets would call +Inf
    const over10 = resync?.waitBuckets.filter((b) => b.le > 10).reduce((s, b) => s + b.count, 0) ?? 0;
    expect(over10).toBeGreaterThan(0);
  });

  it("is deterministic for a seed, cost spread included", async () => {
    const opts = { ...small, costSpreadMs: 10, durationSeconds: 40, variants: ["resync"] as const, seed: 7 };
    const a = await runStatefulSetResync(opts);
    const b = await runStatefulSetResync(opts);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const c = await runStatefulSetResync({ ...opts, seed: 8 });
    expect(JSON.stringify(c.variants[0]?.figures)).not.toBe(JSON.stringify(a.variants[0]?.figures));
  });

  it("refuses a probe schedule that runs past the end of the run, naming the numbers", async () => {
    await expect(
      runStatefulSetResync({
        ...small,
        durationSeconds: 35,
        probes: 3,
        probeStartSeconds: 30,
        probeIntervalSeconds: 5,
      }),
    ).rejects.toThrow(/last probe would be created at 40 s, after the end of the run \(35 s\)/);
  });

  it("--real-time: the same informer over real HTTP on the real clock (tiny: 30 StatefulSets × 10 ms, 2.5 s)", async () => {
    const r = await runStatefulSetResync({
      realTime: true,
      statefulsets: 30,
      costMs: 10,
      resyncSeconds: 1,
      durationSeconds: 2.5,
      probes: 1,
      probeStartSeconds: 1.5,
      probeIntervalSeconds: 1,
      sampleSeconds: 0.25,
      variants: ["resync"],
    });
    const f = r.variants[0]?.figures;
    expect(r.params.realTime).toBe(true);
    expect(r.description).toContain("real s per variant over HTTP");
    // the pass took 0.3 s, and the resyncs at ~1 s and ~2 s queued every key again
    expect(f?.firstFullPassSeconds).not.toBeNull();
    expect(f?.processed).toBeGreaterThan(30);
    expect(f?.probesUnprocessed).toBe(0);
    expect(f?.errors).toBe(0);
    // the informer's watch-list went over HTTP and the simulator accounted it when it ended
    expect(f?.informerRequests).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
