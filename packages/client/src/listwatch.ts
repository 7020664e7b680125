import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import type { ListerWatcher, ListerWatcherTarget, Watch } from "@informer-ts/cache";
import type { ResourceDescriptor } from "./resources.js";
import type { KubeClient } from "./rest-client.js";

/** The scope of a {@link listWatchFor}: a namespace (unset = all) and selectors applied to every call. */
export interface ListWatchScope {
  readonly namespace?: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

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
  resource: ResourceDescriptor,
  scope: ListWatchScope = {},
): ListerWatcher<T> {
  const apply = (options: ListOptions): ListOptions & { namespace?: string } => {
    const o: ListOptions & { namespace?: string } = { ...options };
    if (scope.fieldSelector !== undefined) o.fieldSelector = scope.fieldSelector;
    if (scope.labelSelector !== undefined) o.labelSelector = scope.labelSelector;
    if (scope.namespace !== undefined && scope.namespace !== "") o.namespace = scope.namespace;
    return o;
  };
  const target: ListerWatcherTarget = {
    url: client.config.server,
    ...(client.config.username ? { user: client.config.username } : {}),
    group: resource.group,
    version: resource.version,
    resource: resource.resource,
    ...(scope.namespace ? { namespace: scope.namespace } : {}),
  };
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
