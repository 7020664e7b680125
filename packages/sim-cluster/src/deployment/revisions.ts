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
 * with sorted keys).
 */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  const strip = (t: unknown) => {
    const c = structuredClone((t ?? {}) as { metadata?: { labels?: Record<string, string> } });
    if (c.metadata?.labels !== undefined) {
      delete c.metadata.labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
    }
    if (c.metadata !== undefined && Object.keys(c.metadata).length === 0) delete c.metadata;
    return JSON.stringify(stable(c));
  };
  return strip(a) === strip(b);
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
