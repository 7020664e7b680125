// The schema types of k8s.io/apimachinery/pkg/runtime/schema that the packages share: the identity of a resource
// (GroupResource, GroupVersionResource), of a kind (GroupVersionKind, as an object spells it) and the one resource
// descriptor (ResourceDescriptor) the client, the cache's factory and the simulator build on.
import type { KubeObject } from "./types.js";

/** A resource with its API group (`schema.GroupResource`): `{ group: "apps", resource: "deployments" }` prints `deployments.apps`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/**
 * `schema.GroupVersionResource`: what a request path names (`/apis/apps/v1/deployments`). `group` is `""` for the
 * core API (`/api/v1`); `resource` is the plural, lower-case name.
 */
export interface GroupVersionResource extends GroupResource {
  readonly version: string;
}

/**
 * `schema.GroupVersionKind` as a Kubernetes object spells it.
 *
 * Differences from apimachinery: Go's struct has `Group`, `Version` and `Kind`; here the group and version are
 * joined as in an object's `apiVersion`.
 */
export interface GroupVersionKind {
  /** `group/version`, or `version` for the core group ("v1"). */
  readonly apiVersion: string;
  readonly kind: string;
}

/** `GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod` for the core group. */
export function gvkString(gvk: GroupVersionKind): string {
  const slash = gvk.apiVersion.indexOf("/");
  const group = slash >= 0 ? gvk.apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? gvk.apiVersion.slice(slash + 1) : gvk.apiVersion;
  return `${group}/${version}, Kind=${gvk.kind}`;
}

declare const objectType: unique symbol;

/**
 * One API resource (`schema.GroupVersionResource` plus the kind and scope that `RESTMapper` would supply), typed by
 * the object it serves: `T` is a compile-time type only (no value is ever stored under it, no class conversion
 * happens at run time), so `client.get(resources.configMaps, …)` resolves to a `ConfigMap` and
 * `listWatchFor(client, resources.pods)` to a `ListerWatcher<Pod>`. `T` defaults to {@link KubeObject}; a typed
 * descriptor is accepted wherever an untyped one is. `group` is `""` for the core API (`/api/v1`).
 *
 * The one resource descriptor of the packages: `@informer-ts/client`'s verbs and `resources` table, the cache's
 * informer factory (any {@link GroupVersionResource} with an optional kind) and the simulator's served resources
 * (a superset with verbs and names) all accept it.
 */
export interface ResourceDescriptor<T = KubeObject> extends GroupVersionResource {
  /** Plural, lower-case resource name: `configmaps`. */
  readonly resource: string;
  /** Kind of one object: `ConfigMap`. */
  readonly kind: string;
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
  /**
   * Subresources the server serves for this resource (`status`, `scale`…), when known (built-ins, discovery, or
   * given to `customResource`). A request for a subresource not in a known list fails before sending.
   */
  readonly subresources?: readonly string[];
  /** Phantom member carrying the object type; never present at run time. */
  readonly [objectType]?: T;
}

/** The object type a descriptor serves: `ObjectOf<typeof resources.configMaps>` is `ConfigMap`. */
export type ObjectOf<R> = R extends ResourceDescriptor<infer T> ? T : never;
