// The demo's report helpers: the per-second chart of the watch events the informer received, numbers printed the way
// a reader wants them (rounded, metric labels said once), and progress lines for long steps.
import type { Clock } from "@informer-ts/clock";

/** One second of the chart: watch events received, split into live changes and the initial events of a (re)list. */
export interface EventSecond {
  /** Live watch events (ADDED, MODIFIED, DELETED after the initial state). */
  live: number;
  /** Initial events of a watch-list (the state being replayed), or objects of a LIST. */
  initial: number;
  /** What happened in that second (faults), printed after the bar. */
  readonly marks: string[];
}

/**
 * Counts, per second since `startMs`, what the informer received, and what happened when (faults). Time is read by
 * the caller (the demo's clock) and passed in, so the counts are exact under any clock.
 */
export class EventsPerSecond {
  private readonly seconds: EventSecond[] = [];

  constructor(private readonly startMs: number) {}

  private at(nowMs: number): EventSecond {
    const i = Math.max(0, Math.floor((nowMs - this.startMs) / 1000));
    for (let k = this.seconds.length; k <= i; k++) this.seconds.push({ live: 0, initial: 0, marks: [] });
    return this.seconds[i] as EventSecond;
  }

  /** Counts `n` events received at `nowMs`; `initial` for a (re)list's initial state. */
  add(nowMs: number, initial: boolean, n = 1): void {
    const s = this.at(nowMs);
    if (initial) s.initial += n;
    else s.live += n;
  }

  /** Notes what happened at `nowMs` (shown beside that second's bar). */
  mark(nowMs: number, what: string): void {
    this.at(nowMs).marks.push(what);
  }

  /** Extends the chart to `nowMs` (seconds without events show as empty bars). */
  until(nowMs: number): void {
    this.at(nowMs);
  }

  /** The seconds counted so far, from the start; the last one may still be counting. */
  rows(): readonly EventSecond[] {
    return this.seconds;
  }
}

function bar(n: number, max: number, width: number): string {
  const len = max === 0 ? 0 : Math.min(width, Math.round((n / max) * width));
  return "█".repeat(len) + " ".repeat(width - len);
}

/**
 * The chart lines: one per second, a bar of live events scaled to the busiest second, the count, then the initial
 * events of a relist (`+2000 replayed by a watch-list`) and the marks. Lines are indented by two spaces.
 */
export function renderEventChart(rows: readonly EventSecond[], width = 40): string[] {
  const max = Math.max(0, ...rows.map((r) => r.live));
  const digits = String(max).length;
  return rows.map((r, i) => {
    const extra = [
      ...(r.initial > 0 ? [`+${r.initial} initial events of a relist`] : []),
      ...r.marks.map((m) => `◀ ${m}`),
    ];
    const tail = extra.length === 0 ? "" : `  ${extra.join("; ")}`;
    return `    ${String(i).padStart(3)}s ${bar(r.live, max, width)} ${String(r.live).padStart(digits)}${tail}`;
  });
}

/**
 * A number as a reader wants it: integers as they are, other values to 3 significant digits (never
 * `0.07100000000000002`), large ones to the unit.
 */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n) || Number.isInteger(n)) return String(n);
  if (Math.abs(n) >= 100) return String(Math.round(n));
  return String(Number(n.toPrecision(3)));
}

/**
 * The `prefix*` series of a Prometheus text exposition without histogram buckets, as `name{labels} value` lines with
 * the value rounded ({@link formatNumber}). The label pairs every series shares are returned once in `labels` (`{…}`,
 * or `""` when none is shared) and left out of the lines, which keep only their own (`handler="handler#1"`).
 */
export function summarizeMetrics(text: string, prefix: string): { labels: string; lines: string[] } {
  const parsed: Array<{ name: string; pairs: string[]; value: number }> = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(prefix) || line.includes("_bucket")) continue;
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{.*\})?\s+(\S+)$/.exec(line);
    if (m === null) continue;
    const pairs = [...(m[2] ?? "").matchAll(/[A-Za-z_][A-Za-z0-9_]*="(?:[^"\\]|\\.)*"/g)].map((p) => p[0]);
    parsed.push({ name: m[1] ?? "", pairs, value: Number(m[3]) });
  }
  const shared = (parsed[0]?.pairs ?? []).filter((p) => parsed.every((s) => s.pairs.includes(p)));
  const own = (pairs: string[]) => pairs.filter((p) => !shared.includes(p));
  return {
    labels: shared.length === 0 ? "" : `{${shared.join(",")}}`,
    lines: parsed.map((p) => {
      const rest = own(p.pairs);
      return `${p.name}${rest.length === 0 ? "" : `{${rest.join(",")}}`} ${formatNumber(p.value)}`;
    }),
  };
}

/**
 * A progress reporter for a step that started at `clock.now()`: each call prints `line()` through `out` when at
 * least a second has passed since the step began and since the last line, else does nothing (a short step prints
 * nothing; `line` is only evaluated when printed).
 */
export function progressReporter(clock: Clock, out: (line: string) => void): (line: () => string) => void {
  let next = clock.now() + 1000;
  return (line) => {
    const now = clock.now();
    if (now < next) return;
    next = now + 1000;
    out(line());
  };
}
