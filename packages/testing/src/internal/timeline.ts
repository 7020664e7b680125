/** One line of a failure timeline (the public `TimelineEntry`). */
export interface TimelineLine {
  readonly at: number;
  readonly kind: string;
  readonly text: string;
}

/**
 * Renders a timeline, one line per entry, sorted by virtual time. Requests are logged when they finish but stamped with
 * when they arrived: a stable sort puts them in place. A run of identical entries at the same virtual ms (a burst of
 * writes) is one line ending in `(×n)`.
 */
export function renderTimeline(timeline: readonly TimelineLine[]): string[] {
  const sorted = timeline.map((e, i) => [e, i] as const).sort((a, b) => a[0].at - b[0].at || a[1] - b[1]);
  const out: string[] = [];
  let last: TimelineLine | undefined;
  let repeats = 0;
  const flush = () => {
    if (last === undefined) return;
    const times = repeats > 1 ? ` (×${repeats})` : "";
    out.push(`    ${String(Math.round(last.at)).padStart(8)}  ${last.kind.padEnd(12)} ${last.text}${times}`);
  };
  for (const [e] of sorted) {
    if (last !== undefined && e.at === last.at && e.kind === last.kind && e.text === last.text) {
      repeats++;
      continue;
    }
    flush();
    last = e;
    repeats = 1;
  }
  flush();
  return out;
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
