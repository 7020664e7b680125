import type { Pod } from "@informer-ts/client";
import { hostPortsConflict, podHostPorts } from "../scheduler/fit.js";

/** Why the kubelet refused a pod (`lifecycle.PodAdmitResult`): the pod's `status.reason` and `status.message`. */
export interface AdmissionRejection {
  readonly reason: string;
  readonly message: string;
}

/**
 * Whether the kubelet still has to admit `pod`: bound, not being deleted, and not started — no phase beyond
 * `Pending` and no container statuses yet.
 */
export function awaitsAdmission(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (
    (pod.spec?.nodeName ?? "") !== "" &&
    pod.metadata?.deletionTimestamp == null &&
    (phase === undefined || phase === "Pending") &&
    (pod.status?.containerStatuses ?? []).length === 0
  );
}

/** Pods the kubelet admits first (`HandlePodAdditions` sorts by creation time): older, then by name. */
function admittedBefore(a: Pod, b: Pod): boolean {
  const ta = Date.parse(a.metadata?.creationTimestamp ?? "");
  const tb = Date.parse(b.metadata?.creationTimestamp ?? "");
  if (ta !== tb) return ta < tb;
  return (a.metadata?.name ?? "") < (b.metadata?.name ?? "");
}

/**
 * The kubelet's admission of a pod bound to its node (`canAdmitPod` with the `NodePorts` part of the general
 * predicates): a pod that binds a host port already bound by an active pod of the node admitted before it is
 * rejected — `Failed`, reason `NodePorts`, message `Pod was rejected: Predicate NodePorts failed: …`. A pod placed by
 * `spec.nodeName` skips the scheduler's own `NodePorts` filter, so this is where the conflict shows. Other predicates
 * (resources, node affinity, taints) are not re-checked here. `podsOnNode` may be a function, called only when the pod
 * binds a host port.
 */
export function admissionRejection(
  pod: Pod,
  podsOnNode: readonly Pod[] | (() => readonly Pod[]),
): AdmissionRejection | undefined {
  const want = podHostPorts(pod);
  if (want.length === 0) return undefined;
  // Listed only for a pod that binds host ports (most do not): the kubelet stand-in lists every pod of the node.
  const used = (typeof podsOnNode === "function" ? podsOnNode() : podsOnNode)
    .filter(
      (o) =>
        o.metadata?.uid !== pod.metadata?.uid &&
        o.status?.phase !== "Failed" &&
        o.status?.phase !== "Succeeded" &&
        (!awaitsAdmission(o) || admittedBefore(o, pod)),
    )
    .flatMap(podHostPorts);
  if (!hostPortsConflict(used, want)) return undefined;
  return {
    reason: "NodePorts",
    message: "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
  };
}
