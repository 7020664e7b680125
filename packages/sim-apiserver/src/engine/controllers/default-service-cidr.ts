import type { KubeObject } from "@informer-ts/apimachinery";
import type { RegistryStore } from "../registry/index.js";
import type { SimResource } from "../resources.js";

/** kube-apiserver's default `--service-cluster-ip-range` (the `kubernetes` Service's 10.96.0.1 is its first address). */
export const DEFAULT_SERVICE_CIDR = "10.96.0.0/12";

/** The name of the default ServiceCIDR (`defaultservicecidr.DefaultServiceCIDRName`). */
export const DEFAULT_SERVICE_CIDR_NAME = "kubernetes";

/**
 * Creates the default `networking.k8s.io/v1` ServiceCIDR `kubernetes` holding {@link DEFAULT_SERVICE_CIDR}, Ready,
 * as the control plane's `defaultservicecidr` controller (`pkg/controlplane/controller/defaultservicecidr`) does at
 * start, where it does not exist yet and the resource is served.
 *
 * Differences from kube-apiserver: created once when the engine starts, not reconciled. (Services' cluster IPs get
 * their IPAddress objects from `registry/service-ip-addresses.ts`.)
 */
export function ensureDefaultServiceCidr(seeder: RegistryStore, resources: readonly SimResource[], now: string): void {
  const r = resources.find((x) => x.group === "networking.k8s.io" && x.resource === "servicecidrs");
  if (r === undefined) return;
  const cidr: KubeObject = {
    metadata: { name: DEFAULT_SERVICE_CIDR_NAME },
    spec: { cidrs: [DEFAULT_SERVICE_CIDR] },
    status: {
      conditions: [
        {
          type: "Ready",
          status: "True",
          lastTransitionTime: now,
          reason: "",
          message: "Kubernetes default Service CIDR is ready",
        },
      ],
    },
  };
  try {
    seeder.seed(r, "", cidr);
  } catch {
    // Already there (an engine restarted on kept storage): the existing object stays.
  }
}
