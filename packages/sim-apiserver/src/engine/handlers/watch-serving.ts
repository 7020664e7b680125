import type { ListOptions } from "@informer-ts/apimachinery";
import type { Rand } from "@informer-ts/clock";
import { answeredBy, type Cacher, type CacheWatcher, type FixedWatch } from "../cacher/index.js";
import type { Served } from "../request-context.js";
import { type ListOptionGates, listOptionsFor } from "./list-serving.js";

/** What the watch handler needs besides the request. */
export interface WatchServing {
  readonly rand: Rand;
  /** `--min-request-timeout` in seconds. */
  readonly minRequestTimeoutSeconds: number;
  /** The WatchList gate and whether `sendInitialEvents` exists. */
  readonly gates: ListOptionGates;
}

/**
 * WATCH (kube-apiserver's `ListResource` with `watch=true` and `serveWatch`): `opts` are the decoded query,
 * defaulted (WatchList, unless `legacyWatchPath`) and validated as for a list; without `timeoutSeconds` (or with 0)
 * the watch ends after a random time in [min-request-timeout, 2×), drawn from `rand`. Errors before the stream starts
 * (400, 422, 429 while the cache initializes) reject; later ones arrive as one ERROR event of the returned watch.
 * The watch is always served by the watch cache.
 */
export async function serveWatch(
  cfg: WatchServing,
  cacher: Cacher,
  namespace: string,
  opts: ListOptions,
  legacyWatchPath: boolean,
): Promise<Served<CacheWatcher | FixedWatch>> {
  const { v, sel } = listOptionsFor(cacher.resource, opts, !legacyWatchPath, cfg.gates);
  if (v.timeoutSeconds === undefined || v.timeoutSeconds <= 0) {
    v.timeoutSeconds = Math.floor(cfg.minRequestTimeoutSeconds * (1 + cfg.rand.float()));
  }
  try {
    return { object: await cacher.watch(namespace, v, sel), servedFrom: "cache" };
  } catch (err) {
    throw answeredBy(err, "cache"); // the cache answered (429 while it initializes)
  }
}
