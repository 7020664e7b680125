import type { ObjectMeta } from "@informer-ts/apimachinery";

/**
 * The `meta.Accessor` of this port: returns the object's `metadata` when `obj` is a non-null object whose
 * `metadata` field is a non-null, non-array object, else `undefined`. No validation of the fields inside.
 */
export function metaOf(obj: unknown): ObjectMeta | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  return meta as ObjectMeta;
}

/** A short, safe description of any value for error messages (never throws, at most ~200 characters). */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 200 ? value.slice(0, 200) + "…" : value);
  if (typeof value !== "object") return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? text.slice(0, 200) + "…" : text;
}

/** The reason `metaOf` returned undefined, phrased like apimachinery's accessor error. */
export function noMetaReason(obj: unknown): string {
  if (typeof obj !== "object" || obj === null) {
    return `expected an object with a "metadata" field, got ${describeValue(obj)}`;
  }
  return `object does not have a "metadata" object: ${describeValue(obj)}`;
}
