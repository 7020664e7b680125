// The list-memory --report page in headless Chromium, from crafted child results (the study's children take
// seconds; the report is a function of their figures).
import { describe, expect, it } from "vitest";
import { chartLayoutProblems, hiddenSeriesInScreenshot } from "../../report/chart-layout.test-util.js";
import { renderHtmlReport } from "../../report/html-report.js";
import { hasChromium, screenshotCharts, warnIfNoChromium } from "../../report/report-screenshot.test-util.js";
import { PALETTE } from "../../report/svg-chart.js";
import { listMemoryReport } from "./list-memory.js";
import type { ListMemoryChildResult, ListMemoryVariant } from "./list-memory-child.js";

warnIfNoChromium("list-memory-report.test");

const MiB = 2 ** 20;

/** A child's result with the figures of docs/studies.md's 20,000-ConfigMap run (MiB). */
function result(variant: ListMemoryVariant, peak: number, live: number, body: number, retained: number) {
  const r: ListMemoryChildResult = {
    variant,
    ok: true,
    stored: 20_000,
    peakHeap: peak * MiB,
    liveAtList: live * MiB,
    bodyBytes: body * MiB,
    retainedHeap: retained * MiB,
    retainedArrayBuffers: 0.1 * MiB,
    listsAlive: 0,
    listsSeen: variant === "watch-list" ? 0 : 2,
    slicedStrings: 0,
    slicedParentBytes: 0,
    syncMs: 900,
  };
  return r;
}

const report = listMemoryReport(
  [
    result("list-rv0", 25, 22.8, 19.3, 24.9),
    result("list-rv0-copy", 25, 22.8, 19.3, 24.9),
    result("list-paginated", 25.1, 23.1, 0.5, 25),
    result("watch-list", 34.4, 0, 0, 25.1),
  ],
  { objects: 20_000, pageSize: 500, repeats: 1 },
);

describe("list-memory --report", () => {
  it("draws one grouped bar chart of the variants' heap, with its three series and labels", () => {
    const html = renderHtmlReport(report);
    expect(html).toContain('data-chart="heap"');
    for (const label of ["list-rv0", "list-rv0-copy", "list-paginated", "watch-list"]) expect(html).toContain(label);
    for (const series of [
      "peak above baseline (sampled, measured)",
      "decode peak, modelled (decoded list + body, a sum)",
      "retained after GC (measured)",
    ])
      expect(html).toContain(series);
    // 4 variants × 3 series, the watch-list decode peak a zero-height bar
    expect(html.match(/<rect class="bar"/g)?.length).toBe(12);
    expect(report.summary.find((r) => r.variant === "verdict")?.measured).toContain("→ default off");
  });

  it.skipIf(!hasChromium)(
    "renders in headless Chromium: the bars of each series are drawn in the chart's plot area",
    () => {
      const shot = screenshotCharts(renderHtmlReport(report));
      const plot = shot.plot(0);
      expect(plot, "heap chart").toBeGreaterThan(5000);
      // each series' colour inside the plot area: the tallest bar, watch-list's sampled peak,
      // is red; the decode peaks blue; the retained heap green
      for (const [i, name] of ["sampled peak", "decode peak", "retained"].entries())
        expect(shot.colour(0, PALETTE[i] ?? ""), name).toBeGreaterThan(500);
      expect(shot.plot(1), "no second chart").toBe(0);
    },
    120_000,
  );
});

describe("list-memory --report: the charts are readable", () => {
  const html = renderHtmlReport(report);
  it("no legend entry covers a data point, line segment or bar; labels and legend entries do not overlap; a series on another is dashed and named (computed from the SVG)", () => {
    expect(html).toContain('class="chart"');
    expect(chartLayoutProblems(html)).toEqual([]);
  });

  it.skipIf(!hasChromium)(
    "screenshot in headless Chromium: every drawn series' colour shows in its plot area",
    () => expect(hiddenSeriesInScreenshot(html)).toEqual([]),
    120_000,
  );
});
