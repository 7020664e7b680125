import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyStep, type CustomStep, describeStep, type FaultStep, faultStepArb, historyArb } from "./arbitraries.js";
import { runInformerCase } from "./check-informer.js";
import { createSimCluster } from "./sim-cluster.js";

const KINDS: readonly FaultStep["kind"][] = [
  "drop-watches",
  "compact",
  "reinitialize-cache",
  "request-fault",
  "too-large-rv",
  "stall-watchers",
  "late-bookmarks",
  "error-burst",
  "truncate-watch",
  "bookmarks",
  "latency",
];

describe("faultStepArb", () => {
  it("generates every fault of the issue's list, 429s with a generated Retry-After", () => {
    const steps = fc.sample(faultStepArb(), { numRuns: 2000, seed: 1 });
    expect(new Set(steps.map((s) => s.kind))).toEqual(new Set(KINDS));
    const retryAfter = new Set(
      steps.flatMap((s) => (s.kind === "request-fault" && s.code === 429 ? [s.retryAfterSeconds] : [])),
    );
    expect(retryAfter).toEqual(new Set([1, 5, 30]));
  });

  it("describes each new fault as one readable line", () => {
    expect(describeStep({ kind: "too-large-rv", verb: "watch" })).toBe(
      "next watch answers 504 Too large resource version (a lagging watch cache)",
    );
    expect(describeStep({ kind: "stall-watchers", namespace: "default", name: "a", updates: 120 })).toBe(
      "open watches stop reading; default/a updated 120 times (full buffers: the dispatch budget closes them)",
    );
    expect(describeStep({ kind: "late-bookmarks", ms: 5000 })).toBe("bookmarks withheld for 5000 ms, then sent late");
    expect(describeStep({ kind: "request-fault", verb: "list", code: 429, retryAfterSeconds: 30 })).toBe(
      "next list answers 429 (Retry-After: 30)",
    );
  });
});

describe("the new fault steps against the library's informer", () => {
  it("stall-watchers: the informer's stalled watch is closed by the dispatch budget, and it converges", async () => {
    let terminated = -1;
    const outcome = await runInformerCase(
      {
        invariants: ({ cluster }) => {
          terminated = cluster.engine.caches.cacher("configmaps").terminatedWatchers;
          return [];
        },
      },
      {
        useWatchList: false,
        seed: 3,
        steps: [{ kind: "stall-watchers", namespace: "default", name: "a", updates: 120 }],
      },
    );
    expect(outcome.reports.filter((r) => !r.ok)).toEqual([]);
    expect(terminated).toBeGreaterThanOrEqual(1);
    expect(outcome.timeline.find((e) => e.kind === "step")?.text).toMatch(
      /→ 1 watches stalled, 120 updates, 0 stalled/,
    );
  });

  it("stall-watchers with few updates leaves the watch stalled until the faults end; nothing is lost", async () => {
    const outcome = await runInformerCase(
      {},
      {
        useWatchList: true,
        seed: 4,
        steps: [{ kind: "stall-watchers", namespace: "team-a", name: "b", updates: 5 }],
      },
    );
    expect(outcome.reports.filter((r) => !r.ok)).toEqual([]);
    expect(outcome.timeline.find((e) => e.kind === "step")?.text).toMatch(/5 updates, 1 stalled watches still open/);
  });

  it("too-large-rv: the watch gets the 504 and the informer recovers", async () => {
    const outcome = await runInformerCase(
      {},
      {
        useWatchList: false,
        seed: 5,
        steps: [
          { kind: "put", namespace: "default", name: "a", value: 1 },
          { kind: "too-large-rv", verb: "watch" },
          { kind: "drop-watches", asError: false },
          { kind: "put", namespace: "default", name: "a", value: 2 },
        ],
      },
    );
    expect(outcome.reports.filter((r) => !r.ok)).toEqual([]);
    expect(outcome.timeline.some((e) => e.kind === "request" && /^watch .* → 504/.test(e.text))).toBe(true);
  });

  it("late-bookmarks: bookmarks are off for the interval and back after it; clearAll cancels the timer", async () => {
    const cluster = await createSimCluster();
    try {
      cluster.faults.delayBookmarks(5000);
      expect(cluster.engine.faults.bookmarkMode).toBe("off");
      await cluster.clock.step(4999);
      expect(cluster.engine.faults.bookmarkMode).toBe("off");
      await cluster.clock.step(1);
      expect(cluster.engine.faults.bookmarkMode).toBe("on");
      const before = cluster.pending().timers;
      cluster.faults.delayBookmarks(90_000);
      expect(cluster.pending().timers).toBe(before + 1);
      cluster.faults.clearAll();
      expect(cluster.engine.faults.bookmarkMode).toBe("on");
      expect(cluster.pending().timers).toBe(before);
      expect(() => cluster.faults.delayBookmarks(-1)).toThrow("delayBookmarks: ms must be a finite number ≥ 0, got -1");
    } finally {
      await cluster.close();
    }
  });
});

describe("custom steps (HistoryOptions.custom)", () => {
  const note = (text: string): CustomStep => ({ kind: "custom", description: `note ${text}`, apply: () => text });

  it("mixes steps of your own into the histories", () => {
    const custom = { arbitrary: fc.constantFrom("x", "y").map(note), weight: 4 };
    const histories = fc.sample(historyArb({ custom }), { numRuns: 200, seed: 3 });
    const customs = histories.flat().filter((s) => s.kind === "custom");
    expect(customs.length).toBeGreaterThan(0);
    expect(new Set(customs.map(describeStep))).toEqual(new Set(["note x", "note y"]));
  });

  it("applies a custom step to the cluster; an exception is its outcome, not a crash", async () => {
    const cluster = await createSimCluster();
    try {
      expect(await applyStep(cluster, note("done"))).toBe("done");
      const failing: CustomStep = {
        kind: "custom",
        description: "boom",
        apply: async () => {
          throw new Error("no such thing");
        },
      };
      expect(await applyStep(cluster, failing)).toBe("threw: no such thing");
    } finally {
      await cluster.close();
    }
  });
});
