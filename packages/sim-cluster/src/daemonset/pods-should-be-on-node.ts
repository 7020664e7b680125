import type { Pod } from "@informer-ts/client";
import { excessSurgePods, type SurgePods } from "./surge.js";

/**
 * One node's part of the DaemonSet controller's `manage` — `podsShouldBeOnNode` of
 * `pkg/controller/daemon/daemon_controller.go`: whether the node needs a daemon pod and which of its pods go.
 */

/** An event the decision reports on the DaemonSet. */
export interface DaemonPodEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: "FailedDaemonPod" | "SucceededDaemonPod";
  readonly message: string;
}

/** What {@link podsShouldBeOnNode} decided for one node. */
export interface NodeDaemonPods {
  /** The node gets a new daemon pod in this sync. */
  readonly needsPod: boolean;
  readonly toDelete: readonly Pod[];
  readonly events: readonly DaemonPodEvent[];
}

/** Older first, then by name (`podByCreationTimestampAndPhase` without the phase). */
export function byCreation(a: Pod, b: Pod): number {
  const ta = a.metadata?.creationTimestamp ?? "";
  const tb = b.metadata?.creationTimestamp ?? "";
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1;
}

/**
 * The decision for node `node` with the set's `pods` on it (deleting ones included), given `nodeShouldRunDaemonPod`'s
 * `shouldRun`/`shouldContinueRunning` and, when the set allows surge, the surge predicates:
 *
 * - should run and has no pod: it needs one;
 * - may keep its pods: a `Failed` pod is deleted (Warning `FailedDaemonPod`), a `Succeeded` one too (Normal
 *   `SucceededDaemonPod`) — the replacement comes in the next sync, once the deletion is observed; of several
 *   running pods the oldest stays (with surge: {@link excessSurgePods}, and a node left without one gets a new pod);
 * - may not keep them: every pod not already deleting goes.
 */
export function podsShouldBeOnNode(o: {
  readonly node: string;
  readonly pods: readonly Pod[];
  readonly shouldRun: boolean;
  readonly shouldContinueRunning: boolean;
  readonly surge?: SurgePods;
}): NodeDaemonPods {
  if (o.shouldRun && o.pods.length === 0) return { needsPod: true, toDelete: [], events: [] };
  if (!o.shouldContinueRunning) {
    return { needsPod: false, toDelete: o.pods.filter((p) => p.metadata?.deletionTimestamp == null), events: [] };
  }
  const toDelete: Pod[] = [];
  const events: DaemonPodEvent[] = [];
  const running: Pod[] = [];
  for (const pod of o.pods) {
    if (pod.metadata?.deletionTimestamp != null) continue;
    const key = `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
    if (pod.status?.phase === "Failed") {
      events.push({
        type: "Warning",
        reason: "FailedDaemonPod",
        message: `Found failed daemon pod ${key} on node ${o.node}, will try to kill it`,
      });
      toDelete.push(pod);
    } else if (pod.status?.phase === "Succeeded") {
      events.push({
        type: "Normal",
        reason: "SucceededDaemonPod",
        message: `Found succeeded daemon pod ${key} on node ${o.node}, will try to delete it`,
      });
      toDelete.push(pod);
    } else running.push(pod);
  }
  running.sort(byCreation);
  let needsPod = false;
  if (o.surge !== undefined) {
    // With surge a node may run one old and one new pod while the new one becomes available.
    if (running.length === 0 && o.shouldRun) needsPod = true;
    else if (running.length > 1) toDelete.push(...excessSurgePods(running, o.surge));
  } else if (running.length > 1) toDelete.push(...running.slice(1));
  return { needsPod, toDelete, events };
}
