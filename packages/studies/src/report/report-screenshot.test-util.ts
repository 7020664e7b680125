// Screenshots of --report pages in headless Chromium (Debian `chromium`, which .ci/run installs), for tests that
// check the charts are drawn: coloured pixels inside each chart's plot area are series.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countColour, countColoured, type DecodedPng, decodePng } from "./png.test-util.js";

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

/** A page's charts screenshotted one under the other: where each is, and the pixels of its plot area. */
export interface ChartShots {
  readonly shot: DecodedPng;
  /** Each chart's id, top offset in the shot and plot area (x0, y0, x1, y1 within the chart). */
  readonly charts: readonly { readonly id: string; readonly top: number; readonly plot: readonly number[] }[];
  /** Coloured (series) pixels inside chart `i`'s plot area, its axes' 12 px margin included. */
  plot(i: number): number;
  /** Pixels of colour `hex` inside chart `i`'s plot area. */
  colour(i: number, hex: string): number;
}

/**
 * Screenshots every `<svg class="chart">` of `html` in headless Chromium, stacked 8 px apart at the page's left
 * edge in document order (a report's grid wraps differently with each chart's height; stacking keeps each chart's
 * offset known), and returns where each chart's plot area is (its `data-plot`).
 */
export function screenshotCharts(html: string): ChartShots {
  const svgs = [...html.matchAll(/<svg class="chart"[\s\S]*?<\/svg>/g)].map((m) => m[0]);
  const charts: { id: string; top: number; plot: number[] }[] = [];
  let y = 0;
  const placed = svgs.map((svg) => {
    const open = /^<svg[^>]*>/.exec(svg)?.[0] ?? "";
    const height = Number(/\sheight="(\d+)"/.exec(open)?.[1] ?? 0);
    charts.push({
      id: /data-chart="([^"]*)"/.exec(open)?.[1] ?? "",
      top: y,
      plot: (/data-plot="([^"]*)"/.exec(open)?.[1] ?? "0 0 0 0").split(" ").map(Number),
    });
    const out = svg.replace("<svg ", `<svg style="position:absolute;left:0;top:${y}px" `);
    y += height + 8;
    return out;
  });
  const page = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;background:#fff;font:13px system-ui,sans-serif}</style></head><body>${placed.join("")}</body></html>`;
  const shot = screenshot(page, 560, Math.max(100, y));
  const box = (i: number) => {
    const c = charts[i];
    if (c === undefined) return undefined;
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = c.plot;
    return [x0 - 12, c.top + y0 - 12, x1 + 12, c.top + y1 + 2] as const;
  };
  return {
    shot,
    charts,
    plot: (i) => {
      const b = box(i);
      return b === undefined ? 0 : countColoured(shot, ...b);
    },
    colour: (i, hex) => {
      const b = box(i);
      return b === undefined ? 0 : countColour(shot, ...b, hex, 40);
    },
  };
}
