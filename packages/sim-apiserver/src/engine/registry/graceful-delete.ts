import type { KubeObject } from "@informer-ts/apimachinery";
import type { SimResource } from "../resources.js";
import type { DeleteOptions } from "./delete-options.js";

/** What {@link beforeDelete} decided for one DELETE. */
export type GracefulDecision =
  /** No graceful deletion: the object goes now (unless finalizers hold it). */
  | { readonly kind: "now" }
  /** A graceful deletion is already pending and this request does not shorten it: nothing changes. */
  | { readonly kind: "pending" }
  /**
   * Set `deletionTimestamp` (ms since the epoch) and `deletionGracePeriodSeconds`; the object stays (MODIFIED)
   * while `period` > 0, and goes now (after that update) when a shortened period reached 0.
   */
  | { readonly kind: "graceful"; readonly deletionTimestampMs: number; readonly period: number };

function isPods(r: SimResource): boolean {
  return r.group === "" && r.resource === "pods";
}

/**
 * `podStrategy.CheckGracefulDelete` (`pkg/registry/core/pod/strategy.go`): the grace period of a pod delete — the
 * request's `gracePeriodSeconds`, else the pod's `spec.terminationGracePeriodSeconds`, else 0; 0 for a pod bound to
 * no node (no kubelet would confirm it) and for a pod that already finished (`Succeeded`/`Failed`).
 */
export function podGracePeriod(pod: KubeObject, d: DeleteOptions): number {
  const spec = (pod.spec ?? {}) as { nodeName?: unknown; terminationGracePeriodSeconds?: unknown };
  const phase = (pod.status as { phase?: unknown } | undefined)?.phase;
  let period =
    d.gracePeriodSeconds ??
    (typeof spec.terminationGracePeriodSeconds === "number" ? spec.terminationGracePeriodSeconds : 0);
  if (typeof spec.nodeName !== "string" || spec.nodeName === "") period = 0;
  if (phase === "Succeeded" || phase === "Failed") period = 0;
  return period;
}

/**
 * `rest.BeforeDelete` (`staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go`) for the kinds with a graceful
 * delete strategy (pods here): on an object already being deleted with a grace period, only a shorter
 * `gracePeriodSeconds` changes anything — the deletion timestamp moves by the difference — and any other request
 * leaves the pending deletion as it is; on a live pod, the grace period ({@link podGracePeriod}) sets
 * `deletionTimestamp` = now + period — with period 0 too: the registry then writes that update and deletes the
 * object right after (`updateForGracefulDeletionAndFinalizers`), so watchers see MODIFIED before DELETED, as they do
 * upstream for every pod delete and for the kubelet's final grace-0 delete. An object already being deleted with
 * grace 0, and resources without a graceful strategy, delete now in one step.
 */
export function beforeDelete(r: SimResource, current: KubeObject, d: DeleteOptions, nowMs: number): GracefulDecision {
  if (!isPods(r)) return { kind: "now" };
  const m = current.metadata ?? {};
  if (m.deletionTimestamp !== undefined) {
    const pendingPeriod = m.deletionGracePeriodSeconds;
    if (pendingPeriod === undefined || pendingPeriod === 0) return { kind: "now" };
    if (d.gracePeriodSeconds === undefined || d.gracePeriodSeconds >= pendingPeriod) return { kind: "pending" };
    const at = Date.parse(m.deletionTimestamp) - pendingPeriod * 1000 + d.gracePeriodSeconds * 1000;
    return { kind: "graceful", deletionTimestampMs: at, period: d.gracePeriodSeconds };
  }
  const period = podGracePeriod(current, d);
  return { kind: "graceful", deletionTimestampMs: nowMs + Math.max(period, 0) * 1000, period: Math.max(period, 0) };
}
