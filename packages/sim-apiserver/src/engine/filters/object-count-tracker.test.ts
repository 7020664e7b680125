import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { OBJECT_COUNT_POLL_PERIOD_MS, ObjectCountTracker } from "./object-count-tracker.js";

describe("ObjectCountTracker", () => {
  it("counts and sizes a resource's objects, and refreshes once per poll period", async () => {
    const clock = new FakeClock();
    const objects = [{ metadata: { name: "a" } }, { metadata: { name: "bb" } }];
    const r = { name: "configmaps" };
    const t = new ObjectCountTracker(clock, () => objects);
    const first = t.get(r);
    expect(first.objectCount).toBe(2);
    expect(first.averageObjectSizeBytes).toBe(
      (JSON.stringify(objects[0]).length + JSON.stringify(objects[1]).length) / 2,
    );
    objects.push({ metadata: { name: "c" } });
    expect(t.get(r).objectCount).toBe(2); // stale until the next poll, as upstream's tracker
    await clock.step(OBJECT_COUNT_POLL_PERIOD_MS);
    expect(t.get(r).objectCount).toBe(3);
    expect(new ObjectCountTracker(clock, () => []).get(r)).toEqual({ objectCount: 0, averageObjectSizeBytes: 0 });
    expect(() => new ObjectCountTracker(clock, () => [], -1)).toThrow(/poll period must be ≥ 0 ms, got -1/);
  });
});
