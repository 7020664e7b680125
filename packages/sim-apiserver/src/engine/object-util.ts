import type { KubeObject } from "@informer-ts/apimachinery";
import type { Rand } from "@informer-ts/clock";

/** Roots {@link deepFreeze} froze: values that can never change, whatever their depth. */
const deepFrozen = new WeakSet<object>();

function freezeTree(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value as Record<string, unknown>)) freezeTree(v);
}

/**
 * Deep-freezes a JSON value in place and returns it. A part below it that is already frozen is taken as deep-frozen
 * (the engine freezes only through here). The value is remembered as immutable ({@link isDeepFrozen}), so its
 * encodings can be cached — unless it was frozen already by someone else (its depth is unknown: left as it is).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  freezeTree(value);
  deepFrozen.add(value);
  return value;
}

/** Whether `value` went through {@link deepFreeze}: it and everything below it can never change. */
export function isDeepFrozen(value: unknown): value is object {
  return typeof value === "object" && value !== null && deepFrozen.has(value);
}

/** Structural equality of JSON values (key order ignored, `undefined` members ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}

/** A copy of `obj` with `metadata.resourceVersion` replaced (shallow except metadata). */
export function withResourceVersion(obj: KubeObject, rv: number): KubeObject {
  return deepFreeze({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } });
}

/** RFC 3339 with second precision, as `metav1.Time` serializes. */
export function rfc3339Seconds(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** A random version-4 UUID drawn from `rand` (object uids). */
export function newUid(rand: Rand): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand.float() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${"89ab"[Math.floor(rand.float() * 4)]}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** `names.SimpleNameGenerator`'s alphabet: consonants and digits that cannot spell words. */
const GENERATE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** `generateName` + five random characters of the upstream alphabet, drawn from `rand`. */
export function generateNameFrom(prefix: string, rand: Rand): string {
  let suffix = "";
  for (let i = 0; i < 5; i++)
    suffix += GENERATE_NAME_ALPHABET[Math.floor(rand.float() * GENERATE_NAME_ALPHABET.length)];
  return prefix + suffix;
}
