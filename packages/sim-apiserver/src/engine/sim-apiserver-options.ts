import type { Clock, Rand } from "@informer-ts/clock";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import type { AuthorizationMode } from "./authorization/index.js";
import {
  BUDGET_REFRESH_MS_PER_SECOND,
  type CacherConfig,
  MAX_DISPATCH_BUDGET_MS,
  type WatchMemoryModel,
} from "./cacher/index.js";
import type { CostModel } from "./filters/index.js";
import { DEFAULT_KUBE_VERSION, type KubeVersion, kubeVersionGates } from "./kube-version.js";
import type { FieldManager } from "./registry/index.js";
import type { CostModelLatency, TraceLogConfig } from "./request-models.js";
import type { SimResource } from "./resources.js";
import { EVENT_FRESH_DURATION_MS, HISTORY_LOWER_BOUND, HISTORY_UPPER_BOUND } from "./storage/index.js";

/** Options of {@link SimApiServer}. Every default is kube-apiserver v1.34's value (see `kubeVersion`). */
export interface SimApiServerOptions {
  /** Time source (default real time). Tests pass a `FakeClock`. */
  readonly clock?: Clock;
  /** Randomness (uids, generated names, jitter, watch timeouts); default `Math.random`. */
  readonly rand?: Rand;
  /** Served resources (default {@link BUILTIN_RESOURCES}); more can be added with {@link SimApiServer.register}. */
  readonly resources?: readonly SimResource[];
  /**
   * The kube-apiserver release whose read routing to reproduce (default `"1.34"`): its default feature gates and
   * rules deciding watch cache vs etcd (see {@link KubeVersionGates}). `watchList` and `listFromCacheSnapshot`
   * below override the release's value of their gate.
   */
  readonly kubeVersion?: KubeVersion;
  /**
   * The WatchList feature gate (default: the `kubeVersion`'s, true for 1.34). Off: `sendInitialEvents` is rejected
   * with the real 422.
   */
  readonly watchList?: boolean;
  /**
   * `--authorization-mode` (default `"AlwaysAllow"`): `"RBAC"` authorizes every resource request (both faces) and
   * the HTTP face's non-resource paths against the stored Roles, ClusterRoles and their bindings plus the bootstrap
   * policy (`engine/authorization/`); a request not allowed is 403 Forbidden. The review kinds answer from it.
   */
  readonly authorization?: AuthorizationMode;
  /**
   * `--service-account-signing-key-file`'s content: a PEM RSA private key the service-account tokens are signed with
   * (and `/openid/v1/jwks` publishes). Default: a key pair made once per process on first use. A key that is not a
   * PEM RSA private key makes the constructor throw, saying so.
   */
  readonly serviceAccountSigningKey?: string;
  /** Revision of the empty store (default 1). */
  readonly initialResourceVersion?: number;
  /** Bookmark period (default 60 s). */
  readonly bookmarkFrequencyMs?: number;
  /** How long reads wait for the cache to be fresh enough (default 3 s). */
  readonly blockTimeoutMs?: number;
  /** Ring buffer freshness window (default 75 s). */
  readonly eventFreshMs?: number;
  /** Ring buffer bounds (default 100 and 102 400). */
  readonly historyLowerBound?: number;
  readonly historyUpperBound?: number;
  /**
   * The `ListFromCacheSnapshot` feature gate (default: the `kubeVersion`'s, true for 1.34): exact-RV lists and
   * continuations are served from the watch cache while its event history covers the RV. False: always from storage,
   * as v1.33 and older.
   */
  readonly listFromCacheSnapshot?: boolean;
  /** Delay between a commit and the watch caches seeing it (default 0: caches are never behind). */
  readonly cacheLagMs?: number;
  /** etcd progress-notify interval: idle caches catch up with the global RV this often (default 5 s; 0 = never). */
  readonly progressNotifyIntervalMs?: number;
  /** Periodic compaction to the revision seen at the previous tick (default 5 min; 0 = only {@link compact}). */
  readonly compactionIntervalMs?: number;
  /** `--min-request-timeout` (default 1800 s): watches without `timeoutSeconds` end in [min, 2·min). */
  readonly minRequestTimeoutSeconds?: number;
  /** Dispatch budget for blocked watchers (default 100 ms, refilled at 50 ms/s). */
  readonly dispatchBudgetMs?: number;
  readonly budgetRefreshMsPerSecond?: number;
  /** Metrics registry (default none). */
  readonly metrics?: MetricsProvider;
  /**
   * Where the engine logs, at `info` (what kube-apiserver logs through klog: watcher terminations, slow initial
   * events, cache re-initializations). Default none. A throwing logger is ignored.
   */
  readonly logger?: Logger;
  /** User agent recorded for in-process requests without one (default `informer-ts-inprocess`). */
  readonly defaultUserAgent?: string;
  /**
   * NamespaceLifecycle admission (default true): creates in a missing namespace are 404, in a terminating one 403,
   * and `default`, `kube-system`, `kube-public` cannot be deleted.
   */
  readonly namespaceLifecycle?: boolean;
  /**
   * Create `default`, `kube-system`, `kube-public` and `kube-node-lease` at start (default true), in the store's
   * initial revision (the store starts at `initialResourceVersion` already holding them).
   */
  readonly systemNamespaces?: boolean;
  /**
   * The simulated garbage collector (ownerReferences) and namespace controller: `false` turns both off; `delayMs`
   * (default 0) is how long, on the engine's clock, they take to react to a change.
   */
  readonly controllers?: false | { readonly delayMs?: number };
  /** Field ownership hook of the registry (server-side apply); see {@link FieldManager}. */
  readonly fieldManager?: FieldManager;
  /**
   * The admission chain (default on): strict/warn/ignore field validation, the kinds' defaults and validation, and
   * custom resources' schema pruning, defaulting and validation (`engine/admission/`). `false` stores writes as
   * given (only object metadata is validated), as the simulator did before admission; an object sets
   * `serviceClusterIpRange` (default `10.96.0.0/12`) and `serviceAccountTokenVolume`: `false` turns the ServiceAccount
   * plugin's `kube-api-access-*` volume off, as `--disable-admission-plugins=ServiceAccount` does (default on; every
   * pod whose ServiceAccount exists gets it, about 36 KB more heap per pod in `pnpm bench cluster`). `limitRanger`,
   * `runtimeClass` and `defaultIngressClass`: `false` turns that admission plugin off (each on by default, as in
   * kube-apiserver's default plugin set).
   */
  readonly admission?:
    | boolean
    | {
        readonly serviceClusterIpRange?: string;
        readonly serviceAccountTokenVolume?: boolean;
        readonly limitRanger?: boolean;
        readonly runtimeClass?: boolean;
        readonly defaultIngressClass?: boolean;
      };
  /**
   * The request cost model (default off): each request takes virtual time on the clock by its path (filter chain,
   * etcd round trips and keys read, or watch-cache objects walked, then encoding), and its apiserver CPU and APF seats
   * are recorded in the accounting. `true` = {@link DEFAULT_COST_MODEL}; a bad constant throws a `RangeError` naming
   * it. See docs/sim-apiserver.md, Models.
   */
  readonly costModel?: CostModel | true;
  /**
   * How the cost model's latency is applied (default `sleep`). `sleep`: every phase is waited on the engine's clock,
   * so a request answers after its modelled latency — on a `FakeClock` only when something advances the clock (an
   * `await sim.create(…)` with nothing stepping the clock never resolves). `record`: requests answer without waiting
   * on the clock; CPU, seats and the modelled latency are recorded as if it had elapsed (the accounting's latency,
   * audit `stageTimestamp`, httplog, trace steps), and the timing of everything else is the same as with the model
   * off. Ignored without `costModel`.
   */
  readonly costModelLatency?: CostModelLatency;
  /**
   * The trace log of slow requests (default off): kube-apiserver's handler traces (`Trace[…]: "List" … (total time:
   * …ms):` with steps), written through {@link logger} when a request took at least `thresholdMs` (default 500 ms,
   * upstream's). `true` = the defaults.
   */
  readonly traceLog?: TraceLogConfig | true;
  /** The kube-apiserver memory model behind `watchMemory()` (default {@link DEFAULT_WATCH_MEMORY_MODEL}). */
  readonly watchMemoryModel?: WatchMemoryModel;
}

/** The watch caches' configuration from the engine's options (kube-apiserver's defaults for what is not given). */
export function cacherConfigOf(opts: SimApiServerOptions): CacherConfig {
  const gates = kubeVersionGates(opts.kubeVersion ?? DEFAULT_KUBE_VERSION);
  return {
    consistentListFromCache: gates.consistentListFromCache,
    resilientWatchCacheInitialization: gates.resilientWatchCacheInitialization,
    limitedListsFromStorage: gates.limitedListsFromStorage,
    bookmarkFrequencyMs: opts.bookmarkFrequencyMs ?? 60_000,
    blockTimeoutMs: opts.blockTimeoutMs ?? 3000,
    eventFreshMs: opts.eventFreshMs ?? EVENT_FRESH_DURATION_MS,
    historyLowerBound: opts.historyLowerBound ?? HISTORY_LOWER_BOUND,
    historyUpperBound: opts.historyUpperBound ?? HISTORY_UPPER_BOUND,
    cacheLagMs: opts.cacheLagMs ?? 0,
    listFromCacheSnapshot: opts.listFromCacheSnapshot ?? gates.listFromCacheSnapshot,
    dispatchBudgetMs: opts.dispatchBudgetMs ?? MAX_DISPATCH_BUDGET_MS,
    budgetRefreshMsPerSecond: opts.budgetRefreshMsPerSecond ?? BUDGET_REFRESH_MS_PER_SECOND,
  };
}
