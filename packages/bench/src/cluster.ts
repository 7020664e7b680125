// `pnpm bench cluster`: a whole cluster in virtual time — kwok-style nodes, the scheduler, the kubelet stand-in and the
// Deployment/ReplicaSet controllers of @informer-ts/sim-cluster against the in-process simulator — from the first
// Deployment created to every pod Running and Ready: wall seconds, pods per wall second, heap per pod and per node.

import { type Deployment, resources } from "@informer-ts/client";
import { createSimCluster } from "@informer-ts/testing";
import type { BenchResult, BenchRow } from "./report.js";
import { envInt } from "./util.js";

function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

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

/** The suite: one run of `nodes` nodes and `deployments × replicas` pods. */
export async function runCluster(): Promise<BenchResult> {
  const nodes = envInt("BENCH_CLUSTER_NODES", 5000, 1);
  const deployments = envInt("BENCH_CLUSTER_DEPLOYMENTS", 1500, 1);
  const replicas = envInt("BENCH_CLUSTER_REPLICAS", 100, 1);
  const events = envInt("BENCH_CLUSTER_EVENTS", 0, 0) > 0;
  const managedFields = envInt("BENCH_CLUSTER_MANAGED_FIELDS", 1, 0) > 0;
  const pods = deployments * replicas;
  const heap0 = heapMiB();
  const c = await createSimCluster({
    // BENCH_CLUSTER_MANAGED_FIELDS=0: a field manager that records nothing (what the registry costs without SSA).
    ...(!managedFields && { engine: { fieldManager: { update: (_live, next) => next } } }),
    cluster: { nodes, events, nodeTemplate: { capacity: { cpu: "64", memory: "256Gi", pods: "250" } } },
  });
  const rt = c.runtime!;
  const t0 = process.hrtime.bigint();
  const v0 = c.clock.now();
  await c.settle({
    maxMs: 3_600_000,
    until: () => c.engine.storage.snapshot(c.engine.resource("leases.coordination.k8s.io")).length >= nodes,
  });
  const nodeSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const heapNodes = heapMiB();
  const t1 = process.hrtime.bigint();
  const cpu1 = process.cpuUsage();
  const v1 = c.clock.now();
  for (let i = 0; i < deployments; i++) await c.client.create(resources.deployments, deployment(i, replicas));
  const dr = c.engine.resource("deployments.apps");
  const allAvailable = () => {
    if ((rt.kubelet.stats().applied["pod-ready"] ?? 0) < pods) return false;
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
  const heapPods = heapMiB();
  // The engine keeps every revision of every key until a compaction (every 5 virtual minutes, as kube-apiserver's
  // etcd compaction): the run is shorter, so the figure above includes each pod's whole history. Compacted now:
  const revisions = c.engine.storage.currentRevision;
  c.engine.compact();
  const heapCompacted = heapMiB();
  const sched = rt.scheduler.stats();
  const kubelet = rt.kubelet.stats();
  const requests = c.requests.length;
  await c.close();
  const bigRun = nodes >= 5000 && pods >= 150_000;
  const rows: BenchRow[] = [
    {
      case: `${nodes} nodes created, with Leases (wall)`,
      value: nodeSeconds,
      unit: "s",
      note: `virtual ${((v1 - v0) / 1000).toFixed(1)} s`,
    },
    {
      case: `${pods} pods (${deployments} Deployments × ${replicas}) created, scheduled, Running and Ready (wall)`,
      value: podSeconds,
      unit: "s",
      goal: bigRun ? "< 60 s (5,000 nodes, 150,000 pods)" : undefined,
      ...(bigRun && { met: podSeconds < 60 }),
      note: `virtual ${virtualSeconds.toFixed(1)} s; ${sched.scheduled} bindings, ${sched.bindErrors} bind errors; ${kubelet.writeErrors} kubelet write conflicts; ${requests} API requests`,
    },
    {
      case: "CPU seconds of the same (user + system of this process)",
      value: podCpuSeconds,
      unit: "s",
      note: `less sensitive than wall time to other load; ${(pods / podCpuSeconds).toFixed(1)} pods per CPU second`,
    },
    {
      case: "pods per wall second (Ready)",
      value: pods / podSeconds,
      unit: "pods/s",
      note: "kwok's published figure: about 20 pods/s, in real time (a different machine and a real apiserver)",
    },
    {
      case: "heap per node (nodes, leases, informers' copies)",
      value: ((heapNodes - heap0) * 2 ** 20) / nodes,
      unit: "B/node",
    },
    {
      case: "heap per pod (storage, watch cache, informers, controllers)",
      value: ((heapPods - heapNodes) * 2 ** 20) / pods,
      unit: "B/pod",
      note: "includes the pod object itself in the engine's storage and watch cache and the shared informer, and every revision of it (no compaction yet)",
    },
    {
      case: "heap per pod after compacting the engine's storage to its current revision",
      value: ((heapCompacted - heapNodes) * 2 ** 20) / pods,
      unit: "B/pod",
      note: `${revisions} revisions before compaction; what the watch cache's window and the informers still hold stays`,
    },
  ];
  return {
    name: "cluster",
    rows,
    meta: { nodes, deployments, replicas, pods, events, managedFields, node: process.version },
  };
}
