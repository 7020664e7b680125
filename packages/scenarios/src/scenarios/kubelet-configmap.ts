// Studies 000 and 001: kubelets reading the ConfigMaps their pods mount — GETs to etcd on every pod sync (Cache,
// kubelet ≤ v1.28; Get), or one watch per ConfigMap and the apiserver memory it holds (Watch).
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, type Rand, seededRand, settle } from "@informer-ts/clock";
import { REQUEST_OVERHEAD_MS, SimApiServer, type WatchMemoryModel } from "@informer-ts/sim-apiserver";
import { SimKubelet } from "../kubelet/kubelet.js";
import type { ChangeDetectionStrategy, KubeletPod, ObjectClient } from "../kubelet/manager.js";
import { KUBELET_USER_AGENT, simObjectClient } from "../kubelet/sim-object-client.js";
import { TTLController } from "../kubelet/ttl-controller.js";
import type { ReportChart } from "../report/report-chart.js";
import type { ScenarioReport, SummaryRow, VariantResult } from "../report/scenario-report.js";
import { Sampler } from "../scenario/sampler.js";
import { requestsByServedFrom } from "../scenario/scenario-runtime.js";

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

interface Setting {
  readonly label: string;
  readonly strategy: ChangeDetectionStrategy;
  readonly kubeletVersion: string;
  readonly immutableFraction: number;
}

type Resolved = Required<Omit<KubeletConfigMapOptions, "variants" | "progress" | "sampleHeap" | "watchMemoryModel">>;

/** Upper bounds (s) of the inter-GET interval histogram's buckets; the last bucket is open. */
export const INTERVAL_BUCKETS_SECONDS: readonly number[] = [60, 65, 70, 75, 80, 85, 90, 95];

function check(o: Resolved): void {
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
function warmupSeconds(o: Pick<Resolved, "syncFrequencySeconds">): number {
  return 1.5 * o.syncFrequencySeconds;
}

/**
 * Runs studies 000/001 in virtual time: `nodes` simulated kubelets (pod workers, volume manager, ConfigMap manager of
 * each variant's strategy) against an in-process SimApiServer holding their pods' ConfigMaps; pods start spread over
 * the first 1.5 sync periods, then live for the run (resync every 60–90 s, optional pod updates). Reports per variant
 * the GETs per second by where the apiserver served them (simulator accounting), open watches, watch (re-)opens per
 * second, the apiserver memory those watches hold (the simulator's watch memory model), and the interval between two GETs of one
 * ConfigMap by one kubelet — 000's log pattern.
 */
export async function runKubeletConfigMap(options: KubeletConfigMapOptions = {}): Promise<ScenarioReport> {
  const o: Resolved = {
    nodes: options.nodes ?? 10,
    podsPerNode: options.podsPerNode ?? 50,
    configMapsPerPod: options.configMapsPerPod ?? 2,
    clusterSize: options.clusterSize ?? 2000,
    kubeletVersion: options.kubeletVersion ?? "1.28",
    syncFrequencySeconds: options.syncFrequencySeconds ?? 60,
    immutableFraction: options.immutableFraction ?? 1,
    podUpdatesPerHour: options.podUpdatesPerHour ?? 0,
    durationSeconds: options.durationSeconds ?? 1200,
    sampleSeconds: options.sampleSeconds ?? 10,
    seed: options.seed ?? 1,
  };
  check(o);
  const ttl = new TTLController();
  for (let i = 0; i < o.clusterSize; i++) ttl.addNode();
  const settings: Record<KubeletConfigMapVariant, Setting> = {
    get: {
      label: `Get (kubelet ${o.kubeletVersion})`,
      strategy: "Get",
      kubeletVersion: o.kubeletVersion,
      immutableFraction: 0,
    },
    cache: {
      label: `Cache (kubelet ${o.kubeletVersion}, TTL ${ttl.desiredTTLSeconds}s)`,
      strategy: "Cache",
      kubeletVersion: o.kubeletVersion,
      immutableFraction: 0,
    },
    "cache-1.29": {
      label: `Cache (kubelet 1.29, TTL ${ttl.desiredTTLSeconds}s)`,
      strategy: "Cache",
      kubeletVersion: "1.29",
      immutableFraction: 0,
    },
    watch: {
      label: `Watch (kubelet ${o.kubeletVersion})`,
      strategy: "Watch",
      kubeletVersion: o.kubeletVersion,
      immutableFraction: 0,
    },
    "watch-immutable": {
      label: `Watch, ${Math.round(o.immutableFraction * 100)}% immutable`,
      strategy: "Watch",
      kubeletVersion: o.kubeletVersion,
      immutableFraction: o.immutableFraction,
    },
  };
  const runs: VariantRun[] = [];
  for (const id of options.variants ?? KUBELET_CONFIGMAP_VARIANTS)
    runs.push(await runVariant(id, settings[id], o, ttl.desiredTTLSeconds, options));
  const variants = runs.map((r) => r.result);
  return {
    scenario: "kubelet-configmap",
    title: "kubelet ConfigMap change detection: GETs to etcd on every pod sync, or one watch per ConfigMap",
    source:
      "shared/background/000 (kubelet v1.22/v1.28, Cache: a ConfigMap GET to etcd every ~65–75 s per pod) and 001 " +
      "(Watch: 100 ConfigMaps × 2,000 nodes = 200k watches ≈ 20 GB of apiserver memory, ~100 KB per watch)",
    params: { ...o, ttlSeconds: ttl.desiredTTLSeconds },
    description:
      `${o.nodes} nodes × ${o.podsPerNode} pods × ${o.configMapsPerPod} ConfigMaps, cluster of ${o.clusterSize} nodes ` +
      `(TTL ${ttl.desiredTTLSeconds} s), ${o.durationSeconds} virtual s per variant (rates after a ${warmupSeconds(o)} s ` +
      `warm-up), seed ${o.seed}`,
    variants,
    summary: summarize(variants, o, ttl.desiredTTLSeconds),
    charts: charts(runs),
    // its own charts draw GETs and watches over time; the standard bar chart totals every request by verb/served-from
    standardCharts: ["requests"],
    // the whole run's apiserver CPU-seconds (cost model) per variant by served-from ("" = writes) and user agent
    extra: { cpuSeconds: Object.fromEntries(runs.map((r) => [r.result.name, r.cpuSeconds])) },
  };
}

interface SeriesPoint {
  readonly t: number;
  readonly openWatches: number;
  /** kube-apiserver memory held by the open ConfigMap watches, per the simulator's model. */
  readonly memoryBytes: number;
}

interface VariantRun {
  readonly result: VariantResult;
  readonly series: readonly SeriesPoint[];
  readonly intervalBuckets: readonly number[];
  /** apiserver CPU-seconds of the whole run (cost model) by served-from and by user agent. */
  readonly cpuSeconds: {
    readonly byServedFrom: Readonly<Record<string, number>>;
    readonly byUserAgent: Readonly<Record<string, number>>;
  };
}

async function runVariant(
  id: KubeletConfigMapVariant,
  s: Setting,
  o: Resolved,
  ttlSeconds: number,
  options: KubeletConfigMapOptions,
): Promise<VariantRun> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const rand = seededRand(o.seed);
  const sim = new SimApiServer({
    clock,
    rand,
    // The cost model's apiserver CPU per request (docs/sim-apiserver.md, Models), its latency recorded rather than
    // waited: the kubelets' timing (and so every other figure) is the same as without the model.
    costModel: true,
    costModelLatency: "record",
    ...(options.watchMemoryModel !== undefined && { watchMemoryModel: options.watchMemoryModel }),
  });
  const pick = seededRand(o.seed + 1);
  // The cluster: ConfigMaps of every simulated pod, and the simulated Nodes annotated by the TTL controller. Each
  // node's pods live in a namespace of their own: the simulator answers a single-object LIST (field selector
  // metadata.name) by scanning the namespace, so one shared namespace would make every LIST cost O(cluster).
  for (let n = 0; n < o.nodes; n++) {
    const ns = namespaceOf(n);
    await sim.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    for (let p = 0; p < o.podsPerNode; p++)
      for (let c = 0; c < o.configMapsPerPod; c++)
        await sim.create("configmaps", ns, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: cmName(n, p, c), namespace: ns },
          data: { "nginx.conf": "worker_processes 1;\n".repeat(8) },
          ...(pick.float() < s.immutableFraction && { immutable: true }),
        });
  }
  const nodes: KubeObject[] = [];
  for (let n = 0; n < o.nodes; n++)
    nodes.push(
      await sim.create("nodes", "", {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: nodeName(n), annotations: { "node.alpha.kubernetes.io/ttl": String(ttlSeconds) } },
      }),
    );
  sim.accounting.reset();
  const t0 = clock.now();
  const warmupMs = warmupSeconds(o) * 1000;
  // 000's log: when did each kubelet GET each ConfigMap; the intervals after the warm-up.
  const lastGet = new Map<string, number>();
  const intervals: number[] = [];
  const kubelets: SimKubelet[] = [];
  for (let n = 0; n < o.nodes; n++) {
    const base = simObjectClient(sim, KUBELET_USER_AGENT.replace("v1.28.0", `v${s.kubeletVersion}.0`));
    const client: ObjectClient = {
      get: (namespace, name, opts) => {
        const key = `${n}/${namespace}/${name}`;
        const now = clock.now();
        const prev = lastGet.get(key);
        if (prev !== undefined && prev - t0 >= warmupMs) intervals.push((now - prev) / 1000);
        lastGet.set(key, now);
        return base.get(namespace, name, opts);
      },
      singleObjectListerWatcher: base.singleObjectListerWatcher,
    };
    const node = nodes[n];
    kubelets.push(
      new SimKubelet({
        nodeName: nodeName(n),
        clock,
        rand,
        strategy: s.strategy,
        client,
        getNode: () => node,
        kubeletVersion: s.kubeletVersion,
        syncFrequencyMs: o.syncFrequencySeconds * 1000,
      }),
    );
  }
  const ac = new AbortController();
  const running = kubelets.map((k) => k.run(ac.signal));
  const pods: KubeletPod[][] = kubelets.map((_, n) =>
    Array.from({ length: o.podsPerNode }, (_p, p) => ({
      namespace: namespaceOf(n),
      name: `pod-${n}-${p}`,
      uid: `uid-${n}-${p}`,
      configMaps: Array.from({ length: o.configMapsPerPod }, (_c, c) => cmName(n, p, c)),
    })),
  );
  for (const [n, k] of kubelets.entries())
    for (const pod of pods[n] ?? []) clock.afterFunc(Math.floor(rand.float() * warmupMs), () => k.updatePod(pod));
  if (o.podUpdatesPerHour > 0)
    for (const [n, k] of kubelets.entries()) schedulePodUpdates(clock, rand, k, pods[n] ?? [], o, t0);
  const syncs = () => kubelets.reduce((a, k) => a + k.stats().podSyncs, 0);
  const sampler = new Sampler(
    clock,
    {
      queueDepth: () => 0,
      inFlight: () => kubelets.reduce((a, k) => a + k.stats().mountsInFlight, 0),
      oldestWaitMs: () => 0,
      events: () => 0,
      processed: syncs,
      requests: requestsByServedFrom(sim.accounting),
    },
    o.sampleSeconds * 1000,
    options.sampleHeap ?? false,
  );
  const series: SeriesPoint[] = [];
  const point = () =>
    series.push({
      t: clock.now() - t0,
      openWatches: sim.watchers("configmaps").length,
      memoryBytes: configMapWatchMemory(sim),
    });
  sampler.start();
  point();
  const watchTicker = clock.newTicker(o.sampleSeconds * 1000, point);
  const count = (verb: string, servedFrom: string) =>
    sim.accounting.count({ verb, resource: "configmaps", servedFrom });
  let atWarmup: Snapshot = { storageGets: 0, cacheGets: 0, lists: 0, watches: 0, syncs: 0, cpu: emptyCpu() };
  const snapshot = (): Snapshot => ({
    storageGets: count("get", "storage"),
    cacheGets: count("get", "cache"),
    lists: count("list", "cache") + count("list", "storage"),
    watches: count("watch", "cache"),
    syncs: syncs(),
    cpu: cpuByKind(sim),
  });
  const deadline = t0 + o.durationSeconds * 1000;
  const stepMs = o.sampleSeconds * 1000;
  try {
    for (;;) {
      await settle();
      if (clock.now() >= deadline) break;
      const next = Math.min(deadline, clock.now() + stepMs);
      if (clock.now() - t0 < warmupMs && next - t0 >= warmupMs) {
        await clock.advanceTo(t0 + warmupMs);
        await settle();
        atWarmup = snapshot();
      }
      await clock.advanceTo(next);
      const elapsed = clock.now() - t0;
      if (elapsed % 60_000 === 0)
        options.progress?.(
          `[${id}] t=${elapsed / 1000}s pod syncs=${syncs()} GET storage=${count("get", "storage")} ` +
            `GET cache=${count("get", "cache")} watches open=${sim.watchers("configmaps").length}`,
        );
    }
  } finally {
    sampler.stop();
    watchTicker.stop();
    point();
    ac.abort();
    await Promise.all(running);
    sim.stop();
  }
  const end = snapshot();
  const secs = o.durationSeconds - warmupSeconds(o);
  const steady = series.filter((p) => p.t >= warmupMs);
  const open = steady.map((p) => p.openWatches);
  const mem = steady.map((p) => p.memoryBytes);
  const sorted = [...intervals].sort((a, b) => a - b);
  const q = (f: number) =>
    sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))] ?? null);
  const in65to75 = sorted.filter((x) => x >= 65 && x <= 75).length;
  const buckets = INTERVAL_BUCKETS_SECONDS.map((le, i) => {
    const lo = i === 0 ? Number.NEGATIVE_INFINITY : (INTERVAL_BUCKETS_SECONDS[i - 1] ?? 0);
    return sorted.filter((x) => x > lo && x <= le).length;
  });
  buckets.push(sorted.filter((x) => x > (INTERVAL_BUCKETS_SECONDS.at(-1) ?? 0)).length);
  const stats = kubelets.map((k) => k.stats());
  const cpuFigures: Record<string, number> = {};
  for (const kind of CPU_KINDS) {
    cpuFigures[`cpuMs.warmup.${kind}`] = atWarmup.cpu[kind];
    cpuFigures[`cpuMs.steady.${kind}`] = end.cpu[kind] - atWarmup.cpu[kind];
  }
  const storageGets = sim.accounting.rows().filter((r) => r.verb === "get" && r.servedFrom === "storage");
  const storageGetCount = storageGets.reduce((a, r) => a + r.count, 0);
  const result: VariantResult = {
    name: s.label,
    samples: sampler.samples,
    waitBuckets: [],
    figures: {
      variant: KUBELET_CONFIGMAP_VARIANTS.indexOf(id),
      storageGetsPerSecond: (end.storageGets - atWarmup.storageGets) / secs,
      cacheGetsPerSecond: (end.cacheGets - atWarmup.cacheGets) / secs,
      listsPerSecond: (end.lists - atWarmup.lists) / secs,
      watchOpensPerSecond: (end.watches - atWarmup.watches) / secs,
      podSyncsPerSecond: (end.syncs - atWarmup.syncs) / secs,
      openWatchesMin: open.length > 0 ? Math.min(...open) : null,
      openWatchesMax: open.length > 0 ? Math.max(...open) : null,
      openWatchesEnd: series.at(-2)?.openWatches ?? null,
      memoryBytesMax: mem.length > 0 ? Math.max(...mem) : null,
      memoryBytesEnd: series.at(-2)?.memoryBytes ?? null,
      configMaps: o.nodes * o.podsPerNode * o.configMapsPerPod,
      intervals: sorted.length,
      intervalMinSeconds: sorted[0] ?? null,
      intervalMedianSeconds: q(0.5),
      intervalMaxSeconds: sorted.at(-1) ?? null,
      intervalShare65to75: sorted.length > 0 ? in65to75 / sorted.length : null,
      remounts: stats.reduce((a, x) => a + x.remounts, 0),
      mountFailures: stats.reduce((a, x) => a + x.mountFailures, 0),
      ...cpuFigures,
      cpuMsWarmup: CPU_KINDS.reduce((a, k) => a + atWarmup.cpu[k], 0),
      cpuMsSteady: CPU_KINDS.reduce((a, k) => a + end.cpu[k] - atWarmup.cpu[k], 0),
      storageGetLatencyMs:
        storageGetCount === 0 ? null : storageGets.reduce((a, r) => a + r.latencyMsSum, 0) / storageGetCount,
      storageGetCpuMs: storageGetCount === 0 ? null : storageGets.reduce((a, r) => a + r.cpuMsSum, 0) / storageGetCount,
    },
  };
  const cpuSeconds = {
    byServedFrom: Object.fromEntries(sim.accounting.cpuSecondsBy("servedFrom")),
    byUserAgent: Object.fromEntries(sim.accounting.cpuSecondsBy("userAgent")),
  };
  return { result, series, intervalBuckets: buckets, cpuSeconds };
}

/** The requests the study's apiserver CPU is split by: GETs by where served, the watch variants' LISTs and WATCHes. */
export const CPU_KINDS = ["get/storage", "get/cache", "list/cache", "watch/cache", "other"] as const;
type CpuKind = (typeof CPU_KINDS)[number];

interface Snapshot {
  readonly storageGets: number;
  readonly cacheGets: number;
  readonly lists: number;
  readonly watches: number;
  readonly syncs: number;
  /** apiserver CPU so far (cost model), ms, by kind of request. */
  readonly cpu: Readonly<Record<CpuKind, number>>;
}

function emptyCpu(): Record<CpuKind, number> {
  return { "get/storage": 0, "get/cache": 0, "list/cache": 0, "watch/cache": 0, other: 0 };
}

/** The simulator's CPU-ms so far (cost model) by {@link CPU_KINDS}. */
function cpuByKind(sim: SimApiServer): Record<CpuKind, number> {
  const out = emptyCpu();
  for (const r of sim.accounting.rows()) {
    const key = `${r.verb}/${r.servedFrom}`;
    const kind = (CPU_KINDS as readonly string[]).includes(key) ? (key as CpuKind) : "other";
    out[kind] += r.cpuMsSum;
  }
  return out;
}

function namespaceOf(n: number): string {
  return `team-${n}`;
}

function cmName(n: number, p: number, c: number): string {
  return `cm-n${n}-p${p}-${c}`;
}

function nodeName(n: number): string {
  return `node-${String(n).padStart(4, "0")}`;
}

/** Each pod's updates arrive as a Poisson process of `podUpdatesPerHour` per hour. */
function schedulePodUpdates(
  clock: FakeClock,
  rand: Rand,
  k: SimKubelet,
  pods: readonly KubeletPod[],
  o: Resolved,
  t0: number,
): void {
  const meanMs = 3_600_000 / o.podUpdatesPerHour;
  for (const pod of pods) {
    const next = () => {
      const delay = -Math.log(1 - rand.float()) * meanMs;
      if (clock.now() + delay > t0 + o.durationSeconds * 1000) return;
      clock.afterFunc(delay, () => {
        k.updatePod(pod);
        next();
      });
    };
    next();
  }
}

const fmtRate = (x: number | null | undefined) =>
  x === null || x === undefined ? "—" : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0);
const fmtCount = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(0)}k` : x.toFixed(0));
const fmtBytes = (b: number) =>
  b >= 1e9 ? `${(b / 1e9).toFixed(1)} GB` : b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${(b / 1e3).toFixed(0)} KB`;

/** " (one per N s per watch)" when both figures are positive. */
function reopenPeriod(open: number | null | undefined, opensPerSecond: number | null | undefined): string {
  if (!open || !opensPerSecond) return "";
  return ` (one per ${Math.round(open / opensPerSecond)} s per watch)`;
}

/** The watch memory model's bytes for the open ConfigMap watches of `sim`. */
function configMapWatchMemory(sim: SimApiServer): number {
  return sim.watchMemory().byResource.find((r) => r.resource === "configmaps")?.totalBytes ?? 0;
}

function summarize(variants: readonly VariantResult[], o: Resolved, ttlSeconds: number): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const perNode = (x: number | null | undefined) => (x ?? 0) / o.nodes;
  const scale = o.clusterSize;
  for (const v of variants) {
    const f = v.figures;
    const id = KUBELET_CONFIGMAP_VARIANTS[f.variant ?? -1];
    const isGetLike = id === "get" || id === "cache";
    const isWatch = id === "watch" || id === "watch-immutable";
    rows.push({
      variant: v.name,
      metric: "GET/s served from storage (etcd)",
      writeUp: isGetLike
        ? "one per ConfigMap per pod sync (000: every ~65–75 s per pod, etcd GET QPS high too)"
        : id === "cache-1.29"
          ? "first read only (kubernetes#120255)"
          : "0 (001: no load on etcd)",
      measured: `${fmtRate(f.storageGetsPerSecond)}/s (${fmtRate(perNode(f.storageGetsPerSecond))}/s per node → ${fmtCount(perNode(f.storageGetsPerSecond) * scale)}/s at ${scale} nodes)`,
    });
    rows.push({
      variant: v.name,
      metric: "GET/s served from the watch cache (RV=0)",
      writeUp:
        id === "cache-1.29"
          ? `when the ${ttlSeconds} s TTL has run out (001: refresh from the apiserver cache)`
          : id === "cache"
            ? "never: the pod sync invalidates first (000)"
            : "—",
      measured: `${fmtRate(f.cacheGetsPerSecond)}/s`,
    });
    if (isWatch) {
      rows.push({
        variant: v.name,
        metric: "open watches (steady, min–max)",
        writeUp:
          id === "watch"
            ? "one per ConfigMap per node (001: 100/node × 2,000 nodes = 200k)"
            : "immutable: the watch is stopped after the first read (001, KEP-1412)",
        measured: `${f.openWatchesMin ?? "—"}–${f.openWatchesMax ?? "—"} of ${f.configMaps} ConfigMaps; at the end ${f.openWatchesEnd ?? "—"} (→ ${fmtCount(perNode(f.openWatchesEnd) * scale)} at ${scale} nodes)`,
      });
      rows.push({
        variant: v.name,
        metric: "watch (re-)opens/s, LISTs/s",
        writeUp: id === "watch" ? "a re-open per watch every 5–10 min (reflector timeout)" : "—",
        measured: `${fmtRate(f.watchOpensPerSecond)}/s${reopenPeriod(f.openWatchesEnd, f.watchOpensPerSecond)}, ${fmtRate(f.listsPerSecond)}/s`,
      });
      const open = f.openWatchesEnd ?? 0;
      const bytes = f.memoryBytesEnd ?? 0;
      rows.push({
        variant: v.name,
        metric: "apiserver memory held by the watches (model, at the end)",
        writeUp: id === "watch" ? "~100 KB per watch; 200k watches ≈ 20 GB (001)" : "—",
        measured:
          `${fmtBytes(bytes)}` +
          (open > 0 ? ` (${fmtBytes(bytes / open)} per watch)` : "") +
          ` → ${fmtBytes((bytes / o.nodes) * scale)} at ${scale} nodes; peak ${fmtBytes(f.memoryBytesMax ?? 0)}`,
      });
    }
    rows.push(cpuRow(v, id, o));
    if (isGetLike && f.storageGetLatencyMs !== null && f.storageGetLatencyMs !== undefined)
      rows.push({
        variant: v.name,
        metric: "one GET from etcd (cost model): latency / apf_execution_time / CPU",
        writeUp: "1.56–1.93 ms / 0.93–1.27 ms / — (000's httplog, three GETs of nginx-cfgmap)",
        measured:
          `${f.storageGetLatencyMs.toFixed(2)} ms / ${(f.storageGetLatencyMs - REQUEST_OVERHEAD_MS).toFixed(2)} ms / ` +
          `${(f.storageGetCpuMs ?? 0).toFixed(2)} ms`,
      });
    if ((f.intervals ?? 0) > 0)
      rows.push({
        variant: v.name,
        metric: "interval between GETs of one ConfigMap (min/median/max)",
        writeUp: isGetLike ? "75 s, 65 s (000's httplog: 08:55:54 → 08:57:09 → 08:58:14)" : "—",
        measured:
          `${fmtRate(f.intervalMinSeconds)}/${fmtRate(f.intervalMedianSeconds)}/${fmtRate(f.intervalMaxSeconds)} s, ` +
          `${(100 * (f.intervalShare65to75 ?? 0)).toFixed(0)}% within 65–75 s`,
      });
  }
  return rows;
}

const CPU_KIND_LABELS: Readonly<Record<CpuKind, string>> = {
  "get/storage": "GET etcd",
  "get/cache": "GET cache",
  "list/cache": "LIST",
  "watch/cache": "WATCH",
  other: "other",
};

/** apiserver cores (cost model) of `cpuMs` over `seconds` on `nodes` nodes, extrapolated to `clusterSize` nodes. */
function coresAt(cpuMs: number, seconds: number, o: Resolved): number {
  return seconds <= 0 ? 0 : (cpuMs / 1000 / seconds / o.nodes) * o.clusterSize;
}

const fmtCores = (x: number) => (x >= 10 ? x.toFixed(0) : x >= 0.1 ? x.toFixed(2) : x.toFixed(3));

/** The variant's apiserver CPU (cost model): after the warm-up, and for the watch variants while they open. */
function cpuRow(v: VariantResult, id: KubeletConfigMapVariant | undefined, o: Resolved): SummaryRow {
  const f = v.figures;
  const warmup = warmupSeconds(o);
  const steadySeconds = o.durationSeconds - warmup;
  const steady = f.cpuMsSteady ?? 0;
  const split = CPU_KINDS.filter((k) => (f[`cpuMs.steady.${k}`] ?? 0) > 0)
    .map((k) => `${CPU_KIND_LABELS[k]} ${((100 * (f[`cpuMs.steady.${k}`] ?? 0)) / steady).toFixed(0)}%`)
    .join(", ");
  const steadyText =
    `${(steady / 1000).toFixed(2)} CPU-s in ${steadySeconds} s${split === "" ? "" : ` (${split})`} → ` +
    `${fmtCores(coresAt(steady, steadySeconds, o))} cores at ${o.clusterSize} nodes`;
  if (id === "watch" || id === "watch-immutable") {
    const w = f.cpuMsWarmup ?? 0;
    return {
      variant: v.name,
      metric: "apiserver CPU (cost model): while the watches open (warm-up) / after",
      writeUp:
        id === "watch"
          ? "~25% of a 16-core apiserver while 200k watches were created, back to its earlier level after (001)"
          : "—",
      measured:
        `${fmtCores(coresAt(w, warmup, o))} cores at ${o.clusterSize} nodes over the ${warmup} s warm-up ` +
        `(${(w / 1000).toFixed(2)} CPU-s) / ${steadyText}`,
    };
  }
  return {
    variant: v.name,
    metric: "apiserver CPU (cost model) after the warm-up",
    writeUp:
      id === "cache-1.29"
        ? "— (the fix reads from the watch cache)"
        : "— (000: GET QPS high at the apiserver and etcd)",
    measured: steadyText,
  };
}

function charts(runs: readonly VariantRun[]): ReportChart[] {
  const rate = (key: string) =>
    runs.map((r) => ({
      name: r.result.name,
      points: r.result.samples.slice(1).map((s) => [s.t / 1000, s.requestsPerSecond[key] ?? 0] as const),
    }));
  const out: ReportChart[] = [
    {
      kind: "line",
      frame: {
        id: "storage-gets",
        title: "GET/s served from storage (etcd)",
        xLabel: "virtual time (s)",
        yLabel: "requests/s",
      },
      series: rate("get/storage"),
    },
    {
      kind: "line",
      frame: {
        id: "cache-gets",
        title: "GET/s served from the watch cache (RV=0)",
        xLabel: "virtual time (s)",
        yLabel: "requests/s",
      },
      series: rate("get/cache"),
    },
    {
      kind: "line",
      frame: {
        id: "open-watches",
        title: "Open ConfigMap watches at the apiserver",
        xLabel: "virtual time (s)",
        yLabel: "watches",
      },
      series: runs.map((r) => ({
        name: r.result.name,
        points: r.series.map((p) => [p.t / 1000, p.openWatches] as const),
      })),
    },
    {
      kind: "line",
      frame: {
        id: "watch-opens",
        title: "WATCH requests/s (opens and re-opens)",
        xLabel: "virtual time (s)",
        yLabel: "requests/s",
      },
      series: rate("watch/cache"),
    },
  ];
  const labels = INTERVAL_BUCKETS_SECONDS.map((le, i) =>
    i === 0 ? `≤${le}` : `${INTERVAL_BUCKETS_SECONDS[i - 1]}–${le}`,
  );
  labels.push(`>${INTERVAL_BUCKETS_SECONDS.at(-1)}`);
  const withGets = runs.filter((r) => (r.result.figures.intervals ?? 0) > 0);
  out.push({
    kind: "bar",
    frame: {
      id: "get-intervals",
      title: "Seconds between two GETs of one ConfigMap by one kubelet",
      xLabel: "interval (s)",
      yLabel: "intervals",
    },
    categories: labels,
    series: withGets.map((r) => ({ name: r.result.name, values: r.intervalBuckets })),
  });
  const cpuSeconds = (r: VariantRun, k: CpuKind) =>
    ((r.result.figures[`cpuMs.warmup.${k}`] ?? 0) + (r.result.figures[`cpuMs.steady.${k}`] ?? 0)) / 1000;
  // "other" (no request of this study falls there) only when something did
  const cpuKinds = CPU_KINDS.filter((k) => k !== "other" || runs.some((r) => cpuSeconds(r, k) > 0));
  out.push({
    kind: "bar",
    frame: {
      id: "cpu",
      title: "apiserver CPU by request (cost model), whole run",
      xLabel: "request",
      yLabel: "virtual CPU seconds",
    },
    categories: cpuKinds.map((k) => CPU_KIND_LABELS[k]),
    series: runs.map((r) => ({ name: r.result.name, values: cpuKinds.map((k) => cpuSeconds(r, k)) })),
  });
  out.push({
    kind: "line",
    frame: {
      id: "watch-memory",
      title: "kube-apiserver memory held by ConfigMap watches (model)",
      xLabel: "virtual time (s)",
      yLabel: "bytes",
    },
    series: runs.map((r) => ({
      name: r.result.name,
      points: r.series.map((p) => [p.t / 1000, p.memoryBytes] as const),
    })),
  });
  return out;
}
