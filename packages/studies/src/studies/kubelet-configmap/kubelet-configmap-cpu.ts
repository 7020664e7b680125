// The kubelet-configmap study's apiserver CPU accounting (cost model): the simulator's CPU-ms split by kind of request.
import type { SimApiServer } from "@informer-ts/sim-apiserver";

/** The requests the study's apiserver CPU is split by: GETs by where served, the watch variants' LISTs and WATCHes. */
export const CPU_KINDS = ["get/storage", "get/cache", "list/cache", "watch/cache", "other"] as const;
/** One of {@link CPU_KINDS}. */
export type CpuKind = (typeof CPU_KINDS)[number];

/** The run's counters at one instant (the warm-up's end, the run's end). */
export interface Snapshot {
  readonly storageGets: number;
  readonly cacheGets: number;
  readonly lists: number;
  readonly watches: number;
  readonly syncs: number;
  /** apiserver CPU so far (cost model), ms, by kind of request. */
  readonly cpu: Readonly<Record<CpuKind, number>>;
}

/** Zero CPU-ms for every kind. */
export function emptyCpu(): Record<CpuKind, number> {
  return { "get/storage": 0, "get/cache": 0, "list/cache": 0, "watch/cache": 0, other: 0 };
}

/** The simulator's CPU-ms so far (cost model) by {@link CPU_KINDS}. */
export function cpuByKind(sim: SimApiServer): Record<CpuKind, number> {
  const out = emptyCpu();
  for (const r of sim.accounting.rows()) {
    const key = `${r.verb}/${r.servedFrom}`;
    const kind = (CPU_KINDS as readonly string[]).includes(key) ? (key as CpuKind) : "other";
    out[kind] += r.cpuMsSum;
  }
  return out;
}

/** Each kind's label in the summary and the CPU chart. */
export const CPU_KIND_LABELS: Readonly<Record<CpuKind, string>> = {
  "get/storage": "GET etcd",
  "get/cache": "GET cache",
  "list/cache": "LIST",
  "watch/cache": "WATCH",
  other: "other",
};
