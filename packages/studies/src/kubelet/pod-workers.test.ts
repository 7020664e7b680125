import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import type { KubeletPod } from "./manager.js";
import { PodWorkers, type SyncPodType } from "./pod-workers.js";

const pod = (name: string): KubeletPod => ({ namespace: "ns", name, uid: name, configMaps: [] });

describe("PodWorkers", () => {
  it("syncs a new or changed pod at once, then every 60–90 s on the 1 s sync tick", async () => {
    const clock = new FakeClock(0);
    const syncs: [string, SyncPodType, number][] = [];
    const w = new PodWorkers({
      clock,
      rand: seededRand(5),
      tickPhaseMs: 400,
      syncPod: (p, type) => syncs.push([p.name, type, clock.now()]),
    });
    w.start();
    w.updatePod(pod("a"));
    expect(syncs).toEqual([["a", "create", 0]]);
    await clock.step(10_000);
    w.updatePod(pod("a"));
    expect(syncs[1]).toEqual(["a", "update", 10_000]);
    await clock.step(3_600_000);
    const times = syncs.map((s) => s[2]);
    const gaps = times.slice(2).map((t, i) => t - (times[i + 1] ?? 0));
    expect(gaps.length).toBeGreaterThan(35);
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(60_000);
      expect(g).toBeLessThanOrEqual(91_000);
    }
    // resyncs happen on the tick grid (phase 400 ms)
    for (const t of times.slice(2)) expect(t % 1000).toBe(400);
    expect(syncs.slice(2).every((s) => s[1] === "sync")).toBe(true);
    expect(Math.min(...gaps)).toBeLessThan(70_000);
    expect(Math.max(...gaps)).toBeGreaterThan(80_000);
    expect(w.syncs).toBe(syncs.length);
    w.stop();
    const n = syncs.length;
    await clock.step(600_000);
    expect(syncs).toHaveLength(n);
  });

  it("adopts a running pod without syncing it until its resync is due, and forgets a removed pod", async () => {
    const clock = new FakeClock(0);
    const syncs: string[] = [];
    const w = new PodWorkers({ clock, rand: seededRand(1), syncPod: (p) => syncs.push(p.name) });
    w.start();
    w.adoptPod(pod("a"), 5_000);
    w.adoptPod(pod("b"), 5_000);
    await clock.step(4_000);
    expect(syncs).toEqual([]);
    await clock.step(1_000);
    expect(syncs).toEqual(["a", "b"]);
    w.removePod("b");
    await clock.step(100_000);
    expect(syncs.filter((s) => s === "b")).toHaveLength(1);
    expect(w.size).toBe(1);
    w.stop();
  });
});
