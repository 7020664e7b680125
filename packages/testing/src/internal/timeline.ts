/** One line of a failure timeline (the public `TimelineEntry`). */
export interface TimelineLine {
  readonly at: number;
  readonly kind: string;
  readonly text: string;
}

/**
 * Renders a timeline, one line per entry, sorted by virtual time. Requests are logged when they finish but stamped with
 * when they arrived: a stable sort puts them in place.
 */
export function renderTimeline(timeline: readonly TimelineLine[]): string[] {
  const sorted = timeline.map((e, i) => [e, i] as const).sort((a, b) => a[0].at - b[0].at || a[1] - b[1]);
  return sorted.map(([e]) => `    ${String(Math.round(e.at)).padStart(8)}  ${e.kind.padEnd(12)} ${e.text}`);
}
