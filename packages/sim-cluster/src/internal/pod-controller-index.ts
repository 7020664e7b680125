import type { SharedIndexInformer } from "@informer-ts/cache";
import type { Pod } from "@informer-ts/client";

/** `controller.PodControllerUIDIndex`: pods by the uid of their controller reference. */
export const POD_CONTROLLER_UID_INDEX = "podControllerUID";

/**
 * The key orphan pods of a namespace are indexed under. Upstream (`OrphanPodIndexKey`) uses one key for the orphans
 * of every namespace and filters by namespace after; one key per namespace keeps a sync's cost to its own namespace.
 */
export function orphanPodIndexKey(namespace: string): string {
  return `_ORPHAN_POD/${namespace}`;
}

/**
 * `AddPodControllerUIDIndexer` (pkg/controller/controller_utils.go): indexes pods by their controller's uid, orphans
 * under {@link orphanPodIndexKey}, so a ReplicaSet's sync reads its own pods and the orphans it may adopt instead of
 * every pod of the namespace. Idempotent: controllers sharing the pods informer each call it.
 */
export function addPodControllerUIDIndexer(pods: SharedIndexInformer<Pod>): void {
  if (pods.getIndexer().getIndexers()[POD_CONTROLLER_UID_INDEX] !== undefined) return;
  pods.addIndexers({
    [POD_CONTROLLER_UID_INDEX]: (pod: Pod) => {
      const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
      return [ref?.uid ?? orphanPodIndexKey(pod.metadata?.namespace ?? "")];
    },
  });
}

/**
 * `FilterPodsByOwner` (pkg/controller/controller_utils.go): the pods of `owner`'s namespace whose controller is
 * `owner`, plus, with `includeOrphans`, the namespace's pods without a controller.
 */
export function filterPodsByOwner(
  pods: SharedIndexInformer<Pod>,
  owner: { metadata?: { namespace?: string; uid?: string } },
  includeOrphans: boolean,
): Pod[] {
  const ns = owner.metadata?.namespace ?? "";
  if (ns === "") return [];
  const indexer = pods.getIndexer();
  const owned = indexer
    .byIndex(POD_CONTROLLER_UID_INDEX, owner.metadata?.uid ?? "")
    .filter((p) => p.metadata?.namespace === ns);
  return includeOrphans ? [...owned, ...indexer.byIndex(POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(ns))] : owned;
}
