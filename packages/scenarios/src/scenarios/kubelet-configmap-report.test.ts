import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../report/html-report.js";
import { countColoured, decodePng } from "../report/png.test-util.js";
import { runKubeletConfigMap } from "./kubelet-configmap.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`kubelet-configmap-report.test: skipping: ${CHROMIUM} is not installed`);

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
      const dir = mkdtempSync(join(tmpdir(), "kubelet-report-"));
      try {
        const page = join(dir, "report.html");
        const png = join(dir, "shot.png");
        writeFileSync(page, renderHtmlReport(report));
        const run = spawnSync(
          CHROMIUM,
          [
            ...["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
            ...["--disable-background-networking", "--disable-component-update", "--disable-sync"],
            `--user-data-dir=${join(dir, "profile")}`,
            `--screenshot=${png}`,
            "--window-size=1200,1100",
            `file://${page}`,
          ],
          { encoding: "utf8", timeout: 90_000 },
        );
        expect(existsSync(png), `chromium wrote no screenshot: ${run.stderr}`).toBe(true);
        const shot = decodePng(readFileSync(png));
        // A 2-column grid of 560 × 300 px charts below a ~80 px header; the region counted starts right of the
        // legend's colour swatches and inside the axes, so only drawn series count.
        const plot = (col: number, row: number) =>
          countColoured(shot, 16 + col * 576 + 110, 80 + row * 308 + 60, 16 + col * 576 + 540, 80 + row * 308 + 270);
        expect(plot(0, 0), "GET/s from storage").toBeGreaterThan(1000);
        expect(plot(1, 0), "GET/s from the watch cache").toBeGreaterThan(1000);
        expect(plot(0, 1), "open watches").toBeGreaterThan(500);
        expect(plot(1, 1), "watch opens/s").toBeGreaterThan(1000);
        expect(plot(0, 2), "inter-GET interval histogram").toBeGreaterThan(10_000);
        expect(countColoured(shot, 0, 0, 1200, 30), "the title band has no series colour").toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
