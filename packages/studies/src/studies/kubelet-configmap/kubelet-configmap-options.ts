// The options, variants and warm-up of the kubelet-configmap study (000/001): what a run is configured with.
import type { WatchMemoryModel } from "@informer-ts/sim-apiserver";
import type { ChangeDetectionStrategy } from "../../kubelet/manager.js";

/** The settings compared: the three strategies, the Cache fix of v1.29, and Watch over immutable ConfigMaps. */
export type KubeletConfigMapVariant = "get" | "cache" | "cache-1.29" | "watch" | "watch-immutable";

/** Every variant, in the order they run and are reported. */
export const KUBELET_CONFIGMAP_VARIANTS: readonly KubeletConfigMapVariant[] = [
  "get",
  "cache",
  "cache-1.29",
  "watch",
  "watch-immutable",
];

/** Options of {@link runKubeletConfigMap}; defaults are the write-ups' values except the number of nodes. */
export interface KubeletConfigMapOptions {
  /** Kubelets simulated. Default 10 (the write-ups' clusters have 2,000; see `clusterSize`). */
  readonly nodes?: number;
  /** Pods per node. Default 50. */
  readonly podsPerNode?: number;
  /** ConfigMap volumes per pod, each its own ConfigMap. Default 2 (50 × 2 = 001's 100 ConfigMaps per node). */
  readonly configMapsPerPod?: number;
  /** Nodes in the cluster, for the TTL controller's table and the extrapolation. Default 2,000 (001). */
  readonly clusterSize?: number;
  /** kubelet version of the get, cache and watch variants. Default "1.28" (000 tested v1.22.13 and v1.28.0). */
  readonly kubeletVersion?: string;
  /** kubelet `--sync-frequency` in s. Default 60. */
  readonly syncFrequencySeconds?: number;
  /** Fraction of ConfigMaps marked immutable in the `watch-immutable` variant. Default 1. */
  readonly immutableFraction?: number;
  /** Pod updates per pod per hour (each re-syncs the pod at once). Default 0. */
  readonly podUpdatesPerHour?: number;
  /** Virtual length of each variant's run in s. Default 1200. */
  readonly durationSeconds?: number;
  /** Sampling period in virtual s. Default 10. */
  readonly sampleSeconds?: number;
  /** Seed of every random choice. Default 1. */
  readonly seed?: number;
  /** Sample the heap too (not deterministic). Default false. */
  readonly sampleHeap?: boolean;
  /** Which variants to run (default all, see {@link KUBELET_CONFIGMAP_VARIANTS}). */
  readonly variants?: readonly KubeletConfigMapVariant[];
  /**
   * The simulator's kube-apiserver memory model per watch (`SimApiServerOptions.watchMemoryModel`; default the
   * simulator's, calibrated to 001's ~100 KB per watch). Its estimate for the open ConfigMap watches is the memory
   * column (`SimApiServer.watchMemory()`).
   */
  readonly watchMemoryModel?: WatchMemoryModel;
  /** Progress lines (one per 60 virtual s per variant). */
  readonly progress?: (line: string) => void;
}

/** One variant's kubelet settings and report label. */
export interface Setting {
  readonly label: string;
  readonly strategy: ChangeDetectionStrategy;
  readonly kubeletVersion: string;
  readonly immutableFraction: number;
}

/** The options with their defaults filled in (the ones every variant shares). */
export type Resolved = Required<
  Omit<KubeletConfigMapOptions, "variants" | "progress" | "sampleHeap" | "watchMemoryModel">
>;

/** Upper bounds (s) of the inter-GET interval histogram's buckets; the last bucket is open. */
export const INTERVAL_BUCKETS_SECONDS: readonly number[] = [60, 65, 70, 75, 80, 85, 90, 95];

/** Throws a RangeError naming the first option out of range. */
export function check(o: Resolved): void {
  const ints: (keyof Resolved)[] = ["nodes", "podsPerNode", "configMapsPerPod", "clusterSize"];
  for (const k of ints)
    if (!Number.isInteger(o[k]) || (o[k] as number) < (k === "configMapsPerPod" || k === "clusterSize" ? 0 : 1))
      throw new RangeError(
        `${k} must be an integer ≥ ${k === "configMapsPerPod" || k === "clusterSize" ? 0 : 1}, got ${o[k]}`,
      );
  if (!(o.immutableFraction >= 0 && o.immutableFraction <= 1))
    throw new RangeError(`immutableFraction must be within [0, 1], got ${o.immutableFraction}`);
  if (!(o.syncFrequencySeconds > 0))
    throw new RangeError(`syncFrequencySeconds must be > 0, got ${o.syncFrequencySeconds}`);
  if (!(o.podUpdatesPerHour >= 0)) throw new RangeError(`podUpdatesPerHour must be ≥ 0, got ${o.podUpdatesPerHour}`);
  if (!(o.sampleSeconds > 0)) throw new RangeError(`sampleSeconds must be > 0, got ${o.sampleSeconds}`);
  const warmup = warmupSeconds(o);
  if (!(o.durationSeconds >= warmup + o.sampleSeconds))
    throw new RangeError(
      `the run (${o.durationSeconds} s) must outlast the warm-up (${warmup} s: 1.5 × the sync frequency) by one sample (${o.sampleSeconds} s)`,
    );
}

/** Pods start over the first 1.5 sync periods; rates are measured after that. */
export function warmupSeconds(o: Pick<Resolved, "syncFrequencySeconds">): number {
  return 1.5 * o.syncFrequencySeconds;
}
