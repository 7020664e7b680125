import type { SharedIndexInformer } from "@informer-ts/cache";

/** What the index reads of an object: its namespace, uid and owner references. */
interface Owned {
  metadata?: {
    namespace?: string;
    uid?: string;
    ownerReferences?: readonly { uid?: string; controller?: boolean }[];
  };
}

/** `controller.PodControllerUIDIndex`: objects by the uid of their controller reference. */
export const CONTROLLER_UID_INDEX = "podControllerUID";

/**
 * The key a namespace's orphans (no controller reference) are indexed under. Upstream (`OrphanPodIndexKey`) uses one
 * key for the orphans of every namespace and filters by namespace after; one key per namespace keeps a sync's cost to
 * its own namespace.
 */
export function orphanIndexKey(namespace: string): string {
  return `_ORPHAN_POD/${namespace}`;
}

/**
 * `AddPodControllerUIDIndexer` (pkg/controller/controller_utils.go): indexes an informer's objects by their
 * controller's uid, orphans under {@link orphanIndexKey}, so a sync reads its own children and the orphans it may adopt
 * instead of every object of the namespace. Upstream indexes pods only (the ReplicaSet, Job and StatefulSet
 * controllers); the Deployment controller here indexes its ReplicaSets the same way, where upstream lists the
 * namespace's ReplicaSets on every sync (`getReplicaSetsForDeployment`). Idempotent: controllers sharing an informer
 * each call it.
 */
export function addControllerUIDIndexer<T extends Owned>(informer: SharedIndexInformer<T>): void {
  if (informer.getIndexer().getIndexers()[CONTROLLER_UID_INDEX] !== undefined) return;
  informer.addIndexers({
    [CONTROLLER_UID_INDEX]: (obj: T) => {
      const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
      return [ref?.uid ?? orphanIndexKey(obj.metadata?.namespace ?? "")];
    },
  });
}

/**
 * `FilterPodsByOwner` (pkg/controller/controller_utils.go): the objects of `owner`'s namespace whose controller is
 * `owner`, plus, with `includeOrphans`, the namespace's objects without a controller. Needs
 * {@link addControllerUIDIndexer} on the informer.
 */
export function filterByOwner<T extends Owned>(
  informer: SharedIndexInformer<T>,
  owner: { metadata?: { namespace?: string; uid?: string } },
  includeOrphans: boolean,
): T[] {
  const ns = owner.metadata?.namespace ?? "";
  if (ns === "") return [];
  const indexer = informer.getIndexer();
  const owned = indexer
    .byIndex(CONTROLLER_UID_INDEX, owner.metadata?.uid ?? "")
    .filter((o) => o.metadata?.namespace === ns);
  return includeOrphans ? [...owned, ...indexer.byIndex(CONTROLLER_UID_INDEX, orphanIndexKey(ns))] : owned;
}
