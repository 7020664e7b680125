// The data every scenario produces: written as --json, rendered as the terminal summary and the --report HTML.
import type { HistogramBucket } from "../runtime/long-histogram.js";
import type { Sample } from "../runtime/sampler.js";
import type { ReportChart } from "./report-chart.js";

/** The charts every report can draw from the runtime's samples (see `renderHtmlReport`). */
export type StandardChart = "queue-depth" | "wait" | "requests" | "memory" | "oldest-wait";

/** One line of a scenario's summary: the write-up's figure beside the measured one. */
export interface SummaryRow {
  readonly variant: string;
  readonly metric: string;
  /** The figure the write-up (or the issue's reproduction) gives, as text; "—" when it gives none. */
  readonly writeUp: string;
  readonly measured: string;
}

/** One run of a scenario under one setting (e.g. "resync 30 s, 1 worker"). */
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
 * A scenario's result: its name, the parameters it ran with (flags' values), one {@link VariantResult} per
 * setting compared, and the summary rows. Everything except the samples' `heapUsed` is deterministic for a seed.
 */
export interface ScenarioReport {
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

/** The summary as an aligned text table (variant, metric, write-up, measured). */
export function formatSummaryTable(rows: readonly SummaryRow[]): string {
  const header: SummaryRow = { variant: "variant", metric: "metric", writeUp: "write-up", measured: "measured" };
  const all = [header, ...rows];
  const w = (f: keyof SummaryRow) => Math.max(...all.map((r) => r[f].length));
  const widths = [w("variant"), w("metric"), w("writeUp"), w("measured")];
  const line = (r: SummaryRow) =>
    [r.variant, r.metric, r.writeUp, r.measured]
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const sep = widths.map((n) => "─".repeat(n)).join("  ");
  return [line(header), sep, ...rows.map(line)].join("\n");
}

/**
 * A report's subtitle: its `description` when the study wrote one, else the variants compared, the virtual time
 * covered by the samples and the parameters (`name=value`, seed first).
 */
export function describeRun(report: ScenarioReport): string {
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
