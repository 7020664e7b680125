import { type KubeObject, newInvalid } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import { newUid, rfc3339Seconds } from "../object-util.js";
import type { SimResource } from "../resources.js";
import type { MvccStorage } from "../storage/index.js";

/** The IPAddress label naming who allocated it (`networkingv1.LabelManagedBy`). */
export const IP_ADDRESS_MANAGED_BY = "ipaddress.kubernetes.io/managed-by";
/** The IPAddress label of its family (`networkingv1.LabelIPAddressFamily`). */
export const IP_ADDRESS_FAMILY = "ipaddress.kubernetes.io/ip-family";
/** The allocator's name in {@link IP_ADDRESS_MANAGED_BY} (`ipallocator.ControllerName`). */
export const IP_ALLOCATOR_NAME = "ipallocator.k8s.io";

interface ParentRef {
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

/** A Service's allocated cluster IPs (`spec.clusterIPs`, else `spec.clusterIP`), without `None` and empty ones. */
export function clusterIpsOf(svc: KubeObject): string[] {
  const spec = (svc.spec ?? {}) as { clusterIP?: unknown; clusterIPs?: unknown };
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
  return ips.filter((ip): ip is string => typeof ip === "string" && ip !== "" && ip !== "None");
}

const isServices = (r: SimResource) => r.group === "" && r.resource === "services";

/** Options of {@link ServiceIpAddresses}. */
export interface ServiceIpAddressesOptions {
  readonly storage: MvccStorage;
  readonly clock: Clock;
  /** Where the IPAddresses' uids come from (its own sequence: the engine's stays as it was without them). */
  readonly rand: Rand;
  /** The served `networking.k8s.io` `ipaddresses` resource; undefined: not served, nothing is allocated. */
  readonly ipAddresses: () => SimResource | undefined;
}

/**
 * The Service REST's cluster-IP bookkeeping with the MultiCIDRServiceAllocator behaviour of v1.34
 * (pkg/registry/core/service/ipallocator/ipallocator.go, `createIPAddress`; pkg/registry/core/service/storage/alloc.go):
 * each cluster IP a stored Service holds is a `networking.k8s.io/v1` IPAddress named by the address, with
 * `spec.parentRef` to the Service and the labels `ipaddress.kubernetes.io/managed-by: ipallocator.k8s.io` and
 * `ipaddress.kubernetes.io/ip-family`; an address that already has one cannot be given to another Service (422
 * `failed to allocate IP …: provided IP is already allocated`), and deleting the Service deletes its IPAddresses.
 *
 * Differences from kube-apiserver: written straight to storage (no admission of the IPAddress, no managedFields);
 * a Service update that changes its type to or from ExternalName or headless does not allocate or release.
 */
export class ServiceIpAddresses {
  constructor(private readonly opts: ServiceIpAddressesOptions) {}

  /** The address's IPAddress object, if the resource is served and it exists. */
  held(ip: string): KubeObject | undefined {
    const r = this.opts.ipAddresses();
    return r === undefined ? undefined : this.opts.storage.get(r, "", ip);
  }

  /** Before a Service is stored: throws the 422 of the first of its cluster IPs another object holds. */
  checkFree(r: SimResource, svc: KubeObject): void {
    if (!isServices(r)) return;
    for (const ip of clusterIpsOf(svc)) {
      if (this.held(ip) === undefined) continue;
      const ips = clusterIpsOf(svc);
      throw newInvalid({ group: "", kind: "Service" }, String(svc.metadata?.name ?? ""), [
        {
          type: "FieldValueInvalid",
          field: "spec.clusterIPs",
          printedValue: `[]string{${ips.map((x) => JSON.stringify(x)).join(", ")}}`,
          detail: `failed to allocate IP ${ip}: provided IP is already allocated`,
        },
      ]);
    }
  }

  /** After a Service was stored: its IPAddresses. */
  allocated(r: SimResource, svc: KubeObject): void {
    const ipr = this.opts.ipAddresses();
    if (!isServices(r) || ipr === undefined) return;
    for (const ip of clusterIpsOf(svc)) {
      if (this.held(ip) !== undefined) continue;
      const address: KubeObject = {
        apiVersion: "networking.k8s.io/v1",
        kind: "IPAddress",
        metadata: {
          name: ip,
          uid: newUid(this.opts.rand),
          creationTimestamp: rfc3339Seconds(this.opts.clock.now()),
          labels: {
            [IP_ADDRESS_FAMILY]: ip.includes(":") ? "IPv6" : "IPv4",
            [IP_ADDRESS_MANAGED_BY]: IP_ALLOCATOR_NAME,
          },
        },
        spec: {
          parentRef: {
            group: "",
            resource: "services",
            namespace: svc.metadata?.namespace ?? "",
            name: svc.metadata?.name ?? "",
          },
        },
      };
      this.opts.storage.insert(ipr, "", address);
    }
  }

  /** After a Service was deleted: the IPAddresses whose parentRef is it. */
  released(r: SimResource, svc: KubeObject): void {
    const ipr = this.opts.ipAddresses();
    if (!isServices(r) || ipr === undefined) return;
    for (const ip of clusterIpsOf(svc)) {
      const held = this.held(ip);
      const ref = (held?.spec as { parentRef?: ParentRef } | undefined)?.parentRef;
      if (held === undefined || ref?.resource !== "services" || (ref.group ?? "") !== "") continue;
      if (ref.namespace !== svc.metadata?.namespace || ref.name !== svc.metadata?.name) continue;
      this.opts.storage.remove(ipr, "", ip, held.metadata?.resourceVersion ?? "");
    }
  }
}
