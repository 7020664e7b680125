// `pnpm bench cluster`: a whole cluster in virtual time — kwok-style nodes, the scheduler, the kubelet stand-in and the
// Deployment/ReplicaSet controllers of @informer-ts/sim-cluster against the in-process simulator — from the first
// Deployment created to every pod Running and Ready: wall and CPU seconds, pods per wall and CPU second, heap per pod
// and per node, API writes per pod by verb and resource. Each variant below runs in the same process, one after the
// other, so "before" and "after" come from one run; at the default size the whole suite finishes in about two minutes
// here, and a projected full-size line (5,000 nodes, 150,000 pods) extrapolates linearly from it. BENCH_CLUSTER_FULL=1
// runs the full size itself.

import { type Deployment, type Pod, resources } from "@informer-ts/client";
import { FakeClock } from "@informer-ts/clock";
import { DEFAULT_POD_STAGES, FAST_POD_STAGES, type Stage } from "@informer-ts/sim-cluster";
import { createSimCluster } from "@informer-ts/testing";
import type { BenchResult, BenchRow } from "./report.js";
import { forceGc, heapUsed } from "./report.js";
import { envInt } from "./util.js";

/** One configuration of the cluster the suite measures. */
interface Variant {
  readonly name: string;
  readonly what: string;
  readonly stages: readonly Stage[];
  readonly trimManagedFields: boolean;
  /** Where the cluster's informers list and watch (the kit's `informerSource`; default through the client). */
  readonly informerSource?: "client" | "engine";
}

/**
 * `before`: the cluster as it ran before the #23 performance work could be switched off — kwok's general stages (three
 * `pods/status` writes per start) and informers that keep managedFields. `trimmed`: the same stages with
 * kube-controller-manager's managedFields trim. `fast`: the trim and kwok's default pod-fast start-up (one write).
 * `shared`: `fast` with the cluster's informers listing and watching the engine directly (the kit's
 * `informerSource: "engine"`): no JSON round trip, and the caches share the engine's frozen objects.
 */
const VARIANTS: readonly Variant[] = [
  { name: "before", what: "general stages, untrimmed informers", stages: DEFAULT_POD_STAGES, trimManagedFields: false },
  {
    name: "trimmed",
    what: "general stages, managedFields trimmed",
    stages: DEFAULT_POD_STAGES,
    trimManagedFields: true,
  },
  { name: "fast", what: "pod-fast stages, managedFields trimmed", stages: FAST_POD_STAGES, trimManagedFields: true },
  {
    name: "shared",
    what: "pod-fast stages, trimmed, informers on the engine's objects",
    stages: FAST_POD_STAGES,
    trimManagedFields: true,
    informerSource: "engine",
  },
];

function deployment(i: number, replicas: number): Deployment {
  const name = `app-${i}`;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: "web", image: "nginx", resources: { requests: { cpu: "10m", memory: "16Mi" } } }],
        },
      },
    },
  } as Deployment;
}

/** Heap bytes one more copy of `obj` takes (the median of holding 500 structured clones, after GC). */
function retainedBytes(obj: unknown): number {
  const n = 500;
  const before = heapUsed();
  const held = Array.from({ length: n }, () => structuredClone(obj));
  const after = heapUsed();
  return held.length > 0 ? (after - before) / n : 0;
}

/** Which component of the cluster sends a request of this verb and resource (as the controllers are wired). */
function writer(verb: string, resource: string, subresource: string | undefined): string {
  const r = subresource === undefined || subresource === "" ? resource : `${resource}/${subresource}`;
  const by: Record<string, string> = {
    "create pods": "ReplicaSet controller",
    "create pods/binding": "scheduler",
    "update pods/status": "kubelet stages",
    "patch pods/status": "kubelet stages",
    "delete pods": "kubelet stages / ReplicaSet controller",
    "create replicasets": "Deployment controller",
    "update replicasets": "Deployment controller",
    "update replicasets/status": "ReplicaSet controller",
    "update deployments": "Deployment controller",
    "update deployments/status": "Deployment controller",
    "create events": "event recorders",
    "patch events": "event recorders",
    "update leases": "node pool (heartbeats)",
    "update nodes/status": "node pool",
    "patch nodes/status": "node pool",
    "create endpoints": "Endpoints controller",
    "update endpoints": "Endpoints controller",
    "create endpointslices": "EndpointSlice controller",
    "update endpointslices": "EndpointSlice controller",
  };
  return by[`${verb} ${r}`] ?? "";
}

interface Run {
  readonly variant: Variant;
  readonly nodeSeconds: number;
  readonly nodeVirtualSeconds: number;
  readonly podSeconds: number;
  readonly podCpuSeconds: number;
  readonly virtualSeconds: number;
  readonly heapPerNode: number;
  readonly heapPerPod: number;
  readonly heapPerPodCompacted: number;
  /** Heap of one more copy of a Ready pod as the engine stores it and as the informers hold it. */
  readonly podStored: number;
  readonly podCached: number;
  readonly revisions: number;
  /** Pod events the watch cache's history holds at the end (each keeps its object's revision alive). */
  readonly history: number;
  readonly writes: ReadonlyMap<string, number>;
  readonly reads: number;
  readonly bindings: number;
  readonly bindErrors: number;
  readonly kubeletConflicts: number;
}

async function runVariant(
  v: Variant,
  nodes: number,
  deployments: number,
  replicas: number,
  events: boolean,
  managedFields: boolean,
): Promise<Run> {
  const pods = deployments * replicas;
  const heap0 = heapUsed();
  const c = await createSimCluster({
    // Under FAST_POD_STAGES every pod starts at the instant it is bound (a 0 ms stage, as kwok's pod-fast): the whole
    // run can be one virtual instant, a legitimate burst of a few timers per pod beyond the clock's default bound.
    clock: new FakeClock(Date.UTC(2026, 0, 1), { maxTimersPerInstant: 100_000 + 20 * pods }),
    // BENCH_CLUSTER_MANAGED_FIELDS=0: a field manager that records nothing (what the registry costs without SSA).
    ...(!managedFields && { engine: { fieldManager: { update: (_live, next) => next } } }),
    // Counts of requests by verb and resource, not a record of each (the log would grow by ~2 KB per pod).
    requestLog: "counts",
    ...(v.informerSource !== undefined && { informerSource: v.informerSource }),
    cluster: {
      nodes,
      events,
      stages: v.stages,
      trimManagedFields: v.trimManagedFields,
      nodeTemplate: { capacity: { cpu: "64", memory: "256Gi", pods: "250" } },
    },
  });
  const rt = c.runtime!;
  const t0 = process.hrtime.bigint();
  const v0 = c.clock.now();
  await c.settle({
    maxMs: 3_600_000,
    until: () => c.engine.storage.snapshot(c.engine.resource("leases.coordination.k8s.io")).length >= nodes,
  });
  const nodeSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const heapNodes = heapUsed();
  const requests0 = new Map(c.requestCounts);
  const t1 = process.hrtime.bigint();
  const cpu1 = process.cpuUsage();
  const v1 = c.clock.now();
  for (let i = 0; i < deployments; i++) await c.client.create(resources.deployments, deployment(i, replicas));
  const dr = c.engine.resource("deployments.apps");
  const readyStage = v.stages === FAST_POD_STAGES ? "pod-create-and-ready" : "pod-ready";
  const allAvailable = () => {
    if ((rt.kubelet.stats().applied[readyStage] ?? 0) < pods) return false;
    for (const [, d] of c.engine.storage.snapshot(dr)) {
      if ((d as Deployment).status?.availableReplicas !== replicas) return false;
    }
    return true;
  };
  await c.settle({ maxMs: 24 * 3_600_000, until: allAvailable });
  const podSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const used = process.cpuUsage(cpu1);
  const podCpuSeconds = (used.user + used.system) / 1e6;
  const virtualSeconds = (c.clock.now() - v1) / 1000;
  const heapPods = heapUsed();
  const writes = new Map<string, number>();
  let reads = 0;
  for (const [k, total] of c.requestCounts) {
    const n = total - (requests0.get(k) ?? 0);
    if (n === 0) continue;
    const verb = k.slice(0, k.indexOf(" "));
    if (verb === "get" || verb === "list" || verb === "watch") reads += n;
    else writes.set(k, n);
  }
  // The engine keeps every revision of every key until a compaction (every 5 virtual minutes, as kube-apiserver's
  // etcd compaction): the run is shorter, so the figure above includes each pod's whole history. Compacted now:
  const revisions = c.engine.storage.currentRevision;
  const history = c.engine.caches.cacher("pods").historyStats.size;
  c.engine.compact();
  const heapCompacted = heapUsed();
  const anyPod = rt.manager.informerFor(resources.pods).getIndexer().list()[0] as Pod | undefined;
  const stored =
    anyPod === undefined
      ? undefined
      : c.engine.storage.snapshot(c.engine.resource("pods")).find(([, p]) => p.metadata?.uid === anyPod.metadata?.uid);
  const podStored = stored === undefined ? 0 : retainedBytes(stored[1]);
  const podCached = anyPod === undefined ? 0 : retainedBytes(anyPod);
  const sched = rt.scheduler.stats();
  const kubelet = rt.kubelet.stats();
  await c.close();
  forceGc();
  return {
    variant: v,
    nodeSeconds,
    nodeVirtualSeconds: (v1 - v0) / 1000,
    podSeconds,
    podCpuSeconds,
    virtualSeconds,
    heapPerNode: (heapNodes - heap0) / nodes,
    heapPerPod: (heapPods - heapNodes) / pods,
    heapPerPodCompacted: (heapCompacted - heapNodes) / pods,
    podStored,
    podCached,
    revisions,
    history,
    writes,
    reads,
    bindings: sched.scheduled,
    bindErrors: sched.bindErrors,
    kubeletConflicts: kubelet.writeErrors,
  };
}

const FULL_NODES = 5000;
const FULL_PODS = 150_000;

/** The suite: each variant (BENCH_CLUSTER_VARIANTS) at `nodes` nodes and `deployments × replicas` pods. */
export async function runCluster(): Promise<BenchResult> {
  const full = envInt("BENCH_CLUSTER_FULL", 0, 0) > 0;
  const nodes = envInt("BENCH_CLUSTER_NODES", full ? FULL_NODES : 100, 1);
  const deployments = envInt("BENCH_CLUSTER_DEPLOYMENTS", full ? 1500 : 20, 1);
  const replicas = envInt("BENCH_CLUSTER_REPLICAS", 100, 1);
  const events = envInt("BENCH_CLUSTER_EVENTS", 0, 0) > 0;
  const managedFields = envInt("BENCH_CLUSTER_MANAGED_FIELDS", 1, 0) > 0;
  const names = (process.env.BENCH_CLUSTER_VARIANTS ?? (full ? "shared" : "before,trimmed,fast,shared"))
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const variants = names.map((n) => {
    const v = VARIANTS.find((x) => x.name === n);
    if (v === undefined) {
      throw new Error(
        `BENCH_CLUSTER_VARIANTS: unknown variant "${n}" (known: ${VARIANTS.map((x) => x.name).join(", ")})`,
      );
    }
    return v;
  });
  const pods = deployments * replicas;
  const runs: Run[] = [];
  for (const v of variants) runs.push(await runVariant(v, nodes, deployments, replicas, events, managedFields));
  const base = runs.find((r) => r.variant.name === "before");
  const bigRun = nodes >= FULL_NODES && pods >= FULL_PODS;
  const rows: BenchRow[] = [];
  for (const r of runs) {
    const tag = `[${r.variant.name}: ${r.variant.what}]`;
    const vs = (value: number, baseValue: number | undefined, label: string) =>
      base === undefined || base === r || baseValue === undefined
        ? {}
        : { baseline: baseValue, ratio: value / baseValue, ratioLabel: label };
    const totalWrites = [...r.writes.values()].reduce((a, b) => a + b, 0);
    const baseWrites = base === undefined ? undefined : [...base.writes.values()].reduce((a, b) => a + b, 0);
    rows.push(
      {
        case: `${tag} ${nodes} nodes created, with Leases (wall)`,
        value: r.nodeSeconds,
        unit: "s",
        note: `virtual ${r.nodeVirtualSeconds.toFixed(1)} s`,
      },
      {
        case: `${tag} ${pods} pods (${deployments} Deployments × ${replicas}) created, scheduled, Running and Ready (wall)`,
        value: r.podSeconds,
        unit: "s",
        goal: bigRun ? "< 60 s (5,000 nodes, 150,000 pods)" : undefined,
        ...(bigRun && { met: r.podSeconds < 60 }),
        note: `virtual ${r.virtualSeconds.toFixed(1)} s; ${r.bindings} bindings, ${r.bindErrors} bind errors; ${r.kubeletConflicts} kubelet write conflicts`,
      },
      {
        case: `${tag} CPU seconds of the same (user + system of this process)`,
        value: r.podCpuSeconds,
        unit: "s",
        ...vs(r.podCpuSeconds, base?.podCpuSeconds, "this/before"),
        note: "less sensitive than wall time to other load",
      },
      {
        case: `${tag} pods per CPU second (Ready)`,
        value: pods / r.podCpuSeconds,
        unit: "pods/CPU s",
        ...vs(pods / r.podCpuSeconds, base === undefined ? undefined : pods / base.podCpuSeconds, "this/before"),
      },
      {
        case: `${tag} pods per wall second (Ready)`,
        value: pods / r.podSeconds,
        unit: "pods/s",
        note: "kwok's published figure: about 20 pods/s, in real time (a different machine and a real apiserver)",
      },
      {
        case: `${tag} API writes per pod`,
        value: totalWrites / pods,
        unit: "writes/pod",
        ...vs(totalWrites / pods, baseWrites === undefined ? undefined : baseWrites / pods, "this/before"),
        note: `${[...r.writes]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => {
            const [verb = "", resource = "", sub] = k.split(/[ /]/);
            const who = writer(verb, resource, sub);
            return `${k} ${(n / pods).toFixed(2)}${who === "" ? "" : ` (${who})`}`;
          })
          .join("; ")}; plus ${(r.reads / pods).toFixed(2)} reads (get/list/watch) per pod`,
      },
      {
        case: `${tag} heap per node (nodes, leases, informers' copies)`,
        value: r.heapPerNode,
        unit: "B/node",
      },
      {
        case: `${tag} heap per pod (storage with every revision, watch cache, informers, controllers)`,
        value: r.heapPerPod,
        unit: "B/pod",
        ...vs(r.heapPerPod, base?.heapPerPod, "this/before"),
        note: `${r.revisions} revisions before compaction`,
      },
      {
        case: `${tag} heap per pod after compacting the engine's storage to its current revision`,
        value: r.heapPerPodCompacted,
        unit: "B/pod",
        ...vs(r.heapPerPodCompacted, base?.heapPerPodCompacted, "this/before"),
        note: `one Ready pod as the engine stores it: ${Math.round(r.podStored)} B; as the informers hold it: ${Math.round(r.podCached)} B; beyond the stored object: ${Math.round(r.heapPerPodCompacted - r.podStored)} B (goal < 2 KiB); the pods watch cache's history holds ${(r.history / pods).toFixed(1)} events per pod`,
      },
    );
  }
  const last = runs[runs.length - 1];
  if (last !== undefined && !bigRun) {
    const cpu = (FULL_PODS / pods) * last.podCpuSeconds;
    const heap = FULL_PODS * last.heapPerPodCompacted + FULL_NODES * last.heapPerNode;
    rows.push(
      {
        case: `PROJECTED, not measured [${last.variant.name}]: 150,000 pods on 5,000 nodes, CPU seconds`,
        value: cpu,
        unit: "s",
        goal: "< 60 s wall",
        note: `linear in pods from this run (${(pods / last.podCpuSeconds).toFixed(1)} pods per CPU second); anything superlinear makes it worse; BENCH_CLUSTER_FULL=1 measures it`,
      },
      {
        case: `PROJECTED, not measured [${last.variant.name}]: heap of the same`,
        value: heap / 2 ** 30,
        unit: "GiB",
        note: "heap per pod after compaction × 150,000 + heap per node × 5,000",
      },
    );
  }
  return {
    name: "cluster",
    rows,
    meta: {
      nodes,
      deployments,
      replicas,
      pods,
      events,
      managedFields,
      variants: names.join(","),
      node: process.version,
    },
  };
}
