import {
  type FieldError,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newConflict,
  newInvalid,
  newNotFound,
  newTooManyRequests,
  StatusError,
  stoppingIterator,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { type Clock, mathRand, type Rand, realClock, seededRand, type Timer } from "@informer-ts/clock";
import { type Logger, type MetricsProvider, noopMetrics, safeLog } from "@informer-ts/instrumentation";
import type { HttpFault, HttpRequestDescriptor } from "../http/backend.js";
import { HttpFaultInjector } from "../http/http-faults.js";
import { type DecodedListOptions, setListOptionsDefaults, validateListOptions } from "../http/query.js";
import { CacheMetrics, RequestAccounting } from "./accounting.js";
import { CacheWatcher, type WatchCloseReason } from "./cache-watcher.js";
import { Cacher, type CacherConfig, type ServedFrom, servedFromOfError } from "./cacher.js";
import { CrdFinalizer } from "./crd-finalizer.js";
import {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  CUSTOM_RESOURCE_DEFINITIONS,
  establishedDefinition,
  resourceFromCrd,
  validateCustomResourceDefinition,
  withTerminatingCondition,
} from "./custom-resource-definitions.js";
import { EVENT_FRESH_DURATION_MS, HISTORY_LOWER_BOUND, HISTORY_UPPER_BOUND } from "./event-history.js";
import { ServerSideApply } from "./field-manager/server-side-apply.js";
import { GarbageCollector } from "./garbage-collector.js";
import { NamespaceController } from "./namespace-controller.js";
import { rfc3339Seconds } from "./object-util.js";
import type { DeleteOptions } from "./registry/delete-options.js";
import { applyPatch, type PatchType, patchTypeOf, unsupportedPatchType } from "./registry/patch.js";
import { type ScaleSubresource, scaleOf, validateScale, withScaledReplicas } from "./registry/scale.js";
import { type FieldManager, RegistryStore } from "./registry/store.js";
import { BUILTIN_RESOURCES, groupResourceString, type SimResource } from "./resources.js";
import { type ParsedSelectors, parseSelectors, type Selection, selectionFor } from "./selection.js";
import { MvccStorage, type StorageEvent } from "./storage.js";
import { BUDGET_REFRESH_MS_PER_SECOND, MAX_DISPATCH_BUDGET_MS } from "./time-budget.js";

/** Options of {@link SimApiServer}. Every default is kube-apiserver v1.34's value. */
export interface SimApiServerOptions {
  /** Time source (default real time). Tests pass a `FakeClock`. */
  readonly clock?: Clock;
  /** Randomness (uids, generated names, jitter, watch timeouts); default `Math.random`. */
  readonly rand?: Rand;
  /** Served resources (default {@link BUILTIN_RESOURCES}); more can be added with {@link SimApiServer.register}. */
  readonly resources?: readonly SimResource[];
  /** The WatchList feature gate (default true). Off: `sendInitialEvents` is rejected with the real 422. */
  readonly watchList?: boolean;
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
   * The `ListFromCacheSnapshot` feature gate (default true, as v1.34): exact-RV lists and continuations are served from
   * the watch cache while its event history covers the RV. False reproduces v1.33 and older: always from storage.
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
}

/** Seed of the Rand that draws the system namespaces' uids (kept apart from the engine's `rand`). */
const SYSTEM_NAMESPACES_SEED = 0x6b756265;

/** Who asks, for accounting and fault matching. */
export interface RequestContext {
  readonly userAgent?: string;
  readonly signal?: AbortSignal;
  /**
   * Set by the engine: where a read was served from. The HTTP face reads it to record the request once, with bytes.
   */
  servedFrom?: ServedFrom;
  /**
   * Set by the engine: the in-process `truncate-watch` fault chosen for this request (the fault rules are consulted
   * once per request, so `count`/`every` hold).
   */
  truncateAfterEvents?: number;
  /**
   * Read by {@link SimApiServer.watch}: the request came through a deprecated `/watch/` path without `watch=true`.
   * kube-apiserver defaults and validates such a request's options as a list's (its `watch` parameter is false) and
   * only then forces the watch, so the WatchList defaulting (legacy RV ""/"0" → `sendInitialEvents`) and the watch
   * rows of the 422 matrix do not apply to it. The HTTP face sets it; in-process callers have no such path.
   */
  readonly legacyWatchPath?: boolean;
  /** Writes: `dryRun=All` (validated, nothing stored). */
  readonly dryRun?: boolean;
  /** Writes: the field manager (`fieldManager` query parameter). */
  readonly fieldManager?: string;
  /** Apply patches: `force=true`. */
  readonly force?: boolean;
  /** Writes and GET: `"status"` addresses the status subresource (404 for resources without one). */
  readonly subresource?: string;
  /**
   * Set by {@link SimApiServer.delete}: whether the object is gone (false: finalizers hold it, and the answer is the
   * object with its deletionTimestamp instead of a Status).
   */
  deleted?: boolean;
  /** Set by {@link SimApiServer.patch}: the (server-side apply) patch created the object. */
  created?: boolean;
}

/** A resource given by object or by name: `configmaps`, `deployments.apps`, `leases.coordination.k8s.io`. */
export type ResourceRef = SimResource | string;

/** An open watch on the engine: async-iterable in-process, and pullable by the HTTP face. */
export interface SimWatch extends AsyncIterable<WatchEvent> {
  next(): Promise<IteratorResult<WatchEvent>>;
  stop(): void;
}

/** Scope of an in-process {@link SimApiServer.listerWatcher}. */
export interface ListerWatcherScope {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly userAgent?: string;
}

/** The in-process list/watch source (structurally `@informer-ts/cache`'s `ListerWatcher`). */
export interface InProcessListerWatcher {
  list(options: ListOptions, signal?: AbortSignal): Promise<KubeList>;
  watch(options: ListOptions, signal?: AbortSignal): Promise<SimWatch>;
}

/** Which bookmarks the server sends (fault injection). */
export type BookmarkMode = "on" | "no-periodic" | "off";

/** Engine-level latency rule: requests matching it take `ms` longer (on the engine's clock). */
export interface LatencyRule {
  readonly ms: number;
  readonly verbs?: readonly string[];
  readonly resource?: string;
}

/**
 * Which open watchers a watcher fault applies to; every given field must match (absent = any).
 */
export interface WatcherSelector {
  /** Only watchers of this resource. */
  readonly resource?: ResourceRef;
  /** Only watchers whose request's User-Agent contains this. */
  readonly userAgent?: string;
  /** Only these watcher ids (ids are per resource, see {@link SimApiServer.watcherInfo}). */
  readonly ids?: readonly number[];
}

/** One open watcher, as the admin API shows it. */
export interface WatcherInfo {
  readonly resource: string;
  readonly id: number;
  readonly userAgent: string;
  readonly description: string;
  readonly stalled: boolean;
  readonly inputLength: number;
  readonly resultLength: number;
  readonly delivered: number;
}

/** A connection-level failure of an in-process request or watch (what a reset TCP connection looks like). */
export class SimConnectionError extends Error {
  override readonly name = "SimConnectionError";
  readonly code = "ECONNRESET";
}

/** An in-process watch cut in the middle of a line (the in-process face of the `truncate-watch` fault). */
export class SimTruncatedWatchError extends Error {
  override readonly name = "SimTruncatedWatchError";
  /** Node's code for a stream that ended before it was complete: clients classify it as a probable EOF. */
  readonly code = "ERR_STREAM_PREMATURE_CLOSE";
}

function toDecoded(opts: ListOptions, watch: boolean): DecodedListOptions {
  return {
    watch,
    labelSelector: opts.labelSelector ?? "",
    fieldSelector: opts.fieldSelector ?? "",
    resourceVersion: opts.resourceVersion ?? "",
    resourceVersionMatch: opts.resourceVersionMatch ?? "",
    limit: opts.limit ?? 0,
    continue: opts.continue ?? "",
    timeoutSeconds: opts.timeoutSeconds,
    allowWatchBookmarks: opts.allowWatchBookmarks === true,
    sendInitialEvents: opts.sendInitialEvents,
  };
}

/**
 * The simulated kube-apiserver's engine: MVCC storage with one global resourceVersion, a watch cache per resource
 * (ring buffer, dispatcher with the shared time budget, bookmarks, freshness waits, readiness), list/get/watch per
 * the tables of reference/apiserver.md, writes, request accounting and fault injection. The HTTP face
 * (`SimHttpServer` + `EngineBackend`) and in-process callers ({@link listerWatcher}) use the same methods, so the
 * semantics are identical with and without sockets; under a `FakeClock` everything is deterministic.
 */
export class SimApiServer {
  readonly clock: Clock;
  readonly rand: Rand;
  readonly storage: MvccStorage;
  /** The write path (create/update/patch/delete semantics); see {@link RegistryStore}. */
  readonly registry: RegistryStore;
  /** The simulated garbage collector and namespace controller (undefined with `controllers: false`). */
  readonly garbageCollector: GarbageCollector | undefined;
  readonly namespaceController: NamespaceController | undefined;
  /** Deletes a deleted CustomResourceDefinition's objects, then the definition (absent with `controllers: false`). */
  readonly crdFinalizer: CrdFinalizer | undefined;
  readonly accounting: RequestAccounting;
  /** Request faults (429, error statuses, truncated watches, dropped connections), shared with the HTTP face. */
  readonly faults: HttpFaultInjector;
  readonly watchListEnabled: boolean;
  readonly minRequestTimeoutSeconds: number;
  private readonly cfg: CacherConfig;
  private readonly byName = new Map<string, SimResource>();
  private readonly cachers = new Map<SimResource, Cacher>();
  /** Resources served because a CustomResourceDefinition (by name) declares them. */
  private readonly definitions = new Map<string, SimResource>();
  private readonly cacheMetrics: CacheMetrics;
  private readonly logger: Logger | undefined;
  private readonly defaultUserAgent: string;
  private readonly progressIntervalMs: number;
  private progressTimer: Timer | undefined;
  private readonly compactionIntervalMs: number;
  private compactionTimer: Timer | undefined;
  private lastObservedRevision = 0;
  private writesSinceCompaction = false;
  private bookmarks: BookmarkMode = "on";
  private latencyRules: LatencyRule[] = [];
  private stallRules: WatcherSelector[] = [];
  private readonly watcherUserAgents = new WeakMap<CacheWatcher, string>();
  private stopped = false;

  constructor(opts: SimApiServerOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.rand = opts.rand ?? mathRand;
    this.storage = new MvccStorage(this.clock, this.rand, opts.initialResourceVersion ?? 1);
    this.accounting = new RequestAccounting(opts.metrics ?? noopMetrics);
    this.cacheMetrics = new CacheMetrics(opts.metrics ?? noopMetrics);
    this.faults = new HttpFaultInjector(this.rand);
    this.watchListEnabled = opts.watchList ?? true;
    this.minRequestTimeoutSeconds = opts.minRequestTimeoutSeconds ?? 1800;
    this.logger = opts.logger;
    this.defaultUserAgent = opts.defaultUserAgent ?? "informer-ts-inprocess";
    this.progressIntervalMs = opts.progressNotifyIntervalMs ?? 5000;
    this.compactionIntervalMs = opts.compactionIntervalMs ?? 5 * 60_000;
    this.cfg = {
      bookmarkFrequencyMs: opts.bookmarkFrequencyMs ?? 60_000,
      blockTimeoutMs: opts.blockTimeoutMs ?? 3000,
      eventFreshMs: opts.eventFreshMs ?? EVENT_FRESH_DURATION_MS,
      historyLowerBound: opts.historyLowerBound ?? HISTORY_LOWER_BOUND,
      historyUpperBound: opts.historyUpperBound ?? HISTORY_UPPER_BOUND,
      cacheLagMs: opts.cacheLagMs ?? 0,
      listFromCacheSnapshot: opts.listFromCacheSnapshot ?? true,
      dispatchBudgetMs: opts.dispatchBudgetMs ?? MAX_DISPATCH_BUDGET_MS,
      budgetRefreshMsPerSecond: opts.budgetRefreshMsPerSecond ?? BUDGET_REFRESH_MS_PER_SECOND,
    };
    this.registry = new RegistryStore({
      storage: this.storage,
      clock: this.clock,
      rand: this.rand,
      namespaces: () => this.byName.get("namespaces"),
      namespaceLifecycle: opts.namespaceLifecycle ?? true,
    });
    // Server-side apply and managedFields unless the caller installs its own hook.
    this.registry.fieldManager =
      opts.fieldManager ?? new ServerSideApply(this.clock, (r) => this.registry.strategy(r).hasStatus);
    const initial = opts.resources ?? BUILTIN_RESOURCES;
    const namespaces = initial.find((r) => r.group === "" && r.resource === "namespaces");
    if ((opts.systemNamespaces ?? true) && namespaces !== undefined) {
      // Their uids come from a Rand of their own, so the engine's seeded sequence is the same with and without them.
      const seeder = new RegistryStore({
        storage: this.storage,
        clock: this.clock,
        rand: seededRand(SYSTEM_NAMESPACES_SEED),
        namespaces: () => namespaces,
        namespaceLifecycle: false,
      });
      this.storage.seedAtInitialRevision(() => seeder.ensureSystemNamespaces(namespaces));
    }
    this.storage.subscribe({
      onEvent: (ev) => this.onStorageEvent(ev),
      onRevision: () => this.armProgress(),
    });
    for (const r of initial) this.register(r);
    if (opts.controllers === false) {
      this.garbageCollector = undefined;
      this.namespaceController = undefined;
      this.crdFinalizer = undefined;
    } else {
      const delayMs = opts.controllers?.delayMs ?? 0;
      const deps = {
        storage: this.storage,
        registry: this.registry,
        clock: this.clock,
        resources: () => this.resources(),
        delayMs,
      };
      this.garbageCollector = new GarbageCollector(deps);
      this.namespaceController = new NamespaceController(deps);
      this.crdFinalizer = new CrdFinalizer(deps, {
        served: (name) => this.definitions.get(name),
        retire: (name) => this.retireDefinition(name),
        now: () => rfc3339Seconds(this.clock.now()),
      });
    }
  }

  // ---- resources ----------------------------------------------------------------------------------------------

  /** Adds a resource (a custom resource, typically); its watch cache starts empty and ready. */
  /**
   * Serves the resource a stored CustomResourceDefinition declares (apiextensions-apiserver's `crdHandler` once the
   * definition is Established). A resource that is already served (a built-in or one registered by hand) is left
   * as it is.
   */
  private serveDefinition(crd: KubeObject): void {
    const r = resourceFromCrd(crd);
    if (this.byName.has(groupResourceString(r))) return;
    this.register(r);
    this.definitions.set(crd.metadata!.name!, r);
  }

  /**
   * Stores a CustomResourceDefinition straight in storage, as if it existed before the server started (seeding),
   * and serves its resource: validated (422 with upstream's messages, nothing stored), with the defaults and status
   * the apiextensions controllers write. Requests go through {@link create}, which does the same through the
   * registry.
   */
  seedDefinition(crd: KubeObject): KubeObject {
    const errs = validateCustomResourceDefinition(crd);
    if (errs.length > 0) {
      const gk = { group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" };
      throw newInvalid(gk, crd.metadata?.name ?? "", errs);
    }
    const stored = this.storage.create(
      CUSTOM_RESOURCE_DEFINITIONS,
      "",
      establishedDefinition(crd, rfc3339Seconds(this.clock.now())),
    );
    this.serveDefinition(stored);
    return stored;
  }

  /**
   * The CustomResourceDefinition REST's first delete: the `customresourcecleanup.apiextensions.k8s.io` finalizer and
   * `Terminating` (`InstanceDeletionPending`) are written first, so the registry's delete then only sets the
   * deletionTimestamp and the {@link CrdFinalizer} empties the resource before the definition goes. Preconditions
   * are checked against the definition as it was; returns the options for the delete that follows.
   */
  private markDefinitionDeleting(name: string, options: DeleteOptions | undefined, ctx?: RequestContext) {
    const current = this.storage.get(CUSTOM_RESOURCE_DEFINITIONS, "", name);
    if (current === undefined || current.metadata?.deletionTimestamp !== undefined) return options;
    const pre = options?.preconditions;
    const uidOk = pre?.uid === undefined || pre.uid === current.metadata?.uid;
    const rvOk = pre?.resourceVersion === undefined || pre.resourceVersion === current.metadata?.resourceVersion;
    if (!uidOk || !rvOk) return options; // the registry answers the 409
    let next = structuredClone(current);
    const finalizers = next.metadata?.finalizers ?? [];
    if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
      next.metadata = { ...next.metadata, finalizers: [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER] };
    }
    next = withTerminatingCondition(
      next,
      "InstanceDeletionPending",
      "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
      rfc3339Seconds(this.clock.now()),
    );
    this.registry.update(CUSTOM_RESOURCE_DEFINITIONS, "", name, next, writeOptions(ctx, this.defaultUserAgent));
    if (pre === undefined) return options;
    const { resourceVersion: _rv, ...rest } = pre;
    return { ...options, preconditions: rest };
  }

  /**
   * Stops serving what a deleted definition declared (apiextensions' `CRDFinalizer`): every object of the resource
   * is deleted (watchers see DELETED events), then its watchers end and requests for it are 404.
   */
  private retireDefinition(name: string): void {
    const r = this.definitions.get(name);
    if (r === undefined) return;
    this.definitions.delete(name);
    for (const [, obj] of this.storage.snapshot(r)) {
      this.storage.delete(r, obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
    }
    this.byName.delete(groupResourceString(r));
    const cacher = this.cachers.get(r);
    this.cachers.delete(r);
    cacher?.retire();
  }

  register(r: SimResource): SimResource {
    const name = groupResourceString(r);
    if (this.byName.has(name)) throw new Error(`resource ${name} is already registered`);
    this.byName.set(name, r);
    this.cachers.set(
      r,
      // The hooks run inside the dispatcher and timer callbacks: a throwing metrics provider or log sink must not
      // lose an event for the remaining watchers or escape as an uncaught exception, so each one is guarded.
      new Cacher(r, this.storage, this.clock, this.rand, this.cfg, {
        onWatcherTerminated: (res, message) => {
          guarded(() => this.cacheMetrics.terminatedWatchers.inc({ group: res.group, resource: res.resource }));
          this.logLine(message);
        },
        onWatcherCountChanged: (res, delta) =>
          guarded(() => this.cacheMetrics.registeredWatchers.inc({ group: res.group, resource: res.resource }, delta)),
        onEventsDispatched: (res, n) =>
          guarded(() => this.cacheMetrics.dispatchedEvents.inc({ group: res.group, resource: res.resource }, n)),
        bookmarkMode: () => this.bookmarks,
        log: (message) => this.logLine(message),
      }),
    );
    return r;
  }

  /** Writes an `info` line to the `logger` option; a throwing logger is ignored. */
  private logLine(line: string): void {
    if (this.logger !== undefined) safeLog(this.logger, "info", line);
  }

  /** Every served resource. */
  resources(): readonly SimResource[] {
    return [...this.byName.values()];
  }

  /** Looks a resource up; throws 404 naming it when it is not served. */
  resource(ref: ResourceRef): SimResource {
    if (typeof ref !== "string") {
      if (this.cachers.has(ref)) return ref;
      ref = groupResourceString(ref);
    }
    const r = this.byName.get(ref);
    if (r === undefined) {
      throw new StatusError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `the server could not find the requested resource (${ref})`,
        reason: "NotFound",
        details: {},
        code: 404,
      });
    }
    return r;
  }

  /** The watch cache of a resource (for tests, metrics and the admin API). */
  cacher(ref: ResourceRef): Cacher {
    return this.cachers.get(this.resource(ref))!;
  }

  /** The global resourceVersion (etcd's current revision). */
  get currentResourceVersion(): number {
    return this.storage.currentRevision;
  }

  // ---- background: progress notify and compaction -------------------------------------------------------------

  private onStorageEvent(ev: StorageEvent): void {
    this.cachers.get(ev.resource)?.onStorageEvent(ev);
    this.writesSinceCompaction = true;
    this.armCompaction();
    this.armProgress();
  }

  // Idle caches fall behind the global RV when other resources change; etcd's progress notifications (every 5 s)
  // bring them forward. The timer only runs while some cache is behind, so an idle server has no pending timers.
  private armProgress(): void {
    if (this.progressIntervalMs <= 0 || this.progressTimer !== undefined || this.stopped) return;
    this.progressTimer = this.clock.afterFunc(this.progressIntervalMs, () => {
      this.progressTimer = undefined;
      const rev = this.storage.currentRevision;
      for (const c of this.cachers.values()) if (c.resourceVersion < rev) c.onProgress(rev);
    });
  }

  private armCompaction(): void {
    if (this.compactionIntervalMs <= 0 || this.compactionTimer !== undefined || this.stopped) return;
    this.compactionTimer = this.clock.afterFunc(this.compactionIntervalMs, () => {
      this.compactionTimer = undefined;
      if (this.lastObservedRevision > 0) this.storage.compact(this.lastObservedRevision);
      this.lastObservedRevision = this.storage.currentRevision;
      if (this.writesSinceCompaction) {
        this.writesSinceCompaction = false;
        this.armCompaction();
      }
    });
  }

  // ---- faults -------------------------------------------------------------------------------------------------

  /** Compacts storage history below `rev` (default: now). Lists/continues older than that get 410. */
  compact(rev?: number): number {
    return this.storage.compact(rev);
  }

  /**
   * Re-initializes watch caches (all, or one resource) as after their etcd watch broke: every watcher is closed, the
   * history is emptied (older RVs now get 410), and for `downtimeMs` watches get 429.
   */
  reinitializeCache(ref?: ResourceRef, downtimeMs = 0): void {
    const targets = ref === undefined ? [...this.cachers.values()] : [this.cacher(ref)];
    for (const c of targets) {
      this.logLine(`cacher (${groupResourceString(c.resource)}): re-initializing, ${c.watcherCount} watchers closed`);
      c.reinitialize(downtimeMs);
    }
  }

  /**
   * Closes open watches (all, or of one resource) the way a dropped connection does. In-process iteration ends, or
   * throws {@link SimConnectionError} with `asError`. Returns how many were closed.
   */
  dropWatches(ref?: ResourceRef, asError = false): number {
    const targets = ref === undefined ? [...this.cachers.values()] : [this.cacher(ref)];
    let n = 0;
    for (const c of targets) {
      n += c.dropWatchers(() => true, asError ? new SimConnectionError("watch connection dropped (fault)") : undefined);
    }
    return n;
  }

  /** Bookmark fault: "no-periodic" stops periodic bookmarks, "off" also the watch-list end marker. */
  setBookmarkMode(mode: BookmarkMode): void {
    this.bookmarks = mode;
  }

  get bookmarkMode(): BookmarkMode {
    return this.bookmarks;
  }

  /** Adds request latency (engine clock); returns a function that removes the rule. */
  addLatency(rule: LatencyRule): () => void {
    if (!(rule.ms >= 0)) throw new Error(`latency: ms must be ≥ 0, got ${rule.ms}`);
    this.latencyRules.push(rule);
    return () => {
      this.latencyRules = this.latencyRules.filter((r) => r !== rule);
    };
  }

  private async latency(verb: string, r: SimResource): Promise<void> {
    let ms = 0;
    for (const rule of this.latencyRules) {
      if (rule.verbs !== undefined && !rule.verbs.includes(verb)) continue;
      if (rule.resource !== undefined && rule.resource !== r.resource) continue;
      ms += rule.ms;
    }
    if (ms > 0) await this.clock.sleep(ms);
  }

  private selected(sel: WatcherSelector): Array<[SimResource, CacheWatcher]> {
    const targets = sel.resource === undefined ? [...this.cachers.values()] : [this.cacher(sel.resource)];
    const out: Array<[SimResource, CacheWatcher]> = [];
    for (const c of targets) {
      for (const w of c.openWatchers()) if (this.watcherMatches(c.resource, w, sel)) out.push([c.resource, w]);
    }
    return out;
  }

  private watcherMatches(r: SimResource, w: CacheWatcher, sel: WatcherSelector): boolean {
    if (sel.resource !== undefined && this.resource(sel.resource) !== r) return false;
    if (sel.ids !== undefined && !sel.ids.includes(w.id)) return false;
    if (sel.userAgent !== undefined && !(this.watcherUserAgents.get(w) ?? "").includes(sel.userAgent)) return false;
    return true;
  }

  /**
   * Fault "a watcher that stops reading": the matching open watchers stop draining their result buffer (their
   * consumer, in-process or the HTTP stream, receives nothing), so under churn their buffers fill and the dispatcher's
   * time budget closes them, exactly as for a client that stopped reading. With `future`, watchers opened later that
   * match are stalled too, until {@link resumeWatchers}. Returns how many open watchers were stalled.
   */
  stallWatchers(sel: WatcherSelector = {}, future = false): number {
    if (sel.resource !== undefined) this.resource(sel.resource);
    if (future) this.stallRules.push(sel);
    let n = 0;
    for (const [, w] of this.selected(sel)) {
      if (!w.isStalled) n++;
      w.setStalled(true);
    }
    return n;
  }

  /** Undoes {@link stallWatchers}: removes every stall rule and resumes the matching stalled watchers. */
  resumeWatchers(sel: WatcherSelector = {}): number {
    this.stallRules = [];
    let n = 0;
    for (const [, w] of this.selected(sel)) {
      if (w.isStalled) n++;
      w.setStalled(false);
    }
    return n;
  }

  /** Every open watcher (all resources, or one), with its id, user agent and buffer fill. */
  watcherInfo(ref?: ResourceRef): WatcherInfo[] {
    return this.selected(ref === undefined ? {} : { resource: ref }).map(([r, w]) => ({
      resource: groupResourceString(r),
      id: w.id,
      userAgent: this.watcherUserAgents.get(w) ?? "",
      description: w.description,
      stalled: w.isStalled,
      inputLength: w.inputLength,
      resultLength: w.resultLength,
      delivered: w.delivered,
    }));
  }

  // A new watch: remember who opened it (watcher faults select by user agent) and apply future stall rules.
  private watchOpened(r: SimResource, w: unknown, userAgent: string): void {
    if (!(w instanceof CacheWatcher)) return;
    this.watcherUserAgents.set(w, userAgent);
    if (this.stallRules.some((sel) => this.watcherMatches(r, w, sel))) w.setStalled(true);
  }

  /** The request fault for an HTTP request (the HTTP face applies it). */
  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    return this.faults.faultFor(req);
  }

  // ---- requests -----------------------------------------------------------------------------------------------

  private async serve<T>(
    requestVerb: string,
    r: SimResource,
    namespace: string,
    ctx: RequestContext | undefined,
    inProcess: boolean,
    fn: () => Promise<T> | T,
  ): Promise<T> {
    const start = this.clock.now();
    // Server-side apply is a PATCH; metrics report it as APPLY.
    const apply = requestVerb === "apply";
    const verb = apply ? "patch" : requestVerb;
    const userAgent = ctx?.userAgent ?? this.defaultUserAgent;
    let code = 200;
    const local: RequestContext = ctx ?? {};
    // The engine reports through these per call: a context reused for several calls must not carry them over.
    local.servedFrom = undefined;
    local.truncateAfterEvents = undefined;
    try {
      if (inProcess) {
        const fault = this.faults.faultFor({
          verb,
          group: r.group,
          version: r.version,
          resource: r.resource,
          namespace,
          name: "",
          userAgent,
        });
        if (fault?.type === "truncate-watch") local.truncateAfterEvents = fault.afterEvents;
        else if (fault !== undefined) throw inProcessFault(fault);
      }
      await this.latency(verb, r);
      const out = await fn();
      if (verb === "create") code = 201;
      return out;
    } catch (err) {
      code = err instanceof StatusError ? err.code : err instanceof SimConnectionError ? 0 : 500;
      throw err;
    } finally {
      if (inProcess) {
        this.accounting.record({
          verb,
          group: r.group,
          version: r.version,
          resource: r.resource,
          userAgent,
          code,
          servedFrom: local.servedFrom ?? "",
          latencyMs: this.clock.now() - start,
          bytes: 0,
          namespace,
          receivedAt: start,
          ...(apply && { apply }),
        });
      }
    }
  }

  /** Records where a failed read was answered (cache or storage), then rethrows. */
  private answered(ctx: RequestContext, err: unknown): never {
    const from = servedFromOfError(err);
    if (from !== undefined) ctx.servedFrom = from;
    throw err;
  }

  /**
   * The handler's `listOpts()` after decoding, in kube-apiserver's order: selector syntax (400), defaulting,
   * validation (422 matrix of reference/apiserver.md §2), field-label conversion (400 for a field the resource does
   * not have). `watch` is the request's `watch` parameter (false for a legacy `/watch/` path). Returns the defaulted
   * options and the selection; the default watch timeout is left to {@link watch}.
   */
  private listOpts(r: SimResource, opts: ListOptions, watch: boolean): { v: ListOptions; sel: Selection } {
    const parsed: ParsedSelectors = parseSelectors(opts.labelSelector, opts.fieldSelector);
    const v = this.validated(opts, watch);
    return { v, sel: selectionFor(r, parsed) };
  }

  /** `SetListOptionsDefaults` + `ValidateListOptions` on the engine's WatchList gate; throws the 422. */
  private validated(opts: ListOptions, watch: boolean): ListOptions {
    const d = toDecoded(opts, watch);
    setListOptionsDefaults(d, this.watchListEnabled);
    const errs: FieldError[] = validateListOptions(d, this.watchListEnabled);
    if (errs.length > 0) throw newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", errs);
    const out: ListOptions = { ...opts };
    if (d.sendInitialEvents !== undefined) out.sendInitialEvents = d.sendInitialEvents;
    if (d.resourceVersionMatch !== "") out.resourceVersionMatch = d.resourceVersionMatch as "NotOlderThan" | "Exact";
    return out;
  }

  /**
   * LIST. `opts` are the decoded query (typed, nothing defaulted); they are defaulted and validated here as
   * kube-apiserver does (400 selector syntax, then the 422 matrix, then 400 unknown field labels; 400 for bad
   * RVs/continue tokens).
   * `inProcess` (default true) applies request faults and records the request; the HTTP face passes false because it
   * does both itself.
   */
  list(
    ref: ResourceRef,
    namespace: string,
    opts: ListOptions = {},
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<KubeList> {
    const r = this.resource(ref);
    const local = ctx ?? {};
    return this.serve("list", r, namespace, local, inProcess, async () => {
      const { v, sel } = this.listOpts(r, opts, false);
      const res = await this.cachers
        .get(r)!
        .list(namespace, v, sel)
        .catch((err: unknown) => this.answered(local, err));
      local.servedFrom = res.servedFrom;
      return res.list;
    });
  }

  /** GET one object (RV unset: storage; "0": cache; N: cache once fresh). 404 when absent. */
  get(
    ref: ResourceRef,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string } = {},
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<KubeObject> {
    const r = this.resource(ref);
    const local = ctx ?? {};
    return this.serve("get", r, namespace, local, inProcess, async () => {
      const res = await this.cachers
        .get(r)!
        .get(namespace, name, opts.resourceVersion ?? "")
        .catch((err: unknown) => this.answered(local, err));
      local.servedFrom = res.servedFrom;
      if (res.object === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
      if (ctx?.subresource === "scale") return scaleOf(res.object, this.scalePaths(r));
      return res.object;
    });
  }

  /** The `/scale` paths of a resource; 404 (the route does not exist) when it has no scale subresource. */
  private scalePaths(r: SimResource): ScaleSubresource {
    const paths = r.subresources?.scale;
    if (paths === undefined) {
      throw new StatusError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        details: {},
        code: 404,
      });
    }
    return paths;
  }

  /**
   * Writes an `autoscaling/v1` Scale to its object (`/scale` PUT, and PATCH after patching the current Scale):
   * `spec.replicas` validated (422 `Scale.autoscaling "x" is invalid: spec.replicas: Invalid value: -1: must be
   * greater than or equal to 0`), a given `metadata.resourceVersion` must be the stored one (409), then the object's
   * desired replicas are set through the registry. Returns the new Scale.
   */
  private writeScale(r: SimResource, namespace: string, name: string, scale: KubeObject, ctx?: RequestContext) {
    const paths = this.scalePaths(r);
    const errs = validateScale(scale);
    if (errs.length > 0) throw newInvalid({ group: "autoscaling", kind: "Scale" }, name, errs);
    const current = this.storage.get(r, namespace, name);
    if (current === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
    const rv = scale.metadata?.resourceVersion;
    if (typeof rv === "string" && rv !== "" && rv !== current.metadata?.resourceVersion) {
      throw newConflict({ group: r.group, resource: r.resource }, name);
    }
    const next = withScaledReplicas(current, scale, paths);
    const stored = this.registry.update(r, namespace, name, next, {
      ...writeOptions(ctx, this.defaultUserAgent),
      subresource: "",
    });
    return scaleOf(stored, paths);
  }

  /**
   * CREATE through the registry ({@link RegistryStore.create}): generateName, uid, creationTimestamp, the kind's
   * strategy, validation, the namespace lifecycle; `ctx.dryRun` stores nothing.
   */
  create(
    ref: ResourceRef,
    namespace: string,
    obj: KubeObject,
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<KubeObject> {
    const r = this.resource(ref);
    return this.serve("create", r, namespace, ctx, inProcess, () => {
      if (r !== CUSTOM_RESOURCE_DEFINITIONS) {
        return this.registry.create(r, namespace, obj, writeOptions(ctx, this.defaultUserAgent));
      }
      const errs = validateCustomResourceDefinition(obj);
      if (errs.length > 0) {
        const gk = { group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" };
        throw newInvalid(gk, obj.metadata?.name ?? "", errs);
      }
      const stored = this.registry.create(
        r,
        namespace,
        establishedDefinition(obj, rfc3339Seconds(this.clock.now())),
        writeOptions(ctx, this.defaultUserAgent),
      );
      if (ctx?.dryRun !== true) this.serveDefinition(stored);
      return stored;
    });
  }

  /**
   * UPDATE (PUT) of an object, or of its status with `ctx.subresource: "status"` ({@link RegistryStore.update}).
   */
  update(
    ref: ResourceRef,
    namespace: string,
    name: string,
    obj: KubeObject,
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<KubeObject> {
    const r = this.resource(ref);
    return this.serve("update", r, namespace, ctx, inProcess, () => {
      if (ctx?.subresource === "scale") return this.writeScale(r, namespace, name, obj, ctx);
      if (r === CUSTOM_RESOURCE_DEFINITIONS && ctx?.subresource !== "status") {
        const errs = validateCustomResourceDefinition(obj);
        if (errs.length > 0) {
          throw newInvalid({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" }, name, errs);
        }
      }
      return this.registry.update(r, namespace, name, obj, writeOptions(ctx, this.defaultUserAgent));
    });
  }

  /**
   * PATCH of an object or its status (`ctx.subresource`): `type` is the patch content type (JSON patch, merge,
   * strategic merge for built-ins, apply); `body` its text ({@link RegistryStore.patch}).
   */
  patch(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType | string,
    body: string,
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<KubeObject> {
    const r = this.resource(ref);
    const local = ctx ?? {};
    const isApply = type.split(";")[0]!.trim().toLowerCase() === "application/apply-patch+yaml";
    return this.serve(isApply ? "apply" : "patch", r, namespace, local, inProcess, () => {
      local.created = false;
      if (ctx?.subresource === "scale") {
        const paths = this.scalePaths(r);
        const pt = patchTypeOf(type);
        if (pt === "application/apply-patch+yaml") {
          throw unsupportedPatchType([
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
          ]);
        }
        const current = this.storage.get(r, namespace, name);
        if (current === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
        const scale = applyPatch(pt, scaleOf(current, paths), body, { kind: "Scale", custom: false }) as KubeObject;
        return this.writeScale(r, namespace, name, scale, ctx);
      }
      return this.registry.patch(r, namespace, name, type, body, {
        ...writeOptions(ctx, this.defaultUserAgent),
        onCreated: () => {
          local.created = true;
        },
      });
    });
  }

  /**
   * DELETE ({@link RegistryStore.delete}): preconditions, propagation policy, finalizers. Returns the object's last
   * state; `ctx.deleted` tells whether it is gone or held by finalizers (then it carries its deletionTimestamp).
   * `options.dryRun` or `ctx.dryRun` stores nothing.
   */
  delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    options?: DeleteOptions,
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<KubeObject> {
    const r = this.resource(ref);
    const local = ctx ?? {};
    return this.serve("delete", r, namespace, local, inProcess, () => {
      const dryRun = ctx?.dryRun === true || options?.dryRun === true;
      const crd = r === CUSTOM_RESOURCE_DEFINITIONS && !dryRun;
      const opts = crd ? this.markDefinitionDeleting(name, options, ctx) : options;
      const res = this.registry.delete(r, namespace, name, {
        ...opts,
        ...(ctx?.dryRun === true && { dryRun: true }),
      });
      local.deleted = res.deleted;
      if (crd && res.deleted) this.retireDefinition(name);
      return res.object;
    });
  }

  /**
   * WATCH. `opts` are the decoded query, defaulted (WatchList) and validated here in kube-apiserver's order, as for
   * {@link list}; `ctx.legacyWatchPath` marks a watch forced by a `/watch/` path. Errors before the stream starts
   * (400, 422, 429 while the cache initializes) reject; later ones (410 too old, 504 too large for watch-list) arrive
   * as one ERROR event. Without `timeoutSeconds` the watch ends after a random time in [min-request-timeout, 2×),
   * drawn from the engine's `rand`.
   */
  watch(
    ref: ResourceRef,
    namespace: string,
    opts: ListOptions = {},
    ctx?: RequestContext,
    inProcess = true,
  ): Promise<SimWatch> {
    const r = this.resource(ref);
    const local = ctx ?? {};
    return this.serve("watch", r, namespace, local, inProcess, async () => {
      const { v, sel } = this.listOpts(r, opts, ctx?.legacyWatchPath !== true);
      // handleWatch: no (or a zero) timeoutSeconds → minRequestTimeout·(1+rand), drawn from the engine's Rand for
      // in-process and HTTP watches alike.
      if (v.timeoutSeconds === undefined || v.timeoutSeconds <= 0) {
        v.timeoutSeconds = Math.floor(this.minRequestTimeoutSeconds * (1 + this.rand.float()));
      }
      local.servedFrom = "cache";
      const w = await this.cachers.get(r)!.watch(namespace, v, sel);
      this.watchOpened(r, w, ctx?.userAgent ?? this.defaultUserAgent);
      // In-process callers stop a watch through their signal. The HTTP face (inProcess false) stops it itself when
      // the client goes away, so its lazily created per-request signal is never touched (about 1.3 KiB per watch).
      // A FixedWatch (one ERROR event) ends by itself; a CacheWatcher removes its listener when it closes, so a
      // caller that re-watches with one long-lived signal (a reflector's run) does not accumulate listeners.
      const signal = inProcess ? ctx?.signal : undefined; // reading it over HTTP would create the controller
      if (signal !== undefined && w instanceof CacheWatcher) {
        if (signal.aborted) w.stop();
        else {
          const onAbort = () => w.stop();
          signal.addEventListener("abort", onAbort, { once: true });
          w.whenClosed(() => signal.removeEventListener("abort", onAbort));
        }
      }
      if (inProcess && local.truncateAfterEvents !== undefined)
        return new TruncatingWatch(w, local.truncateAfterEvents);
      return w;
    });
  }

  /**
   * The in-process `ListerWatcher` of a resource: the same engine calls as over HTTP, without sockets. Use it with
   * `@informer-ts/cache`'s reflector and informers under a `FakeClock`.
   */
  listerWatcher(ref: ResourceRef, scope: ListerWatcherScope = {}): InProcessListerWatcher {
    const r = this.resource(ref);
    const ns = r.namespaced ? (scope.namespace ?? "") : "";
    const merge = (o: ListOptions): ListOptions => ({
      ...o,
      ...(scope.labelSelector !== undefined && { labelSelector: scope.labelSelector }),
      ...(scope.fieldSelector !== undefined && { fieldSelector: scope.fieldSelector }),
    });
    const ctxOf = (signal?: AbortSignal): RequestContext => ({
      ...(scope.userAgent !== undefined && { userAgent: scope.userAgent }),
      ...(signal !== undefined && { signal }),
    });
    return {
      list: (o, signal) => this.list(r, ns, merge(o), ctxOf(signal)),
      watch: (o, signal) => this.watch(r, ns, merge(o), ctxOf(signal)),
    };
  }

  /** Open watchers of a resource (tests, admin). */
  watchers(ref: ResourceRef): readonly CacheWatcher[] {
    return this.cacher(ref).openWatchers();
  }

  /** Stops timers and closes every watch. */
  stop(): void {
    this.stopped = true;
    this.garbageCollector?.stop();
    this.namespaceController?.stop();
    this.crdFinalizer?.stop();
    this.progressTimer?.stop();
    this.compactionTimer?.stop();
    for (const c of this.cachers.values()) c.stop();
  }

  /** A summary for the admin API and logs. */
  state(): Record<string, unknown> {
    const caches: Record<string, unknown> = {};
    for (const c of this.cachers.values()) {
      caches[groupResourceString(c.resource)] = {
        resourceVersion: c.resourceVersion,
        ready: c.isReady,
        watchers: c.watcherCount,
        terminatedWatchers: c.terminatedWatchers,
        objects: this.storage.count(c.resource),
        history: c.historyStats,
      };
    }
    return {
      resourceVersion: this.storage.currentRevision,
      compactedResourceVersion: this.storage.compactedRevision,
      bookmarks: this.bookmarks,
      caches,
    };
  }
}

/** The registry's write options of a request context. */
function writeOptions(ctx: RequestContext | undefined, defaultUserAgent: string) {
  return {
    ...(ctx?.dryRun === true && { dryRun: true }),
    ...(ctx?.fieldManager !== undefined && { fieldManager: ctx.fieldManager }),
    ...(ctx?.force === true && { force: true }),
    ...(ctx?.subresource !== undefined && { subresource: ctx.subresource }),
    userAgent: ctx?.userAgent ?? defaultUserAgent,
  };
}

/** The reason an in-process watch ended, for callers that want it. */
export type { WatchCloseReason };

function inProcessFault(f: HttpFault): Error {
  switch (f.type) {
    case "apf-429":
      return newTooManyRequests("Too many requests, please try again later.", f.retryAfterSeconds);
    case "status":
      return f.error instanceof Error ? f.error : new Error(String(f.error));
    case "drop-connection":
      return new SimConnectionError("connection dropped (fault)");
    default:
      return new Error(`unexpected fault ${f.type}`);
  }
}

/** Delivers `afterEvents` events, then fails as a watch cut mid-line would. */
class TruncatingWatch implements SimWatch {
  private n = 0;

  constructor(
    private readonly inner: SimWatch,
    private readonly afterEvents: number,
  ) {}

  async next(): Promise<IteratorResult<WatchEvent>> {
    if (this.n >= this.afterEvents) {
      this.inner.stop();
      throw new SimTruncatedWatchError("watch stream ended in the middle of an event (truncated line)");
    }
    const r = await this.inner.next();
    if (r.done !== true) this.n++;
    return r;
  }

  stop(): void {
    this.inner.stop();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return stoppingIterator(this);
  }
}

/** Runs a side channel (metrics, logs) so that its failure cannot break the request or the dispatcher calling it. */
function guarded(fn: () => void): void {
  try {
    fn();
  } catch {
    // A broken sink loses its own output, nothing else.
  }
}
