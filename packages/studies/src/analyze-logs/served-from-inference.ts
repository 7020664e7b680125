// Where kube-apiserver answered a read, inferred from the read's shape and the apiserver's release: the cacher's
// delegation rules (k8s.io/apiserver pkg/storage/cacher: `shouldDelegateList`, `Get`, `Watch`; from 1.33
// `delegator.go`) with each release's default feature gates, for the releases 1.18 to 1.34.
import type { ReadOptions } from "./request-shape.js";

/**
 * The minor version of a kube-apiserver release given as `1.28`, `v1.28` or `v1.28.3`, between 1.18 and 1.34 (the
 * releases whose routing {@link inferServedFrom} knows); a RangeError naming the value otherwise.
 */
export function apiserverMinor(version: string): number {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(version.trim());
  const minor = m === null ? Number.NaN : Number(m[1]);
  if (!(minor >= 18 && minor <= 34))
    throw new RangeError(`kube version must be a release from 1.18 to 1.34 (1.28, v1.28.3), got "${version}"`);
  return minor;
}

/**
 * Where a read of `verb` with `o` was served from in kube-apiserver `minor` with default gates and a ready watch
 * cache, or undefined when the shape does not decide it (a write; a list whose routing changed between releases
 * and no release given). Rules:
 * - `get`: `resourceVersion` unset → storage (etcd) in every release; set ("0" or N) → the watch cache;
 * - `watch` (legacy or watch-list): the watch cache;
 * - `list` RV "0": the cache (any limit is ignored);
 * - `list` RV unset (with or without limit, selector): storage before 1.31; the cache from 1.31
 *   (`ConsistentListFromCache` beta, on; it falls back to etcd when the cache cannot catch up in 3 s);
 * - `list` with a continue token, RV=N with `resourceVersionMatch=Exact`, or RV=N with a limit and no match (the
 *   legacy exact semantics): storage before 1.34; the cache's snapshots from 1.34 (`ListFromCacheSnapshot` beta);
 * - `list` RV=N `NotOlderThan` with a limit: storage before 1.31 (`hasLimit`), the cache from 1.31;
 * - `list` RV=N without a limit: the cache (it waits until fresh).
 * `minor` undefined: only the rules that hold in every release from 1.18 to 1.34 apply.
 *
 * Differences from kube-apiserver: a resource without a watch cache (`--watch-cache=false`, `--watch-cache-sizes`
 * 0), a cache still initializing, and the consistent-read fallback all send to etcd what this names the cache.
 */
export function inferServedFrom(verb: string, o: ReadOptions, minor?: number): "cache" | "storage" | undefined {
  const rv = o.resourceVersion ?? "";
  const limited = (o.limit ?? 0) > 0;
  const match = o.resourceVersionMatch ?? "";
  const since = (first: number): "cache" | "storage" | undefined =>
    minor === undefined ? undefined : minor >= first ? "cache" : "storage";
  switch (verb) {
    case "get":
      return rv === "" ? "storage" : "cache";
    case "watch":
      return "cache";
    case "list":
      if ((o.continue ?? "") !== "") return since(34);
      if (rv === "") return since(31);
      if (rv === "0") return "cache";
      if (match === "Exact" || (limited && match === "")) return since(34);
      if (limited) return since(31);
      return "cache";
    default:
      return undefined;
  }
}
