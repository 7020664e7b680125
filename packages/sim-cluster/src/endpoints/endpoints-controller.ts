import { isAlreadyExists, isConflict, isNotFound } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type Endpoints, type KubeClient, type Pod, resources, type Service } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type Request } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { selfHandler } from "../internal/controller-ref.js";
import {
  endpointReady,
  findPort,
  selectedPods,
  serviceAndPodWatches,
  serviceSelector,
  shouldPodBeInEndpoints,
} from "../internal/service-endpoints.js";

/** `maxCapacity`: an Endpoints object holds at most this many addresses (ready first); beyond, it is truncated. */
export const ENDPOINTS_MAX_CAPACITY = 1000;
/** The annotation a truncated Endpoints object carries (`endpoints.kubernetes.io/over-capacity: truncated`). */
export const OVER_CAPACITY_ANNOTATION = "endpoints.kubernetes.io/over-capacity";
/** `LabelManagedBy` of the Endpoints controller and its value (`endpoint-controller`). */
export const ENDPOINTS_MANAGED_BY_LABEL = "endpoints.kubernetes.io/managed-by";
export const ENDPOINTS_CONTROLLER_NAME = "endpoint-controller";
/** The label of a headless Service's endpoints (`v1.IsHeadlessService`). */
export const HEADLESS_LABEL = "service.kubernetes.io/headless";

/** One `EndpointAddress`. */
export interface EndpointAddress {
  ip: string;
  nodeName?: string;
  targetRef?: { kind: string; namespace: string; name: string; uid: string };
}

/** One `EndpointPort`. */
export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/** One `EndpointSubset`. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

function addressOf(pod: Pod): EndpointAddress {
  return {
    ip: pod.status?.podIP ?? "",
    ...(pod.spec?.nodeName !== undefined && { nodeName: pod.spec.nodeName }),
    targetRef: {
      kind: "Pod",
      namespace: pod.metadata?.namespace ?? "",
      name: pod.metadata?.name ?? "",
      uid: pod.metadata?.uid ?? "",
    },
  };
}

const byAddress = (a: EndpointAddress, b: EndpointAddress) =>
  a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : (a.targetRef?.uid ?? "") < (b.targetRef?.uid ?? "") ? -1 : 1;

/**
 * The subsets of a Service's Endpoints from its selected pods (`syncService`'s loop with `addEndpointSubset`, then
 * `endpoints.RepackSubsets`): each pod that should be in endpoints gives an address per resolved port, ready ones in
 * `addresses`, the rest in `notReadyAddresses` (all ready with `publishNotReadyAddresses`); addresses with the same
 * ports share a subset, an address ready anywhere is ready; addresses sorted by IP, subsets by their ports. A
 * headless Service without ports gets one port-less subset. Also the count truncated beyond `maxCapacity`.
 */
export function desiredSubsets(
  service: Service,
  pods: readonly Pod[],
  maxCapacity = ENDPOINTS_MAX_CAPACITY,
): { subsets: EndpointSubset[]; truncated: boolean } {
  const groups = new Map<
    string,
    { ports: EndpointPort[]; ready: Map<string, EndpointAddress>; notReady: Map<string, EndpointAddress> }
  >();
  const tolerateUnready = service.spec?.publishNotReadyAddresses === true;
  const svcPorts = service.spec?.ports ?? [];
  const headless = service.spec?.clusterIP === "None";
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const ready = endpointReady(pod, service);
    const add = (ports: EndpointPort[]) => {
      const key = JSON.stringify(ports);
      let g = groups.get(key);
      if (g === undefined) {
        g = { ports, ready: new Map(), notReady: new Map() };
        groups.set(key, g);
      }
      const a = addressOf(pod);
      const id = `${a.ip}\u0000${a.targetRef?.uid ?? ""}`;
      if (ready) {
        g.ready.set(id, a);
        g.notReady.delete(id);
      } else if (!g.ready.has(id)) g.notReady.set(id, a);
    };
    if (svcPorts.length === 0) {
      if (headless) add([]);
      continue;
    }
    for (const sp of svcPorts) {
      const port = findPort(pod, sp as never);
      if (port === undefined) continue;
      add([
        {
          ...(sp.name !== undefined && sp.name !== "" && { name: sp.name }),
          port,
          protocol: sp.protocol ?? "TCP",
          ...(sp.appProtocol !== undefined && { appProtocol: sp.appProtocol }),
        },
      ]);
    }
  }
  // Repack: an address's ports together, one subset per distinct port set.
  const perAddress = new Map<string, { a: EndpointAddress; ready: boolean; ports: EndpointPort[] }>();
  for (const g of groups.values()) {
    for (const [id, a] of g.ready) {
      const e = perAddress.get(id) ?? { a, ready: true, ports: [] };
      e.ready = true;
      e.ports.push(...g.ports);
      perAddress.set(id, e);
    }
    for (const [id, a] of g.notReady) {
      const e = perAddress.get(id) ?? { a, ready: false, ports: [] };
      e.ports.push(...g.ports);
      perAddress.set(id, e);
    }
  }
  const subsets = new Map<
    string,
    EndpointSubset & { addresses: EndpointAddress[]; notReadyAddresses: EndpointAddress[] }
  >();
  for (const e of perAddress.values()) {
    const ports = [...e.ports].sort((x, y) =>
      `${x.name ?? ""}/${x.port}/${x.protocol}`.localeCompare(`${y.name ?? ""}/${y.port}/${y.protocol}`),
    );
    const key = JSON.stringify(ports);
    let s = subsets.get(key);
    if (s === undefined) {
      s = { addresses: [], notReadyAddresses: [], ...(ports.length > 0 && { ports }) };
      subsets.set(key, s);
    }
    (e.ready ? s.addresses : s.notReadyAddresses).push(e.a);
  }
  let budget = maxCapacity;
  let truncated = false;
  const out: EndpointSubset[] = [];
  for (const key of [...subsets.keys()].sort()) {
    const s = subsets.get(key)!;
    s.addresses.sort(byAddress);
    s.notReadyAddresses.sort(byAddress);
    const ready = s.addresses.slice(0, Math.max(0, budget));
    budget -= ready.length;
    const notReady = s.notReadyAddresses.slice(0, Math.max(0, budget));
    budget -= notReady.length;
    if (ready.length < s.addresses.length || notReady.length < s.notReadyAddresses.length) truncated = true;
    out.push({
      ...(ready.length > 0 && { addresses: ready }),
      ...(notReady.length > 0 && { notReadyAddresses: notReady }),
      ...(s.ports !== undefined && { ports: s.ports }),
    });
  }
  return { subsets: out.filter((s) => s.addresses !== undefined || s.notReadyAddresses !== undefined), truncated };
}

/** Options of an {@link EndpointsController}. */
export interface EndpointsControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The logger of its controller (its `Starting Controller`, reconcile errors). Default the runtime logger. */
  readonly logger?: Logger;
  readonly services: SharedIndexInformer<Service>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly endpoints: SharedIndexInformer<Endpoints>;
  /** Workers (`--concurrent-endpoint-syncs`, default 5). */
  readonly workers?: number;
  readonly metrics?: MetricsProvider;
}

/**
 * The Endpoints controller (`pkg/controller/endpoint/endpoints_controller.go`): for every Service with a selector, an
 * Endpoints object of the same name whose subsets are {@link desiredSubsets} of the pods it selects, labelled with
 * the Service's labels, `endpoints.kubernetes.io/managed-by: endpoint-controller` and, for a headless Service,
 * `service.kubernetes.io/headless`; truncated at 1,000 addresses with the over-capacity annotation. Written only when
 * it differs; deleted with its Service. A Service without a selector keeps the Endpoints its user writes. Keys are
 * Services; pod changes enqueue the Services selecting the pod before and after.
 *
 * Differences from kube-controller-manager: no `last-change-trigger-time` annotation, no hostname/subdomain on
 * addresses, no `EndpointsLastChangeTriggerTime` metrics.
 */
export class EndpointsController {
  readonly controller: Controller;

  constructor(private readonly o: EndpointsControllerOptions) {
    this.controller = new Controller({
      ...(o.logger !== undefined && { logger: o.logger }),
      name: ENDPOINTS_CONTROLLER_NAME,
      reconciler: (req) => this.sync(req),
      watches: [
        ...serviceAndPodWatches(o.services, o.pods),
        { informer: o.endpoints as never, handler: selfHandler, name: "endpoints" },
      ],
      maxConcurrentReconciles: o.workers ?? 5,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** `syncService`. */
  private async sync(req: Request): Promise<void> {
    const key = `${req.namespace}/${req.name}`;
    const service = this.o.services.getIndexer().getByKey(key);
    const current = this.o.endpoints.getIndexer().getByKey(key);
    try {
      if (service === undefined) {
        // The Service is gone: its Endpoints go too (upstream deletes them; no owner reference to collect them).
        if (current !== undefined)
          await this.o.client.delete(resources.endpoints, req.name, { namespace: req.namespace });
        return;
      }
      const selector = serviceSelector(service);
      if (selector === undefined) return;
      const { subsets, truncated } = desiredSubsets(service, selectedPods(this.o.pods, service, selector));
      const labels: Record<string, string> = {
        ...service.metadata?.labels,
        [ENDPOINTS_MANAGED_BY_LABEL]: ENDPOINTS_CONTROLLER_NAME,
        ...(service.spec?.clusterIP === "None" && { [HEADLESS_LABEL]: "" }),
      };
      const annotations = { ...current?.metadata?.annotations };
      if (truncated) annotations[OVER_CAPACITY_ANNOTATION] = "truncated";
      else delete annotations[OVER_CAPACITY_ANNOTATION];
      if (
        current !== undefined &&
        JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) &&
        JSON.stringify(current.metadata?.labels ?? {}) === JSON.stringify(labels) &&
        JSON.stringify(current.metadata?.annotations ?? {}) === JSON.stringify(annotations)
      ) {
        return;
      }
      const body = {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: {
          ...current?.metadata,
          name: req.name,
          namespace: req.namespace,
          labels,
          ...(Object.keys(annotations).length > 0 ? { annotations } : { annotations: undefined }),
        },
        subsets,
      } as Endpoints;
      if (current === undefined) await this.o.client.create(resources.endpoints, body);
      else await this.o.client.update(resources.endpoints, body);
    } catch (err) {
      // A create that raced an existing object, or a write of a stale copy: the informer's event syncs again.
      if (isAlreadyExists(err) || isConflict(err) || isNotFound(err)) return;
      throw err;
    }
  }
}
