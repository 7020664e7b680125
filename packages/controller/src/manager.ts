import type { KubeObject } from "@informer-ts/apimachinery";
import {
  type ListerWatcherFor,
  newSharedInformerFactoryWithOptions,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  type SharedInformerFactory,
  type SharedInformerOption,
  waitForCacheSync,
  withInformerName,
  withInformerOptions,
  withNamespace,
} from "@informer-ts/cache";
import type { ResourceDescriptor } from "@informer-ts/client";
import { type Clock, mathRand, type Rand, realClock, type Timer } from "@informer-ts/clock";
import {
  defaultRuntimeLogger,
  type Logger,
  type MetricsProvider,
  PromMetrics,
  safeLog,
  safeObservable,
  silentLogger,
  withFields,
} from "@informer-ts/instrumentation";
import { type Observable, Subject } from "rxjs";
import type { ControllerContext } from "./builder.js";
import { CacheNotStartedError, CacheReader } from "./cache-reader.js";
import { Controller } from "./controller.js";
import { DelegatingClient } from "./delegating-client.js";
import { addFieldIndex, type FieldIndexer } from "./field-indexer.js";
import type { LeaderElector } from "./leaderelection/leader-election.js";
import { typedEventRecorder } from "./manager-event-recorder.js";
import { newManagerElector } from "./manager-leader-election.js";
import { ManagerChecks, newManagerProbeServer } from "./manager-probes.js";
import { syncStallFields, watchSyncStalls } from "./manager-sync-stall.js";
import type { ObjectClient, ObjectReader } from "./object-client.js";
import type { HealthChecker, ProbeServer } from "./probe-server.js";
import { EventBroadcaster, type EventRecorder } from "./record/event.js";
import { GracefulShutdownTimeoutError, needsLeaderElection, type Runnable, RunnableError } from "./runnable.js";
import { abortedOf, allStopped, type Started, startRunnable } from "./runnable-group.js";
import { type SignalHandler, setupSignalHandler } from "./signals.js";

/** Leader election settings of a {@link Manager} (controller-runtime's `LeaderElection*` options). Durations in ms. */
export interface ManagerLeaderElectionOptions {
  /** The Lease's namespace and name (`LeaderElectionNamespace`, `LeaderElectionID`). */
  readonly namespace: string;
  readonly name: string;
  /** This replica's identity; default `<hostname>_<random>` as controller-runtime does. */
  readonly identity?: string;
  readonly leaseDuration?: number;
  readonly renewDeadline?: number;
  readonly retryPeriod?: number;
  /** `LeaderElectionReleaseOnCancel`. Default false. */
  readonly releaseOnCancel?: boolean;
  /**
   * Stop leading (and so reconciling) as soon as the local clock says the lease may have expired — `leaseDuration`
   * since the last successful renewal — instead of when a renewal has kept failing for `renewDeadline` (client-go's
   * rule, the default). See {@link LeaderElectionConfig.fencing}.
   */
  readonly fencing?: boolean;
}

/** Options of a {@link Manager}. */
export interface ManagerOptions {
  /** Builds the lister-watcher of each resource: `(r, { namespace }) => listWatchFor(client, r, { namespace })`. */
  readonly listerWatcherFor: ListerWatcherFor<ResourceDescriptor, KubeObject>;
  /** Writes (finalizers, leases, events). Required for leader election, events and `finalize`. */
  readonly client?: ObjectClient;
  /** Watch only this namespace (`Cache.DefaultNamespaces`); default all. */
  readonly namespace?: string;
  readonly clock?: Clock;
  readonly rand?: Rand;
  /**
   * Where every metric goes: the client's when the manager builds it ({@link newManager}), the informers' (labelled
   * by resource), the work queues', the controllers', the election's and the event recorder's. Default a new
   * {@link PromMetrics} with prom-client's default process and Node.js metrics, served on `/metrics`.
   */
  readonly metrics?: MetricsProvider;
  /**
   * Where the runtime logs: the manager itself (runnable failures, informers that do not sync and why, leadership
   * lost), its controllers (`Reconciler error`…), the leader elector, the event recorder and the informers (their
   * reflectors' `Failed to watch`…). Default the process's runtime logger ({@link defaultRuntimeLogger}: info and above
   * to stderr, JSON lines unless stderr is a terminal).
   */
  readonly logger?: Logger;
  /** Log nothing (the `logger` is ignored): errors remain on `events$`, in `status()` and in the metrics. Default false. */
  readonly quiet?: boolean;
  /** After how long (and then how often, ms) unsynced informers are logged with their reason. Default 10 000; 0 never. */
  readonly syncStallWarning?: number;
  /** The `name` label of the informers' metrics. Default `controller-manager`. */
  readonly name?: string;
  /** Options for every informer (fifo mode, reflector options, handler error policy…). */
  readonly informerOptions?: SharedIndexInformerOptions<KubeObject>;
  /** Leader election; default none (every replica runs its controllers). */
  readonly leaderElection?: ManagerLeaderElectionOptions;
  /** The HTTP endpoint (`/healthz`, `/readyz`, `/metrics`); default none. Loopback unless `host` says otherwise. */
  readonly probe?: { readonly port: number; readonly host?: string };
  /**
   * A second HTTP endpoint serving only `/metrics` (controller-runtime's metrics server, `--metrics-bind-address`),
   * for when metrics and probes listen apart; default none. Loopback unless `host` says otherwise.
   */
  readonly metricsServer?: { readonly port: number; readonly host?: string };
  /** How long to wait for the informers to sync. Default 120 000 ms. */
  readonly cacheSyncTimeout?: number;
  /** Handle SIGTERM/SIGINT: the first stops the manager gracefully, a second exits the process. Default false. */
  readonly handleSignals?: boolean;
  /**
   * How long the stop waits for the runnables (controllers included) to end, from the moment it begins
   * (`GracefulShutdownTimeout`). Default 30 000 ms. Those still running then are named in the
   * {@link GracefulShutdownTimeoutError} `run` rejects with; `0` does not wait at all (and reports nothing), a negative
   * value or `Infinity` waits as long as it takes. Keep it at least each controller's own `gracefulShutdownTimeout`.
   */
  readonly gracefulShutdownTimeout?: number;
  /**
   * Reads of {@link Manager.getClient} for these resources go to the API server instead of a cache
   * (controller-runtime's `Client.Cache.DisableFor`): for resources too big or too rarely read to watch.
   */
  readonly disableCacheFor?: readonly ResourceDescriptor<unknown>[];
}

/** What a {@link Manager} reports on `events$`. */
export type ManagerEvent =
  | { readonly type: "probeListening"; readonly url: string }
  | { readonly type: "cachesSynced" }
  | { readonly type: "startedLeading" }
  | { readonly type: "controllersStarted"; readonly names: readonly string[] }
  /** Runnables other than the leader-elected controllers started: those that need no leader election after the caches
   * synced (`leaderElection: false`, controllers included), the leader-elected ones when leading starts. */
  | { readonly type: "runnablesStarted"; readonly names: readonly string[]; readonly leaderElection: boolean }
  | { readonly type: "error"; readonly source: string; readonly error: unknown }
  | { readonly type: "stopped" };

/**
 * The manager's default metrics: a {@link PromMetrics} on its own registry with prom-client's default process and
 * Node.js metrics (`process_cpu_seconds_total`, `nodejs_eventloop_lag_seconds`, heap, GC…), as controller-runtime's
 * registry carries Go's process and runtime collectors.
 */
export function newDefaultMetrics(): PromMetrics {
  return new PromMetrics().collectDefaultMetrics();
}

/** `run` failed because this replica lost its leadership (controller-runtime: "leader election lost"). */
export class LeaderElectionLostError extends Error {
  override readonly name = "LeaderElectionLostError";
}

/** What `run` shares with `lead` and the runnables it starts. */
interface RunState {
  /** Aborting it begins the stop (and the grace period). */
  readonly stop: AbortController;
  /** Aborted by `run` when it stops the leader-elected runnables (it is `lead`'s signal without leader election). */
  readonly leading: AbortController;
  /** Resolves when the grace period after the stop began has elapsed (never with a negative/infinite timeout). */
  readonly deadline: Promise<void>;
  readonly started: Started[];
  /** The runnables without leader election, once started (after the caches synced); later adds join them. */
  others: { readonly signal: AbortSignal; readonly group: Started[] } | undefined;
  /** The leader-elected runnables while leading (all of them without election); later adds join them. */
  leaders: { readonly signal: AbortSignal; readonly group: Started[] } | undefined;
  /** Records the run's first failure and begins the stop. */
  fail(err: unknown): void;
}

/**
 * controller-runtime's `Manager`: one shared informer factory for every controller (each resource is watched once),
 * the controllers built on it ({@link newControllerManagedBy}`(manager)`), optional leader election, an event recorder
 * per component, and an optional HTTP endpoint.
 *
 * `run(signal)`: starts the probe server and the informers, waits for the caches to sync, starts the runnables that
 * need no leader election ({@link Manager.add}), then — on every replica without election, only on the leader with it —
 * runs the controllers and the other runnables. Standbys keep their informers warm. When `signal` aborts (or
 * SIGTERM/SIGINT with `handleSignals`, or a runnable fails) the stop begins: the runnables without leader election are
 * stopped and awaited, then the leader-elected ones (controllers drain, each up to its own graceful shutdown timeout),
 * all within `gracefulShutdownTimeout`; then the informers, event writer and HTTP server stop and `run` settles once
 * all is released. It rejects (after releasing everything) when the caches do not sync, with a {@link RunnableError}
 * when a runnable failed, with {@link LeaderElectionLostError} when leadership is lost — restart the process then, as
 * a Go controller does — or with a {@link GracefulShutdownTimeoutError} naming the runnables that outlived the grace
 * period.
 *
 * Every controller's work queue is shut down when `run` settles, also of a controller that never started (a standby
 * replica, caches that never synced), so a stopped manager leaves no timer behind and the process can exit.
 *
 * `/readyz` passes once every informer has synced and, with election, a leader is known (this replica or another);
 * `/healthz` passes while `run` runs.
 */
export class Manager implements ControllerContext {
  readonly factory: SharedInformerFactory<ResourceDescriptor, KubeObject>;
  readonly clock: Clock;
  readonly metrics: MetricsProvider;
  readonly client: ObjectClient | undefined;
  readonly events$: Observable<ManagerEvent>;
  /** The leader elector, when leader election is configured. */
  readonly elector: LeaderElector | undefined;
  /** The runtime's logger (silent with `quiet`); controllers built on this manager log through it. */
  readonly logger: Logger;
  private readonly log: Logger;
  private readonly options: ManagerOptions;
  private readonly rand: Rand;
  private readonly runnables: { readonly name: string; readonly runnable: Runnable }[] = [];
  private readonly gracefulShutdownTimeout: number;
  private state: RunState | undefined;
  private readonly checks = new ManagerChecks();
  /** Aborted when the manager stops its informers; the signal informers started later run on. */
  private informersStop: AbortController | undefined;
  private cacheReader: CacheReader | undefined;
  /** The descriptor each informer was created for: the manager's "scheme" for objects without apiVersion/kind. */
  private readonly descriptors = new Map<SharedIndexInformer<KubeObject>, ResourceDescriptor>();
  private delegatingClient: DelegatingClient | undefined;
  private readonly events = new Subject<ManagerEvent>();
  private broadcaster: EventBroadcaster | undefined;
  private probe: ProbeServer | undefined;
  private metricsProbe: ProbeServer | undefined;
  private phase: "new" | "running" | "stopped" = "new";
  private synced = false;

  constructor(options: ManagerOptions) {
    if (typeof options?.listerWatcherFor !== "function") {
      throw new TypeError("manager options: listerWatcherFor must be a function (resource, scope) => ListerWatcher");
    }
    const grace = options.gracefulShutdownTimeout ?? 30_000;
    if (typeof grace !== "number" || Number.isNaN(grace)) {
      throw new RangeError(`manager options: gracefulShutdownTimeout must be a number of ms, got ${String(grace)}`);
    }
    this.gracefulShutdownTimeout = grace;
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.rand = options.rand ?? mathRand;
    this.metrics = options.metrics ?? newDefaultMetrics();
    this.logger = options.quiet === true ? silentLogger : (options.logger ?? defaultRuntimeLogger());
    this.log = withFields(this.logger, { logger: "manager" });
    this.client = options.client;
    const io = options.informerOptions;
    const opts: SharedInformerOption<KubeObject>[] = [
      withInformerOptions<KubeObject>({
        clock: this.clock,
        rand: this.rand,
        metrics: this.metrics,
        logger: this.logger,
        ...io,
        reflector: { logger: this.logger, ...io?.reflector },
      }),
      withInformerName(options.name ?? "controller-manager"),
    ];
    if (options.namespace !== undefined) opts.push(withNamespace(options.namespace));
    this.factory = newSharedInformerFactoryWithOptions<ResourceDescriptor, KubeObject>(
      options.listerWatcherFor,
      0,
      ...opts,
    );
    this.elector =
      options.leaderElection === undefined
        ? undefined
        : newManagerElector(options.leaderElection, {
            client: this.client,
            clock: this.clock,
            rand: this.rand,
            metrics: this.metrics,
            logger: this.logger,
            onStartedLeading: (s) => this.lead(s),
          });
    this.events$ = safeObservable(this.events.asObservable(), "manager events$");
    this.events$.subscribe((e) => {
      if (e.type === "error") safeLog(this.log, "error", "Runnable error", { source: e.source, error: e.error });
    });
  }

  /**
   * The shared informer of a resource (created on first use; started by `run`), typed by the descriptor:
   * `manager.informerFor(resources.configMaps)` is a `SharedIndexInformer<ConfigMap>` whose indexer and listers hand out
   * `ConfigMap`s; an untyped descriptor (`customResource(…)` without a type argument) gives `KubeObject`s. Asking for one
   * resource twice — typed or not — returns the same informer. The type is a compile-time promise, as with the typed
   * client: the manager's `listerWatcherFor` must serve the descriptor's objects (`listWatchFor` does), and an
   * `informerOptions.transform` that changes their shape makes it wrong.
   */
  informerFor<T = KubeObject>(resource: ResourceDescriptor<T>): SharedIndexInformer<T> {
    // The factory holds every informer as KubeObject; the descriptor's type is the view the caller asked for.
    const informer = this.factory.informerFor(resource as ResourceDescriptor);
    if (!this.descriptors.has(informer)) this.descriptors.set(informer, resource as ResourceDescriptor);
    return informer as unknown as SharedIndexInformer<T>;
  }

  /**
   * Registers a runnable (`Manager.Add`): a {@link Controller} (the builder calls this) or any {@link Runnable}. Those
   * whose `needLeaderElection()` is false run on every replica once the caches have synced; the others (the default)
   * only while this replica leads — on every replica without leader election. All share the manager's one lifecycle
   * (see the class contract). A runnable added while the manager runs starts at once if its group already runs (a
   * controller's new informers start too), else with its group; adding one once the stop has begun throws. Names are
   * unique; a bad runnable throws a `TypeError` naming the problem.
   */
  add(runnable: Runnable): void {
    if (typeof runnable !== "object" || runnable === null || typeof runnable.run !== "function") {
      throw new TypeError("manager.add: a runnable is an object with a run(signal) method");
    }
    const kind = runnable instanceof Controller ? "controller" : "runnable";
    if (runnable.name !== undefined && (typeof runnable.name !== "string" || runnable.name === "")) {
      throw new TypeError(`manager.add: a runnable's name must be a non-empty string, got ${String(runnable.name)}`);
    }
    if (runnable.needLeaderElection !== undefined && typeof runnable.needLeaderElection !== "function") {
      throw new TypeError(`manager.add: ${kind} ${runnable.name ?? ""} has a needLeaderElection that is not a method`);
    }
    const name = runnable.name ?? `runnable-${this.runnables.length}`;
    const state = this.state;
    if (this.phase === "stopped" || state?.stop.signal.aborted === true) {
      throw new Error(`${kind} ${name} added after the manager stopped`);
    }
    if (this.runnables.some((r) => r.name === name)) {
      throw new Error(`${kind} with name ${name} already exists: ${kind} names must be unique`);
    }
    this.runnables.push({ name, runnable });
    if (state === undefined) return;
    // Running: start it now if its group already runs (else it starts with its group).
    const group = needsLeaderElection(runnable) ? state.leaders : state.others;
    if (group === undefined || group.signal.aborted) return;
    if (this.informersStop !== undefined) this.factory.start(this.informersStop.signal); // a controller's new watches
    this.events.next({ type: "runnablesStarted", names: [name], leaderElection: needsLeaderElection(runnable) });
    group.group.push(this.start(name, runnable, group.signal));
  }

  /**
   * The manager's client (`GetClient`): reads answered from the informers' caches, writes sent through `client`
   * (see {@link DelegatingClient}). A resource's informer starts on its first read and the read waits for it to sync;
   * reads before `run` or after it ended reject with a {@link CacheNotStartedError}. Always the same client.
   */
  getClient(): DelegatingClient {
    this.delegatingClient ??= new DelegatingClient({
      cache: this.getCache(),
      ...(this.hasAPIReader() && { apiReader: this.client as unknown as ObjectReader }),
      ...(this.client !== undefined && { writer: this.client }),
      ...(this.options.disableCacheFor !== undefined && { disableFor: this.options.disableCacheFor }),
    });
    return this.delegatingClient;
  }

  /** Reads from the informers' caches only (`GetCache` as a reader); see {@link CacheReader}. */
  getCache(): CacheReader {
    this.cacheReader ??= new CacheReader((resource, signal) => this.syncedInformer(resource, signal));
    return this.cacheReader;
  }

  /**
   * Reads straight from the API server (`GetAPIReader`): the manager's `client`, which must be able to `get` and
   * `list` (a `KubeClient` is); throws a `TypeError` otherwise. For reads that must not be stale, e.g. right after a
   * write, or of objects the manager should not watch.
   */
  getAPIReader(): ObjectReader {
    if (!this.hasAPIReader()) {
      throw new TypeError("manager: getAPIReader needs a client that can get and list (a KubeClient)");
    }
    return this.client as unknown as ObjectReader;
  }

  /**
   * Adds field indexes to the informers (`GetFieldIndexer`), for `getClient().list(resource, { fieldSelector })`.
   * An index function that throws is reported as an `error` event (source `index field:<name>`) and leaves that
   * object out of the index.
   */
  getFieldIndexer(): FieldIndexer {
    return {
      indexField: (resource, field, extract) => {
        addFieldIndex(this.informerFor(resource), field, extract, (error) =>
          this.events.next({ type: "error", source: `index field:${field}`, error }),
        );
      },
    };
  }

  private hasAPIReader(): boolean {
    const c = this.client as Partial<ObjectReader> | undefined;
    return typeof c?.get === "function" && typeof c.list === "function";
  }

  /** The informer of `resource`, started (while the manager runs) and synced; see {@link Manager.getClient}. */
  private async syncedInformer(
    resource: ResourceDescriptor<unknown>,
    signal?: AbortSignal,
  ): Promise<SharedIndexInformer<KubeObject>> {
    const stop = this.informersStop;
    if (this.phase !== "running" || stop === undefined || stop.signal.aborted) {
      throw new CacheNotStartedError(
        this.phase === "new"
          ? "the cache is not started, can not read objects: run the manager first"
          : "the cache is stopped, can not read objects: the manager has stopped",
      );
    }
    const informer = this.informerFor(resource as ResourceDescriptor);
    if (informer.hasSynced()) return informer;
    this.factory.start(stop.signal);
    signal?.throwIfAborted();
    const wait = new AbortController();
    const abortWait = () => wait.abort();
    stop.signal.addEventListener("abort", abortWait, { once: true });
    signal?.addEventListener("abort", abortWait, { once: true });
    try {
      if (await waitForCacheSync({ signal: wait.signal, clock: this.clock }, () => informer.hasSynced()))
        return informer;
    } finally {
      stop.signal.removeEventListener("abort", abortWait);
      signal?.removeEventListener("abort", abortWait);
    }
    signal?.throwIfAborted();
    throw new CacheNotStartedError(`the manager stopped before the cache of ${resource.resource} synced`);
  }

  /**
   * Adds a check to `/healthz` (`AddHealthzCheck`), served beside the built-in `ping` (which fails once the manager
   * stopped) and on its own at `/healthz/<name>`. Add checks before `run`; names are unique per endpoint and cannot
   * contain `/`. Violations throw an `Error` naming the problem. Without `probe` the checks are not served.
   */
  addHealthzCheck(name: string, check: HealthChecker): void {
    this.checks.add("healthz", name, check, this.phase !== "new");
  }

  /**
   * Adds a check to `/readyz` (`AddReadyzCheck`), served beside the built-in `manager` check (informers synced, a
   * leader known) and on its own at `/readyz/<name>`. Same rules as {@link Manager.addHealthzCheck}.
   */
  addReadyzCheck(name: string, check: HealthChecker): void {
    this.checks.add("readyz", name, check, this.phase !== "new");
  }

  /**
   * A recorder whose events carry `source.component = name` (`GetEventRecorderFor`), and `source.host = host` when
   * given (a kubelet's node); `reportingComponent`/`reportingInstance` repeat them. Needs `client`. An object taken
   * from one of the manager's caches without `apiVersion`/`kind` (an informer's listed objects carry none) gets them
   * from the informer's descriptor in the Event's `involvedObject`, as controller-runtime takes them from its scheme —
   * so `kubectl describe` finds the Event.
   */
  getEventRecorderFor(name: string, host?: string): EventRecorder {
    if (this.client === undefined) throw new TypeError("manager: getEventRecorderFor needs a client");
    this.broadcaster ??= new EventBroadcaster({
      client: this.client,
      clock: this.clock,
      rand: this.rand,
      metrics: this.metrics,
      logger: this.logger,
    });
    const source = { component: name, ...(host !== undefined && { host }) };
    return typedEventRecorder(this.broadcaster.newRecorder(source), this.descriptors);
  }

  /**
   * Whether a leader-elected controller may reconcile now: with leader fencing, false (and leadership stops) once the
   * lease may have expired by the local clock; otherwise true. The builder hands it to the controllers.
   */
  readonly admitReconcile = (): boolean => this.elector?.fence() ?? true;

  /** The probe server's address once listening. */
  probeAddress(): { address: string; port: number } | undefined {
    const a = this.probe?.address();
    return a === undefined ? undefined : { address: a.address, port: a.port };
  }

  /** The metrics server's address once listening (the `metricsServer` option). */
  metricsAddress(): { address: string; port: number } | undefined {
    const a = this.metricsProbe?.address();
    return a === undefined ? undefined : { address: a.address, port: a.port };
  }

  /** Why the manager is not ready, or `undefined` when it is (the `/readyz` check). */
  notReadyReason(): string | undefined {
    if (this.phase !== "running") return `manager is ${this.phase}`;
    // Informers created after the start and not started (yet) are not waited for.
    const unsynced = [...this.factory.list()].filter(([, inf]) => inf.hasStarted() && !inf.hasSynced()).map(([k]) => k);
    if (!this.synced || unsynced.length > 0) return `informers not synced: ${unsynced.sort().join(", ") || "starting"}`;
    if (this.elector !== undefined && this.elector.getLeader() === "") return "no leader known yet";
    return undefined;
  }

  /** Runs everything until `signal` aborts (see the class contract). Once per manager. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.phase !== "new") throw new Error("manager was started more than once");
    this.phase = "running";
    let signals: SignalHandler | undefined;
    let failure: unknown;
    const stop = new AbortController();
    const others = new AbortController();
    const leading = new AbortController();
    let graceTimer: Timer | undefined;
    let deadlineReached!: () => void;
    const deadline = new Promise<void>((resolve) => {
      deadlineReached = resolve;
    });
    const timeout = this.gracefulShutdownTimeout;
    stop.signal.addEventListener(
      "abort",
      () => {
        if (timeout === 0) deadlineReached();
        else if (timeout > 0 && Number.isFinite(timeout)) graceTimer = this.clock.afterFunc(timeout, deadlineReached);
      },
      { once: true },
    );
    const state: RunState = {
      stop,
      leading,
      deadline,
      started: [],
      others: undefined,
      leaders: undefined,
      fail: (err) => {
        failure ??= err;
        stop.abort(err);
      },
    };
    this.state = state;
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    if (this.options.handleSignals === true) {
      signals = setupSignalHandler();
      signals.signal.addEventListener("abort", () => stop.abort(signals!.signal.reason), { once: true });
    }
    const informers = new AbortController();
    this.informersStop = informers;
    const background: Promise<unknown>[] = [];
    try {
      if (this.options.probe !== undefined) {
        this.probe = newManagerProbeServer(
          this.options.probe,
          this.checks,
          {
            ping: () => (this.phase === "running" ? undefined : `manager is ${this.phase}`),
            manager: () => this.notReadyReason(),
          },
          this.metrics,
        );
        const url = await this.probe.start();
        safeLog(this.log, "info", "Serving probes and metrics", { url });
        this.events.next({ type: "probeListening", url });
      }
      if (this.options.metricsServer !== undefined) {
        this.metricsProbe = newManagerProbeServer(
          this.options.metricsServer,
          new ManagerChecks(),
          { ping: () => undefined, manager: () => undefined },
          this.metrics,
        );
        const url = await this.metricsProbe.start();
        safeLog(this.log, "info", "Serving metrics", { url: `${url}/metrics` });
      }
      if (this.broadcaster !== undefined) background.push(this.broadcaster.run(informers.signal));
      this.factory.start(informers.signal);
      const synced = await this.waitForSync(stop.signal);
      if (!synced) {
        if (!stop.signal.aborted) {
          const unsynced = [...this.factory.list()].filter(([, inf]) => !inf.hasSynced());
          for (const [key, inf] of unsynced) {
            safeLog(this.log, "error", "Could not wait for Cache to sync", syncStallFields(key, inf));
          }
          throw new Error(
            `manager: caches did not sync within ${this.options.cacheSyncTimeout ?? 120_000} ms: ${unsynced.map(([k]) => k).join(", ")}`,
          );
        }
        return;
      }
      this.synced = true;
      this.events.next({ type: "cachesSynced" });
      const unelected = this.runnables.filter((r) => !needsLeaderElection(r.runnable));
      if (unelected.length > 0) {
        this.events.next({ type: "runnablesStarted", names: unelected.map((r) => r.name), leaderElection: false });
      }
      state.others = { signal: others.signal, group: [] };
      for (const r of unelected) state.others.group.push(this.start(r.name, r.runnable, others.signal));
      const leaderDone = (
        this.elector === undefined ? this.lead(leading.signal) : this.elector.run(leading.signal)
      ).catch((err: unknown) => state.fail(err));
      if (this.elector === undefined) {
        await abortedOf(stop.signal);
      } else {
        await Promise.race([abortedOf(stop.signal), leaderDone]);
        // The elector gave up on its own: this replica lost its lease.
        if (!stop.signal.aborted) {
          safeLog(this.log, "error", "leader election lost", { identity: this.elector.status().identity });
          state.fail(this.leadershipLost());
        }
      }
      // The stop procedure (upstream's order): runnables without leader election first, then the leader-elected ones.
      others.abort(stop.signal.reason);
      await Promise.race([allStopped(state.others.group), deadline]);
      leading.abort(stop.signal.reason);
      await Promise.race([leaderDone, deadline]);
      // `lead` may have returned before runnables added later joined its group.
      await Promise.race([allStopped(state.leaders?.group ?? []), deadline]);
      const stuck = state.started.filter((r) => !r.settled).map((r) => r.name);
      if (stuck.length > 0 && timeout > 0) {
        const err = new GracefulShutdownTimeoutError(timeout, stuck);
        this.events.next({ type: "error", source: "manager", error: err });
        failure ??= err;
      }
    } catch (err) {
      failure ??= err;
    } finally {
      stop.abort(new Error("manager stopped"));
      others.abort(stop.signal.reason);
      leading.abort(stop.signal.reason);
      graceTimer?.stop();
      // A controller shuts its queue down when its run ends; one never started (a standby, caches that never synced)
      // would otherwise keep its queue — and the queue's metrics ticker, which keeps the process alive — forever.
      for (const r of this.runnables) if (r.runnable instanceof Controller) r.runnable.queue.shutDown();
      informers.abort(new Error("manager stopped"));
      await this.factory.shutdown();
      await Promise.allSettled(background);
      await this.probe?.close();
      await this.metricsProbe?.close();
      signals?.dispose();
      signal.removeEventListener("abort", onAbort);
      this.phase = "stopped";
      this.events.next({ type: "stopped" });
      this.events.complete();
    }
    if (failure !== undefined) throw failure;
  }

  private leadershipLost(): LeaderElectionLostError {
    return new LeaderElectionLostError(`leader election lost: ${this.elector?.status().identity} stopped leading`);
  }

  /**
   * Runs the leader-elected runnables (all of them without leader election) until `signal` aborts and they have
   * stopped, or the grace period is over. With leader election, `signal` aborting while `run` has not asked for it
   * means this replica stopped leading: that fails the run.
   */
  private async lead(signal: AbortSignal): Promise<void> {
    const state = this.state!;
    const elected = this.runnables.filter((r) => needsLeaderElection(r.runnable));
    const controllers = elected.filter((r) => r.runnable instanceof Controller).map((r) => r.name);
    const rest = elected.filter((r) => !(r.runnable instanceof Controller)).map((r) => r.name);
    if (this.elector !== undefined) this.events.next({ type: "startedLeading" });
    this.events.next({ type: "controllersStarted", names: controllers });
    if (rest.length > 0) this.events.next({ type: "runnablesStarted", names: rest, leaderElection: true });
    const onAbort = () => {
      if (state.leading.signal.aborted) return;
      safeLog(this.log, "error", "leader election lost", { identity: this.elector?.status().identity });
      state.fail(this.leadershipLost());
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const leaders = { signal, group: [] as Started[] };
    state.leaders = leaders;
    for (const r of elected) leaders.group.push(this.start(r.name, r.runnable, signal));
    await Promise.race([allStopped(leaders.group), state.deadline]);
    signal.removeEventListener("abort", onAbort);
  }

  /**
   * Starts one runnable. Its failure is an `error` event and — unless the stop has already begun, as upstream only
   * logs errors after that — fails the run with a {@link RunnableError}.
   */
  private start(name: string, runnable: Runnable, signal: AbortSignal): Started {
    const state = this.state!;
    const started = startRunnable(name, runnable, signal, (err) => {
      this.events.next({ type: "error", source: name, error: err });
      if (!state.stop.signal.aborted) state.fail(new RunnableError(name, err));
    });
    state.started.push(started);
    return started;
  }

  private async waitForSync(signal: AbortSignal): Promise<boolean> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    if (signal.aborted) return false;
    signal.addEventListener("abort", onAbort, { once: true });
    const timeout = this.options.cacheSyncTimeout ?? 120_000;
    const timer = this.clock.afterFunc(timeout, () => ac.abort(new Error("cache sync timeout")));
    const stopWatch = watchSyncStalls(
      () => this.factory.list(),
      this.clock,
      this.options.syncStallWarning ?? 10_000,
      this.log,
    );
    try {
      const res = await this.factory.waitForCacheSync(ac.signal);
      return res.err === undefined;
    } finally {
      stopWatch();
      timer.stop();
      signal.removeEventListener("abort", onAbort);
    }
  }
}
