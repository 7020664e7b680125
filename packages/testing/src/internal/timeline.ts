/** One line of a failure timeline (the public `TimelineEntry`). */
export interface TimelineLine {
  readonly at: number;
  readonly kind: string;
  readonly text: string;
}

/** The longest cycle of lines {@link renderTimeline} folds. */
const MAX_CYCLE = 8;
/** A cycle folds once it repeats this often in a row. */
const MIN_REPEATS = 3;
/** After folding, a timeline longer than this keeps its head and tail and cuts the middle with a count. */
const MAX_LINES = 90;

const formatMs = (ms: number) => Math.round(ms).toLocaleString("en-US");

/**
 * Renders a timeline, one line per entry, in virtual-time order: requests are logged when they finish but stamped
 * with when they arrived, reconciles when they end; a stable sort puts every line in place. Then it folds what
 * repeats: a cycle of up to 8 lines that comes back at least 3 times in a row — the same kinds and texts, numbers
 * aside (resourceVersions, timestamps) — is printed once, followed by `⋯ the same 3 lines ×2,512 more, from 1,264 ms
 * to 1,947 ms` (an identical line at the same instant simply ends in `(×n)`). A timeline still longer than 90 lines
 * keeps its first and last 45 and says how many lines of which span it cut.
 */
export function renderTimeline(timeline: readonly TimelineLine[]): string[] {
  const sorted = timeline
    .map((e, i) => [e, i] as const)
    .sort((a, b) => a[0].at - b[0].at || a[1] - b[1])
    .map(([e]) => e);
  const shape = sorted.map((e) => `${e.kind}\u0000${e.text.replace(/\d+/g, "#")}`);
  const line = (e: TimelineLine, suffix = "") =>
    `    ${String(Math.round(e.at)).padStart(8)}  ${e.kind.padEnd(12)} ${e.text}${suffix}`;
  const out: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    // The cycle length covering the most lines from i (a shorter one on ties).
    let best = { k: 0, reps: 0 };
    for (let k = 1; k <= MAX_CYCLE && i + k * MIN_REPEATS <= sorted.length; k++) {
      let reps = 1;
      while (i + (reps + 1) * k <= sorted.length) {
        let same = true;
        for (let j = 0; j < k && same; j++) same = shape[i + j] === shape[i + reps * k + j];
        if (!same) break;
        reps++;
      }
      if (reps >= MIN_REPEATS && reps * k > best.reps * best.k) best = { k, reps };
    }
    if (best.k === 0) {
      // Identical adjacent lines at one instant: one line with a count.
      let n = 1;
      const e = sorted[i]!;
      while (
        i + n < sorted.length &&
        sorted[i + n]!.at === e.at &&
        sorted[i + n]!.kind === e.kind &&
        sorted[i + n]!.text === e.text
      )
        n++;
      out.push(line(e, n > 1 ? ` (×${n})` : ""));
      i += n;
      continue;
    }
    const { k, reps } = best;
    for (let j = 0; j < k; j++) out.push(line(sorted[i + j]!));
    const from = sorted[i + k]!.at;
    const to = sorted[i + reps * k - 1]!.at;
    const lines = k === 1 ? "line" : `${k} lines`;
    const span = from === to ? `at ${formatMs(from)} ms` : `from ${formatMs(from)} ms to ${formatMs(to)} ms`;
    out.push(`    ${"".padStart(8)}  ${"⋯".padEnd(12)} the same ${lines} ×${formatMs(reps - 1)} more, ${span}`);
    i += reps * k;
  }
  if (out.length <= MAX_LINES) return out;
  const half = MAX_LINES / 2;
  const cut = out.length - 2 * half;
  return [
    ...out.slice(0, half),
    `    ${"".padStart(8)}  ${"⋯".padEnd(12)} ${formatMs(cut)} lines cut`,
    ...out.slice(-half),
  ];
}

/** One invariant's verdict, as the failure report needs it (the public `InvariantReport`). */
interface ReportLine {
  readonly name: string;
  readonly ok: boolean;
  readonly violations: readonly string[];
}

/**
 * Renders a failed case: `checker` and the count of broken invariants, how to replay it (its token, or the seed of a
 * hand-written case), the case's
 * `story` (lines already indented, e.g. the shrunk history), each broken invariant with its violations, and the
 * timeline.
 */
export function renderFailure(
  checker: string,
  name: number | { readonly token: string; readonly caseSeed: number; readonly seed: number },
  story: readonly string[],
  reports: readonly ReportLine[],
  timeline: readonly TimelineLine[],
): string {
  const lines = [
    `${checker}: a generated case broke ${reports.filter((r) => !r.ok).length} invariant(s)`,
    typeof name === "number"
      ? `  case seed ${name}`
      : `  replay this case alone: FC_REPLAY=${name.token} (case seed ${name.caseSeed}; the whole search again: FC_SEED=${name.seed})`,
    ...story,
  ];
  for (const r of reports) {
    if (r.ok) continue;
    lines.push(`  ✗ ${r.name}`);
    for (const v of r.violations) lines.push(`      ${v}`);
  }
  lines.push("  timeline (virtual ms):", ...renderTimeline(timeline));
  return lines.join("\n");
}
