// A handler that keeps, per namespace, the names of the ConfigMaps it was told about: the kind of derived state a
// controller keeps beside its informer (which objects exist where), fed by add/update/delete notifications.
import type { KubeObject } from "@informer-ts/apimachinery";
import { DeletedFinalStateUnknown, type ResourceEventHandler } from "@informer-ts/cache";

/** A per-namespace index of object names, fed by an informer's notifications. */
export interface NamespaceIndex {
  /** Register this on the informer. */
  readonly handler: ResourceEventHandler<KubeObject>;
  /** Every indexed object as `namespace/name`. */
  keys(): Set<string>;
  /** The names indexed in one namespace. */
  names(namespace: string): readonly string[];
}

function emptyIndex() {
  const byNamespace = new Map<string, Set<string>>();
  const add = (namespace: string, name: string) => {
    let names = byNamespace.get(namespace);
    if (names === undefined) {
      names = new Set();
      byNamespace.set(namespace, names);
    }
    names.add(name);
  };
  const remove = (namespace: string, name: string) => {
    const names = byNamespace.get(namespace);
    names?.delete(name);
    if (names?.size === 0) byNamespace.delete(namespace);
  };
  const keys = () => new Set([...byNamespace].flatMap(([ns, names]) => [...names].map((n) => `${ns}/${n}`)));
  const names = (namespace: string) => [...(byNamespace.get(namespace) ?? [])].sort();
  return { add, remove, keys, names };
}

/**
 * THE PLANTED BUG: `onDelete` assumes it always gets the deleted object. When the informer missed the delete event
 * (its watch broke and the relist no longer listed the object) it gets a `DeletedFinalStateUnknown` tombstone
 * instead, which has no `metadata`: the handler throws and the name stays in the index forever.
 */
export function naiveNamespaceIndex(): NamespaceIndex {
  const index = emptyIndex();
  return {
    handler: {
      onAdd: (o) => index.add(o.metadata!.namespace!, o.metadata!.name!),
      onUpdate: (_, o) => index.add(o.metadata!.namespace!, o.metadata!.name!),
      onDelete: (o) => {
        const obj = o as KubeObject;
        index.remove(obj.metadata!.namespace!, obj.metadata!.name!);
      },
    },
    keys: index.keys,
    names: index.names,
  };
}

/** The fix: a tombstone names the deleted object by its key (`namespace/name`), whether or not it carries the object. */
export function namespaceIndex(): NamespaceIndex {
  const index = emptyIndex();
  return {
    handler: {
      onAdd: (o) => index.add(o.metadata!.namespace!, o.metadata!.name!),
      onUpdate: (_, o) => index.add(o.metadata!.namespace!, o.metadata!.name!),
      onDelete: (o) => {
        if (o instanceof DeletedFinalStateUnknown) {
          const slash = o.key.indexOf("/");
          index.remove(o.key.slice(0, slash), o.key.slice(slash + 1));
          return;
        }
        const obj = o as KubeObject;
        index.remove(obj.metadata!.namespace!, obj.metadata!.name!);
      },
    },
    keys: index.keys,
    names: index.names,
  };
}
