import { isAlreadyExists, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import type { Namespace } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type Request } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";

/** What a per-namespace controller is built from: its namespaces and the one kind it keeps in each. */
export interface PerNamespaceControllerOptions {
  readonly name: string;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly metrics?: MetricsProvider;
  readonly namespaces: SharedIndexInformer<Namespace>;
  /** The informer of the kept kind, its watch's name, and which of its objects' events requeue their namespace. */
  readonly kept: { readonly informer: SharedIndexInformer<KubeObject>; readonly name: string };
  readonly requeueOn: { readonly update: boolean; readonly matches: (obj: KubeObject) => boolean };
  /** Called with an active namespace's name. */
  readonly sync: (namespace: string) => Promise<void>;
}

/**
 * A controller keyed by namespace (kube-controller-manager's service accounts controller and root CA publisher): a
 * namespace added or changed is a key, and so is the namespace of a kept object that is deleted (or changed, with
 * `requeueOn.update`) and `requeueOn.matches`. `sync` runs for namespaces that exist and are not terminating; one
 * worker, no leader election (the simulated cluster runs one of each).
 */
export function newPerNamespaceController(o: PerNamespaceControllerOptions): Controller {
  const byName = (obj: KubeObject): Request[] => [{ namespace: "", name: obj.metadata?.name ?? "" }];
  const ofNamespace = (obj: KubeObject): Request[] =>
    o.requeueOn.matches(obj) ? [{ namespace: "", name: obj.metadata?.namespace ?? "" }] : [];
  const namespaces: EventHandler<KubeObject> = { create: byName, update: (_o, n) => byName(n), delete: () => [] };
  const kept: EventHandler<KubeObject> = {
    create: () => [],
    update: (_o, n) => (o.requeueOn.update ? ofNamespace(n) : []),
    delete: ofNamespace,
  };
  return new Controller({
    ...(o.logger !== undefined && { logger: o.logger }),
    name: o.name,
    reconciler: async (req) => {
      const ns = o.namespaces.getIndexer().getByKey(req.name);
      if (ns === undefined || ns.status?.phase === "Terminating" || ns.metadata?.deletionTimestamp != null) return;
      await o.sync(req.name);
    },
    watches: [
      { informer: o.namespaces as never, handler: namespaces, name: "namespaces" },
      { informer: o.kept.informer as never, handler: kept, name: o.kept.name },
    ],
    maxConcurrentReconciles: 1,
    clock: o.clock,
    ...(o.metrics !== undefined && { metrics: o.metrics }),
    needLeaderElection: false,
  });
}

/**
 * Rethrows `err` unless it is a race a per-namespace write may lose and can ignore: the object was created meanwhile
 * (409 AlreadyExists), or the namespace went away (404) or started terminating (403 "being terminated").
 */
export function ignoreNamespaceRace(err: unknown): void {
  if (isAlreadyExists(err) || isNotFound(err) || String((err as Error).message).includes("being terminated")) return;
  throw err;
}
