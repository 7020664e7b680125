import type {
  KubeList,
  KubeObject,
  ListerWatcher,
  ListerWatcherTarget,
  ListOptions,
  ListWatchScope,
  Watch,
} from "@informer-ts/apimachinery";
import type { MetadataDecodeOptions } from "./metadata-watch.js";
import type { PartialObjectMetadata } from "./object-types.js";
import type { ResourceDescriptor } from "./resources.js";
import type { KubeClient } from "./rest-client.js";

// The scope of a listWatchFor is apimachinery's ListWatchScope (re-exported by the package index).
export type { ListWatchScope } from "@informer-ts/apimachinery";

/**
 * A {@link ListerWatcher} for one resource over HTTP (`cache.NewFilteredListWatchFromClient`). Every list and
 * watch gets the scope's namespace and selectors (overriding any in the options, as client-go's options
 * modifier does); `watch()` sends `watch=true` (plus `timeout=<duration>` beside `timeoutSeconds`, as the typed
 * clients do) and resolves once the server answered 200 with its headers. Failures reject with the server's
 * `StatusError` or the transport error. Its `target` (server URL, user when the config names one, group, version,
 * resource, namespace) lets a reflector's failure warnings say what it tried to reach.
 */
export function listWatchFor<T = KubeObject>(
  client: KubeClient,
  resource: ResourceDescriptor<T>,
  scope: ListWatchScope = {},
): ListerWatcher<T> {
  const apply = scoped(scope);
  const target = targetOf(client, resource, scope);
  return {
    target,
    list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<T>> {
      return client.list<T>(resource, apply(options), signal);
    },
    watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<T>> {
      return client.watch<T>(resource, apply(options), signal);
    },
  };
}

/**
 * A {@link ListerWatcher} of objects' metadata only (client-go `metadatainformer`'s list/watch through the
 * `metadata` client; controller-runtime `OnlyMetadata`, kube-rs `metadata_watcher`): lists ask for a
 * `PartialObjectMetadataList` and watches for `PartialObjectMetadata` events, so an informer over it caches
 * `{apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata}` per object and never receives specs,
 * data or status. Scope and failures as {@link listWatchFor}. `decode` is handed to every LIST and watch
 * ({@link MetadataDecodeOptions}: `dropManagedFields` leaves `metadata.managedFields` out while decoding).
 */
export function metadataListWatchFor(
  client: KubeClient,
  resource: ResourceDescriptor<unknown>,
  scope: ListWatchScope = {},
  decode: MetadataDecodeOptions = {},
): ListerWatcher<PartialObjectMetadata> {
  const apply = scoped(scope);
  const target = targetOf(client, resource, scope);
  return {
    target,
    list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<PartialObjectMetadata>> {
      return client.listMetadata(resource, apply(options), signal, decode);
    },
    watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<PartialObjectMetadata>> {
      return client.watchMetadata(resource, apply(options), signal, decode);
    },
  };
}

/** What a lister-watcher talks to, for the reflector's failure messages (server URL, user, GVR, namespace). */
function targetOf(
  client: KubeClient,
  resource: ResourceDescriptor<unknown>,
  scope: ListWatchScope,
): ListerWatcherTarget {
  return {
    url: client.config.server,
    ...(client.config.username ? { user: client.config.username } : {}),
    group: resource.group,
    version: resource.version,
    resource: resource.resource,
    ...(scope.namespace ? { namespace: scope.namespace } : {}),
  };
}

function scoped(scope: ListWatchScope): (options: ListOptions) => ListOptions & { namespace?: string } {
  return (options) => {
    const o: ListOptions & { namespace?: string } = { ...options };
    if (scope.fieldSelector !== undefined) o.fieldSelector = scope.fieldSelector;
    if (scope.labelSelector !== undefined) o.labelSelector = scope.labelSelector;
    if (scope.namespace !== undefined && scope.namespace !== "") o.namespace = scope.namespace;
    return o;
  };
}
