// The Watch strategy (pkg/kubelet/util/manager/watch_based_manager.go): one reflector — a LIST and a WATCH with
// `fieldSelector=metadata.name=<name>` — per object referenced by the node's pods, stopped for immutable objects.
import { type KubeObject, newNotFound } from "@informer-ts/apimachinery";
import {
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorLogger,
  type ReflectorStore,
  silentLogger,
} from "@informer-ts/cache";
import type { Clock, Rand, Ticker } from "@informer-ts/clock";
import { type ConfigMapManager, isImmutable, type KubeletPod, type ObjectClient } from "./manager.js";

/** kubelet's `minIdleTime`: a watch is never recycled for idleness sooner than this. */
export const MIN_IDLE_TIME_MS = 60_000;

/** How long `getObject` waits for a new reflector's first LIST (kubelet: polls every 10 ms for 1 s). */
export const SYNC_WAIT_MS = 1000;

/** Options of {@link WatchBasedManager}. */
export interface WatchBasedManagerOptions {
  readonly client: ObjectClient;
  readonly clock: Clock;
  readonly rand: Rand;
  /** The resource's name in error messages (`configmaps`). */
  readonly resource?: string;
  /**
   * kubelet's sync frequency; watches not read for 5× this long (at least {@link MIN_IDLE_TIME_MS}) are stopped by
   * the once-a-minute idle sweep and restarted by the next read. Default 60 s.
   */
  readonly resyncIntervalMs?: number;
  /** Stop the watch of an object found immutable (`ImmutableEphemeralVolumes`, on by default from v1.19). Default true. */
  readonly stopImmutable?: boolean;
  /** Logger of the per-object reflectors. Default silent. */
  readonly logger?: ReflectorLogger;
}

/** Counters of a {@link WatchBasedManager}. */
export interface WatchBasedManagerStats {
  /** Reflectors created (one per object first referenced on this node). */
  readonly reflectorsCreated: number;
  /** Reflectors currently running (each holds one WATCH, or is between two). */
  readonly reflectorsRunning: number;
  /** Watches stopped because their object is immutable. */
  readonly stoppedImmutable: number;
  /** Watches stopped by the idle sweep. */
  readonly stoppedIdle: number;
  /** Stopped reflectors started again by a read. */
  readonly restarts: number;
}

/** The reflector's store, remembering whether a LIST has filled it since the last (re)start (`cacheStore`). */
class SyncedStore implements ReflectorStore<KubeObject> {
  readonly store = newStore<KubeObject>(metaNamespaceKeyFunc);
  initialized = false;
  private readonly waiters = new Set<() => void>();

  /** Resolves true once a LIST has filled the store, or false after `ms` of `clock` time. */
  waitInitialized(clock: Clock, ms: number): Promise<boolean> {
    if (this.initialized) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        this.waiters.delete(onSynced);
        timer.stop();
        resolve(ok);
      };
      const onSynced = () => done(true);
      const timer = clock.afterFunc(ms, () => done(this.initialized));
      this.waiters.add(onSynced);
    });
  }
  add(obj: KubeObject): void {
    this.store.add(obj);
  }
  update(obj: KubeObject): void {
    this.store.update(obj);
  }
  delete(obj: KubeObject): void {
    this.store.delete(obj);
  }
  replace(list: readonly KubeObject[], resourceVersion: string): void {
    this.store.replace(list, resourceVersion);
    this.initialized = true;
    for (const w of [...this.waiters]) w();
  }
  resync(): void {}
}

class CacheItem {
  refCount = 0;
  lastAccessTime: number;
  stopped = false;
  immutable = false;
  private ac = new AbortController();
  /** The current run of the reflector; a restart waits for the previous one to end (kubelet's waitGroup). */
  private running: Promise<void>;

  constructor(
    readonly store: SyncedStore,
    private readonly reflector: Reflector<KubeObject>,
    now: number,
  ) {
    this.lastAccessTime = now;
    this.running = this.start();
  }

  private start(): Promise<void> {
    const signal = this.ac.signal;
    return this.reflector.run(signal).catch(() => undefined);
  }

  /** Stops the reflector (its WATCH closes); false if it was already stopped. */
  stop(): boolean {
    if (this.stopped) return false;
    this.stopped = true;
    this.ac.abort();
    if (!this.immutable) this.store.initialized = false;
    return true;
  }

  restartIfNeeded(): boolean {
    if (this.immutable || !this.stopped) return false;
    this.stopped = false;
    this.ac = new AbortController();
    const prev = this.running;
    this.running = prev.then(() => this.start());
    return true;
  }

  /** Resolves when the current run has released its watch and timers. */
  settled(): Promise<void> {
    return this.running;
  }
}

/**
 * The `Watch` change-detection strategy (`NewWatchBasedManager`: a `cacheBasedManager` over an `objectCache`):
 * - the first reference to an object starts a reflector that LISTs it (`resourceVersion=0`, from the watch cache) and
 *   WATCHes it with `fieldSelector=metadata.name=<name>` — one open watch per object per node, re-opened when the
 *   server ends it (every 5–10 min: the reflector's randomized `timeoutSeconds`);
 * - `getObject` reads the reflector's store (waiting up to 1 s for its first LIST; kubelet polls every 10 ms, the model
 *   wakes at the LIST itself), restarting a stopped reflector;
 *   an object that is immutable gets its reflector stopped for good (its watch closes, the store keeps the object);
 * - the last reference dropped stops the reflector; a sweep every minute stops reflectors not read for 5× the sync
 *   frequency.
 * Registering a pod again only moves reference counts: no request.
 *
 * Differences from kubelet: the reflectors are informer-ts `Reflector`s with LIST-then-WATCH (`useWatchList` off, as
 * in kubelet ≤ v1.31), running on the injected clock and rand.
 */
export class WatchBasedManager implements ConfigMapManager {
  readonly strategy = "Watch" as const;
  private readonly base: RegistrationCounter;
  private readonly items = new Map<string, CacheItem>();
  private readonly sweep: Ticker;
  private readonly maxIdleMs: number;
  private counters = { reflectorsCreated: 0, stoppedImmutable: 0, stoppedIdle: 0, restarts: 0 };

  constructor(private readonly opts: WatchBasedManagerOptions) {
    this.maxIdleMs = Math.max(MIN_IDLE_TIME_MS, 5 * (opts.resyncIntervalMs ?? 60_000));
    this.base = new RegistrationCounter(
      (ns, n) => this.addReference(ns, n),
      (ns, n) => this.deleteReference(ns, n),
    );
    this.sweep = opts.clock.newTicker(60_000, () => this.recycleIdle());
  }

  stats(): WatchBasedManagerStats {
    let running = 0;
    for (const i of this.items.values()) if (!i.stopped) running++;
    return { ...this.counters, reflectorsRunning: running };
  }

  registerPod(pod: KubeletPod): void {
    this.base.register(pod);
  }

  unregisterPod(pod: KubeletPod): void {
    this.base.unregister(pod);
  }

  async getObject(namespace: string, name: string): Promise<KubeObject> {
    const key = `${namespace}/${name}`;
    const item = this.items.get(key);
    if (item === undefined) throw new Error(`object "${namespace}"/"${name}" not registered`);
    const clock = this.opts.clock;
    item.lastAccessTime = clock.now();
    if (item.restartIfNeeded()) this.counters.restarts++;
    if (!(await item.store.waitInitialized(clock, SYNC_WAIT_MS)))
      throw new Error(
        `failed to sync ${this.opts.resource ?? "configmaps"} cache: timed out waiting for the condition`,
      );
    const obj = item.store.store.getByKey(key);
    if (obj === undefined) throw newNotFound({ group: "", resource: this.opts.resource ?? "configmaps" }, name);
    if ((this.opts.stopImmutable ?? true) && isImmutable(obj)) {
      item.immutable = true;
      if (item.stop()) this.counters.stoppedImmutable++;
    }
    return obj;
  }

  async stop(): Promise<void> {
    this.sweep.stop();
    const runs: Promise<void>[] = [];
    for (const item of this.items.values()) {
      item.stop();
      runs.push(item.settled());
    }
    this.items.clear();
    await Promise.all(runs);
  }

  private addReference(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    let item = this.items.get(key);
    if (item === undefined) {
      const store = new SyncedStore();
      const reflector = new Reflector<KubeObject>(
        this.opts.client.singleObjectListerWatcher(namespace, name),
        undefined,
        store,
        {
          name: `object-"${namespace}"/"${name}"`,
          clock: this.opts.clock,
          rand: this.opts.rand,
          useWatchList: false,
          logger: this.opts.logger ?? silentLogger,
        },
      );
      item = new CacheItem(store, reflector, this.opts.clock.now());
      this.counters.reflectorsCreated++;
      this.items.set(key, item);
    }
    item.refCount++;
  }

  private deleteReference(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const item = this.items.get(key);
    if (item === undefined) return;
    item.refCount--;
    if (item.refCount <= 0) {
      item.stop();
      this.items.delete(key);
    }
  }

  private recycleIdle(): void {
    const now = this.opts.clock.now();
    for (const item of this.items.values())
      if (!item.stopped && item.store.initialized && now > item.lastAccessTime + this.maxIdleMs && item.stop())
        this.counters.stoppedIdle++;
  }
}

/**
 * `cacheBasedManager`'s registration bookkeeping for a store whose references cost nothing to repeat: the references
 * of a pod's new registration are added before the previous registration's are dropped, so an unchanged pod never
 * takes an object's count to zero.
 */
class RegistrationCounter {
  private readonly registered = new Map<string, KubeletPod>();

  constructor(
    private readonly add: (namespace: string, name: string) => void,
    private readonly drop: (namespace: string, name: string) => void,
  ) {}

  register(pod: KubeletPod): void {
    const key = `${pod.namespace}/${pod.name}/${pod.uid}`;
    const prev = this.registered.get(key);
    this.registered.set(key, pod);
    for (const n of new Set(pod.configMaps)) this.add(pod.namespace, n);
    if (prev !== undefined) for (const n of new Set(prev.configMaps)) this.drop(prev.namespace, n);
  }

  unregister(pod: KubeletPod): void {
    const key = `${pod.namespace}/${pod.name}/${pod.uid}`;
    const prev = this.registered.get(key);
    this.registered.delete(key);
    if (prev !== undefined) for (const n of new Set(prev.configMaps)) this.drop(prev.namespace, n);
  }
}
