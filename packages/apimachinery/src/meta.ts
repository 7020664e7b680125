import type { KubeObject, ObjectMeta } from "./types.js";

/**
 * The `metadata` of `obj` when `obj` is a non-null object whose `metadata` is a non-null, non-array object;
 * otherwise `undefined` (`meta.Accessor` failing). Never throws, whatever `obj` is.
 */
export function metaOf(obj: unknown): ObjectMeta | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  return meta as ObjectMeta;
}

function stringField(meta: ObjectMeta | undefined, field: "name" | "namespace" | "resourceVersion"): string {
  const v = meta?.[field];
  return typeof v === "string" ? v : "";
}

/** `metadata.namespace`, or "" when absent (cluster-scoped objects, objects without metadata). */
export function namespaceOf(obj: unknown): string {
  return stringField(metaOf(obj), "namespace");
}

/** `metadata.name`, or "" when absent. */
export function nameOf(obj: unknown): string {
  return stringField(metaOf(obj), "name");
}

/** `metadata.resourceVersion` as the opaque string it is, or "" when absent. */
export function resourceVersionOf(obj: unknown): string {
  return stringField(metaOf(obj), "resourceVersion");
}

/**
 * A copy of `obj` that shares everything except the top-level object and its `metadata` object, which are new.
 * Use it to detach an item from a list page (so the page can be collected) or to set metadata fields (such as
 * `resourceVersion`) without touching the original. Nested values (`spec`, `labels`, …) are shared, so treat
 * them as read-only. An object without metadata is copied at the top level only.
 */
export function shallowCopyObject<T extends KubeObject>(obj: T): T {
  const copy = { ...obj };
  const meta = metaOf(obj);
  if (meta !== undefined) copy.metadata = { ...meta };
  return copy;
}
