import type { Deployment, ReplicaSet } from "@informer-ts/client";

/** `deployment.kubernetes.io/revision`. */
export const REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
/** `deployment.kubernetes.io/revision-history`: earlier revisions a reused ReplicaSet had. */
export const REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history";
/** `deployment.kubernetes.io/desired-replicas`. */
export const DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
/** `deployment.kubernetes.io/max-replicas`. */
export const MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";
/** `pod-template-hash`: the label that ties a ReplicaSet's pods to its template. */
export const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = "pod-template-hash";

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

const INT64_MAX = 2n ** 63n - 1n;

/**
 * `Revision`: the revision annotation as an int64 (0 when absent or not one). A bigint, as upstream's int64: the e2e
 * test `RollingUpdateDeployment` starts from revision 3546343826724305832, beyond a double's exact integers.
 */
export function revisionOf(obj: { metadata?: { annotations?: Record<string, string> } } | undefined): bigint {
  const v = obj?.metadata?.annotations?.[REVISION_ANNOTATION];
  if (v === undefined || !/^\d{1,19}$/.test(v)) return 0n;
  const n = BigInt(v);
  return n <= INT64_MAX ? n : 0n;
}

/** `MaxRevision`. */
export function maxRevision(list: readonly ReplicaSet[]): bigint {
  return list.reduce((m, rs) => {
    const r = revisionOf(rs);
    // biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
    return r > m ? r : m;
  }, 0n);
}

/** `v` with every object's keys sorted, deeply (for order-insensitive JSON comparison and hashing). */
export function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = stable((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/**
 * `EqualIgnoreHash`: two pod templates are equal once their `pod-template-hash` labels are removed (compared as JSON
 * with sorted keys).
 */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  const strip = (t: unknown) => {
    const c = structuredClone((t ?? {}) as { metadata?: { labels?: Record<string, string> } });
    if (c.metadata?.labels !== undefined) {
      delete c.metadata.labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
    }
    if (c.metadata !== undefined && Object.keys(c.metadata).length === 0) delete c.metadata;
    return JSON.stringify(stable(c));
  };
  return strip(a) === strip(b);
}

const SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** `rand.SafeEncodeString`: digits mapped to characters that cannot spell words. */
export function safeEncodeString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHANUMS[s.charCodeAt(i) % SAFE_ALPHANUMS.length];
  return out;
}

/**
 * `ComputeHash`: the FNV-1a 32-bit hash of the pod template (as JSON with sorted keys here, spew upstream) and the
 * collision count, encoded with {@link safeEncodeString}. Differences from kube-controller-manager: the same
 * template hashes to another value than upstream's (the input bytes differ); equal templates still hash equally.
 */
export function computeHash(template: unknown, collisionCount: number | undefined): string {
  let h = 0x811c9dc5;
  const add = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i) & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  };
  add(JSON.stringify(stable(template ?? {})));
  if (collisionCount !== undefined) add(String(collisionCount));
  return safeEncodeString(String(h >>> 0));
}

/** A Deployment condition as JSON. */
export interface DeploymentCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** `GetDeploymentCondition`. */
export function getCondition(
  status: { conditions?: unknown } | undefined,
  type: string,
): DeploymentCondition | undefined {
  const list = status?.conditions;
  return Array.isArray(list) ? (list as DeploymentCondition[]).find((c) => c.type === type) : undefined;
}

/**
 * `SetDeploymentCondition`: replaces the condition of the same type, keeping its `lastTransitionTime` when the status
 * does not change; a condition equal in status and reason to the current one is left alone.
 */
export function setCondition(conditions: DeploymentCondition[], c: DeploymentCondition): DeploymentCondition[] {
  const i = conditions.findIndex((x) => x.type === c.type);
  const cur = i < 0 ? undefined : conditions[i]!;
  if (cur !== undefined && cur.status === c.status && cur.reason === c.reason) return conditions;
  const next = cur !== undefined && cur.status === c.status ? { ...c, lastTransitionTime: cur.lastTransitionTime } : c;
  const out = conditions.filter((x) => x.type !== c.type);
  out.push(next);
  return out;
}

/** What `calculateStatus` computes from the ReplicaSets. */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
}

/**
 * `DeploymentComplete`: every replica updated and available, no old replica left, and the status observed the
 * current generation.
 */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const r = specOf(d).replicas;
  return (
    (s.updatedReplicas ?? 0) === r &&
    (s.replicas ?? 0) === r &&
    (s.availableReplicas ?? 0) === r &&
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0)
  );
}

/** `DeploymentProgressing`: more updated, ready or available replicas than before, or fewer old ones. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = (d.status ?? {}) as DeploymentStatus;
  const oldStatusOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newStatusOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newStatusOld < oldStatusOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/**
 * `DeploymentTimedOut`: the `Progressing` condition (not already complete nor timed out) was last updated more than
 * `progressDeadlineSeconds` before `now`.
 */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  const deadline = specOf(d).progressDeadlineSeconds;
  if (deadline === undefined) return false;
  const c = getCondition(s, "Progressing");
  if (c === undefined) return false;
  if (c.reason === "NewReplicaSetAvailable") return false;
  if (c.reason === "ProgressDeadlineExceeded") return true;
  const from = Date.parse(c.lastUpdateTime ?? "");
  return Number.isFinite(from) && from + deadline * 1000 < now;
}
