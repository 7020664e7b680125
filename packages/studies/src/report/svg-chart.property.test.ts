// Properties of the charts' layout over generated data: whatever the series and labels, no legend entry covers data,
// labels and legend entries do not collide, and a series lying on another is dashed and named.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chartLayoutProblems, parseCharts } from "./chart-layout.test-util.js";
import { barChart, lineChart } from "./svg-chart.js";

const frame = { id: "p", title: "generated", xLabel: "x", yLabel: "y" };
const name = fc.string({ minLength: 1, maxLength: 60 });
const label = fc
  .array(
    fc.constantFrom(
      "list",
      "get",
      "/api/v1",
      "/namespaces/",
      "default",
      "pods",
      "?limit=500",
      "&",
      "=",
      " ",
      "-",
      "kubelet/v1.28.3",
      "x",
    ),
    {
      minLength: 1,
      maxLength: 8,
    },
  )
  .map((parts) => parts.join(""));

describe("svg chart layout (properties)", () => {
  it("line charts: no layout problem for any series, equal series included", () => {
    const points = fc.array(fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 5000 })), {
      minLength: 1,
      maxLength: 40,
    });
    fc.assert(
      fc.property(
        fc.array(fc.record({ name, points: points.map((p) => [...p].sort((a, b) => a[0] - b[0])) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.nat(5),
        (series, copies) => {
          // copies of the first series: equal series must be dashed and named
          const all = [...series, ...Array.from({ length: copies }, (_, i) => ({ ...series[0], name: `copy ${i}` }))];
          const svg = lineChart(frame, all as { name: string; points: [number, number][] }[]);
          expect(chartLayoutProblems(svg)).toEqual([]);
          const [chart] = parseCharts(svg);
          for (let i = 0; i < copies; i++) expect(chart?.notes).toContain(`copy ${i} on `);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("bar charts: labels never overlap or print alike, legends never cover bars", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(label, { minLength: 1, maxLength: 14 }),
        fc.array(name, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 1000 }),
        (categories, names, seed) => {
          const series = names.map((n, i) => ({
            name: n,
            values: categories.map((_, c) => ((seed + 31 * i + 7 * c) % 97) * (i + 1)),
          }));
          expect(chartLayoutProblems(barChart(frame, categories, series))).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
