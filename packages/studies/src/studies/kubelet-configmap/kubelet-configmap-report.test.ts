import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../report/html-report.js";
import { countColoured } from "../../report/png.test-util.js";
import { hasChromium, plotPixels, screenshot, warnIfNoChromium } from "../../report/report-screenshot.test-util.js";
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
      const shot = screenshot(renderHtmlReport(report), 1200, 1700);
      // A 2-column grid of 560 × 300 px charts below a ~80 px header; the region counted starts right of the
      // legend's colour swatches and inside the axes, so only drawn series count.
      const plot = (col: number, row: number) => plotPixels(shot, col, row, 80);
      expect(plot(0, 0), "GET/s from storage").toBeGreaterThan(1000);
      expect(plot(1, 0), "GET/s from the watch cache").toBeGreaterThan(1000);
      expect(plot(0, 1), "open watches").toBeGreaterThan(500);
      expect(plot(1, 1), "watch opens/s").toBeGreaterThan(1000);
      expect(plot(0, 2), "inter-GET interval histogram").toBeGreaterThan(10_000);
      expect(plot(1, 2), "apiserver CPU by request (cost model)").toBeGreaterThan(1000);
      expect(plot(0, 3), "watch memory (model)").toBeGreaterThan(500);
      expect(plot(1, 3), "requests by verb/served-from").toBeGreaterThan(1000);
      expect(plot(0, 4), "no ninth chart").toBe(0);
      expect(countColoured(shot, 0, 0, 1200, 30), "the title band has no series colour").toBe(0);
    },
    120_000,
  );
});
