import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { type Clock, mathRand, type Rand, realClock, seededRand } from "@informer-ts/clock";
import { type Logger, noopMetrics, safeLog } from "@informer-ts/instrumentation";
import { Admission, ValidatingAdmissionPolicies } from "./admission/index.js";
import { AdmissionWebhooks } from "./admission/webhook/admission-webhooks.js";
import { ALWAYS_ALLOW, type Authorizer, RbacAuthorizer, type RbacObjects } from "./authorization/index.js";
import {
  type BookmarkMode,
  CacheMetrics,
  Cacher,
  type CacheWatcher,
  cacherHooks,
  DEFAULT_WATCH_MEMORY_MODEL,
  WatcherFaults,
  type WatcherInfo,
  type WatcherSelector,
  type WatchMemoryGauge,
  type WatchMemoryModel,
} from "./cacher/index.js";
import { type PodLogAnswer, type PodLogOptions, type PodLogResponse, PodLogs } from "./containers/pod-log.js";
import {
  CrdFinalizer,
  ensureDefaultServiceCidr,
  ensureKubernetesService,
  GarbageCollector,
  GracefulDeletion,
  NamespaceController,
  ValidatingAdmissionPolicyStatusController,
} from "./controllers/index.js";
import { EngineCaches } from "./engine-caches.js";
import { EngineFaults } from "./engine-faults.js";
import {
  costModelFor,
  type HttpFault,
  HttpFaultInjector,
  type HttpRequestDescriptor,
  type LatencyRule,
  ObjectCountTracker,
  RequestAccounting,
  RequestFilters,
  type RequestInFlight,
  RequestLatency,
  validateCostModel,
} from "./filters/index.js";
import { EngineRequests, InProcessRequests, WriteServing } from "./handlers/index.js";
import {
  DEFAULT_KUBE_VERSION,
  type KubeVersion,
  type KubeVersionGates,
  kubeVersionGates,
  parseKubeVersion,
} from "./kube-version.js";
import { type InProcessListerWatcher, type InProcessListWatchScope, inProcessListerWatcher } from "./listwatch.js";
import { rfc3339Seconds } from "./object-util.js";
import {
  type DeleteOptions,
  type PatchContentType,
  RegistryStore,
  ResourceTable,
  ServerSideApply,
} from "./registry/index.js";
import { ServiceIpAddresses } from "./registry/service-ip-addresses.js";
import type { RequestContext, ResourceRef } from "./request-context.js";
import { RequestModels } from "./request-models.js";
import { BUILTIN_RESOURCES, groupResourceString, type SimResource } from "./resources.js";
import { jwksUriFor } from "./serviceaccount/issuer-discovery.js";
import {
  ServiceAccountTokens,
  type TokenAuthentication,
  type TokenObjectLookup,
} from "./serviceaccount/service-account-tokens.js";
import {
  SERVICE_ACCOUNT_ISSUER,
  ServiceAccountTokenIssuer,
  signingKeysFromPem,
} from "./serviceaccount/token-issuer.js";
import { cacherConfigOf, type SimApiServerOptions } from "./sim-apiserver-options.js";
import type { SimWatch } from "./sim-watch.js";
import { MvccStorage, prefixOf, StorageMaintenance } from "./storage/index.js";
import type { UnknownResourceError } from "./unknown-resource-error.js";

/** Seed of the Rand that draws the system namespaces' uids (kept apart from the engine's `rand`). */
const SYSTEM_NAMESPACES_SEED = 0x6b756265;
/** Seed of the Rand that draws trace numbers (kept apart, so turning the trace log on changes no other draw). */
const TRACE_NUMBERS_SEED = 0x74726163;
/** Seed of the service-account tokens' `jti`s and token volume names (apart from the engine's own sequence). */
const SERVICE_ACCOUNT_SEED = 0x73616363;
/** Seed of the uids of Services' IPAddress objects (apart, so allocating them changes no other draw). */
const IP_ADDRESS_SEED = 0x69706164;
/** The seed of AdmissionReview uids (their own stream, so webhooks change no other draw). */
const WEBHOOK_REVIEW_SEED = 0x77686b73;

/** A resource's stored objects, for the object-count tracker. */
function* objectsOf(storage: MvccStorage, r: SimResource): Iterable<KubeObject> {
  for (const [, o] of storage.snapshot(r)) yield o;
}

/**
 * The simulated kube-apiserver's engine: MVCC storage with one global resourceVersion, a watch cache per resource
 * (ring buffer, dispatcher with the shared time budget, bookmarks, freshness waits, readiness), list/get/watch per
 * kube-apiserver's routing rules, writes through the registry, request accounting and fault injection. The HTTP face
 * (`SimHttpServer` + `EngineBackend`) calls {@link requests}; in-process callers call the verbs here (the same
 * requests plus request faults and accounting) or use {@link listerWatcher}, so the semantics are identical with and
 * without sockets; under a `FakeClock` everything is deterministic.
 *
 * Every verb returns a promise and reports every failure through it, an unknown resource included (rejected with
 * {@link UnknownResourceError}, a 404 naming it). The synchronous admin and test methods (`resource`, `cacher`,
 * `watchers`, `reinitializeCache`, `dropWatches`, `watcherInfo`, `stallWatchers`, `resumeWatchers`) throw that same
 * error when given a resource that is not served: a programmer or configuration error, reported where it was made;
 * the admin API answers it with a 404 and `--fault` with exit code 2, each naming the resource.
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
  /** Deletes pods whose graceful deletion period ended (absent with `controllers: false`). */
  readonly gracefulDeletion: GracefulDeletion | undefined;
  /** Writes ValidatingAdmissionPolicies' `status.typeChecking` (absent with `controllers: false`). */
  readonly policyStatusController: ValidatingAdmissionPolicyStatusController | undefined;
  /** The ValidatingAdmissionPolicy admission plugin (its `audit` holds the policies' audit annotations). */
  readonly validatingAdmissionPolicies: ValidatingAdmissionPolicies;
  /** The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (absent with admission off). */
  private readonly admissionWebhooks: AdmissionWebhooks | undefined;
  /** The request accounting both faces record to (metrics, the audit log, per-request rows). */
  readonly accounting: RequestAccounting;
  /**
   * Fault injection (shaped like the testing kit's `SimFaults`): request faults, compaction, cache re-initialization,
   * dropped and stalled watches, bookmarks, latency.
   */
  readonly faults: EngineFaults;
  /** The watch caches: each resource's cacher, its open watchers, the watch memory model. */
  readonly caches: EngineCaches;
  readonly watchListEnabled: boolean;
  readonly minRequestTimeoutSeconds: number;
  /** The release whose read routing the engine reproduces (option `kubeVersion`, default 1.34). */
  readonly kubeVersion: KubeVersion;
  /**
   * The routing gates in effect: the release's defaults with the `watchList` and `listFromCacheSnapshot` options
   * applied.
   */
  readonly gates: KubeVersionGates;
  /**
   * The engine's request API for a face that runs the outer filters itself (the HTTP face, through `RequestFilters`
   * on its backend): typed results (`{ object, servedFrom, … }`), latency and request models applied, no request
   * faults applied, nothing recorded.
   */
  readonly requests: EngineRequests;
  /**
   * The engine's authorizer (`authorization` option): {@link ALWAYS_ALLOW}, or RBAC over the stored roles and
   * bindings. The HTTP face asks it about non-resource paths; the engine about every resource request under RBAC.
   */
  readonly authorizer: Authorizer;
  private readonly table: ResourceTable;
  /** Service-account tokens: `serviceaccounts/<name>/token`, the token volume's token, TokenReviews of them. */
  private readonly serviceAccountTokens: ServiceAccountTokens;
  /** `pods/<name>/log`, from the container output model. */
  private readonly podLogs: PodLogs;
  private readonly inProcess: InProcessRequests;
  private readonly maintenance: StorageMaintenance;
  private readonly latency: RequestLatency;
  private readonly watcherFaults: WatcherFaults;
  private readonly cacheMetrics: CacheMetrics;
  private readonly logger: Logger | undefined;
  /** The compacted revision the caches were last told of. */
  private lastCompacted = 0;
  private readonly watchMemoryModel: WatchMemoryModel;
  private readonly objectCounts: ObjectCountTracker<SimResource>;

  constructor(opts: SimApiServerOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.rand = opts.rand ?? mathRand;
    this.storage = new MvccStorage(this.clock, this.rand, opts.initialResourceVersion ?? 1);
    this.accounting = new RequestAccounting(opts.metrics ?? noopMetrics);
    this.cacheMetrics = new CacheMetrics(opts.metrics ?? noopMetrics);
    const requestFaults = new HttpFaultInjector(this.rand);
    this.kubeVersion = opts.kubeVersion === undefined ? DEFAULT_KUBE_VERSION : parseKubeVersion(opts.kubeVersion);
    const release = kubeVersionGates(this.kubeVersion);
    this.watchListEnabled = opts.watchList ?? release.watchList;
    this.gates = Object.freeze({
      ...release,
      watchList: this.watchListEnabled,
      listFromCacheSnapshot: opts.listFromCacheSnapshot ?? release.listFromCacheSnapshot,
    });
    const listOptionGates = {
      watchList: this.watchListEnabled,
      sendInitialEventsOption: release.sendInitialEventsOption,
    };
    this.minRequestTimeoutSeconds = opts.minRequestTimeoutSeconds ?? 1800;
    this.logger = opts.logger;
    const defaultUserAgent = opts.defaultUserAgent ?? "informer-ts-inprocess";
    const cfg = cacherConfigOf({ ...opts, kubeVersion: this.kubeVersion });
    this.table = new ResourceTable(
      this.storage,
      (r) =>
        new Cacher(
          r,
          this.storage,
          this.clock,
          this.rand,
          cfg,
          cacherHooks(this.cacheMetrics, {
            bookmarkMode: () => this.watcherFaults.bookmarkMode,
            log: (m) => this.logLine(m),
          }),
        ),
    );
    this.maintenance = new StorageMaintenance(
      this.clock,
      this.storage,
      this.table,
      opts.progressNotifyIntervalMs ?? 5000,
      opts.compactionIntervalMs ?? 5 * 60_000,
    );
    this.latency = new RequestLatency(this.clock, (name) =>
      this.table.resources().some((r) => r.resource === name || groupResourceString(r) === name),
    );
    this.watcherFaults = new WatcherFaults(this.table);
    this.watchMemoryModel = opts.watchMemoryModel ?? DEFAULT_WATCH_MEMORY_MODEL;
    this.objectCounts = new ObjectCountTracker<SimResource>(this.clock, (r) => objectsOf(this.storage, r));
    this.faults = new EngineFaults({
      requestFaults,
      storage: this.storage,
      table: this.table,
      watcherFaults: this.watcherFaults,
      latency: this.latency,
      log: (line) => this.logLine(line),
    });
    this.caches = new EngineCaches({
      table: this.table,
      watcherFaults: this.watcherFaults,
      objectCounts: this.objectCounts,
      watchMemoryModel: this.watchMemoryModel,
    });
    // `true`: the calibrated model with APF's work estimation as this release had it.
    const costModel =
      opts.costModel === true ? costModelFor(this.kubeVersion, this.gates.consistentListFromCache) : opts.costModel;
    if (costModel !== undefined) validateCostModel(costModel);
    const costLatency = opts.costModelLatency ?? "sleep";
    if (costLatency !== "sleep" && costLatency !== "record")
      throw new RangeError(`costModelLatency must be "sleep" or "record", got ${JSON.stringify(costLatency)}`);
    const models = new RequestModels({
      clock: this.clock,
      sleep: (ms, signal) => this.latency.sleep(ms, () => signal),
      log: (text) => this.logLine(text),
      nextAuditID: () => this.accounting.nextAuditID(),
      traceRand: seededRand(TRACE_NUMBERS_SEED),
      costModel,
      costLatency,
      trace: opts.traceLog === true ? {} : opts.traceLog,
      stats: (r) => this.objectCounts.get(r),
      interestedWatchers: (r, obj) => this.table.cacherIfServed(r)?.interestedWatchers(obj) ?? 0,
      measureBytes: () => this.accounting.auditLog !== undefined,
    });
    // ServerSideFieldValidation went beta (on) in v1.25: older releases drop unknown fields without a word.
    const fieldValidation = this.kubeVersion !== "1.22";
    const saRand = seededRand(SERVICE_ACCOUNT_SEED);
    const lookup: TokenObjectLookup = (resource, namespace, name) => {
      const r = this.table.byGroupResource(resource);
      return r === undefined ? undefined : this.storage.get(r, namespace, name);
    };
    const saKeys =
      opts.serviceAccountSigningKey === undefined ? undefined : signingKeysFromPem(opts.serviceAccountSigningKey);
    this.serviceAccountTokens = new ServiceAccountTokens(
      new ServiceAccountTokenIssuer(this.clock, saRand, SERVICE_ACCOUNT_ISSUER, saKeys),
      lookup,
    );
    this.podLogs = new PodLogs({
      clock: this.clock,
      pod: (ns, name) => lookup("pods", ns, name),
      world: (startedAtMs) => ({
        configMap: (ns, name) => {
          const r = this.table.byGroupResource("configmaps");
          return r === undefined ? undefined : this.storage.get(r, ns, name);
        },
        secret: (ns, name) => lookup("secrets", ns, name),
        token: (pod, sa) => this.serviceAccountTokens.podToken(pod, sa, startedAtMs),
        node: (name) => lookup("nodes", "", name),
      }),
    });
    const ipRand = seededRand(IP_ADDRESS_SEED);
    const serviceIps = new ServiceIpAddresses({
      storage: this.storage,
      clock: this.clock,
      rand: ipRand,
      ipAddresses: () => this.table.byGroupResource("ipaddresses.networking.k8s.io"),
    });
    const plugins = typeof opts.admission === "object" ? opts.admission : {};
    const all = (resource: string): KubeObject[] => {
      const r = this.table.byGroupResource(resource);
      return r === undefined ? [] : [...objectsOf(this.storage, r)];
    };
    if (opts.admission !== false)
      this.admissionWebhooks = new AdmissionWebhooks({
        storage: this.storage,
        resources: () => this.table.resources(),
        clock: this.clock,
        rand: seededRand(WEBHOOK_REVIEW_SEED),
      });
    this.validatingAdmissionPolicies = new ValidatingAdmissionPolicies({
      storage: this.storage,
      resources: () => this.table.resources(),
    });
    const admission = new Admission({
      enabled: opts.admission !== false,
      validatingAdmissionPolicies: this.validatingAdmissionPolicies,
      ...(plugins.serviceAccountTokenVolume !== false && {
        serviceAccount: (ns: string, name: string) => lookup("serviceaccounts", ns, name),
      }),
      ...(plugins.limitRanger !== false && {
        limitRanges: (ns: string) => all("limitranges").filter((o) => o.metadata?.namespace === ns),
      }),
      ...(plugins.runtimeClass !== false && {
        runtimeClass: (name: string) => {
          const r = this.table.byGroupResource("runtimeclasses.node.k8s.io");
          return r === undefined ? undefined : this.storage.get(r, "", name);
        },
      }),
      ...(plugins.defaultIngressClass !== false && {
        ingressClasses: () => all("ingressclasses.networking.k8s.io"),
      }),
      rand: saRand,
      defaultFieldValidation: fieldValidation ? "Warn" : "Ignore",
      fieldValidationParameter: fieldValidation,
      ...(typeof opts.admission === "object" &&
        opts.admission.serviceClusterIpRange !== undefined && {
          serviceClusterIpRange: opts.admission.serviceClusterIpRange,
        }),
      serviceIpInUse: (ip) => {
        if (serviceIps.held(ip) !== undefined) return true;
        const svc = this.table.byGroupResource("services");
        if (svc === undefined) return false;
        for (const o of objectsOf(this.storage, svc))
          if ((o.spec as { clusterIP?: unknown } | undefined)?.clusterIP === ip) return true;
        return false;
      },
    });
    this.registry = new RegistryStore({
      storage: this.storage,
      clock: this.clock,
      rand: this.rand,
      namespaces: () => this.table.byGroupResource("namespaces"),
      namespaceLifecycle: opts.namespaceLifecycle ?? true,
      admission,
      serviceIps,
    });
    // Server-side apply and managedFields unless the caller installs its own hook.
    this.registry.fieldManager =
      opts.fieldManager ?? new ServerSideApply(this.clock, (r) => this.registry.strategy(r).hasStatus);
    this.authorizer = opts.authorization === "RBAC" ? new RbacAuthorizer(this.rbacObjects()) : ALWAYS_ALLOW;
    this.requests = new EngineRequests({
      ...(this.authorizer.mode === "RBAC" && { authorizer: this.authorizer }),
      table: this.table,
      writes: new WriteServing({
        clock: this.clock,
        storage: this.storage,
        registry: this.registry,
        table: this.table,
        defaultUserAgent,
        gates: listOptionGates,
        tokens: this.serviceAccountTokens,
        authorizer: this.authorizer,
        log: (line) => this.logDefinitionWarning(line),
        celCompatibility: this.celCompatibility(),
      }),
      latency: this.latency,
      watcherFaults: this.watcherFaults,
      rand: this.rand,
      gates: listOptionGates,
      minRequestTimeoutSeconds: this.minRequestTimeoutSeconds,
      defaultUserAgent,
      models,
      clock: this.clock,
      ...(this.admissionWebhooks !== undefined && { webhooks: this.admissionWebhooks, storage: this.storage }),
    });
    this.inProcess = new InProcessRequests({
      requests: this.requests,
      table: this.table,
      filters: new RequestFilters({
        faultFor: (req) => requestFaults.faultFor(req),
        record: (rec) => this.accounting.record(rec),
      }),
      wantsRequestURI: () => this.accounting.auditLog !== undefined,
      clock: this.clock,
      defaultUserAgent,
    });
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
        // Not served yet while seeding: the resource as it will be.
        serviceIps: new ServiceIpAddresses({
          storage: this.storage,
          clock: this.clock,
          rand: ipRand,
          ipAddresses: () => initial.find((r) => r.group === "networking.k8s.io" && r.resource === "ipaddresses"),
        }),
      });
      this.storage.seedAtInitialRevision(() => {
        seeder.ensureSystemNamespaces(namespaces);
        ensureKubernetesService(seeder, initial);
        ensureDefaultServiceCidr(seeder, initial, rfc3339Seconds(this.clock.now()));
      });
    }
    this.storage.subscribe({
      onEvent: (ev) => {
        this.table.cacherIfServed(ev.resource)?.onStorageEvent(ev);
        this.maintenance.onWrite();
        // Containers print when their start is written (the kubelet's status update), not when their log is read.
        if (ev.resource.group === "" && ev.resource.resource === "pods")
          this.podLogs.observe(ev.type === "DELETED" ? undefined : ev.object, ev.object.metadata?.uid ?? "");
      },
      onRevision: () => {
        this.maintenance.armProgress();
        const compacted = this.storage.compactedRevision;
        if (compacted > this.lastCompacted) {
          this.lastCompacted = compacted;
          for (const c of this.table.allCachers()) c.onCompacted(compacted, this.clock.now());
        }
      },
    });
    for (const r of initial) this.register(r);
    if (opts.controllers === false) {
      this.garbageCollector = undefined;
      this.namespaceController = undefined;
      this.crdFinalizer = undefined;
      this.gracefulDeletion = undefined;
      this.policyStatusController = undefined;
    } else {
      const deps = {
        storage: this.storage,
        registry: this.registry,
        clock: this.clock,
        resources: () => this.resources(),
        delayMs: opts.controllers?.delayMs ?? 0,
        ...(this.logger !== undefined && { logger: this.logger }),
      };
      this.garbageCollector = new GarbageCollector(deps);
      this.namespaceController = new NamespaceController(deps, {
        orderedDeletion: this.gates.orderedNamespaceDeletion,
        now: () => rfc3339Seconds(this.clock.now()),
      });
      this.crdFinalizer = new CrdFinalizer(deps, {
        served: (name) => this.table.definition(name),
        retire: (name) => this.table.retireDefinition(name),
        now: () => rfc3339Seconds(this.clock.now()),
      });
      this.gracefulDeletion = new GracefulDeletion({ ...deps, log: (line) => this.logLine(line) });
      this.policyStatusController = new ValidatingAdmissionPolicyStatusController(deps);
    }
  }

  // ---- resources ----------------------------------------------------------------------------------------------

  /** Adds a resource (a custom resource, typically); its watch cache starts empty and ready. */
  register(r: SimResource): SimResource {
    return this.table.register(r);
  }

  /**
   * Stores a CustomResourceDefinition straight in storage, as if it existed before the server started (seeding),
   * and serves its resource: validated (422 with upstream's messages, nothing stored), with the defaults and status
   * the apiextensions controllers write. Requests go through {@link create}, which does the same through the
   * registry.
   */
  seedDefinition(crd: KubeObject): KubeObject {
    const warnings: string[] = [];
    const stored = this.table.seedDefinition(crd, rfc3339Seconds(this.clock.now()), warnings, this.celCompatibility());
    const name = crd.metadata?.name ?? "";
    for (const w of warnings) this.logDefinitionWarning(`CustomResourceDefinition ${name}: ${w}`);
    return stored;
  }

  /**
   * The release whose CEL environment new `x-kubernetes-validations` expressions get: the server's minimum
   * compatibility version, one release before `kubeVersion` (apiserver's `DefaultCompatibilityVersion()`).
   */
  /** The RBAC objects in storage, for the RBAC authorizer (none while the rbac resources are not served). */
  private rbacObjects(): RbacObjects {
    const resourceOf = {
      ClusterRole: "clusterroles",
      ClusterRoleBinding: "clusterrolebindings",
      Role: "roles",
      RoleBinding: "rolebindings",
    } as const;
    return {
      list: (kind, namespace) => {
        const r = this.table.byGroupResource(`${resourceOf[kind]}.rbac.authorization.k8s.io`);
        if (r === undefined) return [];
        return this.storage.list(r, { prefix: prefixOf(r, namespace), rev: 0, limit: 0, predicate: () => true }).items;
      },
    };
  }

  private celCompatibility(): number {
    return Number(this.kubeVersion.split(".")[1]) - 1;
  }

  /** The definition warnings already logged: each once per engine, whether seeded or written over the API. */
  private readonly loggedDefinitionWarnings = new Set<string>();

  /** Logs a definition's warning (a rule accepted but not evaluated) the first time it is seen. */
  private logDefinitionWarning(line: string): void {
    if (this.loggedDefinitionWarnings.has(line)) return;
    this.loggedDefinitionWarnings.add(line);
    this.logLine(line);
  }

  /** Every served resource. */
  resources(): readonly SimResource[] {
    return this.table.resources();
  }

  /** Looks a resource up; throws {@link UnknownResourceError} (404 naming it) when it is not served. */
  resource(ref: ResourceRef): SimResource {
    return this.table.resolve(ref);
  }

  /** @deprecated Use `caches.cacher(ref)`. */
  cacher(ref: ResourceRef): Cacher {
    return this.caches.cacher(ref);
  }

  /** The global resourceVersion (etcd's current revision). */
  get currentResourceVersion(): number {
    return this.storage.currentRevision;
  }

  /** Writes an `info` line to the `logger` option; a throwing logger is ignored. */
  private logLine(line: string): void {
    if (this.logger !== undefined) safeLog(this.logger, "info", line);
  }

  // ---- deprecated: the fault and introspection methods now on `faults` and `caches` ---------------------------

  /** @deprecated Use `faults.compact(rev)`. */
  compact(rev?: number): number {
    return this.faults.compact(rev);
  }

  /** @deprecated Use `faults.reinitializeCache(ref, downtimeMs)`. */
  reinitializeCache(ref?: ResourceRef, downtimeMs = 0): void {
    this.faults.reinitializeCache(ref, downtimeMs);
  }

  /** @deprecated Use `faults.dropWatches(ref, asError)`. */
  dropWatches(ref?: ResourceRef, asError = false): number {
    return this.faults.dropWatches(ref, asError);
  }

  /** @deprecated Use `faults.bookmarks(mode)`. */
  setBookmarkMode(mode: BookmarkMode): void {
    this.faults.bookmarks(mode);
  }

  /** @deprecated Use `faults.bookmarkMode`. */
  get bookmarkMode(): BookmarkMode {
    return this.faults.bookmarkMode;
  }

  /** @deprecated Use `faults.latency(rule)`. */
  addLatency(rule: LatencyRule): () => void {
    return this.faults.latency(rule);
  }

  /** @deprecated Use `faults.stallWatchers(sel, future)`. */
  stallWatchers(sel: WatcherSelector = {}, future = false): number {
    return this.faults.stallWatchers(sel, future);
  }

  /** @deprecated Use `faults.resumeWatchers(sel)`. */
  resumeWatchers(sel: WatcherSelector = {}): number {
    return this.faults.resumeWatchers(sel);
  }

  /** @deprecated Use `caches.watchMemory()`. */
  watchMemory(): WatchMemoryGauge {
    return this.caches.watchMemory();
  }

  /** @deprecated Use `caches.watcherInfo(ref)`. */
  watcherInfo(ref?: ResourceRef): WatcherInfo[] {
    return this.caches.watcherInfo(ref);
  }

  /** @deprecated Use `faults.faultFor(req)`. */
  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    return this.faults.faultFor(req);
  }

  // ---- requests (the in-process face) -------------------------------------------------------------------------

  /**
   * The in-process requests in flight now (the verbs here and {@link listerWatcher}), oldest first: each from the
   * moment it is received until it is answered, and an open watch until it closes — its caller stops it or aborts
   * its signal, or the engine ends it. {@link accounting} only sees a request once it ends (a watch: once it
   * opened), so this is where an open watch shows. Requests over HTTP are `SimHttpServer.inFlightRequests`'s.
   * A snapshot, built when called (tracking costs one Set add and delete per request).
   */
  inFlightRequests(): RequestInFlight[] {
    return this.inProcess.inFlight();
  }

  /**
   * LIST. `opts` are the decoded query (typed, nothing defaulted); they are defaulted and validated here as
   * kube-apiserver does (400 selector syntax, then the 422 matrix, then 400 unknown field labels; 400 for bad
   * RVs/continue tokens). Request faults apply and the request is recorded; `ctx.servedFrom` tells where it was
   * served from.
   */
  list(ref: ResourceRef, namespace: string, opts: ListOptions = {}, ctx?: RequestContext): Promise<KubeList> {
    return this.inProcess.serve({ verb: "list", resource: ref, namespace, options: opts, context: ctx ?? {} });
  }

  /** GET one object (RV unset: storage; "0": cache; N: cache once fresh). 404 when absent. */
  get(
    ref: ResourceRef,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string } = {},
    ctx?: RequestContext,
  ): Promise<KubeObject> {
    return this.inProcess.serve({ verb: "get", resource: ref, namespace, name, options: opts, context: ctx ?? {} });
  }

  /**
   * CREATE through the registry ({@link RegistryStore.create}): generateName, uid, creationTimestamp, the kind's
   * strategy, validation, the namespace lifecycle; `ctx.dryRun` stores nothing.
   */
  create(ref: ResourceRef, namespace: string, obj: KubeObject, ctx?: RequestContext): Promise<KubeObject> {
    return this.inProcess.serve({ verb: "create", resource: ref, namespace, body: obj, context: ctx ?? {} });
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
  ): Promise<KubeObject> {
    return this.inProcess.serve({ verb: "update", resource: ref, namespace, name, body: obj, context: ctx ?? {} });
  }

  /**
   * PATCH of an object or its status (`ctx.subresource`): `type` is the patch content type (JSON patch, merge,
   * strategic merge for built-ins, apply); `body` its text ({@link RegistryStore.patch}). `ctx.created` tells whether
   * an apply created the object.
   */
  patch(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchContentType | string,
    body: string,
    ctx?: RequestContext,
  ): Promise<KubeObject> {
    return this.inProcess.serve({
      verb: "patch",
      resource: ref,
      namespace,
      name,
      patchType: type,
      body,
      context: ctx ?? {},
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
  ): Promise<KubeObject> {
    return this.inProcess.serve({
      verb: "delete",
      resource: ref,
      namespace,
      name,
      deleteOptions: options,
      context: ctx ?? {},
    });
  }

  /**
   * DELETE on a collection (`Store.DeleteCollection`): lists what `listOpts` select in `namespace` (`""`: every
   * namespace of a namespaced resource), as {@link list} does (same validation and errors), then deletes each
   * listed object through the registry's delete path with `options` (preconditions, propagation policy, dry run;
   * finalizers hold an object, a MODIFIED event, instead of a DELETED one). An object gone meanwhile is skipped; the
   * first other error stops the loop and rejects (the deletes before it stay done: not atomic, as upstream).
   * Resolves to the list as it was selected, before the deletes (upstream's answer). Namespaces do not serve it
   * (405, as kube-apiserver's namespace REST), nor do CustomResourceDefinitions here (405; a difference).
   */
  deleteCollection(
    ref: ResourceRef,
    namespace: string,
    listOpts: ListOptions = {},
    options?: DeleteOptions,
    ctx?: RequestContext,
  ): Promise<KubeList> {
    return this.inProcess.serve({
      verb: "deletecollection",
      resource: ref,
      namespace,
      options: listOpts,
      deleteOptions: options,
      context: ctx ?? {},
    });
  }

  /**
   * WATCH. `opts` are the decoded query, defaulted (WatchList) and validated here in kube-apiserver's order, as for
   * {@link list}. Errors before the stream starts (400, 422, 429 while the cache initializes) reject; later ones
   * (410 too old, 504 too large for watch-list) arrive as one ERROR event. Without `timeoutSeconds` the watch ends
   * after a random time in [min-request-timeout, 2×), drawn from the engine's `rand`. `ctx.signal` stops it.
   */
  watch(ref: ResourceRef, namespace: string, opts: ListOptions = {}, ctx?: RequestContext): Promise<SimWatch> {
    return this.inProcess.serve({ verb: "watch", resource: ref, namespace, options: opts, context: ctx ?? {} });
  }

  /**
   * The service-account token authenticator (`pkg/serviceaccount/jwt.go`): the user a bearer token this engine
   * issued stands for — signature, issuer, expiry, the issuer audience, and its service account (and bound pod or
   * secret) still there with the uid the token names — or why it does not authenticate.
   */
  authenticateServiceAccountToken(token: string): TokenAuthentication {
    return this.serviceAccountTokens.authenticate(token);
  }

  /**
   * The service-account issuer's discovery documents (`pkg/serviceaccount/openidmetadata.go`): the OpenID provider
   * configuration, its `jwks_uri` under `baseUrl` (the server's own address), and the key set.
   */
  serviceAccountIssuerDiscovery(baseUrl: string): {
    readonly configuration: Record<string, unknown>;
    readonly jwks: { readonly keys: readonly Record<string, string>[] };
  } {
    const issuer = this.serviceAccountTokens.issuer;
    return { configuration: issuer.openIdConfiguration(jwksUriFor(baseUrl)), jwks: issuer.jwks() };
  }

  /**
   * `GET pods/<name>/log` ({@link PodLogs.read}): the log text now, and with `follow` on a running container a wait
   * that resolves when the container ends (it stops running or restarts) or the pod is gone, or `signal` aborts.
   */
  podLog(namespace: string, name: string, opts: PodLogOptions = {}): PodLogResponse {
    const answer: PodLogAnswer = this.podLogs.read(namespace, name, opts);
    const until = answer.followUntil;
    if (until === undefined) return { text: answer.text };
    const pods = this.table.byGroupResource("pods");
    const key = `${namespace}/${name}`;
    return {
      text: answer.text,
      follow: (signal) =>
        new Promise<void>((resolve) => {
          if (signal.aborted || until(pods === undefined ? undefined : this.storage.get(pods, namespace, name))) {
            resolve();
            return;
          }
          const done = () => {
            off();
            signal.removeEventListener("abort", done);
            resolve();
          };
          const off = this.storage.subscribe({
            onEvent: (ev) => {
              if (ev.resource !== pods || ev.key !== key) return;
              if (until(ev.type === "DELETED" ? undefined : ev.object)) done();
            },
          });
          signal.addEventListener("abort", done, { once: true });
        }),
    };
  }

  /**
   * The in-process `ListerWatcher` of a resource: the same engine calls as over HTTP, without sockets. Use it with
   * `@informer-ts/cache`'s reflector and informers under a `FakeClock`. The resource is looked up per call, so a
   * resource that is not (or no longer) served makes each call reject with 404 naming it, as over HTTP.
   *
   * Unlike a response decoded from the wire, the objects it hands out share their parts (metadata, data, spec) with
   * the engine's stored objects, as a watch cache shares them among watchers: read them, never mutate them. A
   * reflector whose transform or handlers rewrite objects in place should set `copyListItems: true` (or transform
   * into new objects).
   */
  listerWatcher(ref: ResourceRef, scope: InProcessListWatchScope = {}): InProcessListerWatcher {
    return inProcessListerWatcher(this, (r) => this.table.lookup(r)?.namespaced ?? false, ref, scope);
  }

  /** @deprecated Use `caches.watchers(ref)`. */
  watchers(ref: ResourceRef): readonly CacheWatcher[] {
    return this.caches.watchers(ref);
  }

  /** Stops timers and closes every watch; requests waiting on injected latency reject with 503. */
  stop(): void {
    this.garbageCollector?.stop();
    this.namespaceController?.stop();
    this.gracefulDeletion?.stop();
    this.crdFinalizer?.stop();
    this.policyStatusController?.stop();
    this.validatingAdmissionPolicies.stop();
    this.admissionWebhooks?.stop();
    this.maintenance.stop();
    this.latency.stop();
    for (const c of this.table.allCachers()) c.stop();
  }

  /** A summary for the admin API and logs. */
  state(): Record<string, unknown> {
    const caches: Record<string, unknown> = {};
    for (const c of this.table.allCachers()) {
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
      bookmarks: this.faults.bookmarkMode,
      caches,
      // kube-apiserver's memory for the open watches per the model (not this process's heap).
      watchMemoryModelBytes: this.caches.watchMemory().totalBytes,
    };
  }
}

// What this module declared before its parts moved to their own files stays importable from here.
export type { BookmarkMode, WatchCloseReason, WatcherInfo, WatcherSelector } from "./cacher/index.js";
export { type LatencyRule, SimConnectionError } from "./filters/index.js";
export type { InProcessListerWatcher, InProcessListWatchScope } from "./listwatch.js";
export type { RequestContext, ResourceRef } from "./request-context.js";
export type { SimApiServerOptions } from "./sim-apiserver-options.js";
export { SimTruncatedWatchError, type SimWatch } from "./sim-watch.js";
