import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./go-duration.js";

describe("parseGoDuration", () => {
  it("reads time.Duration.String() output into milliseconds", () => {
    expect(parseGoDuration("812.345678ms")).toBeCloseTo(812.345678, 9);
    expect(parseGoDuration("1.5s")).toBe(1500);
    expect(parseGoDuration("5m0.001s")).toBeCloseTo(300_001, 6);
    expect(parseGoDuration("1h2m3s")).toBe(3_723_000);
    expect(parseGoDuration("123µs")).toBeCloseTo(0.123, 9);
    expect(parseGoDuration("123us")).toBeCloseTo(0.123, 9);
    expect(parseGoDuration("500ns")).toBeCloseTo(0.0005, 9);
    expect(parseGoDuration("0s")).toBe(0);
    expect(parseGoDuration("0")).toBe(0);
    expect(parseGoDuration("-2s")).toBe(-2000);
  });

  it("returns undefined for text that is not a duration", () => {
    for (const bad of ["", "ms", "12", "1.2 s", "3 days", "1x", "s1", "-"])
      expect(parseGoDuration(bad), bad).toBe(undefined);
  });
});
