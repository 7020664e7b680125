import type { KubeObject } from "@informer-ts/apimachinery";
import type { RegistryStore } from "../registry/index.js";
import type { SimResource } from "../resources.js";

/** The `kubernetes` Service's cluster IP: the first address of kube-apiserver's default service CIDR 10.96.0.0/12. */
export const KUBERNETES_SERVICE_IP = "10.96.0.1";

/** The port the `kubernetes` Service's endpoints name (kube-apiserver's default `--secure-port`). */
export const KUBERNETES_SERVICE_TARGET_PORT = 6443;

function kubernetesService(): KubeObject {
  return {
    metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
    spec: {
      clusterIP: KUBERNETES_SERVICE_IP,
      clusterIPs: [KUBERNETES_SERVICE_IP],
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: KUBERNETES_SERVICE_TARGET_PORT }],
      sessionAffinity: "None",
      type: "ClusterIP",
    },
  };
}

function kubernetesEndpoints(address: string): KubeObject {
  return {
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
    },
    subsets: [
      {
        addresses: [{ ip: address }],
        ports: [{ name: "https", port: KUBERNETES_SERVICE_TARGET_PORT, protocol: "TCP" }],
      },
    ],
  } as KubeObject;
}

function kubernetesEndpointSlice(address: string): KubeObject {
  return {
    metadata: { name: "kubernetes", namespace: "default", labels: { "kubernetes.io/service-name": "kubernetes" } },
    addressType: "IPv4",
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: [{ name: "https", port: KUBERNETES_SERVICE_TARGET_PORT, protocol: "TCP" }],
  } as KubeObject;
}

/**
 * Creates the `kubernetes` Service in `default` and its Endpoints and EndpointSlice (the control plane's
 * `kubernetesservice` controller, `pkg/controlplane/controller/kubernetesservice`, and the endpoint reconciler of
 * `pkg/controlplane/reconcilers`) where they do not exist yet: ClusterIP `10.96.0.1`, port `https` 443 → 6443, one
 * endpoint at `address`. Resources that are not served (a custom resource set) are skipped.
 *
 * Differences from kube-apiserver: created once when the engine starts, not reconciled every 10 s; the endpoint
 * address is `address` (default `127.0.0.1`) and port 6443 whatever port the HTTP face listens on.
 */
export function ensureKubernetesService(
  seeder: RegistryStore,
  resources: readonly SimResource[],
  address = "127.0.0.1",
): void {
  const find = (group: string, resource: string) => resources.find((r) => r.group === group && r.resource === resource);
  const objects: Array<[SimResource | undefined, KubeObject]> = [
    [find("", "services"), kubernetesService()],
    [find("", "endpoints"), kubernetesEndpoints(address)],
    [find("discovery.k8s.io", "endpointslices"), kubernetesEndpointSlice(address)],
  ];
  for (const [r, obj] of objects) {
    if (r === undefined) continue;
    try {
      seeder.create(r, "default", obj);
    } catch {
      // Already there (an engine restarted on kept storage): the existing object stays.
    }
  }
}
