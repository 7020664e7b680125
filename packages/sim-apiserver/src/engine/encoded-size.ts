import type { KubeList, KubeObject } from "@informer-ts/apimachinery";

// Objects in storage and in the watch cache are never mutated once stored (a write stores a new object), so the size
// of an object can be remembered for as long as the object lives.
const sizes = new WeakMap<object, number>();

/**
 * Bytes of an object encoded as JSON (UTF-8), as the simulator's models count a stored value, a watch event or a
 * response item. Remembered per object: call it on stored objects, which are never mutated.
 */
export function encodedSize(obj: KubeObject): number {
  let n = sizes.get(obj);
  if (n === undefined) {
    n = Buffer.byteLength(JSON.stringify(obj), "utf8");
    sizes.set(obj, n);
  }
  return n;
}

/** Bytes of a list encoded as JSON: its items (each remembered, see {@link encodedSize}) plus the envelope. */
export function encodedListSize(list: KubeList): number {
  let n = 0;
  for (const item of list.items) n += encodedSize(item);
  const { items, ...envelope } = list;
  // `,"items":[` … `]` with a comma between items.
  return n + Math.max(0, items.length - 1) + Buffer.byteLength(JSON.stringify(envelope), "utf8") + 11;
}
