import { isAlreadyExists, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Namespace, resources, type ServiceAccount } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type Request } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";

/** Options of a {@link ServiceAccountsController}. */
export interface ServiceAccountsControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The logger of its controller (its `Starting Controller`, reconcile errors). Default the runtime logger. */
  readonly logger?: Logger;
  readonly namespaces: SharedIndexInformer<Namespace>;
  readonly serviceAccounts: SharedIndexInformer<ServiceAccount>;
  /** The accounts every namespace gets (default `["default"]`, as upstream's `DefaultServiceAccountsControllerOptions`). */
  readonly names?: readonly string[];
  readonly metrics?: MetricsProvider;
}

/**
 * The service accounts controller (`pkg/controller/serviceaccount/serviceaccounts_controller.go`): every active
 * namespace has a `default` ServiceAccount; one deleted is created again. A namespace that is terminating is left
 * alone (its accounts go with it). Keys are namespaces.
 */
export class ServiceAccountsController {
  readonly controller: Controller;
  private readonly names: readonly string[];

  constructor(private readonly o: ServiceAccountsControllerOptions) {
    this.names = o.names ?? ["default"];
    const ns: EventHandler<KubeObject> = {
      create: (n) => [{ namespace: "", name: n.metadata?.name ?? "" }],
      update: (_o, n) => [{ namespace: "", name: n.metadata?.name ?? "" }],
      delete: () => [],
    };
    const sa: EventHandler<KubeObject> = {
      create: () => [],
      update: () => [],
      delete: (a) =>
        this.names.includes(a.metadata?.name ?? "") ? [{ namespace: "", name: a.metadata?.namespace ?? "" }] : [],
    };
    this.controller = new Controller({
      ...(o.logger !== undefined && { logger: o.logger }),
      name: "serviceaccount",
      reconciler: (req) => this.sync(req),
      watches: [
        { informer: o.namespaces as never, handler: ns, name: "namespaces" },
        { informer: o.serviceAccounts as never, handler: sa, name: "serviceaccounts" },
      ],
      maxConcurrentReconciles: 1,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** `syncNamespace`. */
  private async sync(req: Request): Promise<void> {
    const ns = this.o.namespaces.getIndexer().getByKey(req.name);
    if (ns === undefined || ns.status?.phase === "Terminating" || ns.metadata?.deletionTimestamp != null) return;
    for (const name of this.names) {
      if (this.o.serviceAccounts.getIndexer().getByKey(`${req.name}/${name}`) !== undefined) continue;
      try {
        await this.o.client.create(resources.serviceAccounts, {
          apiVersion: "v1",
          kind: "ServiceAccount",
          metadata: { name, namespace: req.name },
        } as ServiceAccount);
      } catch (err) {
        // Created meanwhile, or the namespace went away or started terminating.
        if (!isAlreadyExists(err) && !isNotFound(err) && !String((err as Error).message).includes("being terminated"))
          throw err;
      }
    }
  }
}
