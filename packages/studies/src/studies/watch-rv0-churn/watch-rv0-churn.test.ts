import { beforeAll, describe, expect, it } from "vitest";
import { chartLayoutProblems, hiddenSeriesInScreenshot } from "../../report/chart-layout.test-util.js";
import { expectHonestFigures } from "../../report/honest-figures.test-util.js";
import { renderHtmlReport } from "../../report/html-report.js";
import { hasChromium, screenshotCharts, warnIfNoChromium } from "../../report/report-screenshot.test-util.js";
import { frontierOf, runWatchRv0Churn, type WatchRv0Cell } from "./watch-rv0-churn.js";

// Small: 1000 pods read at 200 objects/s (5 s of initial events) against 20 writes/s — the write-up's ratio of
// initial-sync time to churn (10,000 at ~1,200/s against 50/s) at a tenth of the objects.
const small = {
  objects: 1000,
  writesPerSecond: 20,
  consumerPerSecond: 200,
  durationSeconds: 15,
  sweep: false,
} as const;

const cell = (r: Awaited<ReturnType<typeof runWatchRv0Churn>>, name: string) =>
  r.variants.find((v) => v.name === name)?.figures;

describe("watch-rv0-churn (002)", () => {
  it("under churn the RV 0 watch is closed by the dispatch budget before its initial events end and never syncs; list-then-watch syncs", async () => {
    const r = await runWatchRv0Churn(small);
    const rv0 = cell(r, "rv0-watch");
    const lw = cell(r, "list-watch");
    const wl = cell(r, "watch-list");
    expect(rv0?.closes).toBeGreaterThan(0);
    expect(rv0?.firstCloseAtSeconds).toBeLessThan(small.objects / small.consumerPerSecond);
    expect(rv0?.initialReadAtFirstClose).toBeGreaterThan(0);
    expect(rv0?.initialReadAtFirstClose).toBeLessThan(small.objects);
    expect(rv0?.syncedAtSeconds).toBeNull();
    expect(expectHonestFigures(r)).toEqual({ measured: r.summary.length });
    // it restarts from RV "0" after each close: more watches, never all objects
    expect(rv0?.watches).toBeGreaterThan(1);
    expect(rv0?.heldAtEnd).toBeLessThan(small.objects);
    // LIST at RV "0" then watch: the list takes objects / consumer s, no watch is open meanwhile, nothing is closed
    expect(lw?.syncedAtSeconds).toBeGreaterThanOrEqual(small.objects / small.consumerPerSecond);
    expect(lw?.syncedAtSeconds).toBeLessThan(small.objects / small.consumerPerSecond + 1);
    expect(lw?.closes).toBe(0);
    expect(lw?.behindAtEnd).toBeLessThan(small.writesPerSecond);
    // watch-list: closed too, but gracefully once its end bookmark is queued, so it syncs
    expect(wl?.syncedAtSeconds).not.toBeNull();
    expect(r.summary.some((row) => row.writeUp.includes("never (cannot resume)"))).toBe(true);
    expect(r.charts?.map((c) => c.frame.id)).toEqual(["objects-held", "events-read"]);
  });

  it("at 1 write/s the RV 0 watch syncs too; the sweep finds the frontier; the same seed gives the same JSON", async () => {
    const opts = {
      ...small,
      durationSeconds: 10,
      approaches: ["rv0-watch", "list-watch"] as const,
      sweep: { objects: [1000], writesPerSecond: [1, 20], consumerPerSecond: [200] },
    };
    const a = await runWatchRv0Churn(opts);
    const cells = (a.extra?.cells ?? []) as WatchRv0Cell[];
    expect(cells).toHaveLength(4);
    const frontier = frontierOf(cells);
    expect(frontier.find((f) => f.approach === "rv0-watch")).toMatchObject({
      maxSyncedWritesPerSecond: 1,
      minFailedWritesPerSecond: 20,
    });
    expect(frontier.find((f) => f.approach === "list-watch")).toMatchObject({
      maxSyncedWritesPerSecond: 20,
      minFailedWritesPerSecond: null,
    });
    expect(a.charts?.map((c) => c.frame.id)).toContain("frontier");
    const b = await runWatchRv0Churn(opts);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("--real-time: the same informer over real HTTP on the real clock syncs (tiny: 200 pods, 1 s of churn first)", async () => {
    const r = await runWatchRv0Churn({
      realTime: true,
      objects: 200,
      writesPerSecond: 10,
      consumerPerSecond: 2000,
      durationSeconds: 5,
      warmupSeconds: 1,
      sampleSeconds: 0.25,
      approaches: ["list-watch"],
      sweep: false,
    });
    const lw = cell(r, "list-watch");
    expect(lw?.syncedAtSeconds).not.toBeNull();
    expect(lw?.heldAtEnd).toBe(200);
    expect(lw?.lists).toBe(1);
    expect(r.params.realTime).toBe(true);
    expect(r.description).toContain("real s per run over HTTP");
    // the LIST went over HTTP to the simulator, which accounted it
    const kinds = new Set(r.variants[0]?.samples.flatMap((x) => Object.keys(x.requestsPerSecond)));
    expect([...kinds].some((k) => k.startsWith("list/"))).toBe(true);
  }, 60_000);

  it("refuses bad options, naming them", async () => {
    await expect(runWatchRv0Churn({ ...small, consumerPerSecond: 0 })).rejects.toThrow(
      /consumerPerSecond must be a finite number ≥ 0.001, got 0/,
    );
  });
});

warnIfNoChromium("watch-rv0-churn.test");

describe("watch-rv0-churn --report", () => {
  it.skipIf(!hasChromium)(
    "renders in headless Chromium: objects held, events read and requests are drawn",
    async () => {
      const r = await runWatchRv0Churn({ ...small, objects: 300, consumerPerSecond: 100, durationSeconds: 6 });
      const shot = screenshotCharts(renderHtmlReport(r));
      expect(shot.plot(0), "initial objects held").toBeGreaterThan(1000);
      expect(shot.plot(1), "events read per second").toBeGreaterThan(1000);
      expect(shot.plot(0 + 2 * 1), "requests by verb/served-from").toBeGreaterThan(5000);
    },
    120_000,
  );
});

describe("watch-rv0-churn --report: the charts are readable", () => {
  let html = "";
  beforeAll(async () => {
    html = renderHtmlReport(
      await runWatchRv0Churn({
        ...small,
        durationSeconds: 8,
        sweep: { objects: [500, 1000], writesPerSecond: [1, 20], consumerPerSecond: [200] },
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
