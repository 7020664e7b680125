// API Priority and Fairness as the httplog records it (`apf_pl`, `apf_fs`, `apf_iseats`, `apf_fseats`,
// `apf_execution_time`, `apf_init_latency`): requests grouped by priority level and flow schema.
import type { ApiRequestEntry } from "./log-entry.js";

/** The requests of one priority level × flow schema, with the seats they took and how long they executed. */
export interface ApfGroup {
  /** `[priority level, flow schema]`; `(none)` where a line has no APF fields. */
  readonly key: readonly [string, string];
  readonly count: number;
  /** Share of all requests, 0–1. */
  readonly share: number;
  /** Mean initial seats (`apf_iseats`), null when no line of the group says. */
  readonly seatsMean: number | null;
  /** Most final seats (`apf_fseats`) of a request of the group, null when none says. */
  readonly finalSeatsMax: number | null;
  /** Time in the APF queue (`apf_init_latency`): mean, ms. */
  readonly queueMsMean: number | null;
  /** Execution time (`apf_execution_time`): sum, mean and max, ms. */
  readonly executionMsSum: number;
  readonly executionMsMean: number | null;
  readonly executionMsMax: number | null;
}

function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * Groups requests by priority level × flow schema, largest first; empty when no request has an APF field (logs
 * before 1.20, audit-only input).
 */
export function apfGroups(reqs: readonly ApiRequestEntry[]): ApfGroup[] {
  if (!reqs.some((r) => r.priorityLevel !== undefined || r.flowSchema !== undefined)) return [];
  const acc = new Map<string, { key: [string, string]; rs: ApiRequestEntry[] }>();
  for (const r of reqs) {
    const key: [string, string] = [r.priorityLevel ?? "(none)", r.flowSchema ?? "(none)"];
    const id = key.join("\u0000");
    let g = acc.get(id);
    if (g === undefined) {
      g = { key, rs: [] };
      acc.set(id, g);
    }
    g.rs.push(r);
  }
  const pick = (rs: readonly ApiRequestEntry[], f: (r: ApiRequestEntry) => number | undefined) =>
    rs.map(f).filter((x): x is number => x !== undefined);
  return [...acc.values()]
    .map(({ key, rs }) => {
      const exec = pick(rs, (r) => r.apfExecutionMs);
      const fseats = pick(rs, (r) => r.finalSeats);
      return {
        key,
        count: rs.length,
        share: rs.length / reqs.length,
        seatsMean: mean(pick(rs, (r) => r.seats)),
        finalSeatsMax: fseats.length === 0 ? null : Math.max(...fseats),
        queueMsMean: mean(pick(rs, (r) => r.apfInitLatencyMs)),
        executionMsSum: exec.reduce((a, b) => a + b, 0),
        executionMsMean: mean(exec),
        executionMsMax: exec.length === 0 ? null : Math.max(...exec),
      };
    })
    .sort((a, b) => b.count - a.count || (a.key.join(" ") < b.key.join(" ") ? -1 : 1));
}
