import type { KubeList, KubeObject } from "@informer-ts/apimachinery";
import { stringifyJson } from "../int64-json.js";

// Objects in storage and in the watch cache are never mutated once stored (a write stores a new, deep-frozen object
// with a new metadata object), so the size of an object can be remembered for as long as the object lives.
const sizes = new WeakMap<object, number>();
// List responses carry copies of the stored objects without `kind`/`apiVersion` that share the stored, frozen
// `metadata` (and every other field): their size without TypeMeta is remembered by that metadata object.
const bodySizes = new WeakMap<object, number>();

const utf8 = (s: string) => Buffer.byteLength(s, "utf8");

/**
 * Bytes of an object encoded as JSON (UTF-8), as the simulator's models count a stored value, a watch event or a
 * response item. Remembered per object, and for stored objects (frozen metadata) per version, so a list of stored
 * objects is measured once: call it on objects that are not mutated afterwards.
 */
export function encodedSize(obj: KubeObject): number {
  const meta = obj.metadata;
  if (meta !== undefined && meta !== null && Object.isFrozen(meta)) {
    let n = bodySizes.get(meta);
    if (n === undefined) {
      const { kind: _k, apiVersion: _a, ...rest } = obj;
      n = utf8(stringifyJson(rest));
      bodySizes.set(meta, n);
    }
    // `"kind":"X",` and `"apiVersion":"v",` on top of a non-empty body.
    if (obj.kind !== undefined) n += 8 + utf8(JSON.stringify(obj.kind));
    if (obj.apiVersion !== undefined) n += 14 + utf8(JSON.stringify(obj.apiVersion));
    return n;
  }
  let n = sizes.get(obj);
  if (n === undefined) {
    n = utf8(stringifyJson(obj));
    sizes.set(obj, n);
  }
  return n;
}

/** Bytes of a list encoded as JSON: its items (each remembered, see {@link encodedSize}) plus the envelope. */
export function encodedListSize(list: KubeList): number {
  let n = 0;
  for (const item of list.items) n += encodedSize(item);
  return n + listEnvelopeSize(list);
}

/** Bytes of a list's JSON besides its items' own: the envelope, `,"items":[` … `]` and the commas between items. */
export function listEnvelopeSize(list: KubeList): number {
  const { items, ...envelope } = list;
  return Math.max(0, items.length - 1) + utf8(JSON.stringify(envelope)) + 11;
}
