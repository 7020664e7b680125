// Inline SVG charts (line and grouped bar) for the HTML reports: no script, no network, no dependency.
//
// Layout, top to bottom: the title, the plot area (always 480 × 216 px at the same place, so screenshots can find
// it), the x tick labels (wrapped onto up to three lines), the x axis label, the legend (outside the plot, entries
// flowing onto as many rows as they need) and the notes (which series lie on others, and how they are drawn). The
// SVG carries `data-plot="x0 y0 x1 y1"` and each legend entry `data-box="x y w h"`, for the layout tests.
//
// Hand-written rather than a charting library: the reports must be one self-contained HTML file with no script
// (Vega/Chart.js/Plotly render in the browser with JavaScript), and the overlap rules below (dash a series that
// lies on another and say so on the chart; a measured range is drawn as a range, never joined) are the point.

/** One named series of (x, y) points. */
export interface LineSeries {
  /** The series' name in the legend (and in the note when it lies on another series). */
  readonly name: string;
  /** The measured (x, y) points, in x order. */
  readonly points: readonly (readonly [number, number])[];
  /**
   * Whether consecutive points are joined by a line (default true). False for points measured on a grid where the
   * values between grid points are unknown (a frontier): each point is marked, nothing is drawn between them.
   */
  readonly join?: boolean;
  /**
   * Measured ranges, one per x: `[x, low, high]` drawn as a vertical band from `low` (the last grid value that
   * passed) to `high` (the first that failed; `null`: none failed, the band is open upwards to the plot's top).
   */
  readonly ranges?: readonly (readonly [number, number, number | null])[];
}

/** A chart's frame: id (the `data-chart` attribute), title and axis labels. */
export interface ChartFrame {
  readonly id: string;
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
}

/** Series colours, in order (distinct, saturated, readable on white). */
export const PALETTE: readonly string[] = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

const W = 560;
const M = { left: 64, right: 16, top: 36 };
const PW = W - M.left - M.right;
const PH = 216;
const LINE_PX = 12;
const LEGEND_ROW_PX = 16;

/** Escapes text for HTML/SVG content and attributes. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function fmt(v: number): string {
  if (Math.abs(v) >= 1e9) return `${+(v / 1e9).toFixed(1)}G`;
  if (Math.abs(v) >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (Math.abs(v) >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(2)}`;
}

/** About the width of one character of the 11 px labels (system-ui); the layout tests use the same estimate. */
export const CHAR_PX = 6.2;

/** Cuts `s` in its middle to `max` characters (start and end kept: "List /api/v1/…/pods" stays distinguishable). */
function middleCut(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = Math.ceil((max - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (max - 1 - head))}`;
}

/**
 * A category label wrapped onto at most `maxLines` lines of `width` px, breaking after `/`, `?`, `&`, `,`, `=`,
 * `-` or a space; a part that still does not fit is cut in its middle (the full label stays in a `<title>`).
 */
export function wrapLabel(label: string, width: number, maxLines = 3, fontPx = 11): string[] {
  const max = charsThatFit(width, fontPx);
  if (label.length <= max) return [label];
  const parts = label.match(/[^/?&,= -]*[/?&,= -]?/g)?.filter((p) => p !== "") ?? [label];
  const lines: string[] = [];
  let cur = "";
  for (const p of parts) {
    if (cur !== "" && (cur + p).trimEnd().length > max) {
      lines.push(cur.trimEnd());
      cur = "";
    }
    cur += p;
  }
  if (cur !== "") lines.push(cur.trimEnd());
  if (lines.length > maxLines) {
    const rest = lines.slice(maxLines - 1).join("");
    lines.splice(maxLines - 1, lines.length, rest);
  }
  return lines.map((l) => middleCut(l, max));
}

/**
 * The y-axis tick fractions of `yMax`: quarters, or for counts (every value an integer) the multiples of the
 * smallest integer step in 1, 2, 5, 10, 20, 25, 50, … that divides `yMax` into at most five intervals — no "1.25
 * requests".
 */
export function yTickFractions(yMax: number, integer: boolean): number[] {
  if (!integer || !Number.isInteger(yMax) || yMax <= 0) return [0, 0.25, 0.5, 0.75, 1];
  for (let p = 1; p <= yMax; p *= 10)
    for (const m of [1, 2, 2.5, 5]) {
      const step = m * p;
      if (Number.isInteger(step) && yMax % step === 0 && yMax / step <= 5)
        return Array.from({ length: yMax / step + 1 }, (_, i) => (i * step) / yMax);
    }
  return [0, 1];
}

/** How a series is drawn in the legend: a filled swatch, or a dashed stroke for a series drawn dashed. */
interface LegendEntry {
  readonly name: string;
  readonly colour: string;
  readonly dash?: string;
}

/** The legend entries flowed into rows below the plot: the SVG and the height it takes. */
function legend(entries: readonly LegendEntry[], top: number): { svg: string; height: number } {
  const maxText = W - 16 - 30;
  let x = 8;
  let row = 0;
  const out: string[] = [];
  for (const e of entries) {
    const text = middleCut(e.name, Math.floor(maxText / CHAR_PX));
    const w = 18 + text.length * CHAR_PX + 6;
    if (x + w > W - 8 && x > 8) {
      row++;
      x = 8;
    }
    const y = top + row * LEGEND_ROW_PX;
    const swatch =
      e.dash === undefined
        ? `<rect x="${x}" y="${y + 2}" width="12" height="10" fill="${e.colour}"/>`
        : `<line x1="${x}" x2="${x + 12}" y1="${y + 7}" y2="${y + 7}" stroke="${e.colour}" stroke-width="3" stroke-dasharray="3 2"/>`;
    const title = text === e.name ? "" : `<title>${escapeXml(e.name)}</title>`;
    out.push(
      `<g class="legend-item" data-box="${x} ${y} ${w.toFixed(1)} 14">${swatch}<text x="${x + 18}" y="${y + 11}" font-size="11" fill="#111">${title}${escapeXml(text)}</text></g>`,
    );
    x += w + 10;
  }
  return { svg: out.join(""), height: entries.length === 0 ? 0 : (row + 1) * LEGEND_ROW_PX };
}

/** Notes under the legend, wrapped to the chart's width. */
function notes(lines: readonly string[], top: number): { svg: string; height: number } {
  const wrapped = lines.flatMap((l) => wrapLabel(l, W - 16, 6, 10.5));
  const svg = wrapped
    .map(
      (l, i) =>
        `<text class="chart-note" x="8" y="${top + 10 + i * LINE_PX}" font-size="10.5" fill="#444">${escapeXml(l)}</text>`,
    )
    .join("");
  return { svg, height: wrapped.length * LINE_PX };
}

interface XTick {
  readonly x: number;
  readonly lines: readonly string[];
  readonly full?: string;
  /** Font size the label was wrapped for (default 11). */
  readonly font?: number;
}

/** Tick label sizes tried in turn: the first at which no label needs cutting, else the smallest. */
const TICK_FONT_PX = [11, 10, 9];

/** Characters of `fontPx` labels that fit in `width` px (the estimate scales {@link CHAR_PX} of 11 px labels). */
export function charsThatFit(width: number, fontPx = 11): number {
  return Math.max(4, Math.floor(width / ((CHAR_PX * fontPx) / 11)));
}

/** The plot area's top: below the title's lines. */
function plotTop(title: string): number {
  return M.top + (titleLines(title).length - 1) * 17;
}

/** The bold 14 px title, wrapped onto at most two lines. */
function titleLines(title: string): string[] {
  return wrapLabel(title, W - 16, 2, 14);
}

function frame(
  f: ChartFrame,
  yMax: number,
  xTicks: readonly XTick[],
  body: string,
  entries: readonly LegendEntry[],
  noteLines: readonly string[],
  integer: boolean,
): string {
  const titles = titleLines(f.title);
  const top = plotTop(f.title);
  const yTicks = yTickFractions(yMax, integer).map((q) => {
    const y = top + PH * (1 - q);
    return `<line x1="${M.left}" x2="${M.left + PW}" y1="${y}" y2="${y}" stroke="#e5e5e5"/><text x="${M.left - 6}" y="${y + 4}" text-anchor="end" font-size="11" fill="#333">${fmt(yMax * q)}</text>`;
  });
  const tickLines = Math.max(1, ...xTicks.map((t) => t.lines.length));
  const tickFont = Math.min(...xTicks.map((t) => t.font ?? 11), 11);
  const xs = xTicks.map((t) => {
    const title = t.full !== undefined && t.lines.join("") !== t.full ? `<title>${escapeXml(t.full)}</title>` : "";
    const spans = t.lines
      .map((l, i) => `<tspan x="${t.x}" dy="${i === 0 ? 0 : LINE_PX}">${escapeXml(l)}</tspan>`)
      .join("");
    return `<line x1="${t.x}" x2="${t.x}" y1="${top + PH}" y2="${top + PH + 4}" stroke="#333"/><text class="x-tick" x="${t.x}" y="${top + PH + 16}" text-anchor="middle" font-size="${tickFont}" fill="#333">${title}${spans}</text>`;
  });
  const xLabelY = top + PH + 16 + (tickLines - 1) * LINE_PX + 18;
  const leg = legend(entries, xLabelY + 10);
  const note = notes(noteLines, xLabelY + 10 + leg.height + 2);
  const h = Math.ceil(xLabelY + 10 + leg.height + 2 + note.height + 8);
  return [
    `<svg class="chart" data-chart="${escapeXml(f.id)}" data-plot="${M.left} ${top} ${M.left + PW} ${top + PH}" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}" role="img" aria-label="${escapeXml(f.title)}">`,
    `<rect width="${W}" height="${h}" fill="#fff"/>`,
    `<text class="title" x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold" fill="#111">${titles.map((l, i) => `<tspan x="${W / 2}" dy="${i === 0 ? 0 : 17}">${escapeXml(l)}</tspan>`).join("")}</text>`,
    ...yTicks,
    // The axes under the series: a series of zeros lies on the x axis and must still show.
    `<line x1="${M.left}" x2="${M.left + PW}" y1="${top + PH}" y2="${top + PH}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${top}" y2="${top + PH}" stroke="#333"/>`,
    `<g class="plot">${body}</g>`,
    ...xs,
    `<text class="x-label" x="${M.left + PW / 2}" y="${xLabelY}" text-anchor="middle" font-size="12" fill="#111">${escapeXml(f.xLabel)}</text>`,
    `<text class="y-label" transform="translate(14 ${top + PH / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="#111">${escapeXml(f.yLabel)}</text>`,
    `<g class="legend">${leg.svg}</g>`,
    note.svg,
    "</svg>",
  ].join("");
}

/** Ticks at round steps from 0 to `max` (inclusive when `max` is a multiple of the step; `max` itself is not forced). */
function linearTicks(max: number, px: (x: number) => number): XTick[] {
  const step = niceMax(max / 5);
  const ticks: XTick[] = [];
  for (let i = 0; i * step <= max * (1 + 1e-9); i++) ticks.push({ x: px(i * step), lines: [fmt(i * step)] });
  return ticks;
}

/** How close (px) a point must be to another series' line to count as lying on it. */
const ON_LINE_PX = 2.5;

function distanceToPolyline(p: readonly [number, number], line: readonly (readonly [number, number])[]): number {
  if (line.length === 1 && line[0] !== undefined) return Math.hypot(p[0] - line[0][0], p[1] - line[0][1]);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1];
    const b = line[i];
    if (a === undefined || b === undefined) continue;
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
    best = Math.min(best, Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy)));
  }
  return best;
}

/**
 * Whether the pixel polyline `upper` lies on `lower` for at least half of its points (drawn later, it would hide
 * that part of `lower`). The layout tests compute the same thing from the SVG's paths.
 */
export function liesOn(
  upper: readonly (readonly [number, number])[],
  lower: readonly (readonly [number, number])[],
): boolean {
  if (upper.length === 0 || lower.length === 0) return false;
  const on = upper.filter((p) => distanceToPolyline(p, lower) <= ON_LINE_PX).length;
  return on * 2 >= upper.length;
}

/**
 * A line chart of `series` over a shared linear x axis from 0 to the largest x (e.g. the run's duration). A series
 * lying on an earlier one (same values, to the pixel) is drawn dashed in its own phase of the dash cycle, so every
 * colour of a group of equal series shows, and a note under the legend names the series it lies on.
 */
export function lineChart(f: ChartFrame, series: readonly LineSeries[]): string {
  const all = series.flatMap((s) => s.points);
  // An open band (nothing failed) reaches a quarter above its last passing value, so it shows above its point.
  const highs = series.flatMap((s) => (s.ranges ?? []).flatMap((r) => [r[1], r[2] ?? r[1] * 1.25]));
  // The x axis ends at the last point (a run's duration), not at the next round number past it.
  const xEnd = Math.max(0, ...all.map((p) => p[0]), ...series.flatMap((s) => (s.ranges ?? []).map((r) => r[0])));
  const xMax = xEnd > 0 ? xEnd : 1;
  const yMax = niceMax(Math.max(0, ...all.map((p) => p[1]), ...highs));
  const top = plotTop(f.title);
  const px = (x: number) => M.left + (x / xMax) * PW;
  const py = (y: number) => top + PH * (1 - y / yMax);
  const pixels = series.map((s) => s.points.map((p) => [px(p[0]), py(p[1])] as const));
  // Groups of series lying on each other: each series joins the group of the first earlier series it lies on.
  const groupOf: number[] = [];
  const underOf: (number | undefined)[] = [];
  for (let j = 0; j < series.length; j++) {
    const pj = pixels[j] ?? [];
    const i = pixels.slice(0, j).findIndex((pi) => liesOn(pj, pi));
    underOf.push(i < 0 ? undefined : i);
    groupOf.push(i < 0 ? j : (groupOf[i] ?? i));
  }
  const groupSize = (g: number) => groupOf.filter((x) => x === g).length;
  const rankInGroup = (j: number) => groupOf.slice(0, j).filter((x) => x === groupOf[j]).length;
  const dashOf = (j: number): { dash: string; offset: number } | undefined => {
    const k = rankInGroup(j);
    if (k === 0) return undefined;
    const seg = 6;
    return { dash: `${seg} ${seg * (groupSize(groupOf[j] ?? j) - 1)}`, offset: -seg * k };
  };
  const hiddenNotes: string[] = [];
  const body = series.map((s, j) => {
    const colour = PALETTE[j % PALETTE.length] ?? "#000";
    const pts = pixels[j] ?? [];
    const dash = dashOf(j);
    const k = rankInGroup(j);
    const under = underOf[j];
    if (under !== undefined) hiddenNotes.push(`${s.name} on ${series[under]?.name ?? ""}`);
    const join = s.join ?? true;
    const d = pts.map((p, i) => `${i === 0 ? "M" : "L"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join("");
    const path =
      join && pts.length > 0
        ? `<path class="series" data-series="${j}" d="${d}" fill="none" stroke="${colour}" stroke-width="2"${dash === undefined ? "" : ` stroke-dasharray="${dash.dash}" stroke-dashoffset="${dash.offset}"`}/>`
        : "";
    const ranges = (s.ranges ?? [])
      .map((r) => {
        const high = r[2] === null ? Math.max(top, py(r[1] * 1.25)) : py(r[2]);
        const bottom = py(r[1]);
        const open = r[2] === null ? ' data-open="true"' : "";
        return `<rect class="range" data-series="${j}"${open} x="${(px(r[0]) - 5).toFixed(1)}" y="${high.toFixed(1)}" width="10" height="${Math.max(1, bottom - high).toFixed(1)}" fill="${colour}" fill-opacity="0.3" stroke="${colour}"${r[2] === null ? ' stroke-dasharray="2 2"' : ""}/>`;
      })
      .join("");
    // Few points (a sweep, not a time series), or points not joined: mark each, so a single point shows too. A
    // series lying on others gets a ring one size up per rank, around the marks below it.
    const marks =
      pts.length <= 20 || !join
        ? pts
            .map((p) =>
              k === 0
                ? `<circle data-series="${j}" cx="${p[0].toFixed(1)}" cy="${p[1].toFixed(1)}" r="3.5" fill="${colour}"/>`
                : `<circle data-series="${j}" cx="${p[0].toFixed(1)}" cy="${p[1].toFixed(1)}" r="${3.5 + 2 * k}" fill="none" stroke="${colour}" stroke-width="1.5"/>`,
            )
            .join("")
        : "";
    return ranges + path + marks;
  });
  const notesOut =
    hiddenNotes.length > 0
      ? [`Dashed: lies on another series, same values to the pixel — ${hiddenNotes.join("; ")}.`]
      : [];
  if (series.some((s) => (s.ranges ?? []).length > 0))
    notesOut.push(
      "Bands: from the highest grid value that passed to the lowest that failed (dotted: none failed); nothing between grid points was measured.",
    );
  const integer =
    all.every((p) => Number.isInteger(p[1])) &&
    series.every((s) =>
      (s.ranges ?? []).every((r) => Number.isInteger(r[1]) && (r[2] === null || Number.isInteger(r[2]))),
    );
  const entries = series.map((s, j) => {
    const dash = dashOf(j);
    return { name: s.name, colour: PALETTE[j % PALETTE.length] ?? "#000", ...(dash ? { dash: dash.dash } : {}) };
  });
  return frame(f, yMax, linearTicks(xMax, px), body.join(""), entries, notesOut, integer);
}

/** A grouped bar chart: one group per category, one bar per series (values[series][category]). */
export function barChart(
  f: ChartFrame,
  categories: readonly string[],
  series: readonly { readonly name: string; readonly values: readonly number[] }[],
  notes: readonly string[] = [],
): string {
  const yMax = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const top = plotTop(f.title);
  const gw = PW / Math.max(1, categories.length);
  const bw = (gw * 0.8) / Math.max(1, series.length);
  const bars = series.flatMap((s, i) =>
    s.values.map((v, c) => {
      const h = (v / yMax) * PH;
      return `<rect class="bar" data-series="${i}" x="${(M.left + c * gw + gw * 0.1 + i * bw).toFixed(1)}" y="${(top + PH - h).toFixed(1)}" width="${bw.toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[i % PALETTE.length]}"/>`;
    }),
  );
  // The largest font at which every label wraps without a cut; the smallest otherwise.
  const fits = (font: number) =>
    categories.every(
      (label) => !wrapLabel(label, gw - 4, 3, font).some((l) => l.includes("…") && !label.includes("…")),
    );
  const font = TICK_FONT_PX.find(fits) ?? TICK_FONT_PX[TICK_FONT_PX.length - 1] ?? 11;
  const wrapped = categories.map((label) => wrapLabel(label, gw - 4, 3, font));
  // Labels that still print alike once cut ("LIST /api/v1/na…=500" twice) become numbers, spelt out in a note.
  const printed = wrapped.map((l) => l.join(" "));
  const numbered = new Set(printed).size < printed.length;
  const xTicks = categories.map((label, c) => ({
    x: M.left + c * gw + gw / 2,
    lines: numbered ? [`(${c + 1})`] : (wrapped[c] ?? []),
    full: label,
    font,
  }));
  const keyNotes = numbered ? [categories.map((label, c) => `(${c + 1}) ${label}`).join("  ")] : [];
  const integer = series.every((s) => s.values.every((v) => Number.isInteger(v)));
  const entries = series.map((s, i) => ({ name: s.name, colour: PALETTE[i % PALETTE.length] ?? "#000" }));
  return frame(f, yMax, xTicks, bars.join(""), entries, [...keyNotes, ...notes], integer);
}
