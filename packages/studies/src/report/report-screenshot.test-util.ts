// Screenshots of --report pages in headless Chromium (Debian `chromium`, which .ci/run installs), for tests that
// check the charts are drawn: coloured pixels inside each chart's plot area are series.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countColoured, type DecodedPng, decodePng } from "./png.test-util.js";

/** Where the tests expect Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is installed; a screenshot test skips with a printed reason when it is not. */
export const hasChromium = existsSync(CHROMIUM);

/** Prints why `file`'s screenshot tests skip, when they do. */
export function warnIfNoChromium(file: string): void {
  if (!hasChromium) console.warn(`${file}: skipping the screenshot test: ${CHROMIUM} is not installed`);
}

/** Renders `html` at `width` × `height` CSS px and decodes the PNG; throws with Chromium's stderr when none came. */
export function screenshot(html: string, width = 1200, height = 900): DecodedPng {
  const dir = mkdtempSync(join(tmpdir(), "report-shot-"));
  try {
    const page = join(dir, "report.html");
    const png = join(dir, "shot.png");
    writeFileSync(page, html);
    const run = spawnSync(
      CHROMIUM,
      [
        ...["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
        ...["--disable-background-networking", "--disable-component-update", "--disable-sync"],
        `--user-data-dir=${join(dir, "profile")}`,
        `--screenshot=${png}`,
        `--window-size=${width},${height}`,
        `file://${page}`,
      ],
      { encoding: "utf8", timeout: 90_000 },
    );
    if (!existsSync(png)) throw new Error(`chromium wrote no screenshot: ${run.stderr}`);
    return decodePng(readFileSync(png));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Coloured pixels in the plot area of the chart at grid cell (`col`, `row`) of a report page: charts sit in a
 * 2-column grid of 560 × 300 px cells (576 px apart horizontally, 308 px vertically) below a header of `headerPx`;
 * the counted box starts right of the legend swatches and inside the axes, so only drawn series count.
 */
export function plotPixels(shot: DecodedPng, col: number, row: number, headerPx: number): number {
  const x = 16 + col * 576;
  const y = headerPx + row * 308;
  return countColoured(shot, x + 110, y + 60, x + 540, y + 270);
}
