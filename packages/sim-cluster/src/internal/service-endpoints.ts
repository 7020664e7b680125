import { type KubeObject, selectorFromSet } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import type { Pod, Service } from "@informer-ts/client";
import type { EventHandler, Request } from "@informer-ts/controller";
import { selfHandler } from "./controller-ref.js";
import { addNamespaceLabelIndexer, objectsWithLabels } from "./pod-label-index.js";
import { isPodReady } from "./pod-util.js";

/**
 * `podutil.FindPort` (pkg/api/v1/pod/util.go): the container port a Service port's `targetPort` names — a number as
 * it is, a name looked up among the pod's containers' ports of the same protocol. Undefined when a name is not found.
 */
export function findPort(
  pod: Pod,
  port: { targetPort?: number | string; port?: number; protocol?: string },
): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === "number") return target;
  if (target === undefined) return undefined;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = port.protocol ?? "TCP";
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (p.name === target && (p.protocol ?? "TCP") === protocol) return p.containerPort;
    }
  }
  return undefined;
}

/**
 * `ShouldPodBeInEndpoints` (pkg/controller/util/endpoint/controller_utils.go): a pod with an IP that is not in a
 * terminal phase; a terminating pod only when `includeTerminating` (the EndpointSlice controller keeps it, as
 * not ready and terminating).
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (pod.spec?.nodeName === undefined || pod.spec.nodeName === "") return false;
  if ((pod.status?.podIP ?? "") === "") return false;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  return includeTerminating || pod.metadata?.deletionTimestamp == null;
}

/** `podutil.IsPodReady` as the endpoint controllers use it: ready, and not terminating. */
export function endpointReady(pod: Pod, service: Service): boolean {
  if (service.spec?.publishNotReadyAddresses === true) return true;
  return pod.metadata?.deletionTimestamp == null && isPodReady(pod);
}

/**
 * The selector of a Service that selects pods; undefined for none (its endpoints are managed by hand) and for an
 * ExternalName Service. An empty selector is none: the apiserver drops it (`omitempty`), so upstream sees nil.
 */
export function serviceSelector(service: Service): Record<string, string> | undefined {
  const sel = service.spec?.selector;
  if (sel == null || Object.keys(sel).length === 0 || service.spec?.type === "ExternalName") return undefined;
  return sel;
}

/** `getPodServiceMemberships`: the keys (`namespace/name`) of the Services whose selector matches `pod`'s labels. */
export function servicesSelecting(services: SharedIndexInformer<Service>, pod: Pod): string[] {
  const ns = pod.metadata?.namespace ?? "";
  const out: string[] = [];
  for (const s of services.getIndexer().byIndex("namespace", ns)) {
    const sel = serviceSelector(s);
    if (sel !== undefined && selectorFromSet(sel).matches(pod.metadata?.labels)) {
      out.push(`${ns}/${s.metadata?.name ?? ""}`);
    }
  }
  return out;
}

/** Requests for the Services selecting a pod before or after a change (both, when its labels changed). */
export function podServiceRequests(services: SharedIndexInformer<Service>, ...pods: Pod[]): Request[] {
  const keys = new Set(pods.flatMap((p) => servicesSelecting(services, p)));
  return [...keys].map((k) => ({ namespace: k.slice(0, k.indexOf("/")), name: k.slice(k.indexOf("/") + 1) }));
}

/**
 * The pods of the Service's namespace its selector matches, read from the namespace/label index
 * ({@link serviceAndPodWatches} installs it): a sync costs the pods carrying one of the selector's labels, not the
 * whole namespace.
 */
export function selectedPods(
  pods: SharedIndexInformer<Pod>,
  service: Service,
  selector: Record<string, string>,
): Pod[] {
  return objectsWithLabels(pods, service.metadata?.namespace ?? "", selector);
}

/**
 * The watches both endpoint controllers start from (`onServiceUpdate`/`onServiceDelete`, `addPod`/`updatePod`/
 * `deletePod`): a Service's change syncs it; a pod's change syncs the Services selecting it before and after. Adds
 * the pods informer's namespace/label index that {@link selectedPods} reads (call it before the informer starts).
 */
export function serviceAndPodWatches(
  services: SharedIndexInformer<Service>,
  pods: SharedIndexInformer<Pod>,
): Array<{ informer: never; handler: EventHandler<KubeObject>; name: string }> {
  addNamespaceLabelIndexer(pods);
  const pod: EventHandler<KubeObject> = {
    create: (p) => podServiceRequests(services, p as Pod),
    update: (old, cur) =>
      old.metadata?.resourceVersion === cur.metadata?.resourceVersion
        ? []
        : podServiceRequests(services, old as Pod, cur as Pod),
    delete: (p) => podServiceRequests(services, p as Pod),
  };
  return [
    { informer: services as never, handler: selfHandler, name: "services" },
    { informer: pods as never, handler: pod, name: "pods" },
  ];
}
