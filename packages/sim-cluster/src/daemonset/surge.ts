import type { Pod } from "@informer-ts/client";

/**
 * A DaemonSet's rolling update with `maxSurge` (`pkg/controller/daemon/update.go` `rollingUpdate`'s surge branch and
 * `daemon_controller.go` `podsShouldBeOnNode`'s surge case): on each node the new pod starts beside the old one, and
 * the old pod goes once the new one is available — at most `maxSurge` nodes carrying both at a time.
 */

/** How the surge decisions see a pod. */
export interface SurgePods {
  /** `util.IsPodUpdated`: the pod is of the current revision. */
  readonly isUpdated: (pod: Pod) => boolean;
  /** `podutil.IsPodAvailable` with the set's `minReadySeconds`, now. */
  readonly isAvailable: (pod: Pod) => boolean;
  /** `podutil.IsPodReady`. */
  readonly isReady: (pod: Pod) => boolean;
}

/**
 * `findUpdatedPodsOnNode`: the node's one new and one old pod (deleting pods aside); `undefined` when it has more
 * than one of either, which the manage loop cleans up first.
 */
export function findUpdatedPodsOnNode(
  pods: readonly Pod[],
  isUpdated: (pod: Pod) => boolean,
): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp != null) continue;
    if (isUpdated(pod)) {
      if (newPod !== undefined) return undefined;
      newPod = pod;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = pod;
    }
  }
  return { ...(newPod !== undefined && { newPod }), ...(oldPod !== undefined && { oldPod }) };
}

/** What a surge step does: pods to delete, nodes to give a new pod. */
export interface SurgePlan {
  readonly oldPodsToDelete: readonly Pod[];
  readonly newNodesToCreate: readonly string[];
}

/**
 * The surge branch of `rollingUpdate`: per node (`nodeToPods` holds every node with pods of the set and every node
 * that should run one) —
 * - an old pod that is not available gets its new pod at once (or is deleted, on a node that should no longer run
 *   the set);
 * - an old available pod is a surge candidate, taken while fewer than `maxSurge` nodes are surging;
 * - a new pod that is available retires the old one;
 * - old available pods on nodes that should no longer run the set go only as far as more pods are available than
 *   desired (with surge the owner expects no loss of availability).
 */
export function surgeRollingUpdatePlan(o: {
  readonly nodeToPods: ReadonlyMap<string, readonly Pod[]>;
  readonly shouldRun: (node: string) => boolean;
  readonly pods: SurgePods;
  readonly maxSurge: number;
  readonly desired: number;
}): SurgePlan {
  const oldPodsToDelete: Pod[] = [];
  const shouldNotRunPodsToDelete: Pod[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [node, pods] of o.nodeToPods) {
    const found = findUpdatedPodsOnNode(pods, o.pods.isUpdated);
    if (found === undefined) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod !== undefined ? o.pods.isAvailable(oldPod) : newPod !== undefined && o.pods.isAvailable(newPod))
      numAvailable++;
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!o.pods.isAvailable(oldPod)) {
        if (!o.shouldRun(node)) oldPodsToDelete.push(oldPod);
        else allowedNewNodes.push(node);
      } else if (!o.shouldRun(node)) shouldNotRunPodsToDelete.push(oldPod);
      else candidateNewNodes.push(node);
      continue;
    }
    if (!o.pods.isAvailable(newPod)) {
      numSurge++;
      continue;
    }
    oldPodsToDelete.push(oldPod);
  }
  const deletable = Math.min(Math.max(0, numAvailable - o.desired), shouldNotRunPodsToDelete.length);
  oldPodsToDelete.push(...shouldNotRunPodsToDelete.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(0, o.maxSurge - numSurge), candidateNewNodes.length);
  return { oldPodsToDelete, newNodesToCreate: [...allowedNewNodes, ...candidateNewNodes.slice(0, remainingSurge)] };
}

/**
 * `podsShouldBeOnNode` with surge, for a node's running (not deleting, not failed) pods sorted oldest first: at most
 * the oldest new and the oldest old pod stay, and the old one only while it is ready and the new one is not yet
 * available. Returns the pods to delete.
 */
export function excessSurgePods(running: readonly Pod[], pods: SurgePods): Pod[] {
  const toDelete: Pod[] = [];
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of running) {
    if (pods.isUpdated(pod) && oldestNew === undefined) oldestNew = pod;
    else if (!pods.isUpdated(pod) && oldestOld === undefined) oldestOld = pod;
    else toDelete.push(pod);
  }
  if (oldestNew !== undefined && oldestOld !== undefined) {
    if (!pods.isReady(oldestOld) || pods.isAvailable(oldestNew)) toDelete.push(oldestOld);
  }
  return toDelete;
}
