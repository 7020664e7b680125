import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Namespace, resources, type ServiceAccount } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import type { Controller } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { ignoreNamespaceRace, newPerNamespaceController } from "./per-namespace.js";

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
    this.controller = newPerNamespaceController({
      name: "serviceaccount",
      clock: o.clock,
      ...(o.logger !== undefined && { logger: o.logger }),
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      namespaces: o.namespaces,
      kept: { informer: o.serviceAccounts as never, name: "serviceaccounts" },
      requeueOn: { update: false, matches: (a) => this.names.includes(a.metadata?.name ?? "") },
      sync: (ns) => this.sync(ns),
    });
  }

  /** `syncNamespace`. */
  private async sync(namespace: string): Promise<void> {
    for (const name of this.names) {
      if (this.o.serviceAccounts.getIndexer().getByKey(`${namespace}/${name}`) !== undefined) continue;
      try {
        await this.o.client.create(resources.serviceAccounts, {
          apiVersion: "v1",
          kind: "ServiceAccount",
          metadata: { name, namespace },
        } as ServiceAccount);
      } catch (err) {
        ignoreNamespaceRace(err);
      }
    }
  }
}
