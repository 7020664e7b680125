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
