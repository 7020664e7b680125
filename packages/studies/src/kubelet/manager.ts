// The kubelet's ConfigMap/Secret manager interface (pkg/kubelet/util/manager/manager.go) and the pieces every
// change-detection strategy shares: the pod as the managers see it, and the API calls they make.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ListerWatcher } from "@informer-ts/cache";

/**
 * A pod as the kubelet's ConfigMap manager sees it: identity and the names of the ConfigMaps its volumes reference
 * (all in the pod's namespace).
 */
export interface KubeletPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** Names of the ConfigMaps mounted as volumes (kubelet's `getConfigMapNames`). */
  readonly configMaps: readonly string[];
}

/**
 * kubelet's `configMapAndSecretChangeDetectionStrategy`: `Get` reads the apiserver on every use, `Cache` keeps a
 * TTL cache (TTL from the Node annotation), `Watch` keeps one single-object watch per referenced object (the
 * default since v1.14).
 */
export type ChangeDetectionStrategy = "Get" | "Cache" | "Watch";

/** Every strategy, in kubelet's order of introduction. */
export const CHANGE_DETECTION_STRATEGIES: readonly ChangeDetectionStrategy[] = ["Get", "Cache", "Watch"];

/**
 * The API calls the managers make for one resource (configmaps or secrets), as the kubelet's client would send them.
 * `get` with `resourceVersion` "0" may be answered from the watch cache; without it, from storage (etcd).
 */
export interface ObjectClient {
  get(namespace: string, name: string, opts: { readonly resourceVersion?: string }): Promise<KubeObject>;
  /** A LIST/WATCH source of the single object `namespace/name` (field selector `metadata.name=<name>`). */
  singleObjectListerWatcher(namespace: string, name: string): ListerWatcher<KubeObject>;
}

/**
 * kubelet's `manager.Manager`: `registerPod` is called on every pod sync (and on pod updates), `unregisterPod` when a
 * pod is gone, `getObject` by the volume manager on every (re)mount of a ConfigMap volume. The three strategies differ
 * only in what those calls send to the apiserver.
 */
export interface ConfigMapManager {
  readonly strategy: ChangeDetectionStrategy;
  /** Resolves to the object, or rejects with the API's error (a NotFound included) or a "not registered" error. */
  getObject(namespace: string, name: string): Promise<KubeObject>;
  registerPod(pod: KubeletPod): void;
  unregisterPod(pod: KubeletPod): void;
  /** Releases what the manager holds (watches, timers); resolves when everything is released. */
  stop(): Promise<void>;
}

/** `immutable: true` on a ConfigMap or Secret (KEP-1412, `ImmutableEphemeralVolumes`). */
export function isImmutable(obj: KubeObject): boolean {
  return (obj as { immutable?: unknown }).immutable === true;
}
