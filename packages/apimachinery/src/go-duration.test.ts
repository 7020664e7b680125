import { describe, expect, it } from "vitest";
import { formatGoDuration } from "./go-duration.js";

const ns = 1e-6; // one nanosecond in milliseconds
const s = 1000;
const m = 60 * s;
const h = 60 * m;

// Go's time package TestDurationString table (the rows representable in milliseconds of a double).
const durationStringTests: [string, number][] = [
  ["0s", 0],
  ["1ns", 1 * ns],
  ["1.1µs", 1100 * ns],
  ["2.2ms", 2.2],
  ["3.3s", 3300],
  ["4m5s", 4 * m + 5 * s],
  ["4m5.001s", 4 * m + 5001],
  ["5h6m7.001s", 5 * h + 6 * m + 7001],
  ["8m0.000000001s", 8 * m + 1 * ns],
];

describe("formatGoDuration", () => {
  it("TestDurationString: time.Duration.String() for each row, and its negation", () => {
    for (const [want, ms] of durationStringTests) {
      expect(formatGoDuration(ms), want).toBe(want);
      if (ms !== 0) expect(formatGoDuration(-ms), `-${want}`).toBe(`-${want}`);
    }
  });

  it("rejects a non-finite duration with a RangeError naming it", () => {
    expect(() => formatGoDuration(Number.NaN)).toThrow(/must be finite, got NaN/);
    expect(() => formatGoDuration(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
