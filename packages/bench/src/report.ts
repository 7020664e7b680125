import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One row of a benchmark table. `baseline` and `ratio` are filled when the figure has a baseline. */
export interface BenchRow {
  /** What was measured, e.g. "add/get/done cycles (1M items, 50% duplicate adds)". */
  readonly case: string;
  readonly value: number;
  /** Unit of `value`, e.g. "ops/s", "ms", "MiB", "B/object". */
  readonly unit: string;
  /** The same figure for the naive baseline measured in the same run. */
  readonly baseline?: number;
  /** How the ratio reads, e.g. "baseline/ours" — stated so a reader never guesses the direction. */
  readonly ratioLabel?: string;
  readonly ratio?: number;
  /** The goal from the issue, as text (e.g. "≥ 1M ops/s"), and whether this run met it. */
  readonly goal?: string;
  readonly met?: boolean;
  readonly note?: string;
}

export interface BenchResult {
  readonly name: string;
  readonly rows: readonly BenchRow[];
  /** Free-form environment facts (node version, object counts, …). */
  readonly meta?: Record<string, string | number | boolean>;
}

function fmt(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return "";
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString("en-US");
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toPrecision(3);
}

/** Renders a result as a markdown table. */
export function toMarkdown(result: BenchResult): string {
  const lines = [
    `### ${result.name}`,
    "",
    "| case | value | unit | baseline | ratio | goal | met |",
    "|---|---:|---|---:|---|---|---|",
  ];
  for (const r of result.rows) {
    const ratio = r.ratio === undefined ? "" : `${r.ratio.toFixed(2)} (${r.ratioLabel ?? "ratio"})`;
    const met = r.met === undefined ? "" : r.met ? "yes" : "**no**";
    lines.push(
      `| ${r.case}${r.note ? ` — ${r.note}` : ""} | ${fmt(r.value)} | ${r.unit} | ${fmt(r.baseline)} | ${ratio} | ${r.goal ?? ""} | ${met} |`,
    );
  }
  if (result.meta !== undefined) {
    lines.push(
      "",
      Object.entries(result.meta)
        .map(([k, v]) => `${k}: ${v}`)
        .join(" · "),
    );
  }
  return lines.join("\n") + "\n";
}

/** Writes `bench-results/<name>.json` and `.md` under `dir` and returns the markdown. */
export function writeResult(result: BenchResult, dir = "bench-results"): string {
  mkdirSync(dir, { recursive: true });
  const md = toMarkdown(result);
  writeFileSync(join(dir, `${result.name}.json`), JSON.stringify(result, null, 2) + "\n");
  writeFileSync(join(dir, `${result.name}.md`), md);
  return md;
}

/** Runs `global.gc` a few times if the process was started with --expose-gc; returns whether it could. */
export function forceGc(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  for (let i = 0; i < 3; i++) gc();
  return true;
}

/** Heap used after a forced GC, in bytes. */
export function heapUsed(): number {
  forceGc();
  return process.memoryUsage().heapUsed;
}

/** Operations per second of `fn` run `n` times, timed with the monotonic clock (benchmarks only). */
export function opsPerSecond(n: number, fn: (i: number) => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - start);
  return n / (ns / 1e9);
}
