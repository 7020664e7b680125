// The Cache strategy (pkg/kubelet/util/manager/cache_based_manager.go): a TTL cache of the objects registered pods
// reference, invalidated when a pod is registered, refreshed from the apiserver's watch cache when stale.
import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import type { ConfigMapManager, KubeletPod, ObjectClient } from "./manager.js";

/** TTL used when the Node carries no TTL annotation (kubelet's `defaultTTL`: 1 minute). */
export const DEFAULT_OBJECT_TTL_MS = 60_000;

/** Options of {@link CacheBasedManager}. */
export interface CacheBasedManagerOptions {
  readonly client: ObjectClient;
  readonly clock: Clock;
  /**
   * The TTL in ms, read on every freshness check (kubelet: the Node's `node.alpha.kubernetes.io/ttl` annotation in
   * seconds); undefined = no annotation, {@link DEFAULT_OBJECT_TTL_MS} applies.
   */
  readonly getTTL: () => number | undefined;
  /**
   * Whether every `registerPod` of an already registered pod invalidates the cached objects it references (kubelet
   * ≤ v1.28, the behaviour behind write-up 000: the next read after each pod sync is a GET to etcd). False is the fix
   * of kubernetes#120255 (v1.29): only objects newly referenced by the pod are invalidated. Default true.
   */
  readonly invalidateOnEveryRegistration?: boolean;
}

interface ObjectData {
  object: KubeObject | undefined;
  err: unknown;
  lastUpdateTime: number;
  /** Serializes fetches of one object, as the Go code's per-object mutex does. */
  tail: Promise<void>;
}

interface StoreItem {
  refCount: number;
  /** null = invalidated: the next get starts from empty data and fetches from storage. */
  data: ObjectData | null;
}

function newData(): ObjectData {
  return { object: undefined, err: undefined, lastUpdateTime: Number.NEGATIVE_INFINITY, tail: Promise.resolve() };
}

function rvOf(obj: KubeObject | undefined): number {
  const n = Number(obj?.metadata?.resourceVersion ?? "");
  return Number.isFinite(n) ? n : 0;
}

/**
 * The `Cache` change-detection strategy (`cacheBasedManager` over a TTL `objectStore`):
 * - `registerPod` adds a reference to every object the pod uses and invalidates it (the next read fetches without a
 *   resourceVersion, i.e. from etcd); with `invalidateOnEveryRegistration` false only for newly referenced objects;
 * - `getObject` answers from the cache while the entry is younger than the TTL; a stale entry that holds an object is
 *   refreshed with `resourceVersion=0` (served by the watch cache), an invalidated or failed one from storage; an
 *   answer older than the cached object is ignored; NotFound is cached like an object.
 * Concurrent reads of one object share one fetch (the later ones find it fresh).
 */
export class CacheBasedManager implements ConfigMapManager {
  readonly strategy = "Cache" as const;
  private readonly items = new Map<string, StoreItem>();
  private readonly registered = new Map<string, KubeletPod>();
  private readonly invalidateAlways: boolean;

  constructor(private readonly opts: CacheBasedManagerOptions) {
    this.invalidateAlways = opts.invalidateOnEveryRegistration ?? true;
  }

  /** References held on `namespace/name` (0 when not registered). */
  refCount(namespace: string, name: string): number {
    return this.items.get(`${namespace}/${name}`)?.refCount ?? 0;
  }

  registerPod(pod: KubeletPod): void {
    const key = `${pod.namespace}/${pod.name}/${pod.uid}`;
    const prev = this.registered.get(key);
    this.registered.set(key, pod);
    const names = new Set(pod.configMaps);
    const prevNames = new Set(prev?.configMaps ?? []);
    if (prev === undefined || this.invalidateAlways) {
      // ≤ v1.28: add (and so invalidate) every reference, then drop the previous registration's references.
      for (const n of names) this.addReference(pod.namespace, n);
      for (const n of prevNames) this.deleteReference(pod.namespace, n);
      return;
    }
    for (const n of names) if (!prevNames.has(n)) this.addReference(pod.namespace, n);
    for (const n of prevNames) if (!names.has(n)) this.deleteReference(pod.namespace, n);
  }

  unregisterPod(pod: KubeletPod): void {
    const key = `${pod.namespace}/${pod.name}/${pod.uid}`;
    const prev = this.registered.get(key);
    this.registered.delete(key);
    if (prev !== undefined) for (const n of new Set(prev.configMaps)) this.deleteReference(prev.namespace, n);
  }

  getObject(namespace: string, name: string): Promise<KubeObject> {
    const item = this.items.get(`${namespace}/${name}`);
    if (item === undefined) return Promise.reject(new Error(`object "${namespace}"/"${name}" not registered`));
    if (item.data === null) item.data = newData();
    const data = item.data;
    const run = data.tail.then(() => this.refresh(data, namespace, name));
    data.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async stop(): Promise<void> {
    this.items.clear();
    this.registered.clear();
  }

  private addReference(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    let item = this.items.get(key);
    if (item === undefined) {
      item = { refCount: 0, data: newData() };
      this.items.set(key, item);
    }
    item.refCount++;
    item.data = null;
  }

  private deleteReference(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const item = this.items.get(key);
    if (item === undefined) return;
    item.refCount--;
    if (item.refCount <= 0) this.items.delete(key);
  }

  private isFresh(data: ObjectData): boolean {
    const ttl = this.opts.getTTL() ?? DEFAULT_OBJECT_TTL_MS;
    return this.opts.clock.now() < data.lastUpdateTime + ttl;
  }

  private async refresh(data: ObjectData, namespace: string, name: string): Promise<KubeObject> {
    if (data.err !== undefined || !this.isFresh(data)) {
      // A periodic refresh of an object fetched before may come from the watch cache; a first fetch may not.
      const periodic = data.object !== undefined && data.err === undefined;
      let object: KubeObject | undefined;
      let err: unknown;
      try {
        object = await this.opts.client.get(namespace, name, periodic ? { resourceVersion: "0" } : {});
      } catch (e) {
        err = e;
      }
      if (err !== undefined && !isNotFound(err) && data.object === undefined && data.err === undefined) throw err;
      if ((err === undefined && !(rvOf(object) < rvOf(data.object) && data.object !== undefined)) || isNotFound(err)) {
        data.object = object;
        data.err = err;
        data.lastUpdateTime = this.opts.clock.now();
      }
    }
    if (data.err !== undefined) throw data.err;
    if (data.object === undefined) throw new Error(`object "${namespace}"/"${name}" has no data`);
    return data.object;
  }
}
