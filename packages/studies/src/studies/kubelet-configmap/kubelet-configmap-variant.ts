// One variant of the kubelet-configmap study: the cluster, the simulated kubelets, the virtual-time loop and the
// figures measured (GET rates by served-from, open watches and their memory, GET intervals, apiserver CPU).
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, type Rand, seededRand, settle } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import { SimKubelet } from "../../kubelet/kubelet.js";
import type { KubeletPod, ObjectClient } from "../../kubelet/manager.js";
import { KUBELET_USER_AGENT, simObjectClient } from "../../kubelet/sim-object-client.js";
import type { VariantResult } from "../../report/study-report.js";
import { Sampler } from "../../runtime/sampler.js";
import { requestsByServedFrom } from "../../runtime/study-runtime.js";
import { CPU_KINDS, cpuByKind, emptyCpu, type Snapshot } from "./kubelet-configmap-cpu.js";
import {
  INTERVAL_BUCKETS_SECONDS,
  KUBELET_CONFIGMAP_VARIANTS,
  type KubeletConfigMapOptions,
  type KubeletConfigMapVariant,
  type Resolved,
  type Setting,
  warmupSeconds,
} from "./kubelet-configmap-options.js";

/** The open ConfigMap watches and the memory they hold at one sample. */
export interface SeriesPoint {
  readonly t: number;
  readonly openWatches: number;
  /** kube-apiserver memory held by the open ConfigMap watches, per the simulator's model. */
  readonly memoryBytes: number;
}

/** What one variant's run measured: its report entry, its watch series and its GET-interval histogram. */
export interface VariantRun {
  readonly result: VariantResult;
  readonly series: readonly SeriesPoint[];
  readonly intervalBuckets: readonly number[];
  /** apiserver CPU-seconds of the whole run (cost model) by served-from and by user agent. */
  readonly cpuSeconds: {
    readonly byServedFrom: Readonly<Record<string, number>>;
    readonly byUserAgent: Readonly<Record<string, number>>;
  };
}

/** Runs one variant of the study on a fresh clock and simulator (see `runKubeletConfigMap`). */
export async function runVariant(
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
        ...(s.immutableEphemeralVolumes !== undefined && { immutableEphemeralVolumes: s.immutableEphemeralVolumes }),
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
      openWatches: sim.caches.watchers("configmaps").length,
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
            `GET cache=${count("get", "cache")} watches open=${sim.caches.watchers("configmaps").length}`,
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

/** The watch memory model's bytes for the open ConfigMap watches of `sim`. */
function configMapWatchMemory(sim: SimApiServer): number {
  return sim.caches.watchMemory().byResource.find((r) => r.resource === "configmaps")?.totalBytes ?? 0;
}
