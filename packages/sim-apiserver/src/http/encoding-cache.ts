// Encodings of the objects the engine stores, made once per object. What the engine stores is deep-frozen
// (`deepFreeze`), so an object's JSON never changes: the response to the write that stored it, the watch event that
// announces it (to every watcher, the initial events of a watch-list or RV=0 watch included), a GET and every relist
// that serves it all reuse one encoding — kube-apiserver's CachingObject does the same for watch events, and etcd
// holds the serialized bytes anyway. Weak: an encoding lives only as long as the engine keeps its object (storage
// history, watch cache). Values that are not deep-frozen engine objects are encoded every time.

import { stringifyJson } from "../engine/int64-json.js";
import { isDeepFrozen } from "../engine/object-util.js";

interface Encoded {
  readonly json: string;
  /** UTF-8 length of `json`. */
  byteLength?: number;
}

const encodings = new WeakMap<object, Encoded>();

function encodedOf(value: object): Encoded {
  let e = encodings.get(value);
  if (e === undefined) {
    e = { json: stringifyJson(value) };
    encodings.set(value, e);
  }
  return e;
}

/** `JSON.stringify(value)`, encoded once per deep-frozen engine object. */
export function jsonOf(value: unknown): string {
  return isDeepFrozen(value) ? encodedOf(value).json : stringifyJson(value);
}

/** The UTF-8 length of `JSON.stringify(value)` (counted once per deep-frozen engine object). */
export function jsonByteLengthOf(value: unknown): number {
  if (!isDeepFrozen(value)) return Buffer.byteLength(stringifyJson(value), "utf8");
  const e = encodedOf(value);
  e.byteLength ??= Buffer.byteLength(e.json, "utf8");
  return e.byteLength;
}
