import { describe, expect, it } from "vitest";
import { chartLayoutProblems, parseCharts } from "./chart-layout.test-util.js";
import { barChart, lineChart, wrapLabel, yTickFractions } from "./svg-chart.js";

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

describe("svg charts' layout (legend outside, equal series dashed, labels wrapped, bands)", () => {
  const frame = { id: "c", title: "t", xLabel: "x", yLabel: "y" };
  it("draws the legend below the plot and dashes a series lying on an earlier one, naming it in a note", () => {
    const same = [
      [0, 1],
      [5, 3],
      [10, 2],
    ] as const;
    const svg = lineChart(frame, [
      { name: "Get", points: same },
      { name: "Cache 1.28", points: same },
      {
        name: "Watch",
        points: [
          [0, 0],
          [10, 0.5],
        ],
      },
    ]);
    expect(chartLayoutProblems(svg)).toEqual([]);
    expect(svg).toContain("Dashed: lies on another series, same values to the pixel — Cache 1.28 on Get.");
    expect(svg).not.toContain("Watch on");
    const [chart] = parseCharts(svg);
    expect(chart?.legend.every((l) => l.box.y > (chart?.plot.y ?? 0) + (chart?.plot.h ?? 0))).toBe(true);
    expect(chart?.paths.map((p) => p.dash)).toEqual([undefined, "6 6", undefined]);
  });

  it("the check computed from the SVG finds a legend over data, an undashed hidden series and colliding labels", () => {
    const bad =
      '<svg class="chart" data-chart="old" data-plot="64 36 544 252" height="300">' +
      '<g class="legend-item" data-box="72 42 80 14"></g>' +
      '<path class="series" data-series="0" d="M64.0 48.0L544.0 48.0"/>' +
      '<path class="series" data-series="1" d="M64.0 48.0L544.0 48.0"/>' +
      '<text class="x-tick" x="100" y="268"><tspan x="100" dy="0">List /api…</tspan></text>' +
      '<text class="x-tick" x="110" y="268"><title>List /api/v1/pods</title><tspan x="110" dy="0">List /api…</tspan></text>' +
      "</svg>";
    const problems = chartLayoutProblems(bad);
    expect(problems.some((p) => p.includes("covers a line segment"))).toBe(true);
    expect(problems.some((p) => p.includes("hides series 0 undashed"))).toBe(true);
    expect(problems.some((p) => p.includes("overlap"))).toBe(true);
    expect(problems.some((p) => p.includes('print the same "List /api…"'))).toBe(true);
  });

  it("wraps long categories at separators and cuts the rest in the middle, so distinct labels stay distinct", () => {
    expect(wrapLabel("get/storage", 50)).toEqual(["get/", "storage"]);
    const long = [
      "LIST /api/v1/namespaces/default/pods?limit=500",
      "LIST /api/v1/namespaces/default/configmaps?limit=500",
    ];
    expect(wrapLabel(long[0] ?? "", 60).length).toBeLessThanOrEqual(3);
    // cut alike in 12 categories' width: numbered, the full labels in a note
    const crowded = barChart(
      frame,
      [...long, ...Array.from({ length: 10 }, (_, i) => `c${i}`)],
      [{ name: "requests", values: Array.from({ length: 12 }, (_, i) => i) }],
    );
    expect(chartLayoutProblems(crowded)).toEqual([]);
    expect(crowded).toContain("(1) LIST /api/v1/namespaces/default/pods?limit=500");
    const svg = barChart(
      frame,
      ["LIST /api/v1/pods", "LIST /api/v1/configmaps", "LIST /api/v1/secrets", "GET /api/v1/nodes/n1"],
      [{ name: "requests", values: [1, 2, 3, 4] }],
    );
    expect(chartLayoutProblems(svg)).toEqual([]);
  });

  it("draws a measured range as a band, without a line to the next grid point", () => {
    const svg = lineChart(frame, [
      {
        name: "rv0-watch",
        join: false,
        points: [
          [1000, 1],
          [10000, 0],
        ],
        ranges: [
          [1000, 1, 20],
          [10000, 0, null],
        ],
      },
    ]);
    expect(svg).not.toContain('<path class="series"');
    expect(svg.match(/<rect class="range"/g)).toHaveLength(2);
    expect(svg).toContain('data-open="true"');
    expect(svg).toContain("nothing between grid points was measured");
    expect(chartLayoutProblems(svg)).toEqual([]);
  });
});
