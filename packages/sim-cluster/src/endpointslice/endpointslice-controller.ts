import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type EndpointSlice, type KubeClient, type Pod, resources, type Service } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type Request } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { isPodReady } from "../internal/pod-util.js";
import {
  endpointReady,
  findPort,
  selectedPods,
  serviceAndPodWatches,
  serviceSelector,
  shouldPodBeInEndpoints,
} from "../internal/service-endpoints.js";

/** `discovery.LabelServiceName`. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
/** `discovery.LabelManagedBy` and the controller's value of it. */
export const SLICE_MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const SLICE_CONTROLLER_NAME = "endpointslice-controller.k8s.io";
/** `--max-endpoints-per-slice` default. */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;

/** One `discovery.k8s.io/v1` Endpoint. */
export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName?: string;
  targetRef: { kind: string; namespace: string; name: string; uid: string };
}

/** One `EndpointPort` of a slice (the name is `""` for an unnamed Service port, as upstream writes it). */
export interface SlicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/** What one slice should hold: its ports and (at most `maxEndpointsPerSlice`) endpoints. */
export interface DesiredSlice {
  readonly ports: SlicePort[];
  readonly endpoints: SliceEndpoint[];
}

/**
 * `podToEndpoint` (pkg/controller/endpointslice/utils.go, staging endpointslice/utils.go): the pod's IP with the
 * conditions upstream gives it — `serving` when the pod is ready, `terminating` when it is being deleted, `ready`
 * when serving and not terminating (always with `publishNotReadyAddresses`).
 */
export function podToEndpoint(pod: Pod, service: Service): SliceEndpoint {
  const terminating = pod.metadata?.deletionTimestamp != null;
  const serving = service.spec?.publishNotReadyAddresses === true || isPodReady(pod);
  return {
    addresses: [pod.status?.podIP ?? ""],
    conditions: { ready: endpointReady(pod, service), serving, terminating },
    ...(pod.spec?.nodeName !== undefined && { nodeName: pod.spec.nodeName }),
    targetRef: {
      kind: "Pod",
      namespace: pod.metadata?.namespace ?? "",
      name: pod.metadata?.name ?? "",
      uid: pod.metadata?.uid ?? "",
    },
  };
}

/**
 * The slices a Service should have (the reconciler's desired state): the pods that should be in endpoints
 * (terminating ones included), grouped by the ports their containers resolve the Service's ports to (`getEndpointPorts`),
 * each group sorted by IP and cut into slices of at most `maxEndpointsPerSlice`. No endpoint at all gives one empty
 * placeholder slice, as upstream keeps.
 */
export function desiredSlices(
  service: Service,
  pods: readonly Pod[],
  maxEndpointsPerSlice = DEFAULT_MAX_ENDPOINTS_PER_SLICE,
): DesiredSlice[] {
  const groups = new Map<string, { ports: SlicePort[]; endpoints: SliceEndpoint[] }>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports: SlicePort[] = [];
    for (const sp of service.spec?.ports ?? []) {
      const port = findPort(pod, sp as never);
      if (port === undefined) continue;
      ports.push({
        name: sp.name ?? "",
        port,
        protocol: sp.protocol ?? "TCP",
        ...(sp.appProtocol !== undefined && { appProtocol: sp.appProtocol }),
      });
    }
    const key = JSON.stringify(ports);
    let g = groups.get(key);
    if (g === undefined) {
      g = { ports, endpoints: [] };
      groups.set(key, g);
    }
    g.endpoints.push(podToEndpoint(pod, service));
  }
  const out: DesiredSlice[] = [];
  for (const key of [...groups.keys()].sort()) {
    const g = groups.get(key)!;
    g.endpoints.sort((a, b) => (a.addresses[0]! < b.addresses[0]! ? -1 : a.addresses[0]! > b.addresses[0]! ? 1 : 0));
    for (let i = 0; i < g.endpoints.length; i += maxEndpointsPerSlice) {
      out.push({ ports: g.ports, endpoints: g.endpoints.slice(i, i + maxEndpointsPerSlice) });
    }
  }
  return out.length > 0 ? out : [{ ports: [], endpoints: [] }];
}

/** Options of an {@link EndpointSliceController}. */
export interface EndpointSliceControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The logger of its controller (its `Starting Controller`, reconcile errors). Default the runtime logger. */
  readonly logger?: Logger;
  readonly services: SharedIndexInformer<Service>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly endpointSlices: SharedIndexInformer<EndpointSlice>;
  /** `--max-endpoints-per-slice` (default 100). */
  readonly maxEndpointsPerSlice?: number;
  /** Workers (`--concurrent-service-endpoint-syncs`, default 5). */
  readonly workers?: number;
  readonly metrics?: MetricsProvider;
}

/**
 * The EndpointSlice controller (`pkg/controller/endpointslice/endpointslice_controller.go` with the staging
 * `endpointslice` reconciler): for every Service with a selector, `IPv4` EndpointSlices named `<service>-<random>`,
 * owned by the Service (controller, blocking), labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` plus the Service's labels, holding
 * {@link desiredSlices}. Existing managed slices are reused in name order for the desired ones of their ports, updated
 * only when they differ; extra slices are deleted. The slices of a deleted Service go with it through the garbage
 * collector (their owner reference). Slices managed by another controller are left alone.
 *
 * Differences from kube-controller-manager: the reconciler repacks a port group's endpoints in IP order instead of
 * keeping each endpoint in its slice to minimize churn; no topology hints, zones or dual-stack.
 */
export class EndpointSliceController {
  readonly controller: Controller;
  private readonly max: number;
  /** Per Service key: the slices its last syncs wrote (name → resourceVersion written, undefined when deleted). */
  private readonly written = new Map<string, Map<string, string | undefined>>();

  constructor(private readonly o: EndpointSliceControllerOptions) {
    this.max = o.maxEndpointsPerSlice ?? DEFAULT_MAX_ENDPOINTS_PER_SLICE;
    if (!Number.isInteger(this.max) || this.max < 1) {
      throw new RangeError(`endpointslice: maxEndpointsPerSlice must be an integer ≥ 1, got ${this.max}`);
    }
    const slice: EventHandler<KubeObject> = {
      create: (s) => sliceRequest(s),
      update: (_o, s) => sliceRequest(s),
      delete: (s) => sliceRequest(s),
    };
    this.controller = new Controller({
      ...(o.logger !== undefined && { logger: o.logger }),
      name: "endpointslice",
      reconciler: (req) => this.sync(req),
      watches: [
        ...serviceAndPodWatches(o.services, o.pods),
        { informer: o.endpointSlices as never, handler: slice, name: "endpointslices" },
      ],
      maxConcurrentReconciles: o.workers ?? 5,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /**
   * `endpointSliceTracker.StaleSlices`: whether the informer has not yet seen every slice write of an earlier sync
   * of this Service (a sync on a stale cache would create the slices again).
   */
  private stale(key: string): boolean {
    const written = this.written.get(key);
    if (written === undefined) return false;
    const indexer = this.o.endpointSlices.getIndexer();
    for (const [name, rv] of written) {
      const cached = indexer.getByKey(`${key.slice(0, key.indexOf("/"))}/${name}`);
      const seen =
        rv === undefined
          ? cached === undefined
          : cached !== undefined && Number(cached.metadata?.resourceVersion ?? 0) >= Number(rv);
      if (!seen) return true;
      written.delete(name);
    }
    this.written.delete(key);
    return false;
  }

  private wrote(key: string, slice: EndpointSlice | undefined, name: string): void {
    let w = this.written.get(key);
    if (w === undefined) {
      w = new Map();
      this.written.set(key, w);
    }
    w.set(name, slice?.metadata?.resourceVersion);
  }

  /** `syncService`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const key = `${req.namespace}/${req.name}`;
    const service = this.o.services.getIndexer().getByKey(key);
    if (service === undefined) {
      this.written.delete(key);
      return undefined;
    }
    // The slice events requeue the Service too; the delay only bounds a wait for an event that never comes.
    if (this.stale(key)) return { requeueAfter: 1000 };
    const selector = serviceSelector(service);
    if (selector === undefined) return undefined;
    const desired = desiredSlices(service, selectedPods(this.o.pods, service, selector), this.max);
    const existing = this.o.endpointSlices
      .getIndexer()
      .byIndex("namespace", req.namespace)
      .filter(
        (s) =>
          s.metadata?.labels?.[SERVICE_NAME_LABEL] === req.name &&
          s.metadata?.labels?.[SLICE_MANAGED_BY_LABEL] === SLICE_CONTROLLER_NAME &&
          s.metadata?.deletionTimestamp == null,
      )
      .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
    const labels: Record<string, string> = {
      ...service.metadata?.labels,
      [SERVICE_NAME_LABEL]: req.name,
      [SLICE_MANAGED_BY_LABEL]: SLICE_CONTROLLER_NAME,
      ...(service.spec?.clusterIP === "None" && { "service.kubernetes.io/headless": "" }),
    };
    const unused = new Set(existing);
    try {
      for (const want of desired) {
        const portsKey = JSON.stringify(want.ports);
        const reuse = [...unused].find((s) => JSON.stringify(s.ports ?? []) === portsKey);
        if (reuse !== undefined) {
          unused.delete(reuse);
          const same =
            JSON.stringify(reuse.endpoints ?? []) === JSON.stringify(want.endpoints) &&
            JSON.stringify(reuse.metadata?.labels ?? {}) === JSON.stringify(labels);
          if (!same) {
            const updated = await this.o.client.update(resources.endpointSlices, {
              ...reuse,
              metadata: { ...reuse.metadata, labels },
              endpoints: want.endpoints,
              ports: want.ports,
            } as EndpointSlice);
            this.wrote(key, updated, updated.metadata?.name ?? "");
          }
          continue;
        }
        const created = await this.o.client.create(resources.endpointSlices, {
          apiVersion: "discovery.k8s.io/v1",
          kind: "EndpointSlice",
          metadata: {
            generateName: `${req.name}-`,
            namespace: req.namespace,
            labels,
            ownerReferences: [
              {
                apiVersion: "v1",
                kind: "Service",
                name: req.name,
                uid: service.metadata?.uid ?? "",
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          addressType: "IPv4",
          endpoints: want.endpoints,
          ports: want.ports,
        } as EndpointSlice);
        this.wrote(key, created, created.metadata?.name ?? "");
      }
      for (const s of unused) {
        const name = s.metadata?.name ?? "";
        await this.o.client.delete(resources.endpointSlices, name, { namespace: req.namespace });
        this.wrote(key, undefined, name);
      }
    } catch (err) {
      // A stale slice (written or deleted meanwhile): its event syncs the Service again.
      if (isConflict(err) || isNotFound(err) || isAlreadyExists(err)) return undefined;
      throw err;
    }
    return undefined;
  }
}

/** A managed slice's change syncs its Service (`onEndpointSliceUpdate`). */
function sliceRequest(s: KubeObject): Request[] {
  const labels = s.metadata?.labels;
  const svc = labels?.[SERVICE_NAME_LABEL];
  if (svc === undefined || labels?.[SLICE_MANAGED_BY_LABEL] !== SLICE_CONTROLLER_NAME) return [];
  return [{ namespace: s.metadata?.namespace ?? "", name: svc }];
}
