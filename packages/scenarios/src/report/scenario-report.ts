// The data every scenario produces: written as --json, rendered as the terminal summary and the --report HTML.
import type { HistogramBucket } from "../scenario/long-histogram.js";
import type { Sample } from "../scenario/sampler.js";
import type { ReportChart } from "./report-chart.js";

/** One line of a scenario's summary: the write-up's figure beside the measured one. */
export interface SummaryRow {
  readonly variant: string;
  readonly metric: string;
  /** The figure the write-up (or the reproduction) gives, as text; "—" when it gives none. */
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
  readonly variants: readonly VariantResult[];
  readonly summary: readonly SummaryRow[];
  /** The study's own charts: when present, `--report` draws these instead of the workqueue charts. */
  readonly charts?: readonly ReportChart[];
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
