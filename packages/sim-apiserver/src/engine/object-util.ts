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
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // Without a key array per side: every defined member of `a` is in `b` and equal, and `b` has no more of them.
  let na = 0;
  for (const k of Object.keys(ra)) {
    const v = ra[k];
    if (v === undefined) continue;
    na++;
    if (!Object.hasOwn(rb, k) || !jsonEqual(v, rb[k])) return false;
  }
  let nb = 0;
  for (const k of Object.keys(rb)) if (rb[k] !== undefined) nb++;
  return na === nb;
}

/** A copy of `obj` with `metadata.resourceVersion` replaced (shallow except metadata). */
export function withResourceVersion(obj: KubeObject, rv: number): KubeObject {
  return deepFreeze({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } });
}

/**
 * The second {@link rfc3339Seconds} formatted last and its text: the writes of one burst (every managedFields time,
 * creationTimestamp and condition time of a virtual-time instant) share a second, so they share one string.
 */
let lastSecond = Number.NaN;
let lastStamp = "";

/** RFC 3339 with second precision, as `metav1.Time` serializes. */
export function rfc3339Seconds(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastStamp = `${new Date(sec * 1000).toISOString().slice(0, 19)}Z`;
  }
  return lastStamp;
}

const HEX = "0123456789abcdef";

/** A random version-4 UUID drawn from `rand` (object uids). */
export function newUid(rand: Rand): string {
  let hex = "";
  for (let i = 0; i < 32; i++) hex += HEX[Math.floor(rand.float() * 16)];
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

/**
 * A deep copy of a JSON value (what a decoded body or a stored object is: plain objects, arrays, strings, numbers,
 * booleans, null, and `bigint` for int64 beyond 2^53): the copy `structuredClone` would make of such a value, own
 * enumerable keys in their order, `undefined` members kept — without its serialization round trip. A value that is
 * not plain JSON below (a `Date`, a typed array, a class instance) is handed to `structuredClone`.
 */
export function deepCopyJson<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyValue(v[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = copyValue((v as Record<string, unknown>)[k]);
  return out;
}

/**
 * `next` with every subtree that equals the same place of `prev` (same keys in the same order, same items, same
 * scalars) replaced by `prev`'s: an update's new object sharing what it did not change with the stored one, so that
 * the checks after it (the field manager's comparison, the storage's no-op test, the freeze) pass those parts by
 * identity and the stored versions share them. `next` is the caller's own (unfrozen parts are written in place);
 * returns `prev` itself when everything is equal. The result serializes exactly as `next` did.
 */
export function shareUnchanged<T>(next: T, prev: unknown): T {
  return share(next, prev) as T;
}

function share(n: unknown, p: unknown): unknown {
  if (n === p || typeof n !== "object" || n === null || typeof p !== "object" || p === null) return n;
  if (Array.isArray(n)) {
    if (!Array.isArray(p)) return n;
    let same = n.length === p.length;
    let out = n;
    for (let i = 0; i < n.length; i++) {
      const s = i < p.length ? share(n[i], p[i]) : n[i];
      if (s !== p[i] || i >= p.length) same = false;
      if (s !== n[i]) {
        if (out === n && Object.isFrozen(n)) out = n.slice();
        out[i] = s;
      }
    }
    return same ? p : out;
  }
  if (Array.isArray(p)) return n;
  const nr = n as Record<string, unknown>;
  const pr = p as Record<string, unknown>;
  const nk = Object.keys(nr);
  const pk = Object.keys(pr);
  let same = nk.length === pk.length;
  let out = nr;
  for (let i = 0; i < nk.length; i++) {
    const k = nk[i]!;
    const nv = nr[k];
    const inPrev = Object.hasOwn(pr, k);
    const s = inPrev ? share(nv, pr[k]) : nv;
    if (!inPrev || s !== pr[k] || pk[i] !== k) same = false;
    if (s !== nv) {
      if (out === nr && Object.isFrozen(nr)) out = { ...nr };
      out[k] = s;
    }
  }
  return same ? p : out;
}
