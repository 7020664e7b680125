// A Deployment's revisions: the revision annotations of its ReplicaSets and the pod-template hash that names each
// template (kubernetes/kubernetes `pkg/controller/deployment/util/deployment_util.go`: `Revision`, `MaxRevision`,
// `EqualIgnoreHash`; `pkg/controller/controller_utils.go`: `ComputeHash`).
import type { ReplicaSet } from "@informer-ts/client";

/** `deployment.kubernetes.io/revision`. */
export const REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
/** `deployment.kubernetes.io/revision-history`: earlier revisions a reused ReplicaSet had. */
export const REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history";
/** `pod-template-hash`: the label that ties a ReplicaSet's pods to its template. */
export const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = "pod-template-hash";

const INT64_MAX = 2n ** 63n - 1n;

/**
 * `Revision`: the revision annotation as an int64 (0 when absent or not one). A bigint, as upstream's int64: the e2e
 * test `RollingUpdateDeployment` starts from revision 3546343826724305832, beyond a double's exact integers.
 */
export function revisionOf(obj: { metadata?: { annotations?: Record<string, string> } } | undefined): bigint {
  const v = obj?.metadata?.annotations?.[REVISION_ANNOTATION];
  if (v === undefined || !/^\d{1,19}$/.test(v)) return 0n;
  const n = BigInt(v);
  return n <= INT64_MAX ? n : 0n;
}

/** `MaxRevision`. */
export function maxRevision(list: readonly ReplicaSet[]): bigint {
  return list.reduce((m, rs) => {
    const r = revisionOf(rs);
    // biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
    return r > m ? r : m;
  }, 0n);
}

/** `v` with every object's keys sorted, deeply (for order-insensitive JSON comparison and hashing). */
export function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = stable((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/**
 * `EqualIgnoreHash`: two pod templates are equal once their `pod-template-hash` labels are removed (compared as JSON
 * values: key order does not matter, a key whose value is `undefined` is absent, empty `labels` and `metadata` are
 * absent). Nothing is copied below `metadata.labels`: the Deployment controller asks this of every ReplicaSet it owns
 * on every sync.
 */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return jsonValueEqual(withoutHash(a), withoutHash(b));
}

/** A template without its `pod-template-hash` label (and without `labels`/`metadata` left empty), sharing the rest. */
function withoutHash(t: unknown): unknown {
  if (typeof t !== "object" || t === null) return {};
  const { metadata, ...rest } = t as { metadata?: { labels?: Record<string, string> } };
  if (typeof metadata !== "object" || metadata === null) return metadata === undefined ? rest : t;
  const { labels, ...meta } = metadata;
  let m: Record<string, unknown> = meta;
  if (labels !== undefined) {
    const { [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: _hash, ...kept } = labels;
    if (Object.keys(kept).length > 0) m = { ...meta, labels: kept };
  }
  return Object.keys(m).length > 0 ? { ...rest, metadata: m } : rest;
}

/** Whether `a` and `b` serialize to the same JSON up to key order (what comparing `JSON.stringify(stable(x))` did). */
function jsonValueEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    // In an array `undefined` (and a function) serializes as null.
    return a.every((x, i) => jsonValueEqual(x ?? null, b[i] ?? null));
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonValueEqual(ra[k], rb[k]));
}

const SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** `rand.SafeEncodeString`: digits mapped to characters that cannot spell words. */
export function safeEncodeString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHANUMS[s.charCodeAt(i) % SAFE_ALPHANUMS.length];
  return out;
}

/**
 * `ComputeHash`: the FNV-1a 32-bit hash of the pod template (as JSON with sorted keys here, spew upstream) and the
 * collision count, encoded with {@link safeEncodeString}. Differences from kube-controller-manager: the same
 * template hashes to another value than upstream's (the input bytes differ); equal templates still hash equally.
 */
export function computeHash(template: unknown, collisionCount: number | undefined): string {
  let h = 0x811c9dc5;
  const add = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i) & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  };
  add(JSON.stringify(stable(template ?? {})));
  if (collisionCount !== undefined) add(String(collisionCount));
  return safeEncodeString(String(h >>> 0));
}
