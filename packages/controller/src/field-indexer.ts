import type { KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import type { ResourceDescriptor } from "@informer-ts/client";

/**
 * Computes the values of one field of an object for a field index (controller-runtime's `client.IndexerFunc`): e.g.
 * `(pod) => [pod.spec?.nodeName ?? ""]`. Return `[]` to leave the object out of the index.
 */
export type IndexerFunc<T = KubeObject> = (object: T) => readonly string[];

/**
 * Adds field indexes to the manager's informers (controller-runtime's `client.FieldIndexer`). After
 * `indexField(resource, "spec.nodeName", fn)`, a cached `list(resource, { fieldSelector: "spec.nodeName=node-1" })`
 * answers from that index instead of scanning the cache; the field name is free-form (it only has to match the
 * selector). Indexes can be added before or after the manager starts; one field once per resource.
 */
export interface FieldIndexer {
  indexField<T>(resource: ResourceDescriptor<T>, field: string, extract: IndexerFunc<T>): void;
}

/** The informer index holding field `field` (controller-runtime's `FieldIndexName`): `field:<field>`. */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/** The prefix of index values that match in every namespace (controller-runtime's `__all_namespaces`). */
export const allNamespacesPrefix = "__all_namespaces";

/**
 * The index value of `value` within `namespace` (controller-runtime's `KeyToNamespacedKey`): `<ns>/<value>`, or
 * `__all_namespaces/<value>` without a namespace.
 */
export function keyToNamespacedKey(namespace: string | undefined, value: string): string {
  return namespace !== undefined && namespace !== "" ? `${namespace}/${value}` : `${allNamespacesPrefix}/${value}`;
}

/**
 * Installs field index `field` on `informer`: each object is indexed under `__all_namespaces/<value>` and, when it has
 * a namespace, `<namespace>/<value>`, so a list in one namespace and a list across all are both one lookup. An
 * `extract` that throws or returns something other than an array of strings leaves that object out of the index and
 * is reported through `onError` (it must not break the informer). Throws when the field is already indexed.
 */
export function addFieldIndex<T>(
  informer: SharedIndexInformer<T>,
  field: string,
  extract: IndexerFunc<T>,
  onError: (error: Error) => void,
): void {
  if (typeof field !== "string" || field === "") throw new TypeError("indexField: field must be a non-empty string");
  if (typeof extract !== "function") throw new TypeError(`indexField ${field}: extract must be a function`);
  const name = fieldIndexName(field);
  if (name in informer.getIndexer().getIndexers()) {
    throw new Error(`indexField: field ${field} is already indexed for this resource`);
  }
  informer.addIndexers({
    [name]: (obj: T) => {
      let values: readonly string[];
      try {
        values = extract(obj);
        if (!Array.isArray(values) || values.some((v) => typeof v !== "string")) {
          throw new TypeError(`must return an array of strings, got ${JSON.stringify(values)}`);
        }
      } catch (err) {
        const what = describe(obj as KubeObject);
        onError(
          new Error(`index ${name} of ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err }),
        );
        return [];
      }
      const ns = (obj as KubeObject).metadata?.namespace;
      const out: string[] = [];
      for (const v of values) {
        out.push(keyToNamespacedKey(undefined, v));
        if (ns !== undefined && ns !== "") out.push(keyToNamespacedKey(ns, v));
      }
      return out;
    },
  });
}

function describe(o: KubeObject): string {
  const ns = o?.metadata?.namespace;
  return `${ns ? `${ns}/` : ""}${o?.metadata?.name ?? "<unnamed>"}`;
}
