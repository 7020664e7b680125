// Rolling a Deployment back through the `deprecated.deployment.rollback.to` annotation (kubernetes/kubernetes
// `pkg/controller/deployment/rollback.go`, `util/deployment_util.go`'s `LastRevision`, `SetFromReplicaSetTemplate`).
import type { Deployment, ReplicaSet } from "@informer-ts/client";
import { DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, equalIgnoreHash, revisionOf } from "./revisions.js";

/** `apps/v1` `DeprecatedRollbackTo`: the revision to roll back to (0: the last one before the current). */
export const DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to";

/** `getRollbackTo`: the requested revision, or undefined when there is no (valid) request. */
export function rollbackTo(d: Deployment): bigint | undefined {
  const v = d.metadata?.annotations?.[DEPRECATED_ROLLBACK_TO];
  if (v === undefined || !/^\d{1,19}$/.test(v)) return undefined;
  return BigInt(v);
}

/** `LastRevision`: the second highest revision among `list` (0 when there is none). */
export function lastRevision(list: readonly ReplicaSet[]): bigint {
  let max = 0n;
  let second = 0n;
  for (const rs of list) {
    const r = revisionOf(rs);
    if (r >= max) {
      second = max;
      max = r;
    } else if (r > second) second = r;
  }
  return second;
}

/** What {@link planRollback} decided: the Deployment to write (the request cleared) and the event to record. */
export interface RollbackPlan {
  readonly deployment: Deployment;
  readonly event: { readonly type: "Normal" | "Warning"; readonly reason: string; readonly message: string };
}

/**
 * `rollback`: for a Deployment with a rollback request, the Deployment to write — the request annotation removed and,
 * when the revision's ReplicaSet is found and its template differs, that template (without `pod-template-hash`) —
 * and the event: `DeploymentRollback` (`Rolled back deployment "d" to revision 2`), or a `RollbackRevisionNotFound`
 * / `RollbackTemplateUnchanged` warning. Undefined without a request.
 */
export function planRollback(d: Deployment, rsList: readonly ReplicaSet[]): RollbackPlan | undefined {
  let revision = rollbackTo(d);
  if (revision === undefined) return undefined;
  const annotations = { ...d.metadata?.annotations };
  delete annotations[DEPRECATED_ROLLBACK_TO];
  const cleared = { ...d, metadata: { ...d.metadata, annotations } } as Deployment;
  const warn = (reason: string, message: string): RollbackPlan => ({
    deployment: cleared,
    event: { type: "Warning", reason, message },
  });
  if (revision === 0n) {
    revision = lastRevision(rsList);
    if (revision === 0n) return warn("RollbackRevisionNotFound", "Unable to find last revision.");
  }
  const rs = rsList.find((x) => revisionOf(x) === revision);
  if (rs === undefined) return warn("RollbackRevisionNotFound", "Unable to find the revision to rollback to.");
  const name = d.metadata?.name ?? "";
  if (equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
    return warn(
      "RollbackTemplateUnchanged",
      `The rollback revision contains the same template as current deployment ${JSON.stringify(name)}`,
    );
  }
  const template = structuredClone(rs.spec?.template ?? {}) as { metadata?: { labels?: Record<string, string> } };
  if (template.metadata?.labels !== undefined) delete template.metadata.labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
  return {
    deployment: { ...cleared, spec: { ...cleared.spec, template } } as Deployment,
    event: {
      type: "Normal",
      reason: "DeploymentRollback",
      message: `Rolled back deployment ${JSON.stringify(name)} to revision ${revision}`,
    },
  };
}
