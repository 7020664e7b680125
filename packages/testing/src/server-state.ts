import type { KubeObject } from "@informer-ts/apimachinery";
import type { SimCluster } from "./sim-cluster.js";

/** A resource as {@link ServerState} names it: a client `ResourceDescriptor`, or the engine's `resource.group` string. */
export type StateResource = string | { readonly group: string; readonly resource: string };

/**
 * The simulated server's storage, read directly (no request, no watch cache, no fault applies): what a convergence
 * predicate judges. Objects are the stored ones: never mutate them.
 */
export interface ServerState {
  /** Every stored object of a resource (in every namespace, or in `namespace`), in key order. */
  list(resource: StateResource, namespace?: string): readonly KubeObject[];
  /** One stored object, or undefined. */
  get(resource: StateResource, namespace: string, name: string): KubeObject | undefined;
  /** The storage's current resourceVersion. */
  readonly resourceVersion: string;
}

const refOf = (r: StateResource): string =>
  typeof r === "string" ? r : r.group === "" ? r.resource : `${r.resource}.${r.group}`;

/**
 * The {@link ServerState} of a cluster, read at each call (so a predicate always sees the current storage). Asking for
 * a resource the server does not serve throws an error naming it.
 */
export function serverState(cluster: SimCluster): ServerState {
  const engine = cluster.engine;
  const list = (resource: StateResource, namespace?: string): readonly KubeObject[] => {
    const r = engine.resource(refOf(resource));
    const all = engine.storage.snapshot(r).map(([, o]) => o as KubeObject);
    return namespace === undefined ? all : all.filter((o) => (o.metadata?.namespace ?? "") === namespace);
  };
  return {
    list,
    get: (resource, namespace, name) => list(resource, namespace).find((o) => o.metadata?.name === name),
    get resourceVersion() {
      return String(engine.storage.currentRevision);
    },
  };
}
