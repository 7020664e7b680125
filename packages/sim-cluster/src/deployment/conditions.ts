// A Deployment's conditions and rollout state: getting and setting a condition, and whether a rollout is complete,
// progressing or past its deadline (kubernetes/kubernetes `pkg/controller/deployment/util/deployment_util.go`:
// `GetDeploymentCondition`, `SetDeploymentCondition`, `DeploymentComplete`, `DeploymentProgressing`,
// `DeploymentTimedOut`).
import type { Deployment } from "@informer-ts/client";
import { specOf } from "./replica-sets.js";

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
