// The data every study produces: written as --json, rendered as the terminal summary and the --report HTML.
import type { HistogramBucket } from "../runtime/long-histogram.js";
import type { Sample } from "../runtime/sampler.js";
import type { ReportChart } from "./report-chart.js";

/** The charts every report can draw from the runtime's samples (see `renderHtmlReport`). */
export type StandardChart = "queue-depth" | "wait" | "requests" | "memory" | "oldest-wait";

/**
 * How a study's figure was obtained: `measured` — the simulator counted or timed it (requests, watches, waits);
 * `modelled` — a model computed it (the cost model's CPU and latency, the watch memory model, an extrapolation), its
 * calibration named in `SummaryRow.source`; `quoted` — the write-up's own words, its section in `source`.
 */
export type FigureKind = "measured" | "modelled" | "quoted";

/** Every {@link FigureKind}. */
export const FIGURE_KINDS: readonly FigureKind[] = ["measured", "modelled", "quoted"];

/**
 * One line of a study's summary: what the write-up says beside the study's figure, and how that figure was
 * obtained. A modelled figure calibrated on a write-up is never a reproduction of that write-up: when `writeUp`
 * cites the write-up the model was calibrated on, the table says it is the calibration input ({@link writeUpCell}).
 */
export interface SummaryRow {
  readonly variant: string;
  readonly metric: string;
  /**
   * What the write-up says for this figure, in its words (its number, `(000)`/`(001 §…)` naming the write-up); "—"
   * when it says nothing — the study's own expectations go in `metric` or the docs, not here.
   */
  readonly writeUp: string;
  /** The study's figure, as text. */
  readonly measured: string;
  /** How `measured` was obtained. */
  readonly figure: FigureKind;
  /**
   * For `modelled`: the model and its calibration source ("cost model, calibrated on write-up 000"); for `quoted`:
   * the write-up and section. Required for both.
   */
  readonly source?: string;
}

/** The write-ups (`000` … `004`) a text cites as `(000`, `write-up 000`, `000's`, `000:`. */
function citedWriteUps(text: string): Set<string> {
  return new Set([...text.matchAll(/\b(00\d)\b/g)].map((m) => m[1] ?? ""));
}

/**
 * The figure column's kind label: `measured`, `modelled (<source>)`, `quoted (<source>)`. Throws a RangeError
 * naming the row when a modelled or quoted figure has no source.
 */
export function figureCell(r: SummaryRow): string {
  if (r.figure === "measured") return "measured";
  if (r.source === undefined || r.source === "")
    throw new RangeError(`summary row "${r.variant} / ${r.metric}": a ${r.figure} figure needs its source`);
  return `${r.figure} (${r.source})`;
}

/**
 * The write-up column: as written, except beside a modelled figure calibrated on the same write-up, where it is
 * marked as the calibration input (the model was fitted to it: agreeing with it reproduces nothing).
 */
export function writeUpCell(r: SummaryRow): string {
  if (r.figure !== "modelled" || r.writeUp.startsWith("—")) return r.writeUp;
  const calibration = /calibrated on (?:write-ups? )?([\d, and]+)/.exec(r.source ?? "")?.[1] ?? "";
  const fitted = citedWriteUps(calibration);
  const cited = [...citedWriteUps(r.writeUp)].filter((w) => fitted.has(w));
  return cited.length === 0 ? r.writeUp : `calibration input, not a comparison: ${r.writeUp}`;
}

/** One run of a study under one setting (e.g. "resync 30 s, 1 worker"). */
export interface VariantResult {
  readonly name: string;
  /** Time series sampled on the virtual clock. */
  readonly samples: readonly Sample[];
  /** Queue waits, long buckets (seconds). */
  readonly waitBuckets: readonly HistogramBucket[];
  /** Scalar results of the variant (seconds, counts), by name. */
  readonly figures: Readonly<Record<string, number | null>>;
}

/**
 * A study's result: its name, the parameters it ran with (flags' values), one {@link VariantResult} per
 * setting compared, and the summary rows. Everything except the samples' `heapUsed` is deterministic for a seed.
 */
export interface StudyReport {
  /** The study's name (`statefulset-resync` …); the field keeps its former name, so the JSON a run writes is unchanged. */
  readonly scenario: string;
  readonly title: string;
  /** Which write-up this study reproduces (file under shared/background), and its one-line claim. */
  readonly source: string;
  readonly params: Readonly<Record<string, number | string | boolean>>;
  /**
   * This run in words (e.g. "2000 StatefulSets × 40 ms, resync 30 s, 360 virtual s per variant, seed 1"): the
   * report's subtitle. When absent, {@link describeRun} builds one from the variants, samples and parameters.
   */
  readonly description?: string;
  readonly variants: readonly VariantResult[];
  readonly summary: readonly SummaryRow[];
  /** The study's own charts, drawn first. */
  readonly charts?: readonly ReportChart[];
  /** Which standard charts to draw after them (default all; "memory" falls back to events/s without heap samples). */
  readonly standardCharts?: readonly StandardChart[];
  /** Study-specific results (e.g. a sweep's cells), written to --json as they are. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The summary as an aligned text table (variant, metric, write-up, figure, how the figure was obtained). */
export function formatSummaryTable(rows: readonly SummaryRow[]): string {
  const header = ["variant", "metric", "write-up", "figure", "kind"];
  const cells = rows.map((r) => [r.variant, r.metric, writeUpCell(r), r.measured, figureCell(r)]);
  const all = [header, ...cells];
  const widths = header.map((_, i) => Math.max(...all.map((c) => (c[i] ?? "").length)));
  const line = (c: readonly string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const sep = widths.map((n) => "─".repeat(n)).join("  ");
  return [line(header), sep, ...cells.map(line)].join("\n");
}

/**
 * A report's subtitle: its `description` when the study wrote one, else the variants compared, the virtual time
 * covered by the samples and the parameters (`name=value`, seed first).
 */
export function describeRun(report: StudyReport): string {
  if (report.description !== undefined && report.description !== "") return report.description;
  const end = Math.max(0, ...report.variants.flatMap((v) => v.samples.map((s) => s.t)));
  const names = report.variants.map((v) => v.name);
  const params = Object.entries(report.params).sort(([a], [b]) => (a === "seed" ? -1 : b === "seed" ? 1 : 0));
  const parts = [
    `${names.length} variant${names.length === 1 ? "" : "s"}${names.length > 0 ? ` (${names.join("; ")})` : ""}`,
    ...(end > 0 ? [`${+(end / 1000).toFixed(1)} virtual s sampled`] : []),
    ...(params.length > 0 ? [params.map(([k, v]) => `${k}=${v}`).join(", ")] : []),
  ];
  return parts.join(" · ");
}
