// How often one client asks again for the same object: write-up 000's key evidence (a kubelet GETting the same
// ConfigMap every 60–90 s, the pod resync period) read out of the logs' timestamps.

import type { ApiRequestEntry } from "./log-entry.js";
import { userAgentProduct } from "./user-agent.js";

/** One client's (user agent product) re-requests of single objects with one verb and resource. */
export interface ReRequestGroup {
  /** `[user agent product, verb, resource]`. */
  readonly key: readonly [string, string, string];
  /** Distinct objects (namespace/name, per source host) requested at least twice. */
  readonly objects: number;
  /** Intervals between consecutive requests of one object by one source. */
  readonly intervals: number;
  /** Interval statistics, seconds. */
  readonly minSeconds: number;
  readonly medianSeconds: number;
  readonly p90Seconds: number;
  readonly maxSeconds: number;
  /** One object of the group and its intervals (s), as an example to check by hand. */
  readonly example: { readonly object: string; readonly source: string; readonly intervalsSeconds: readonly number[] };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/**
 * The intervals between consecutive requests for the same named object (`get`, `update`, `patch` …, not watches)
 * by the same source (user agent product and source host; several kubelets share a user agent), grouped by user
 * agent × verb × resource, those with the most intervals first, at most `top`. Requests without a time are skipped.
 */
export function reRequestIntervals(reqs: readonly ApiRequestEntry[], top = 10): ReRequestGroup[] {
  const series = new Map<string, { group: string; object: string; source: string; times: number[] }>();
  for (const r of reqs) {
    if (r.timeMs === undefined || r.name === "" || r.verb === "watch") continue;
    const ua = userAgentProduct(r.userAgent);
    const host = hostOf(r.sourceIP ?? r.user ?? "");
    const group = [ua, r.verb, r.resource].join("\u0000");
    const object = `${r.namespace === "" ? "" : `${r.namespace}/`}${r.name}`;
    const id = `${group}\u0000${host}\u0000${object}`;
    let s = series.get(id);
    if (s === undefined) {
      s = { group, object, source: host, times: [] };
      series.set(id, s);
    }
    s.times.push(r.timeMs);
  }
  const groups = new Map<string, { intervals: number[]; objects: number; example?: ReRequestGroup["example"] }>();
  for (const s of series.values()) {
    if (s.times.length < 2) continue;
    const times = [...s.times].sort((a, b) => a - b);
    const iv = times.slice(1).map((t, i) => Math.round((t - (times[i] ?? t)) * 1000) / 1e6);
    let g = groups.get(s.group);
    if (g === undefined) {
      g = { intervals: [], objects: 0 };
      groups.set(s.group, g);
    }
    g.objects++;
    g.intervals.push(...iv);
    if (g.example === undefined || iv.length > g.example.intervalsSeconds.length)
      g.example = { object: s.object, source: s.source, intervalsSeconds: iv };
  }
  return [...groups.entries()]
    .map(([id, g]) => {
      const sorted = [...g.intervals].sort((a, b) => a - b);
      const [ua = "", verb = "", resource = ""] = id.split("\u0000");
      return {
        key: [ua, verb, resource] as const,
        objects: g.objects,
        intervals: sorted.length,
        minSeconds: sorted[0] ?? 0,
        medianSeconds: quantile(sorted, 0.5),
        p90Seconds: quantile(sorted, 0.9),
        maxSeconds: sorted.at(-1) ?? 0,
        example: g.example ?? { object: "", source: "", intervalsSeconds: [] },
      };
    })
    .sort((a, b) => b.intervals - a.intervals || (a.key.join(" ") < b.key.join(" ") ? -1 : 1))
    .slice(0, top);
}

/** `10.0.1.5:40000` → `10.0.1.5`, `[::1]:60566` → `::1`; other text as is. */
export function hostOf(addr: string): string {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(addr);
  if (v6 !== null) return v6[1] ?? addr;
  const v4 = /^([^:]+):\d+$/.exec(addr);
  return v4 !== null ? (v4[1] ?? addr) : addr;
}
