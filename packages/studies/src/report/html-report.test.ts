import { beforeAll, describe, expect, it } from "vitest";
import { runStatefulSetResync } from "../studies/statefulset-resync/statefulset-resync.js";
import { chartLayoutProblems, hiddenSeriesInScreenshot } from "./chart-layout.test-util.js";
import { renderHtmlReport } from "./html-report.js";
import { hasChromium, screenshotCharts, warnIfNoChromium } from "./report-screenshot.test-util.js";
import type { StudyReport } from "./study-report.js";

warnIfNoChromium("html-report.test");

let report: StudyReport;
let html: string;
beforeAll(async () => {
  report = await runStatefulSetResync({
    statefulsets: 300,
    resyncSeconds: 5,
    durationSeconds: 40,
    probeStartSeconds: 20,
    probeIntervalSeconds: 5,
    variants: ["resync", "no-resync"],
    sampleHeap: true,
  });
  html = renderHtmlReport(report);
}, 60_000);

describe("renderHtmlReport", () => {
  it("draws the four charts as inline SVG with axis labels, and loads nothing", () => {
    for (const id of ["new-statefulset-wait", "queue-depth", "wait", "requests", "memory", "oldest-wait"])
      expect(html).toContain(`data-chart="${id}"`);
    for (const label of [
      "virtual time (s)",
      "items queued",
      "wait ≤ (long buckets)",
      "verb/served-from",
      "bytes",
      "seconds waiting",
    ])
      expect(html).toContain(label);
    expect(html).not.toMatch(/<script|<link|<img|\ssrc=|\shref=/);
    // the queue-depth line of the resync variant has one point per sample
    const svg = html.slice(html.indexOf('data-chart="queue-depth"'), html.indexOf('data-chart="wait"'));
    const first = /<path class="series"[^>]* d="([^"]+)"/.exec(svg)?.[1] ?? "";
    expect(first.split(/[ML]/).filter(Boolean)).toHaveLength(report.variants[0]?.samples.length ?? -1);
    // the wait histogram shows buckets past client-go's 10 s
    expect(html).toContain(">30s<");
    expect(html).toContain(">6h<");
    expect(html).toContain("watch/cache");
  });

  it("ends the time axes at the run's duration (40 s), not at the next round number past it", () => {
    const svg = html.slice(html.indexOf('data-chart="queue-depth"'), html.indexOf('data-chart="wait"'));
    const labels = [...svg.matchAll(/class="x-tick"[^>]*><tspan[^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(labels).toEqual(["0", "10", "20", "30", "40"]);
    // the last sample (t = 40 s) is drawn at the right edge of the plot area (64 + 480 px)
    const first = /<path class="series"[^>]* d="([^"]+)"/.exec(svg)?.[1] ?? "";
    expect(/L544\.0 [\d.]+$/.test(first)).toBe(true);
  });

  it("describes the run in its subtitle (the study's parameters), apart from the write-up's claim", () => {
    expect(html).toContain(
      '<p class="run">300 StatefulSets × 40 ms, resync 5 s, 40 virtual s per variant, 5 probes (3 replicas, OrderedReady, Ready after 10 s) from 20 s every 5 s, seed 1</p>',
    );
    expect(html).toMatch(/<p class="source">shared\/background\/003/);
    // without a description, the subtitle is built from the variants, the time sampled and the parameters
    const { description: _, ...rest } = report;
    const generic = renderHtmlReport({ ...rest, params: { statefulsets: 300, seed: 4 } });
    expect(generic).toContain(
      '<p class="run">2 variants (resync 5s, 1 worker; no resync, 1 worker) · 40 virtual s sampled · seed=4, statefulsets=300</p>',
    );
  });

  it("escapes text", () => {
    const r = renderHtmlReport({ ...report, title: "<b>&" });
    expect(r).toContain("&#60;b&#62;&#38;");
    expect(r).not.toContain("<b>&");
  });

  it.skipIf(!hasChromium)(
    "renders in headless Chromium: the plot areas are drawn",
    () => {
      const shot = screenshotCharts(html);
      const plot = (col: number, row: number) => shot.plot(col + 2 * row);
      expect(plot(0, 0), "new StatefulSet's wait chart").toBeGreaterThan(400);
      expect(plot(1, 0), "queue depth chart").toBeGreaterThan(400);
      expect(plot(0, 1), "wait chart").toBeGreaterThan(100);
      expect(plot(1, 1), "requests chart").toBeGreaterThan(100);
      expect(plot(0, 2), "memory chart").toBeGreaterThan(400);
    },
    120_000,
  );
});

describe("statefulset-resync --report: the charts are readable", () => {
  let html = "";
  beforeAll(async () => {
    html = renderHtmlReport(
      await runStatefulSetResync({
        statefulsets: 300,
        resyncSeconds: 5,
        durationSeconds: 120,
        probeStartSeconds: 20,
        probeIntervalSeconds: 5,
        replicas: 3,
      }),
    );
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
