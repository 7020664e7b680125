import type { KubeObject } from "@informer-ts/apimachinery";
import {
  type ListerWatcherFor,
  newSharedInformerFactoryWithOptions,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  type SharedInformerFactory,
  type SharedInformerOption,
  withInformerOptions,
  withNamespace,
} from "@informer-ts/cache";
import type { ResourceDescriptor } from "@informer-ts/client";
import { type Clock, mathRand, type Rand, realClock } from "@informer-ts/clock";
import { type MetricsProvider, PromMetrics, safeObservable } from "@informer-ts/instrumentation";
import { type Observable, Subject } from "rxjs";
import type { ControllerContext } from "./builder.js";
import type { Controller } from "./controller.js";
import { LeaderElector } from "./leaderelection/leader-election.js";
import { LeaseLock } from "./leaderelection/lease-lock.js";
import type { ObjectClient } from "./object-client.js";
import { ProbeServer } from "./probe-server.js";
import { EventBroadcaster, type EventRecorder } from "./record/event.js";
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
  /** Where every metric goes; default a new {@link PromMetrics} (served on `/metrics`). */
  readonly metrics?: MetricsProvider;
  /** Options for every informer (fifo mode, reflector options, handler error policy…). */
  readonly informerOptions?: SharedIndexInformerOptions<KubeObject>;
  /** Leader election; default none (every replica runs its controllers). */
  readonly leaderElection?: ManagerLeaderElectionOptions;
  /** The HTTP endpoint (`/healthz`, `/readyz`, `/metrics`); default none. Loopback unless `host` says otherwise. */
  readonly probe?: { readonly port: number; readonly host?: string };
  /** How long to wait for the informers to sync. Default 120 000 ms. */
  readonly cacheSyncTimeout?: number;
  /** Handle SIGTERM/SIGINT: the first stops the manager gracefully, a second exits the process. Default false. */
  readonly handleSignals?: boolean;
}

/** What a {@link Manager} reports on `events$`. */
export type ManagerEvent =
  | { readonly type: "probeListening"; readonly url: string }
  | { readonly type: "cachesSynced" }
  | { readonly type: "startedLeading" }
  | { readonly type: "controllersStarted"; readonly names: readonly string[] }
  | { readonly type: "error"; readonly source: string; readonly error: unknown }
  | { readonly type: "stopped" };

/** `run` failed because this replica lost its leadership (controller-runtime: "leader election lost"). */
export class LeaderElectionLostError extends Error {
  override readonly name = "LeaderElectionLostError";
}

/**
 * controller-runtime's `Manager`: one shared informer factory for every controller (each resource is watched once),
 * the controllers built on it ({@link newControllerManagedBy}`(manager)`), optional leader election, an event recorder
 * per component, and an optional HTTP endpoint.
 *
 * `run(signal)`: starts the probe server and the informers, waits for the caches to sync, then — on every replica
 * without election, only on the leader with it — runs the controllers. Standbys keep their informers warm. When
 * `signal` aborts (or SIGTERM/SIGINT with `handleSignals`), controllers drain (each up to its own graceful shutdown
 * timeout), then the informers, event writer and HTTP server stop; `run` resolves once all is released. It rejects
 * (after releasing everything) when the caches do not sync, or with {@link LeaderElectionLostError} when leadership is
 * lost — restart the process then, as a Go controller does.
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
  private readonly options: ManagerOptions;
  private readonly rand: Rand;
  private readonly controllers: Controller[] = [];
  private readonly events = new Subject<ManagerEvent>();
  private broadcaster: EventBroadcaster | undefined;
  private probe: ProbeServer | undefined;
  private phase: "new" | "running" | "stopped" = "new";
  private synced = false;

  constructor(options: ManagerOptions) {
    if (typeof options?.listerWatcherFor !== "function") {
      throw new TypeError("manager options: listerWatcherFor must be a function (resource, scope) => ListerWatcher");
    }
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.rand = options.rand ?? mathRand;
    this.metrics = options.metrics ?? new PromMetrics();
    this.client = options.client;
    const opts: SharedInformerOption<KubeObject>[] = [
      withInformerOptions<KubeObject>({ clock: this.clock, rand: this.rand, ...options.informerOptions }),
    ];
    if (options.namespace !== undefined) opts.push(withNamespace(options.namespace));
    this.factory = newSharedInformerFactoryWithOptions<ResourceDescriptor, KubeObject>(
      options.listerWatcherFor,
      0,
      ...opts,
    );
    const le = options.leaderElection;
    if (le !== undefined) {
      if (this.client === undefined) throw new TypeError("manager options: leader election needs a client");
      const identity = le.identity ?? defaultIdentity(this.rand);
      this.elector = new LeaderElector({
        lock: new LeaseLock({ namespace: le.namespace, name: le.name, identity, client: this.client }),
        ...(le.leaseDuration !== undefined && { leaseDuration: le.leaseDuration }),
        ...(le.renewDeadline !== undefined && { renewDeadline: le.renewDeadline }),
        ...(le.retryPeriod !== undefined && { retryPeriod: le.retryPeriod }),
        ...(le.releaseOnCancel !== undefined && { releaseOnCancel: le.releaseOnCancel }),
        name: le.name,
        clock: this.clock,
        rand: this.rand,
        metrics: this.metrics,
        callbacks: { onStartedLeading: (s) => this.lead(s), onStoppedLeading: () => {} },
      });
    }
    this.events$ = safeObservable(this.events.asObservable(), "manager events$");
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
    return this.factory.informerFor(resource as ResourceDescriptor) as unknown as SharedIndexInformer<T>;
  }

  /** Registers a controller to run (the builder calls this). Controllers must be added before `run`. */
  add(controller: Controller): void {
    if (this.phase !== "new") throw new Error(`controller ${controller.name} added after the manager started`);
    if (this.controllers.some((c) => c.name === controller.name)) {
      throw new Error(`controller with name ${controller.name} already exists: controller names must be unique`);
    }
    this.controllers.push(controller);
  }

  /** A recorder whose events carry `source.component = name` (`GetEventRecorderFor`). Needs `client`. */
  getEventRecorderFor(name: string): EventRecorder {
    if (this.client === undefined) throw new TypeError("manager: getEventRecorderFor needs a client");
    this.broadcaster ??= new EventBroadcaster({
      client: this.client,
      clock: this.clock,
      rand: this.rand,
      metrics: this.metrics,
    });
    return this.broadcaster.newRecorder({ component: name });
  }

  /** The probe server's address once listening. */
  probeAddress(): { address: string; port: number } | undefined {
    const a = this.probe?.address();
    return a === undefined ? undefined : { address: a.address, port: a.port };
  }

  /** Why the manager is not ready, or `undefined` when it is (the `/readyz` check). */
  notReadyReason(): string | undefined {
    if (this.phase !== "running") return `manager is ${this.phase}`;
    const unsynced = [...this.factory.list()].filter(([, inf]) => !inf.hasSynced()).map(([k]) => k);
    if (!this.synced || unsynced.length > 0) return `informers not synced: ${unsynced.sort().join(", ") || "starting"}`;
    if (this.elector !== undefined && this.elector.getLeader() === "") return "no leader known yet";
    return undefined;
  }

  /** Runs everything until `signal` aborts (see the class contract). Once per manager. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.phase !== "new") throw new Error("manager was started more than once");
    this.phase = "running";
    let signals: SignalHandler | undefined;
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    if (this.options.handleSignals === true) {
      signals = setupSignalHandler();
      signals.signal.addEventListener("abort", () => stop.abort(signals!.signal.reason), { once: true });
    }
    const informers = new AbortController();
    const background: Promise<unknown>[] = [];
    let failure: unknown;
    try {
      if (this.options.probe !== undefined) {
        this.probe = new ProbeServer({
          ...this.options.probe,
          healthz: { ping: () => (this.phase === "running" ? undefined : `manager is ${this.phase}`) },
          readyz: { manager: () => this.notReadyReason() },
          metrics: async () => {
            const m = this.metrics as Partial<PromMetrics>;
            if (typeof m.render !== "function") throw new Error("the metrics provider cannot render Prometheus text");
            return { body: await m.render(), contentType: m.contentType ?? "text/plain" };
          },
        });
        const url = await this.probe.start();
        this.events.next({ type: "probeListening", url });
      }
      if (this.broadcaster !== undefined) background.push(this.broadcaster.run(informers.signal));
      this.factory.start(informers.signal);
      const synced = await this.waitForSync(stop.signal);
      if (!synced) {
        if (!stop.signal.aborted) {
          throw new Error(`manager: caches did not sync within ${this.options.cacheSyncTimeout ?? 120_000} ms`);
        }
        return;
      }
      this.synced = true;
      this.events.next({ type: "cachesSynced" });
      if (this.elector === undefined) {
        await this.lead(stop.signal);
      } else {
        await this.elector.run(stop.signal);
        if (!stop.signal.aborted) {
          throw new LeaderElectionLostError(`leader election lost: ${this.elector.status().identity} stopped leading`);
        }
      }
    } catch (err) {
      failure = err;
    } finally {
      informers.abort(new Error("manager stopped"));
      await this.factory.shutdown();
      await Promise.allSettled(background);
      await this.probe?.close();
      signals?.dispose();
      signal.removeEventListener("abort", onAbort);
      this.phase = "stopped";
      this.events.next({ type: "stopped" });
      this.events.complete();
    }
    if (failure !== undefined) throw failure;
  }

  /** Runs every controller until `signal` aborts and all of them have stopped. */
  private async lead(signal: AbortSignal): Promise<void> {
    if (this.elector !== undefined) this.events.next({ type: "startedLeading" });
    this.events.next({ type: "controllersStarted", names: this.controllers.map((c) => c.name) });
    const results = await Promise.allSettled(this.controllers.map((c) => c.run(signal)));
    for (const [i, r] of results.entries()) {
      if (r.status === "rejected")
        this.events.next({ type: "error", source: this.controllers[i]!.name, error: r.reason });
    }
  }

  private async waitForSync(signal: AbortSignal): Promise<boolean> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    if (signal.aborted) return false;
    signal.addEventListener("abort", onAbort, { once: true });
    const timeout = this.options.cacheSyncTimeout ?? 120_000;
    const timer = this.clock.afterFunc(timeout, () => ac.abort(new Error("cache sync timeout")));
    try {
      const res = await this.factory.waitForCacheSync(ac.signal);
      return res.err === undefined;
    } finally {
      timer.stop();
      signal.removeEventListener("abort", onAbort);
    }
  }
}

function defaultIdentity(rand: Rand): string {
  const host = process.env.HOSTNAME ?? "localhost";
  const suffix = Math.floor(rand.float() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");
  return `${host}_${suffix}`;
}
