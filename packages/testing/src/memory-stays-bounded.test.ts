// memoryStaysBounded runs its check in a child process on the package's build output (`pnpm run build` first, as
// `pnpm test` does).
import { describe, expect, it } from "vitest";
import { memoryStaysBounded } from "./memory-stays-bounded.js";

describe("memoryStaysBounded", () => {
  it("the library's informer: heap within 10 % after generated relist/churn, responses collectable, stops clean", async () => {
    const r = await memoryStaysBounded({ objects: 300, numRuns: 3, seed: 1 });
    expect(r.reports.filter((x) => !x.ok)).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.reports.map((x) => x.name)).toEqual([
      "memoryCheckRan",
      "heapStaysBounded",
      "responsesCollectable",
      "stoppedLeavesNothing",
    ]);
    expect(r.samples).toHaveLength(3);
    for (const s of r.samples) expect(s.ratio).toBeLessThanOrEqual(1.1);
    // The check did look: relists went through list responses, churn through watch events.
    expect(r.listResponses.tracked).toBeGreaterThan(0);
    expect(r.watchEvents.tracked).toBeGreaterThan(0);
  }, 120_000);

  it("finds an informer that keeps its list responses alive", async () => {
    const r = await memoryStaysBounded({
      objects: 300,
      numRuns: 2,
      seed: 2,
      lifecycle: false,
      informer: { module: new URL("./leaky-informer.test-fixture.mjs", import.meta.url), export: "leakyInformer" },
    });
    expect(r.ok).toBe(false);
    const collectable = r.reports.find((x) => x.name === "responsesCollectable");
    expect(collectable?.ok).toBe(false);
    expect(collectable?.violations[0]).toMatch(/^\d+ of \d+ list responses\/items arrays still reachable$/);
  }, 120_000);

  it("reports a module without the named export, and rejects bad options naming the value", async () => {
    const r = await memoryStaysBounded({
      objects: 10,
      numRuns: 1,
      lifecycle: false,
      informer: { module: new URL("./leaky-informer.test-fixture.mjs", import.meta.url), export: "nope" },
    });
    expect(r.ok).toBe(false);
    expect(r.reports[0]).toMatchObject({ name: "memoryCheckRan", ok: false });
    expect(r.reports[0]!.violations[0]).toContain("does not export a function nope");
    await expect(memoryStaysBounded({ objects: 0 })).rejects.toThrow("objects must be a positive integer, got 0");
    await expect(memoryStaysBounded({ tolerance: -1 })).rejects.toThrow(
      "tolerance must be a finite number ≥ 0, got -1",
    );
  }, 120_000);
});
