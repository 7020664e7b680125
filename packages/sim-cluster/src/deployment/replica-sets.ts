// A Deployment's ReplicaSets by size: the defaulted spec, the rolling update's surge and unavailability bounds, the
// replica sums over a set of ReplicaSets and the new ReplicaSet's next size (kubernetes/kubernetes
// `pkg/controller/deployment/util/deployment_util.go`: `ResolveFenceposts`, `MaxSurge`, `MaxUnavailable`,
// `Get…ReplicaCountForReplicaSets`, `NewRSNewReplicas`).
import type { Deployment, ReplicaSet } from "@informer-ts/client";

/** `deployment.kubernetes.io/desired-replicas`. */
export const DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
/** `deployment.kubernetes.io/max-replicas`. */
export const MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";

/** A Deployment's spec with the API's defaults applied (what the controller reads). */
export interface DeploymentSpecDefaults {
  replicas: number;
  strategy: "RollingUpdate" | "Recreate";
  maxSurge: number | string;
  maxUnavailable: number | string;
  revisionHistoryLimit: number;
  progressDeadlineSeconds: number | undefined;
  minReadySeconds: number;
  paused: boolean;
}

/**
 * The spec fields the controller uses, defaulted as `SetDefaults_Deployment` of `apps/v1` does: replicas 1,
 * `RollingUpdate` with 25 %/25 %, `revisionHistoryLimit` 10, `progressDeadlineSeconds` 600.
 */
export function specOf(d: Deployment): DeploymentSpecDefaults {
  const s = d.spec;
  const strategy = s?.strategy?.type === "Recreate" ? "Recreate" : "RollingUpdate";
  return {
    replicas: s?.replicas ?? 1,
    strategy,
    maxSurge: (s?.strategy?.rollingUpdate?.maxSurge as number | string | undefined) ?? "25%",
    maxUnavailable: (s?.strategy?.rollingUpdate?.maxUnavailable as number | string | undefined) ?? "25%",
    revisionHistoryLimit: s?.revisionHistoryLimit ?? 10,
    progressDeadlineSeconds: s?.progressDeadlineSeconds ?? 600,
    minReadySeconds: s?.minReadySeconds ?? 0,
    paused: s?.paused === true,
  };
}

/**
 * `intstr.GetScaledValueFromIntOrPercent`: an int as is, `"N%"` of `total` rounded up or down. Throws a `RangeError`
 * naming the value when it is neither.
 */
export function scaledValue(v: number | string, total: number, roundUp: boolean): number {
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(v);
  if (m === null) {
    if (/^\d+$/.test(v)) return Number(v);
    throw new RangeError(
      `invalid value for IntOrString: invalid type: string is not a percentage: ${JSON.stringify(v)}`,
    );
  }
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** `ResolveFenceposts`: maxSurge rounded up, maxUnavailable down; both 0 makes maxUnavailable 1. */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const s = specOf(d);
  const surge = scaledValue(s.maxSurge, s.replicas, true);
  let unavailable = scaledValue(s.maxUnavailable, s.replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** `MaxUnavailable`: 0 for Recreate or no replicas, never more than the replicas. */
export function maxUnavailable(d: Deployment): number {
  const s = specOf(d);
  if (s.strategy !== "RollingUpdate" || s.replicas === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, s.replicas);
}

/** `MaxSurge`: 0 for Recreate. */
export function maxSurge(d: Deployment): number {
  if (specOf(d).strategy !== "RollingUpdate") return 0;
  return resolveFenceposts(d).surge;
}

/** `rs.spec.replicas` (default 1 as the API defaults it). */
export function replicasOf(rs: ReplicaSet | undefined): number {
  return rs?.spec?.replicas ?? (rs === undefined ? 0 : 1);
}

/** `GetReplicaCountForReplicaSets`: the sum of `spec.replicas`. */
export function replicaCount(list: readonly ReplicaSet[]): number {
  return list.reduce((n, rs) => n + replicasOf(rs), 0);
}

/** `GetActualReplicaCountForReplicaSets`: the sum of `status.replicas`. */
export function actualReplicaCount(list: readonly ReplicaSet[]): number {
  return list.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0);
}

/** `GetAvailableReplicaCountForReplicaSets`. */
export function availableReplicaCount(list: readonly ReplicaSet[]): number {
  return list.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
}

/** `GetReadyReplicaCountForReplicaSets`. */
export function readyReplicaCount(list: readonly ReplicaSet[]): number {
  return list.reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0);
}

/**
 * `NewRSNewReplicas`: how many replicas the new ReplicaSet should have now — for a rolling update as many more as
 * `maxSurge` allows over `spec.replicas` (never more than needed); for Recreate all of them.
 */
export function newRSNewReplicas(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const s = specOf(d);
  if (s.strategy === "Recreate") return s.replicas;
  const current = replicasOf(newRS);
  if (current >= s.replicas) return current;
  const maxTotal = s.replicas + maxSurge(d);
  const totalNow = replicaCount(all);
  if (totalNow >= maxTotal) return current;
  const scaleUp = Math.min(maxTotal - totalNow, s.replicas - current);
  return current + scaleUp;
}
