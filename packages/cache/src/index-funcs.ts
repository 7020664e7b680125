import { metaOf, noMetaReason } from "./internal/meta-accessor.js";
import { type IndexFunc, KeyError, type KeyFunc } from "./store.js";

/** The name of the namespace index that listers use (`cache.NamespaceIndex`, S17). */
export const NamespaceIndex = "namespace";

/**
 * Indexes an object by its namespace (`cache.MetaNamespaceIndexFunc`, S17): `[namespace]`, with "" for a
 * cluster-scoped object. Factory informers install `{ [NamespaceIndex]: metaNamespaceIndexFunc }`.
 *
 * Differences from client-go: Go returns `[""]` together with an error for an object without metadata;
 * a TypeScript index function cannot return both, so this throws a {@link KeyError} `object has no meta: …`
 * (which a store turns into an `IndexError`, as Go's store turns the error into a panic).
 */
export function metaNamespaceIndexFunc(obj: unknown): string[] {
  const meta = metaOf(obj);
  if (meta === undefined) throw new KeyError(`object has no meta: ${noMetaReason(obj)}`, obj);
  return [meta.namespace ?? ""];
}

/**
 * Adapts an index function to a key function (`cache.IndexFuncToKeyFuncAdapter`); only sound when the index
 * function yields exactly one unique value per object.
 *
 * @throws KeyError `too many keys: …` or `unexpected empty indexKeys` otherwise.
 */
export function indexFuncToKeyFuncAdapter<T>(indexFunc: IndexFunc<T>): KeyFunc {
  return (obj: unknown) => {
    const keys = indexFunc(obj as T);
    if (keys.length > 1) throw new KeyError(`too many keys: ${JSON.stringify(keys)}`, obj);
    if (keys.length === 0) throw new KeyError("unexpected empty indexKeys", obj);
    return keys[0]!;
  };
}
