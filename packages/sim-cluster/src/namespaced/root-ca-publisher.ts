import { isAlreadyExists, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type ConfigMap, type KubeClient, type Namespace, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type Request } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";

/** The ConfigMap every namespace gets (`RootCACertConfigMapName`). */
export const ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";

/** The description upstream puts on the ConfigMap. */
export const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the " +
  "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/** Options of a {@link RootCACertPublisher}. */
export interface RootCACertPublisherOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The logger of its controller (its `Starting Controller`, reconcile errors). Default the runtime logger. */
  readonly logger?: Logger;
  readonly namespaces: SharedIndexInformer<Namespace>;
  readonly configMaps: SharedIndexInformer<ConfigMap>;
  /** The PEM bundle published as `ca.crt` (kube-controller-manager's `--root-ca-file`). */
  readonly rootCA: string;
  readonly metrics?: MetricsProvider;
}

/**
 * The root CA publisher (`pkg/controller/certificates/rootcacertpublisher/publisher.go`): every active namespace has a
 * ConfigMap `kube-root-ca.crt` whose `ca.crt` is the cluster's root CA, with upstream's description annotation; a
 * deleted one is created again and a changed one is set back. Keys are namespaces.
 */
export class RootCACertPublisher {
  readonly controller: Controller;

  constructor(private readonly o: RootCACertPublisherOptions) {
    const ns: EventHandler<KubeObject> = {
      create: (n) => [{ namespace: "", name: n.metadata?.name ?? "" }],
      update: (_o, n) => [{ namespace: "", name: n.metadata?.name ?? "" }],
      delete: () => [],
    };
    const cm: EventHandler<KubeObject> = {
      create: () => [],
      update: (_o, c) =>
        c.metadata?.name === ROOT_CA_CONFIG_MAP ? [{ namespace: "", name: c.metadata?.namespace ?? "" }] : [],
      delete: (c) =>
        c.metadata?.name === ROOT_CA_CONFIG_MAP ? [{ namespace: "", name: c.metadata?.namespace ?? "" }] : [],
    };
    this.controller = new Controller({
      ...(o.logger !== undefined && { logger: o.logger }),
      name: "root-ca-cert-publisher",
      reconciler: (req) => this.sync(req),
      watches: [
        { informer: o.namespaces as never, handler: ns, name: "namespaces" },
        { informer: o.configMaps as never, handler: cm, name: "configmaps" },
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
    const cur = this.o.configMaps.getIndexer().getByKey(`${req.name}/${ROOT_CA_CONFIG_MAP}`);
    const data = { "ca.crt": this.o.rootCA };
    const annotations = { "kubernetes.io/description": ROOT_CA_DESCRIPTION };
    try {
      if (cur === undefined) {
        await this.o.client.create(resources.configMaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: ROOT_CA_CONFIG_MAP, namespace: req.name, annotations },
          data,
        } as ConfigMap);
        return;
      }
      const same =
        cur.data?.["ca.crt"] === this.o.rootCA &&
        Object.keys(cur.data ?? {}).length === 1 &&
        cur.metadata?.annotations?.["kubernetes.io/description"] === ROOT_CA_DESCRIPTION;
      if (same) return;
      await this.o.client.update(resources.configMaps, {
        ...cur,
        metadata: { ...cur.metadata, annotations: { ...cur.metadata?.annotations, ...annotations } },
        data,
      } as ConfigMap);
    } catch (err) {
      if (!isAlreadyExists(err) && !isNotFound(err) && !String((err as Error).message).includes("being terminated"))
        throw err;
    }
  }
}
