// `informer scenario kubelet-configmap`: the flags of studies 000/001 and their checks.
import { UsageError } from "@informer-ts/apimachinery";
import { listFlag, numberFlag } from "../../cli-flags.js";
import { kubeletMinorVersion } from "../../kubelet/kubelet.js";
import type { ScenarioCommandDefinition } from "../study-command-definition.js";
import { runKubeletConfigMap } from "./kubelet-configmap.js";
import { KUBELET_CONFIGMAP_VARIANTS } from "./kubelet-configmap-options.js";

/** `informer scenario kubelet-configmap`; its usage is `KUBELET_CONFIGMAP_USAGE` in cli-usage.ts. */
export const kubeletConfigMapCommand: ScenarioCommandDefinition = {
  options: {
    nodes: { type: "string", default: "10" },
    "pods-per-node": { type: "string", default: "50" },
    "configmaps-per-pod": { type: "string", default: "2" },
    "cluster-size": { type: "string", default: "2000" },
    "kubelet-version": { type: "string", default: "1.28" },
    "sync-frequency": { type: "string", default: "60" },
    "immutable-fraction": { type: "string", default: "1" },
    "pod-updates-per-hour": { type: "string", default: "0" },
    duration: { type: "string", default: "1200" },
    sample: { type: "string", default: "10" },
    variants: { type: "string", default: KUBELET_CONFIGMAP_VARIANTS.join(",") },
  },
  run(values, common) {
    const variants = listFlag(values, "variants", KUBELET_CONFIGMAP_VARIANTS);
    const version = typeof values["kubelet-version"] === "string" ? values["kubelet-version"] : "";
    try {
      kubeletMinorVersion(version);
    } catch {
      throw new UsageError(`--kubelet-version must look like 1.28 or v1.28.0, got "${version}"`);
    }
    const immutableFraction = numberFlag(values, "immutable-fraction", 0);
    if (immutableFraction > 1)
      throw new UsageError(`--immutable-fraction must be within [0, 1], got "${immutableFraction}"`);
    const syncFrequencySeconds = numberFlag(values, "sync-frequency", 1);
    const sampleSeconds = numberFlag(values, "sample", 0.001);
    const durationSeconds = numberFlag(values, "duration", 1);
    const warmup = 1.5 * syncFrequencySeconds;
    if (durationSeconds < warmup + sampleSeconds)
      throw new UsageError(
        `--duration ${durationSeconds} must outlast the warm-up (1.5 × --sync-frequency = ${warmup} s) by one --sample (${sampleSeconds} s)`,
      );
    return runKubeletConfigMap({
      nodes: numberFlag(values, "nodes", 1, true),
      podsPerNode: numberFlag(values, "pods-per-node", 1, true),
      configMapsPerPod: numberFlag(values, "configmaps-per-pod", 0, true),
      clusterSize: numberFlag(values, "cluster-size", 0, true),
      kubeletVersion: version.replace(/^v/, "").split(".").slice(0, 2).join("."),
      syncFrequencySeconds,
      immutableFraction,
      podUpdatesPerHour: numberFlag(values, "pod-updates-per-hour", 0),
      durationSeconds,
      sampleSeconds,
      seed: common.seed,
      sampleHeap: common.sampleHeap,
      variants,
      progress: common.progress,
    });
  },
};
