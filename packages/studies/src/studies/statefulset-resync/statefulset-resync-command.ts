// `informer study statefulset-resync`: the flags of study 003 and their checks.
import { UsageError } from "@informer-ts/apimachinery";
import { listFlag, numberFlag } from "../../cli-flags.js";
import type { StudyCommandDefinition } from "../study-command-definition.js";
import { runStatefulSetResync, STATEFULSET_RESYNC_VARIANTS } from "./statefulset-resync.js";

/** `informer study statefulset-resync`; its usage is `STATEFULSET_RESYNC_USAGE` in cli-usage.ts. */
export const statefulSetResyncCommand: StudyCommandDefinition = {
  options: {
    statefulsets: { type: "string", default: "2000" },
    "cost-ms": { type: "string", default: "40" },
    "cost-spread-ms": { type: "string", default: "0" },
    resync: { type: "string", default: "30" },
    workers: { type: "string", default: "5" },
    duration: { type: "string", default: "600" },
    replicas: { type: "string", default: "3" },
    "pod-ready": { type: "string", default: "10" },
    "pod-management-policy": { type: "string", default: "OrderedReady" },
    probes: { type: "string", default: "5" },
    "probe-start": { type: "string", default: "120" },
    "probe-interval": { type: "string", default: "25" },
    sample: { type: "string", default: "1" },
    variants: { type: "string", default: STATEFULSET_RESYNC_VARIANTS.join(",") },
  },
  realTime: true,
  run(values, common) {
    const variants = listFlag(values, "variants", STATEFULSET_RESYNC_VARIANTS);
    const sample = numberFlag(values, "sample", 0.001);
    const costMs = numberFlag(values, "cost-ms", 0);
    const spread = numberFlag(values, "cost-spread-ms", 0);
    if (spread > costMs) throw new UsageError(`--cost-spread-ms (${spread}) must not exceed --cost-ms (${costMs})`);
    const durationSeconds = numberFlag(values, "duration", sample);
    const probes = numberFlag(values, "probes", 0, true);
    const probeStartSeconds = numberFlag(values, "probe-start", 0);
    const probeIntervalSeconds = numberFlag(values, "probe-interval", 0);
    const lastProbe = probeStartSeconds + (probes - 1) * probeIntervalSeconds;
    if (probes > 0 && lastProbe > durationSeconds)
      throw new UsageError(
        `--duration ${durationSeconds} ends before the last probe is created (--probe-start + (--probes − 1) × --probe-interval = ` +
          `${lastProbe} s): raise --duration or lower --probes, --probe-start or --probe-interval`,
      );
    const policy = String(values["pod-management-policy"]);
    if (policy !== "OrderedReady" && policy !== "Parallel")
      throw new UsageError(`--pod-management-policy must be OrderedReady or Parallel, got "${policy}"`);
    return runStatefulSetResync({
      statefulsets: numberFlag(values, "statefulsets", 0, true),
      costMs,
      costSpreadMs: spread,
      resyncSeconds: numberFlag(values, "resync", 0),
      workers: numberFlag(values, "workers", 1, true),
      durationSeconds,
      probes,
      probeStartSeconds,
      probeIntervalSeconds,
      replicas: numberFlag(values, "replicas", 1, true),
      podReadySeconds: numberFlag(values, "pod-ready", 0),
      podManagementPolicy: policy,
      sampleSeconds: sample,
      seed: common.seed,
      sampleHeap: common.sampleHeap,
      realTime: common.realTime,
      variants,
      progress: common.progress,
    });
  },
};
