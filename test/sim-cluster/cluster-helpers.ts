// Test helpers for the sim-cluster tests: objects and reads straight from the simulator's storage.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { CronJob, Job, Pod, ReplicaSet, StatefulSet } from "@informer-ts/client";
import { DEFAULT_POD_STAGES, type Stage } from "@informer-ts/sim-cluster";
import type { SimCluster } from "@informer-ts/testing";

/**
 * `stages` plus, per index in `indexes`, a copy of the `pod-fail` stage for the pods of that completion index
 * (selected by the `batch.kubernetes.io/job-completion-index` label): an Indexed Job whose pods of those indexes fail,
 * as upstream's `failOddSucceedEven` pods do by exiting with `$JOB_COMPLETION_INDEX % 2`. The copy weighs 10⁹ against
 * `pod-complete`'s 1, so the completion is all but never drawn; the draw is seeded, so every run is the same. With
 * `matchAnnotations`, only pods carrying those annotations fail.
 */
export function failingIndexStages(
  indexes: readonly number[],
  stages: readonly Stage[] = DEFAULT_POD_STAGES,
  matchAnnotations?: Readonly<Record<string, string>>,
): Stage[] {
  const fail = stages.find((s) => s.name === "pod-fail");
  if (fail === undefined) throw new Error("failingIndexStages: the stages have no pod-fail stage");
  const exprs = (fail.selector?.matchExpressions ?? []).filter((e) => !e.key.startsWith(".metadata.annotations."));
  return [
    ...stages,
    ...indexes.map((ix) => ({
      ...fail,
      name: `pod-fail-index-${ix}`,
      weight: 1e9,
      selector: {
        matchLabels: { "batch.kubernetes.io/job-completion-index": String(ix) },
        matchExpressions: exprs,
        ...(matchAnnotations !== undefined && { matchAnnotations }),
      },
    })),
  ];
}

export function replicaSet(
  name: string,
  replicas: number,
  extra: { cpu?: string; nodeSelector?: Record<string, string> } = {},
): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: "web", image: "nginx", resources: { requests: { cpu: extra.cpu ?? "100m", memory: "64Mi" } } },
          ],
          ...(extra.nodeSelector !== undefined && { nodeSelector: extra.nodeSelector }),
        },
      },
    },
  } as ReplicaSet;
}

export function stored<T = KubeObject>(c: SimCluster, resource: string, ns: string, name: string): T | undefined {
  return c.engine.storage.get(c.engine.resource(resource), ns, name) as T | undefined;
}

export function all<T = KubeObject>(c: SimCluster, resource: string): T[] {
  return c.engine.storage.snapshot(c.engine.resource(resource)).map(([, o]) => o as T);
}

export function podsOf(c: SimCluster, app: string): Pod[] {
  return all<Pod>(c, "pods").filter((p) => p.metadata?.labels?.app === app);
}

export function available(c: SimCluster, name: string, n: number): () => boolean {
  return () => {
    const rs = stored<ReplicaSet>(c, "replicasets.apps", "default", name);
    return (
      rs?.status?.availableReplicas === n &&
      rs.status.replicas === n &&
      podsOf(c, name).filter((p) => p.metadata?.deletionTimestamp == null).length === n
    );
  };
}

export function job(
  name: string,
  spec: {
    completions?: number;
    parallelism?: number;
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    outcome?: "Failed";
    exitCode?: number;
    podFailurePolicy?: unknown;
    ttlSecondsAfterFinished?: number;
    completionMode?: "Indexed";
    backoffLimitPerIndex?: number;
    maxFailedIndexes?: number;
  } = {},
): Job {
  const { outcome, exitCode, ...rest } = spec;
  const annotations = {
    ...(outcome !== undefined && { "sim-cluster/outcome": outcome }),
    ...(exitCode !== undefined && { "sim-cluster/exit-code": String(exitCode) }),
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "default" },
    spec: {
      ...rest,
      template: {
        metadata: { labels: { app: name }, ...(Object.keys(annotations).length > 0 && { annotations }) },
        spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] },
      },
    },
  } as Job;
}

export function conditionTrue(obj: { status?: unknown } | undefined, type: string): boolean {
  const list = (obj?.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return list.some((c) => c.type === type && c.status === "True");
}

export function statefulSet(
  name: string,
  replicas: number,
  spec: {
    podManagementPolicy?: "Parallel" | "OrderedReady";
    partition?: number;
    maxUnavailable?: number | string;
    claims?: boolean;
    start?: number;
    retention?: { whenDeleted?: "Retain" | "Delete"; whenScaled?: "Retain" | "Delete" };
  } = {},
): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      ...(spec.podManagementPolicy !== undefined && { podManagementPolicy: spec.podManagementPolicy }),
      ...((spec.partition !== undefined || spec.maxUnavailable !== undefined) && {
        updateStrategy: {
          type: "RollingUpdate",
          rollingUpdate: {
            ...(spec.partition !== undefined && { partition: spec.partition }),
            ...(spec.maxUnavailable !== undefined && { maxUnavailable: spec.maxUnavailable }),
          },
        },
      }),
      ...(spec.start !== undefined && { ordinals: { start: spec.start } }),
      ...(spec.retention !== undefined && { persistentVolumeClaimRetentionPolicy: spec.retention }),
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
      ...(spec.claims === true && {
        volumeClaimTemplates: [
          {
            metadata: { name: "www" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      }),
    },
  } as StatefulSet;
}

export function cronJob(
  name: string,
  spec: {
    schedule: string;
    concurrencyPolicy?: "Allow" | "Forbid" | "Replace";
    suspend?: boolean;
    startingDeadlineSeconds?: number;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
    /**
     * Pods that never finish: a failing container under OnFailure restarts, again and again. Each restart counts
     * against the Job's backoff limit (`pastBackoffLimitOnFailure`), so these Jobs get the largest one.
     */
    sleep?: boolean;
    outcome?: "Failed";
  },
): CronJob {
  const { sleep, outcome, ...rest } = spec;
  const annotations = sleep === true || outcome !== undefined ? { "sim-cluster/outcome": "Failed" } : undefined;
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name, namespace: "default" },
    spec: {
      ...rest,
      jobTemplate: {
        spec: {
          ...(outcome !== undefined && { backoffLimit: 0 }),
          ...(sleep === true && { backoffLimit: 2_147_483_647 }),
          template: {
            metadata: { labels: { app: name }, ...(annotations !== undefined && { annotations }) },
            spec: {
              restartPolicy: sleep === true ? "OnFailure" : "Never",
              containers: [{ name: "c", image: "busybox" }],
            },
          },
        },
      },
    },
  } as CronJob;
}
