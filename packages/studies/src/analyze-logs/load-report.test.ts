// `informer analyze-logs --report` in headless Chromium: the four charts drawn from the sample logs.
import { describe, expect, it } from "vitest";
import { chartLayoutProblems, hiddenSeriesInScreenshot } from "../report/chart-layout.test-util.js";
import { hasChromium, screenshotCharts, warnIfNoChromium } from "../report/report-screenshot.test-util.js";
import { PALETTE } from "../report/svg-chart.js";
import { aggregateLoad } from "./load-aggregator.js";
import { renderLoadReport } from "./load-report.js";
import { ApiserverLogReader } from "./log-reader.js";
import { AUDIT_LINES, HTTPLOG_LINES, OLD_TRACE_LINES } from "./log-samples.test-util.js";

warnIfNoChromium("load-report.test");

function analysis() {
  const reader = new ApiserverLogReader();
  for (const line of [...HTTPLOG_LINES, ...OLD_TRACE_LINES]) reader.push("apiserver.log", line);
  for (const line of AUDIT_LINES) reader.push("audit.log", line);
  return aggregateLoad(["apiserver.log", "audit.log"], reader.result(), { top: 5 });
}

describe("analyze-logs --report", () => {
  it("labels the charts with the logs' user agents, verbs, read shapes and traces", () => {
    const a = analysis();
    const html = renderLoadReport(a);
    // each chart's own SVG names its categories and series
    const chart = (id: string) => {
      const start = html.indexOf(`data-chart="${id}"`);
      expect(start, id).toBeGreaterThan(-1);
      return html.slice(start, html.indexOf("</svg>", start));
    };
    expect(chart("by-user-agent")).toContain("kubelet/v1.28.3");
    for (const verb of ["get", "list", "watch", "create"]) expect(chart("by-verb")).toContain(`>${verb}<`);
    expect(chart("by-shape")).toContain("served from storage");
    expect(chart("by-shape")).toContain("served from: unknown");
    expect(chart("slow-traces")).toContain("total time (ms)");
    expect(a.slowTraces.length).toBeGreaterThan(0);
  });

  it.skipIf(!hasChromium)(
    "renders in headless Chromium: each chart has bars in its plot area, reads split by served-from",
    () => {
      const a = analysis();
      const shot = screenshotCharts(renderLoadReport(a));
      const at = (id: string) => shot.charts.findIndex((c) => c.id === id);
      expect(shot.plot(at("by-user-agent")), "requests by user agent").toBeGreaterThan(2000);
      expect(shot.plot(at("cpu-by-user-agent")), "shares of requests and serving time").toBeGreaterThan(1000);
      expect(shot.plot(at("by-verb")), "requests by verb").toBeGreaterThan(2000);
      expect(shot.plot(at("by-shape")), "reads by shape and served-from").toBeGreaterThan(1000);
      expect(shot.plot(at("slow-traces")), "slowest traces").toBeGreaterThan(2000);
      // the shape chart has one series per served-from value (at least two colours drawn)
      const froms = new Set(a.byShape.map((g) => g.key[1]));
      expect(froms.size).toBeGreaterThan(1);
      for (let i = 0; i < froms.size; i++)
        expect(shot.colour(at("by-shape"), PALETTE[i] ?? ""), `series ${i}`).toBeGreaterThan(50);
    },
    120_000,
  );
});

describe("analyze-logs --report: the charts are readable", () => {
  const html = renderLoadReport(analysis());
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
