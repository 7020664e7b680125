import type { ObjectMeta } from "@informer-ts/apimachinery";
import { metaOf, noMetaReason } from "./internal/meta-accessor.js";
import { splitMetaNamespaceKey } from "./keys.js";
import { KeyError } from "./store.js";
import { isDeletedFinalStateUnknown } from "./tombstone.js";

/**
 * A reference to an object of some implicit kind (`cache.ObjectName`, S4): a namespace ("" for
 * cluster-scoped objects) and a name. {@link ObjectName.toString} is the store-key encoding of
 * `metaNamespaceKeyFunc`; {@link parseObjectName} is its inverse.
 */
export class ObjectName {
  constructor(
    readonly namespace: string,
    readonly name: string,
  ) {}

  /** `[namespace, name]` (`ObjectName.Parts`). */
  parts(): [namespace: string, name: string] {
    return [this.namespace, this.name];
  }

  /** `namespace/name`, or `name` when the namespace is empty (`ObjectName.String`). */
  toString(): string {
    return this.namespace.length > 0 ? this.namespace + "/" + this.name : this.name;
  }
}

/** `cache.NewObjectName`. */
export function newObjectName(namespace: string, name: string): ObjectName {
  return new ObjectName(namespace, name);
}

/**
 * Parses the store-key encoding (`cache.ParseObjectName`); same rules as `splitMetaNamespaceKey`.
 *
 * @throws Error `unexpected key format: …` for a key with more than one "/".
 */
export function parseObjectName(str: string): ObjectName {
  const [namespace, name] = splitMetaNamespaceKey(str);
  return new ObjectName(namespace, name);
}

/** The name of an object's metadata (`cache.MetaObjectToName`). Missing fields read as "". */
export function metaObjectToName(meta: ObjectMeta): ObjectName {
  return new ObjectName(meta.namespace ?? "", meta.name ?? "");
}

/**
 * The structured name of `obj` (`cache.ObjectToName`).
 *
 * @throws KeyError `object has no meta: …` when `obj` has no `metadata` object.
 */
export function objectToName(obj: unknown): ObjectName {
  const meta = metaOf(obj);
  if (meta === undefined) throw new KeyError(`object has no meta: ${noMetaReason(obj)}`, obj);
  return metaObjectToName(meta);
}

/**
 * Like {@link objectToName}, but a `DeletedFinalStateUnknown` is named by parsing its key
 * (`cache.DeletionHandlingObjectToName`).
 *
 * @throws KeyError for an object without metadata; Error for a tombstone with a malformed key.
 */
export function deletionHandlingObjectToName(obj: unknown): ObjectName {
  if (isDeletedFinalStateUnknown(obj)) return parseObjectName(obj.key);
  return objectToName(obj);
}
