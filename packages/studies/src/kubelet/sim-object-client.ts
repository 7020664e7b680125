// The kubelet model's API calls served in process by a SimApiServer, with the kubelet's user agent.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ListerWatcher } from "@informer-ts/cache";
import type { SimApiServer } from "@informer-ts/sim-apiserver";
import type { ObjectClient } from "./manager.js";

/** The user agent of the write-up's kubelet (000's httplog lines). */
export const KUBELET_USER_AGENT = "kubelet/v1.28.0 (linux/amd64) kubernetes/855e7c4";

/**
 * An {@link ObjectClient} for `resource` (default `configmaps`) on an in-process {@link SimApiServer}: GETs and the
 * single-object LIST/WATCH go through the engine's request path, so the simulator's accounting sees them with
 * `userAgent` and where they were served from.
 */
export function simObjectClient(
  sim: SimApiServer,
  userAgent = KUBELET_USER_AGENT,
  resource = "configmaps",
): ObjectClient {
  return {
    get: (namespace, name, opts) =>
      sim.get(
        resource,
        namespace,
        name,
        opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {},
        { userAgent },
      ),
    singleObjectListerWatcher: (namespace, name) =>
      sim.listerWatcher(resource, {
        namespace,
        fieldSelector: `metadata.name=${name}`,
        userAgent,
      }) as unknown as ListerWatcher<KubeObject>,
  };
}
