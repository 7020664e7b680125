// Cases of pkg/controller/job/backoff_utils_test.go (TestNewBackoffRecord, TestGetRemainingBackoffTime), as tables.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextBackoffRecord, remainingBackoffMs } from "./backoff-record.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

describe("TestNewBackoffRecord (pkg/controller/job/backoff_utils_test.go)", () => {
  const cases = [
    { name: "no pods", prev: { failuresAfterLastSuccess: 0 }, pods: [], want: { failuresAfterLastSuccess: 0 } },
    {
      name: "failures after a success count",
      prev: { failuresAfterLastSuccess: 0 },
      pods: [
        { succeeded: true, finishedAt: T0 },
        { succeeded: false, finishedAt: T0 + 1000 },
        { succeeded: false, finishedAt: T0 + 2000 },
      ],
      want: { failuresAfterLastSuccess: 2, lastFailureTime: T0 + 2000 },
    },
    {
      name: "a later success resets the count",
      prev: { failuresAfterLastSuccess: 3, lastFailureTime: T0 },
      pods: [{ succeeded: true, finishedAt: T0 + 5000 }],
      want: { failuresAfterLastSuccess: 0 },
    },
    {
      name: "an earlier success does not reset a later failure (order by finish time)",
      prev: { failuresAfterLastSuccess: 0 },
      pods: [
        { succeeded: false, finishedAt: T0 + 3000 },
        { succeeded: true, finishedAt: T0 + 1000 },
      ],
      want: { failuresAfterLastSuccess: 1, lastFailureTime: T0 + 3000 },
    },
  ];
  it.each(cases)("$name", ({ prev, pods, want }) => {
    expect(nextBackoffRecord(prev, pods)).toEqual(want);
  });
});

describe("TestGetRemainingBackoffTime (pkg/controller/job/backoff_utils_test.go)", () => {
  const cases = [
    { name: "no failures", failures: 0, sinceMs: 0, want: 0 },
    { name: "one failure just now: 10 s", failures: 1, sinceMs: 0, want: 10_000 },
    { name: "one failure 4 s ago", failures: 1, sinceMs: 4000, want: 6000 },
    { name: "two failures: 20 s", failures: 2, sinceMs: 0, want: 20_000 },
    { name: "backoff passed", failures: 2, sinceMs: 25_000, want: 0 },
    { name: "capped at 10 min", failures: 20, sinceMs: 0, want: 600_000 },
  ];
  it.each(cases)("$name", ({ failures, sinceMs, want }) => {
    const rec =
      failures === 0 ? { failuresAfterLastSuccess: 0 } : { failuresAfterLastSuccess: failures, lastFailureTime: T0 };
    expect(remainingBackoffMs(rec, T0 + sinceMs)).toBe(want);
  });

  it("property: the remaining backoff never grows with time and never exceeds the cap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.nat(1_000_000), fc.nat(1_000_000), (n, a, b) => {
        const rec = { failuresAfterLastSuccess: n, lastFailureTime: T0 };
        const [early, late] = a <= b ? [a, b] : [b, a];
        const r1 = remainingBackoffMs(rec, T0 + early);
        const r2 = remainingBackoffMs(rec, T0 + late);
        return r2 <= r1 && r1 <= 600_000 && r1 >= 0;
      }),
    );
  });
});
