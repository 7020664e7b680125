/**
 * The kube-apiserver releases whose read routing the simulator reproduces (`kubeVersion` option, `--kube-version`
 * flag). Each one sets the feature gates and the hard-coded rules that decide whether the watch cache or etcd
 * answers a LIST, GET or WATCH, as that release had them with default gates.
 */
export const KUBE_VERSIONS = ["1.22", "1.28", "1.31", "1.33", "1.34"] as const;

/** One of {@link KUBE_VERSIONS}. */
export type KubeVersion = (typeof KUBE_VERSIONS)[number];

/** The release the simulator follows unless told otherwise (today's behaviour). */
export const DEFAULT_KUBE_VERSION: KubeVersion = "1.34";

/**
 * What decides cache vs storage in one release. Every field is that release's default, read from
 * kubernetes/apiserver at the release's tag (`v0.<minor>.x`): the gates from `pkg/features/kube_features.go`, the
 * rules from `pkg/storage/cacher/cacher.go` (`shouldDelegateList`, `GetList`, `Get`, `Watch`) and, from 1.33,
 * `pkg/storage/cacher/delegator.go` + `pkg/storage/cacher/delegator/interface.go` (`ShouldDelegateList`).
 */
export interface KubeVersionGates {
  /**
   * `ConsistentListFromCache` (alpha off in 1.28, beta on in 1.31, GA in 1.34): a list without a resourceVersion
   * (and a continuation with an inconsistent token) is served by the watch cache once it caught up with etcd's
   * current revision, falling back to etcd after the 3 s wait. Off, and before the gate existed: such a list always
   * goes to etcd (`shouldDelegateList`'s `consistentReadFromStorage`; 1.22: `resourceVersion == ""`).
   */
  readonly consistentListFromCache: boolean;
  /**
   * `ListFromCacheSnapshot` (alpha off in 1.33, beta on in 1.34): exact-RV lists (`resourceVersionMatch=Exact`, the
   * legacy `limit` + RV=N) and continuations are served from the cache's state at that RV while its history covers
   * it. Off, and before 1.33: always from etcd (`unsupportedMatch`/`hasContinuation`; from 1.33
   * `CacheWithoutSnapshots` delegates both).
   */
  readonly listFromCacheSnapshot: boolean;
  /**
   * `WatchList` (alpha off in 1.27 and 1.28–1.31, beta on in 1.32, back off in 1.33, on in 1.34): `sendInitialEvents`
   * is accepted and legacy watches at RV ""/"0" are defaulted to a watch-list. Off: `sendInitialEvents` is a 422.
   */
  readonly watchList: boolean;
  /**
   * Whether the `sendInitialEvents` list option exists (added with the WatchList gate in 1.27). Before, the query
   * parameter is unknown to the server and ignored.
   */
  readonly sendInitialEventsOption: boolean;
  /**
   * `ResilientWatchCacheInitialization` (beta on in 1.31, GA in 1.34): while a watch cache is (re)initializing, GETs
   * go to etcd, paged lists without selectors go to etcd, and other lists and watches get 429 `storage is
   * (re)initializing`. Off (1.22, 1.28): lists and GETs at RV "0" go to etcd, everything else that needs the cache
   * (lists and GETs at RV=N, every watch) waits until it is ready (`c.ready.wait`).
   */
  readonly resilientWatchCacheInitialization: boolean;
  /**
   * `shouldDelegateList`'s `hasLimit` before 1.31: a list with a `limit` and a resourceVersion other than "0" goes
   * to etcd even with `resourceVersionMatch=NotOlderThan` ("the watch cache isn't able to perform continuations").
   * 1.31 dropped it: the cache then serves such lists with the limit and a continue token. A `limit` with RV "0" is
   * served from the cache ignoring the limit in every release (`computeListLimit`; 1.22 ignores limits in the cache
   * entirely).
   */
  readonly limitedListsFromStorage: boolean;
  /**
   * `OrderedNamespaceDeletion` (beta off in 1.30–1.32, beta on in 1.33, GA in 1.34; `pkg/features/kube_features.go`):
   * the namespace controller deletes a terminating namespace's pods first and the rest of its content only once no
   * pod is left. Off: every resource's content is deleted in the same pass.
   */
  readonly orderedNamespaceDeletion: boolean;
  /**
   * The `apidiscovery.k8s.io` versions `/api` and `/apis` answer as `APIGroupDiscoveryList` when asked
   * (`AggregatedDiscoveryEndpoint`: absent before 1.26, beta on with v2beta1 in 1.27–1.29, GA with v2 and the
   * deprecated v2beta1 from 1.30; v2beta1 is still served in 1.34). Empty: only the legacy documents.
   */
  readonly aggregatedDiscovery: readonly AggregatedDiscoveryVersion[];
}

/** An `apidiscovery.k8s.io` version of the aggregated discovery document. */
export type AggregatedDiscoveryVersion = "v2" | "v2beta1";

const GATES: Readonly<Record<KubeVersion, KubeVersionGates>> = Object.freeze({
  // v0.22.17: APIListChunking is the only gate involved (beta, on); shouldDelegateList = RV "" || continue ||
  // (limit && RV != "0") || Exact. No WatchList, no consistent reads from cache, no 429 while initializing.
  "1.22": Object.freeze({
    consistentListFromCache: false,
    listFromCacheSnapshot: false,
    watchList: false,
    sendInitialEventsOption: false,
    resilientWatchCacheInitialization: false,
    limitedListsFromStorage: true,
    orderedNamespaceDeletion: false,
    aggregatedDiscovery: Object.freeze<AggregatedDiscoveryVersion[]>([]),
  }),
  // v0.28.15: ConsistentListFromCache alpha (off), WatchList alpha (off); shouldDelegateList as 1.22 plus the gate.
  "1.28": Object.freeze({
    consistentListFromCache: false,
    listFromCacheSnapshot: false,
    watchList: false,
    sendInitialEventsOption: true,
    resilientWatchCacheInitialization: false,
    limitedListsFromStorage: true,
    orderedNamespaceDeletion: false,
    aggregatedDiscovery: Object.freeze<AggregatedDiscoveryVersion[]>(["v2beta1"]),
  }),
  // v0.31.14: ConsistentListFromCache beta (on), ResilientWatchCacheInitialization beta (on), WatchList alpha (off);
  // hasLimit removed (legacy exact and non-NotOlderThan matches still delegate).
  "1.31": Object.freeze({
    consistentListFromCache: true,
    listFromCacheSnapshot: false,
    watchList: false,
    sendInitialEventsOption: true,
    resilientWatchCacheInitialization: true,
    limitedListsFromStorage: false,
    orderedNamespaceDeletion: false,
    aggregatedDiscovery: Object.freeze<AggregatedDiscoveryVersion[]>(["v2", "v2beta1"]),
  }),
  // v0.33.13: CacheDelegator; ListFromCacheSnapshot alpha (off), WatchList beta but switched back off.
  "1.33": Object.freeze({
    consistentListFromCache: true,
    listFromCacheSnapshot: false,
    watchList: false,
    sendInitialEventsOption: true,
    resilientWatchCacheInitialization: true,
    limitedListsFromStorage: false,
    orderedNamespaceDeletion: true,
    aggregatedDiscovery: Object.freeze<AggregatedDiscoveryVersion[]>(["v2", "v2beta1"]),
  }),
  // v0.34.10: ConsistentListFromCache GA, ListFromCacheSnapshot beta (on), WatchList beta (on).
  "1.34": Object.freeze({
    consistentListFromCache: true,
    listFromCacheSnapshot: true,
    watchList: true,
    sendInitialEventsOption: true,
    resilientWatchCacheInitialization: true,
    limitedListsFromStorage: false,
    orderedNamespaceDeletion: true,
    aggregatedDiscovery: Object.freeze<AggregatedDiscoveryVersion[]>(["v2", "v2beta1"]),
  }),
});

/** Whether `v` names a release in {@link KUBE_VERSIONS}. */
export function isKubeVersion(v: unknown): v is KubeVersion {
  return typeof v === "string" && (KUBE_VERSIONS as readonly string[]).includes(v);
}

/**
 * The routing gates of a release, with its default feature gates. Throws an Error naming the value and the known
 * releases for anything else (a `v` prefix and a patch level are accepted: `v1.28.3` is 1.28).
 */
export function kubeVersionGates(v: KubeVersion | string): KubeVersionGates {
  return GATES[parseKubeVersion(v)];
}

/**
 * Reads a release name: `1.28`, `v1.28` or `v1.28.3` → `"1.28"`. Throws an Error naming the value and the known
 * releases when it is not one of them.
 */
export function parseKubeVersion(v: string): KubeVersion {
  const m = /^v?(\d+\.\d+)(?:\.\d+)?$/.exec(v.trim());
  const minor = m?.[1];
  if (minor !== undefined && isKubeVersion(minor)) return minor;
  throw new Error(`unknown kube version ${JSON.stringify(v)}: expected one of ${KUBE_VERSIONS.join(", ")}`);
}
