// Inline SVG charts (line and grouped bar) for the HTML reports: no script, no network, no dependency.

/** One named series of (x, y) points. */
export interface LineSeries {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
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
const H = 300;
const M = { left: 64, right: 16, top: 36, bottom: 48 };

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

/** About the width of one character of the 11 px tick labels (system-ui), to keep category labels from overlapping. */
const TICK_CHAR_PX = 6.2;

/**
 * A category label cut to `width` pixels with an ellipsis when it is longer (the full label stays in a `<title>`,
 * shown on hover): many long categories (user agents, request shapes) would otherwise print over each other.
 */
function fitLabel(label: string, width: number): string {
  const max = Math.max(3, Math.floor(width / TICK_CHAR_PX));
  return label.length <= max ? label : `${label.slice(0, max - 1)}…`;
}

function frame(
  f: ChartFrame,
  yMax: number,
  xTicks: readonly { x: number; label: string; full?: string }[],
  body: string,
): string {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((q) => {
    const y = M.top + ph * (1 - q);
    return `<line x1="${M.left}" x2="${M.left + pw}" y1="${y}" y2="${y}" stroke="#e5e5e5"/><text x="${M.left - 6}" y="${y + 4}" text-anchor="end" font-size="11" fill="#333">${fmt(yMax * q)}</text>`;
  });
  const xs = xTicks.map(
    (t) =>
      `<line x1="${t.x}" x2="${t.x}" y1="${M.top + ph}" y2="${M.top + ph + 4}" stroke="#333"/><text x="${t.x}" y="${M.top + ph + 16}" text-anchor="middle" font-size="11" fill="#333">${t.full !== undefined && t.full !== t.label ? `<title>${escapeXml(t.full)}</title>` : ""}${escapeXml(t.label)}</text>`,
  );
  return [
    `<svg class="chart" data-chart="${escapeXml(f.id)}" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeXml(f.title)}">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold" fill="#111">${escapeXml(f.title)}</text>`,
    ...yTicks,
    `<g class="plot">${body}</g>`,
    `<line x1="${M.left}" x2="${M.left + pw}" y1="${M.top + ph}" y2="${M.top + ph}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + ph}" stroke="#333"/>`,
    ...xs,
    `<text class="x-label" x="${M.left + pw / 2}" y="${H - 8}" text-anchor="middle" font-size="12" fill="#111">${escapeXml(f.xLabel)}</text>`,
    `<text class="y-label" transform="translate(14 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="#111">${escapeXml(f.yLabel)}</text>`,
    "</svg>",
  ].join("");
}

function legend(names: readonly string[]): string {
  return names
    .map(
      (n, i) =>
        `<rect x="${M.left + 8}" y="${M.top + 6 + i * 15}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${M.left + 22}" y="${M.top + 15 + i * 15}" font-size="11" fill="#111">${escapeXml(n)}</text>`,
    )
    .join("");
}

/** Ticks at round steps from 0 to `max` (inclusive when `max` is a multiple of the step; `max` itself is not forced). */
function linearTicks(max: number, px: (x: number) => number): { x: number; label: string }[] {
  const step = niceMax(max / 5);
  const ticks: { x: number; label: string }[] = [];
  for (let i = 0; i * step <= max * (1 + 1e-9); i++) ticks.push({ x: px(i * step), label: fmt(i * step) });
  return ticks;
}

/** A line chart of `series` over a shared linear x axis from 0 to the largest x (e.g. the run's duration). */
export function lineChart(f: ChartFrame, series: readonly LineSeries[]): string {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const all = series.flatMap((s) => s.points);
  // The x axis ends at the last point (a run's duration), not at the next round number past it.
  const xEnd = Math.max(0, ...all.map((p) => p[0]));
  const xMax = xEnd > 0 ? xEnd : 1;
  const yMax = niceMax(Math.max(0, ...all.map((p) => p[1])));
  const px = (x: number) => M.left + (x / xMax) * pw;
  const py = (y: number) => M.top + ph * (1 - y / yMax);
  const lines = series.map((s, i) => {
    const d = s.points.map((p, j) => `${j === 0 ? "M" : "L"}${px(p[0]).toFixed(1)} ${py(p[1]).toFixed(1)}`).join("");
    const colour = PALETTE[i % PALETTE.length];
    // Few points (a sweep, not a time series): mark each, so a single point is visible too.
    const marks =
      s.points.length <= 20
        ? s.points
            .map((p) => `<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="3.5" fill="${colour}"/>`)
            .join("")
        : "";
    return `<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>${marks}`;
  });
  return frame(f, yMax, linearTicks(xMax, px), lines.join("") + legend(series.map((s) => s.name)));
}

/** A grouped bar chart: one group per category, one bar per series (values[series][category]). */
export function barChart(
  f: ChartFrame,
  categories: readonly string[],
  series: readonly { readonly name: string; readonly values: readonly number[] }[],
): string {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const yMax = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const gw = pw / Math.max(1, categories.length);
  const bw = (gw * 0.8) / Math.max(1, series.length);
  const bars = series.flatMap((s, i) =>
    s.values.map((v, c) => {
      const h = (v / yMax) * ph;
      return `<rect x="${(M.left + c * gw + gw * 0.1 + i * bw).toFixed(1)}" y="${(M.top + ph - h).toFixed(1)}" width="${bw.toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[i % PALETTE.length]}"/>`;
    }),
  );
  const xTicks = categories.map((label, c) => ({
    x: M.left + c * gw + gw / 2,
    label: fitLabel(label, gw - 4),
    full: label,
  }));
  return frame(f, yMax, xTicks, bars.join("") + legend(series.map((s) => s.name)));
}
