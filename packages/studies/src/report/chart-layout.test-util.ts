// Layout checks of a report's charts, computed from the SVG itself (not from the code that drew it): no legend
// entry overlaps a data point, line segment, bar or band; legend entries and x tick labels do not overlap each
// other; a series lying on an earlier one is dashed and named in a note. And the same charts screenshotted in
// headless Chromium, one under the other at known offsets: every series' colour shows inside its plot area.
import { hasChromium, screenshotCharts } from "./report-screenshot.test-util.js";
import { CHAR_PX, liesOn, PALETTE } from "./svg-chart.js";

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** One chart of a page, as parsed from its SVG. */
export interface ParsedChart {
  readonly id: string;
  readonly svg: string;
  readonly height: number;
  readonly plot: Box;
  readonly legend: readonly { readonly box: Box; readonly name: string }[];
  /** Line series' pixel polylines, by series index, with their dash pattern (if any). */
  readonly paths: readonly { readonly series: number; readonly points: [number, number][]; readonly dash?: string }[];
  readonly marks: readonly { readonly series: number; readonly x: number; readonly y: number; readonly r: number }[];
  readonly rects: readonly { readonly series: number; readonly box: Box }[];
  readonly ticks: readonly {
    readonly x: number;
    readonly font: number;
    readonly lines: readonly string[];
    readonly full: string;
  }[];
  readonly notes: string;
}

const num = (s: string | undefined) => Number(s ?? Number.NaN);
const attr = (el: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(el)?.[1];
const unescapeXml = (s: string) => s.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));

/** The charts of an HTML page (every `<svg class="chart">`), parsed. */
export function parseCharts(html: string): ParsedChart[] {
  return [...html.matchAll(/<svg class="chart"[\s\S]*?<\/svg>/g)].map(([svg]) => {
    const open = /^<svg[^>]*>/.exec(svg)?.[0] ?? "";
    const [px0, py0, px1, py1] = (attr(open, "data-plot") ?? "").split(" ").map(Number);
    const legend = [...svg.matchAll(/<g class="legend-item" data-box="([^"]+)">([\s\S]*?)<\/g>/g)].map((m) => {
      const [x, y, w, h] = (m[1] ?? "").split(" ").map(Number);
      const title = /<title>([^<]*)<\/title>/.exec(m[2] ?? "")?.[1];
      const text = /<text[^>]*>(?:<title>[^<]*<\/title>)?([^<]*)<\/text>/.exec(m[2] ?? "")?.[1] ?? "";
      return { box: { x: x ?? 0, y: y ?? 0, w: w ?? 0, h: h ?? 0 }, name: unescapeXml(title ?? text) };
    });
    const paths = [...svg.matchAll(/<path class="series"[^>]*>/g)].map(([el]) => {
      const points = [...(attr(el, "d") ?? "").matchAll(/[ML]([\d.-]+) ([\d.-]+)/g)].map(
        (m) => [num(m[1]), num(m[2])] as [number, number],
      );
      const dash = attr(el, "stroke-dasharray");
      return { series: num(attr(el, "data-series")), points, ...(dash === undefined ? {} : { dash }) };
    });
    const marks = [...svg.matchAll(/<circle[^>]*>/g)].map(([el]) => ({
      series: num(attr(el, "data-series")),
      x: num(attr(el, "cx")),
      y: num(attr(el, "cy")),
      r: num(attr(el, "r")),
    }));
    const rects = [...svg.matchAll(/<rect class="(?:bar|range)"[^>]*>/g)].map(([el]) => ({
      series: num(attr(el, "data-series")),
      box: { x: num(attr(el, "x")), y: num(attr(el, "y")), w: num(attr(el, "width")), h: num(attr(el, "height")) },
    }));
    const ticks = [...svg.matchAll(/<text class="x-tick" x="([\d.]+)"([^>]*)>([\s\S]*?)<\/text>/g)].map((m) => {
      const lines = [...(m[3] ?? "").matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((t) => unescapeXml(t[1] ?? ""));
      const title = /<title>([^<]*)<\/title>/.exec(m[3] ?? "")?.[1];
      const font = Number(/font-size="([\d.]+)"/.exec(m[2] ?? "")?.[1] ?? 11);
      return { x: num(m[1]), font, lines, full: unescapeXml(title ?? lines.join("")) };
    });
    const notes = [...svg.matchAll(/<text class="chart-note"[^>]*>([^<]*)<\/text>/g)]
      .map((m) => unescapeXml(m[1] ?? ""))
      .join(" ");
    return {
      id: attr(open, "data-chart") ?? "",
      svg,
      height: num(attr(open, "height")),
      plot: { x: px0 ?? 0, y: py0 ?? 0, w: (px1 ?? 0) - (px0 ?? 0), h: (py1 ?? 0) - (py0 ?? 0) },
      legend,
      paths,
      marks,
      rects,
      ticks,
      notes,
    };
  });
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (b: Box, x: number, y: number) => x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h;

/** Whether the segment a–b crosses box `r` (sampled every half pixel: exact enough for a layout check). */
function segmentHits(a: readonly [number, number], b: readonly [number, number], r: Box): boolean {
  const steps = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) * 2));
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    if (inside(r, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))) return true;
  }
  return false;
}

/** Every layout problem of the page's charts, as sentences naming the chart; empty when there is none. */
export function chartLayoutProblems(html: string): string[] {
  const problems: string[] = [];
  for (const c of parseCharts(html)) {
    const at = `chart "${c.id}"`;
    for (const { box, name } of c.legend) {
      if (box.x < 0 || box.x + box.w > 560) problems.push(`${at}: legend entry "${name}" runs off the chart`);
      for (const m of c.marks)
        if (overlaps(box, { x: m.x - m.r, y: m.y - m.r, w: 2 * m.r, h: 2 * m.r }))
          problems.push(`${at}: legend entry "${name}" covers a data point at (${m.x}, ${m.y})`);
      for (const p of c.paths)
        for (let i = 1; i < p.points.length; i++) {
          const a = p.points[i - 1];
          const b = p.points[i];
          if (a !== undefined && b !== undefined && segmentHits(a, b, box)) {
            problems.push(`${at}: legend entry "${name}" covers a line segment of series ${p.series}`);
            break;
          }
        }
      for (const r of c.rects)
        if (r.box.h > 0 && overlaps(box, r.box)) problems.push(`${at}: legend entry "${name}" covers a bar or band`);
    }
    c.legend.forEach((a, i) => {
      for (const b of c.legend.slice(i + 1))
        if (overlaps(a.box, b.box)) problems.push(`${at}: legend entries "${a.name}" and "${b.name}" overlap`);
    });
    const spans = c.ticks.map((t) => {
      const w = (Math.max(...t.lines.map((l) => l.length)) * CHAR_PX * t.font) / 11;
      return { left: t.x - w / 2, right: t.x + w / 2, t };
    });
    for (let i = 1; i < spans.length; i++) {
      const a = spans[i - 1];
      const b = spans[i];
      if (a !== undefined && b !== undefined && a.right > b.left)
        problems.push(`${at}: x labels "${a.t.full}" and "${b.t.full}" overlap`);
    }
    const shown = new Map<string, string>();
    for (const t of c.ticks) {
      const text = t.lines.join(" ");
      const other = shown.get(text);
      if (other !== undefined && other !== t.full)
        problems.push(`${at}: x labels "${other}" and "${t.full}" print the same "${text}"`);
      shown.set(text, t.full);
    }
    c.paths.forEach((upper, j) => {
      const lower = c.paths.slice(0, j).find((p) => liesOn(upper.points, p.points));
      if (lower === undefined) return;
      const name = c.legend[upper.series]?.name ?? String(upper.series);
      if (upper.dash === undefined) problems.push(`${at}: series "${name}" hides series ${lower.series} undashed`);
      if (!/Dashed: lies on another series/.test(c.notes) || !c.notes.includes(`${name} on `))
        problems.push(`${at}: no note names the hidden "${name}"`);
    });
  }
  return problems;
}

/**
 * Screenshots the page's charts ({@link screenshotCharts}) and returns the series whose colour does not show
 * inside their chart's plot area although they have something to draw (a line, a mark, a bar of height ≥ 1 px).
 * Empty when every series shows. Needs Chromium ({@link hasChromium}).
 */
export function hiddenSeriesInScreenshot(html: string): string[] {
  const charts = parseCharts(html);
  const shots = screenshotCharts(html);
  const hidden: string[] = [];
  charts.forEach((c, i) => {
    const drawn = new Set<number>([
      ...c.paths.filter((p) => p.points.length > 1).map((p) => p.series),
      ...c.marks.map((m) => m.series),
      ...c.rects.filter((r) => r.box.h >= 1).map((r) => r.series),
    ]);
    for (const s of drawn) {
      const colour = PALETTE[s % PALETTE.length] ?? "#000000";
      if (shots.colour(i, colour) === 0)
        hidden.push(`chart "${c.id}": series "${c.legend[s]?.name ?? s}" (${colour}) does not show`);
    }
  });
  return hidden;
}
