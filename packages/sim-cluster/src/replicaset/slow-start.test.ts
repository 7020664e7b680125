import { describe, expect, it } from "vitest";
import { slowStartBatch } from "./slow-start.js";

// Ported from pkg/controller/replicaset/replica_set_test.go TestSlowStartBatch.
describe("TestSlowStartBatch", () => {
  const cases = [
    { name: "callback function succeeds", count: 10, fail: Number.POSITIVE_INFINITY, successes: 10, calls: 10 },
    { name: "callback function fails", count: 10, fail: 0, successes: 0, calls: 1 },
    { name: "callback function fails after a few calls", count: 10, fail: 5, successes: 5, calls: 7 },
  ];
  it.each(cases)("$name", async ({ count, fail, successes, calls }) => {
    let n = 0;
    const r = await slowStartBatch(count, 1, async () => {
      const i = n++;
      if (i >= fail) throw new Error("fake error");
    });
    expect(n).toBe(calls);
    expect(r.successes).toBe(successes);
    expect(r.error === undefined).toBe(fail === Number.POSITIVE_INFINITY);
  });
});
