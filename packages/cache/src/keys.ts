import { metaOf, noMetaReason } from "./internal/meta-accessor.js";
import { KeyError } from "./store.js";
import { isDeletedFinalStateUnknown } from "./tombstone.js";

/**
 * A store key given directly instead of an object (`cache.ExplicitKey`). {@link metaNamespaceKeyFunc} returns
 * it unchanged.
 *
 * Differences from client-go: the brand exists only at compile time; at run time every `string` passed to
 * {@link metaNamespaceKeyFunc} is treated as an explicit key (a bare string has no metadata, so Go would
 * reject it unless it were an `ExplicitKey`).
 */
export type ExplicitKey = string & { readonly __explicitKey: true };

/** Brands `key` as an {@link ExplicitKey}. */
export function explicitKey(key: string): ExplicitKey {
  return key as ExplicitKey;
}

/**
 * The default key function (`cache.MetaNamespaceKeyFunc`, S1): `namespace/name` when the namespace is
 * non-empty, else `name`; an {@link ExplicitKey} (any string) is returned as-is. A missing name gives "" (as
 * Go's empty `GetName()`).
 *
 * @throws KeyError `object has no meta: …` when `obj` is not an object with a `metadata` object.
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (typeof obj === "string") return obj;
  const meta = metaOf(obj);
  if (meta === undefined) throw new KeyError(`object has no meta: ${noMetaReason(obj)}`, obj);
  const name = meta.name ?? "";
  const ns = meta.namespace;
  return ns !== undefined && ns.length > 0 ? ns + "/" + name : name;
}

/**
 * Splits a key made by {@link metaNamespaceKeyFunc} into `[namespace, name]` (`cache.SplitMetaNamespaceKey`,
 * S2). The key is split on every "/": one part gives `["", part]`, two parts give `[p0, p1]`, any other count
 * throws. So `""` gives `["", ""]`, `"a/"` gives `["a", ""]` and `"/b"` gives `["", "b"]`.
 *
 * @throws Error `unexpected key format: "a/b/c"` for three or more parts.
 */
export function splitMetaNamespaceKey(key: string): [namespace: string, name: string] {
  const first = key.indexOf("/");
  if (first < 0) return ["", key];
  if (key.indexOf("/", first + 1) < 0) return [key.slice(0, first), key.slice(first + 1)];
  throw new Error(`unexpected key format: ${JSON.stringify(key)}`);
}

/**
 * The key function of every informer indexer (`cache.DeletionHandlingMetaNamespaceKeyFunc`, S3): a
 * {@link DeletedFinalStateUnknown} yields its `key`; anything else goes to {@link metaNamespaceKeyFunc}.
 *
 * @throws KeyError as {@link metaNamespaceKeyFunc}.
 */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (isDeletedFinalStateUnknown(obj)) return obj.key;
  return metaNamespaceKeyFunc(obj);
}
