import { beforeAll, describe, expect, it } from "vitest";
import { chartLayoutProblems, hiddenSeriesInScreenshot } from "../../report/chart-layout.test-util.js";
import { renderHtmlReport } from "../../report/html-report.js";
import { hasChromium, screenshotCharts, warnIfNoChromium } from "../../report/report-screenshot.test-util.js";
import { runKubeletConfigMap } from "./kubelet-configmap.js";

warnIfNoChromium("kubelet-configmap-report.test");

describe("kubelet-configmap --report", () => {
  it.skipIf(!hasChromium)(
    "renders in headless Chromium: every study chart has series drawn in its plot area",
    async () => {
      const report = await runKubeletConfigMap({
        nodes: 1,
        podsPerNode: 10,
        durationSeconds: 400,
        variants: ["cache", "cache-1.29", "watch"],
      });
      const shot = screenshotCharts(renderHtmlReport(report));
      const plot = (col: number, row: number) => shot.plot(col + 2 * row);
      expect(plot(0, 0), "GET/s from storage").toBeGreaterThan(1000);
      expect(plot(1, 0), "GET/s from the watch cache").toBeGreaterThan(1000);
      expect(plot(0, 1), "open watches").toBeGreaterThan(500);
      expect(plot(1, 1), "watch opens/s").toBeGreaterThan(1000);
      expect(plot(0, 2), "inter-GET interval histogram").toBeGreaterThan(10_000);
      expect(plot(1, 2), "apiserver CPU by request (cost model)").toBeGreaterThan(1000);
      expect(plot(0, 3), "watch memory (model)").toBeGreaterThan(500);
      expect(plot(1, 3), "requests by verb/served-from").toBeGreaterThan(1000);
      expect(plot(0, 4), "no ninth chart").toBe(0);
    },
    120_000,
  );
});

describe("kubelet-configmap --report: the charts are readable", () => {
  let html = "";
  beforeAll(async () => {
    html = renderHtmlReport(await runKubeletConfigMap({ nodes: 1, podsPerNode: 10, durationSeconds: 400 }));
  }, 120_000);
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
