import type { SharedIndexInformer } from "@informer-ts/cache";
import { type ConfigMap, type KubeClient, type Namespace, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import type { Controller } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { ignoreNamespaceRace, newPerNamespaceController } from "./per-namespace.js";

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
    this.controller = newPerNamespaceController({
      name: "root-ca-cert-publisher",
      clock: o.clock,
      ...(o.logger !== undefined && { logger: o.logger }),
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      namespaces: o.namespaces,
      kept: { informer: o.configMaps as never, name: "configmaps" },
      requeueOn: { update: true, matches: (c) => c.metadata?.name === ROOT_CA_CONFIG_MAP },
      sync: (ns) => this.sync(ns),
    });
  }

  /** `syncNamespace`. */
  private async sync(namespace: string): Promise<void> {
    const cur = this.o.configMaps.getIndexer().getByKey(`${namespace}/${ROOT_CA_CONFIG_MAP}`);
    const data = { "ca.crt": this.o.rootCA };
    const annotations = { "kubernetes.io/description": ROOT_CA_DESCRIPTION };
    try {
      if (cur === undefined) {
        await this.o.client.create(resources.configMaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations },
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
      ignoreNamespaceRace(err);
    }
  }
}
