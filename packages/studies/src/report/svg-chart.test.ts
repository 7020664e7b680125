import { describe, expect, it } from "vitest";
import { barChart, yTickFractions } from "./svg-chart.js";

const yLabels = (svg: string) =>
  [...svg.matchAll(/<text x="\d+" y="[\d.]+" text-anchor="end" font-size="11" fill="#333">([^<]*)<\/text>/g)].map(
    (m) => m[1],
  );

describe("svg charts' y ticks", () => {
  it("counts get integer ticks (no 1.25 requests); other values quarters", () => {
    expect(yTickFractions(5, true).map((q) => q * 5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(yTickFractions(10, true).map((q) => q * 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(yTickFractions(25, true).map((q) => q * 25)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(yTickFractions(1, true)).toEqual([0, 1]);
    expect(yTickFractions(5, false)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    const counts = barChart(
      { id: "c", title: "t", xLabel: "x", yLabel: "requests" },
      ["a", "b"],
      [{ name: "requests", values: [3, 5] }],
    );
    expect(yLabels(counts)).toEqual(["0", "1", "2", "3", "4", "5"]);
    const rates = barChart(
      { id: "r", title: "t", xLabel: "x", yLabel: "per s" },
      ["a"],
      [{ name: "r", values: [4.5] }],
    );
    expect(yLabels(rates)).toEqual(["0", "1.25", "2.5", "3.75", "5"]);
  });
});
