// The in-process ListerWatcher of one resource (client-go's `tools/cache/listwatch.go`: a list and a watch function
// with the scope's namespace and selectors applied to every call), over the engine's in-process verbs.
import type { KubeList, KubeObject, ListerWatcher, ListOptions, ListWatchScope } from "@informer-ts/apimachinery";
import type { RequestContext, ResourceRef } from "./request-context.js";
import type { SimWatch } from "./sim-watch.js";

/**
 * Scope of an in-process `SimApiServer.listerWatcher`: apimachinery's {@link ListWatchScope} (namespace and
 * selectors applied to every call) plus the user agent its requests are recorded under.
 */
export interface InProcessListWatchScope extends ListWatchScope {
  readonly userAgent?: string;
}

/**
 * The in-process list/watch source: apimachinery's {@link ListerWatcher} contract, whose watches are the engine's
 * {@link SimWatch} (pullable with `next()` as well as iterable).
 */
export interface InProcessListerWatcher extends ListerWatcher<KubeObject> {
  list(options: ListOptions, signal?: AbortSignal): Promise<KubeList>;
  watch(options: ListOptions, signal?: AbortSignal): Promise<SimWatch>;
}

/** The in-process verbs a {@link InProcessListerWatcher} calls (`SimApiServer.list` and `SimApiServer.watch`). */
export interface InProcessListWatchVerbs {
  list(ref: ResourceRef, namespace: string, opts: ListOptions, ctx?: RequestContext): Promise<KubeList>;
  watch(ref: ResourceRef, namespace: string, opts: ListOptions, ctx?: RequestContext): Promise<SimWatch>;
}

/**
 * A ListerWatcher of `ref` with `scope` applied to every call: the scope's selectors replace the caller's, its
 * namespace is used when the resource is namespaced (looked up per call with `namespaced`, so a resource served
 * later works and one not served makes each call reject with its 404), its user agent and the call's signal go into
 * the request context.
 */
export function inProcessListerWatcher(
  verbs: InProcessListWatchVerbs,
  namespaced: (ref: ResourceRef) => boolean,
  ref: ResourceRef,
  scope: InProcessListWatchScope,
): InProcessListerWatcher {
  const ns = () => (namespaced(ref) ? (scope.namespace ?? "") : "");
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
    list: (o, signal) => verbs.list(ref, ns(), merge(o), ctxOf(signal)),
    watch: (o, signal) => verbs.watch(ref, ns(), merge(o), ctxOf(signal)),
  };
}
