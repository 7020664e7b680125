import { describe, expect, it } from "vitest";
import { formatGoDuration, Trace } from "./trace.js";

const T0 = Date.UTC(2026, 10, 25, 20, 22, 1, 123);

describe("Trace", () => {
  it("renders LogIfLong's format, with only the steps that took their share of the threshold", () => {
    const t = new Trace(
      "List",
      [
        { key: "url", value: "/api/v1/pods" },
        { key: "verb", value: "LIST" },
      ],
      T0,
    );
    t.step("About to List from storage", T0 + 1);
    t.step("Listing from storage done", T0 + 700.5);
    t.step("Writing http response done", T0 + 900, [{ key: "count", value: 5000 }]);
    expect(t.logIfLong({ endMs: T0 + 900, thresholdMs: 500, traceNum: 42 })).toBe(
      [
        'Trace[42]: "List" url:/api/v1/pods,verb:LIST (25-Nov-2026 20:22:01.123) (total time: 900ms):',
        'Trace[42]: ---"Listing from storage done" 699ms (20:22:01.823)',
        'Trace[42]: ---"Writing http response done" count:5000 199ms (20:22:02.023)',
        "Trace[42]: [900ms] [900ms] END",
      ].join("\n"),
    );
  });

  it("writes nothing below the threshold, every step with threshold 0 or allSteps", () => {
    const t = new Trace("Get", [], T0);
    t.step("About to Get from storage", T0);
    expect(t.logIfLong({ endMs: T0 + 499, thresholdMs: 500, traceNum: 1 })).toBeUndefined();
    expect(t.logIfLong({ endMs: T0 + 2, thresholdMs: 0, traceNum: 1 })).toBe(
      'Trace[1]: "Get" (25-Nov-2026 20:22:01.123) (total time: 2ms):\nTrace[1]: ---"About to Get from storage" 0ms (20:22:01.123)\nTrace[1]: [2ms] [2ms] END',
    );
    expect(t.logIfLong({ endMs: T0 + 600, thresholdMs: 500, traceNum: 1, allSteps: true })).toContain("About to Get");
    expect(t.logIfLong({ endMs: T0 + 600, thresholdMs: 500, traceNum: 1 })).not.toContain("About to Get");
  });

  it("rejects steps out of order and a negative threshold", () => {
    const t = new Trace("List", [], T0);
    t.step("a", T0 + 5);
    expect(() => t.step("b", T0 + 4)).toThrow(/step "b" at .* is before/);
    expect(() => t.logIfLong({ endMs: T0 + 5, thresholdMs: -1, traceNum: 1 })).toThrow(/threshold must be ≥ 0/);
  });
});

describe("formatGoDuration", () => {
  it("prints as Go's time.Duration.String does", () => {
    expect(formatGoDuration(0)).toBe("0s");
    expect(formatGoDuration(0.00075)).toBe("750ns");
    expect(formatGoDuration(0.0125)).toBe("12.5µs");
    expect(formatGoDuration(812)).toBe("812ms");
    expect(formatGoDuration(1.926865)).toBe("1.926865ms");
    expect(formatGoDuration(1234.567)).toBe("1.234567s");
    expect(formatGoDuration(123_500)).toBe("2m3.5s");
    expect(formatGoDuration(3_600_000)).toBe("1h0m0s");
    expect(formatGoDuration(-5)).toBe("-5ms");
  });
});
