// Studies 000 and 001: kubelets reading the ConfigMaps their pods mount — GETs to etcd on every pod sync (Cache,
// kubelet ≤ v1.28; Get), or one watch per ConfigMap and the apiserver memory it holds (Watch).
import { TTLController } from "../../kubelet/ttl-controller.js";
import type { ScenarioReport } from "../../report/study-report.js";
import { charts } from "./kubelet-configmap-charts.js";
import {
  check,
  KUBELET_CONFIGMAP_VARIANTS,
  type KubeletConfigMapOptions,
  type KubeletConfigMapVariant,
  type Resolved,
  type Setting,
  warmupSeconds,
} from "./kubelet-configmap-options.js";
import { summarize } from "./kubelet-configmap-summary.js";
import { runVariant, type VariantRun } from "./kubelet-configmap-variant.js";

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
