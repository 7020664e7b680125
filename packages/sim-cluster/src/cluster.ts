import { setMaxListeners } from "node:events";
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ListerWatcherFor, SharedIndexInformer } from "@informer-ts/cache";
import { transformStripManagedFields } from "@informer-ts/cache";
import {
  type Deployment,
  type KubeClient,
  listWatchFor,
  type Node,
  type Pod,
  type PodDisruptionBudget,
  type ReplicaSet,
  type ResourceDescriptor,
  resources,
} from "@informer-ts/client";
import { type Clock, type Rand, realClock, seededRand } from "@informer-ts/clock";
import { type EventRecorder, Manager } from "@informer-ts/controller";
import { InMemoryMetrics, type Logger, type MetricsProvider, newConsoleLogger } from "@informer-ts/instrumentation";
import { DeploymentController } from "./deployment/deployment-controller.js";
import { DisruptionController } from "./disruption/disruption-controller.js";
import { EndpointsController } from "./endpoints/endpoints-controller.js";
import { EndpointSliceController } from "./endpointslice/endpointslice-controller.js";
import { PodLifecycle } from "./kubelet/pod-lifecycle.js";
import { DEFAULT_POD_STAGES, type Stage, validateStages } from "./kubelet/stage.js";
import { RootCACertPublisher } from "./namespaced/root-ca-publisher.js";
import { ServiceAccountsController } from "./namespaced/service-account-controller.js";
import { NodeLifecycleController, type NodeLifecycleOptions } from "./nodes/node-lifecycle-controller.js";
import { NodePool, type NodeTemplate } from "./nodes/node-pool.js";
import { PodGCController, type PodGCOptions } from "./podgc/podgc-controller.js";
import { REPLICA_SETS, REPLICATION_CONTROLLERS, ReplicaSetController } from "./replicaset/replica-set-controller.js";
import { Scheduler } from "./scheduler/scheduler.js";
import { newWorkloadControllers, type WorkloadControllers, workloadControllerList } from "./workloads.js";

/** The controllers a {@link SimClusterRuntime} can run (kube-controller-manager's `--controllers` names). */
export type ClusterControllerName =
  | "deployment"
  | "replicaset"
  | "replicationcontroller"
  | "endpoint"
  | "endpointslice"
  | "podgc"
  | "nodelifecycle"
  | "serviceaccount"
  | "root-ca-cert-publisher"
  | "job"
  | "ttl-after-finished"
  | "cronjob"
  | "statefulset"
  | "daemonset"
  | "disruption";

/** Every controller this package has, in start order (the default of {@link ClusterOptions.controllers}). */
export const ALL_CLUSTER_CONTROLLERS: readonly ClusterControllerName[] = Object.freeze([
  "deployment",
  "replicaset",
  "replicationcontroller",
  "endpoint",
  "endpointslice",
  "podgc",
  "nodelifecycle",
  "serviceaccount",
  "root-ca-cert-publisher",
  "job",
  "ttl-after-finished",
  "cronjob",
  "statefulset",
  "daemonset",
  "disruption",
]);

/** What `kube-root-ca.crt` holds when no `rootCA` is given (not a usable certificate: the simulator's CA is not known). */
export const PLACEHOLDER_ROOT_CA =
  "-----BEGIN CERTIFICATE-----\nc2ltLWNsdXN0ZXI6IG5vIHJvb3QgQ0EgY29uZmlndXJlZA==\n-----END CERTIFICATE-----\n";

/** Options of a {@link SimClusterRuntime}. */
export interface ClusterOptions {
  /** The client every component uses (in-process on the simulator's clock, or over HTTP to any apiserver). */
  readonly client: KubeClient;
  /**
   * How the cluster's shared informers list and watch (default `listWatchFor(client, …)`: through `client`, as
   * kube-controller-manager's informers do). The testing kit can pass the simulator engine's in-process
   * lister-watcher instead (`SimClusterOptions.informerSource: "engine"`), whose objects are the engine's own frozen
   * ones with no JSON round trip; writes always go through `client`.
   */
  readonly listerWatcherFor?: ListerWatcherFor<ResourceDescriptor, KubeObject>;
  /** The one clock (default the real clock). */
  readonly clock?: Clock;
  /** Seed of the cluster's own randomness (stage jitter and failures, scheduler ties); default 1. */
  readonly seed?: number;
  /** Simulated nodes (default 3). */
  readonly nodes?: number;
  readonly nodeTemplate?: NodeTemplate;
  /** Pod lifecycle stages (default {@link DEFAULT_POD_STAGES}); validated with `validateStages`. */
  readonly stages?: readonly Stage[];
  /** Which controllers run (default all); the scheduler and the kubelet stand-in always run. */
  readonly controllers?: readonly ClusterControllerName[];
  /** Record Events (scheduler, kubelet, controllers) as a cluster does; default true. */
  readonly events?: boolean;
  /** Node heartbeat period, ms (default 10 000). */
  readonly leaseRenewIntervalMs?: number;
  /** `--max-endpoints-per-slice` of the EndpointSlice controller (default 100). */
  readonly maxEndpointsPerSlice?: number;
  /** Pod GC settings (`--terminated-pod-gc-threshold`, the check period). */
  readonly podGC?: Omit<PodGCOptions, "client" | "clock" | "logger" | "pods" | "nodes">;
  readonly nodeLifecycle?: Omit<NodeLifecycleOptions, "client" | "clock" | "logger" | "nodes" | "pods" | "leases">;
  /** The PEM bundle the root-CA publisher puts in every namespace's `kube-root-ca.crt` (default a placeholder). */
  readonly rootCA?: string;
  /** The Job controller's pod failure backoff (`DefaultJobPodFailureBackOff`, default 10 000 ms). */
  readonly jobPodFailureBackoffMs?: number;
  /**
   * Drop `metadata.managedFields` from every object the cluster's shared informers store (default true), as
   * kube-controller-manager's informer factory does (`cmd/kube-controller-manager/app/controllermanager.go`,
   * `CreateControllerContext`: `informers.WithTransform(trim)`): no controller here reads them, and an update built
   * from a cached object then sends none, so the apiserver keeps the live ones. `false` keeps them (a test that reads
   * them from a lister).
   */
  readonly trimManagedFields?: boolean;
  /**
   * kube-controller-manager feature gates that change what the workload controllers do, at Kubernetes 1.34's
   * defaults when absent: `MaxUnavailableStatefulSet` (alpha, off) makes the StatefulSet controller honour
   * `rollingUpdate.maxUnavailable`.
   */
  readonly featureGates?: { readonly MaxUnavailableStatefulSet?: boolean };
  /** Default a console logger at `warn`. */
  readonly logger?: Logger;
  /** Where controller and work-queue metrics go (default an in-memory recorder). */
  readonly metrics?: MetricsProvider;
}

/**
 * A Kubernetes cluster's moving parts on this project's own runtime, against whatever apiserver `client` reaches:
 * kwok-style nodes ({@link NodePool}: Node objects, Leases, heartbeats), the kubelet stand-in driven by stages
 * ({@link PodLifecycle}), the {@link Scheduler}, and kube-controller-manager's controllers ({@link DeploymentController}, {@link ReplicaSetController},
 * {@link NodeLifecycleController}, {@link ServiceAccountsController}, {@link RootCACertPublisher}) — all sharing one {@link Manager} and its informers, as kube-controller-manager
 * shares one informer factory. With the simulator's in-process transport and a `FakeClock` the whole cluster runs in
 * virtual time; the same seed gives the same run.
 *
 * Lifecycle: {@link run} once; it resolves when `signal` aborted and everything was released.
 */
export class SimClusterRuntime {
  readonly manager: Manager;
  readonly nodes: NodePool;
  readonly scheduler: Scheduler;
  readonly kubelet: PodLifecycle;
  readonly deployments: DeploymentController | undefined;
  readonly replicaSets: ReplicaSetController | undefined;
  /** The ReplicationController manager: upstream runs the ReplicaSet code for them (`pkg/controller/replication`). */
  readonly replicationControllers: ReplicaSetController | undefined;
  readonly endpoints: EndpointsController | undefined;
  readonly endpointSlices: EndpointSliceController | undefined;
  readonly podGC: PodGCController | undefined;
  readonly nodeLifecycle: NodeLifecycleController | undefined;
  readonly serviceAccounts: ServiceAccountsController | undefined;
  readonly rootCAPublisher: RootCACertPublisher | undefined;
  /** The disruption controller (PodDisruptionBudget status). */
  readonly disruption: DisruptionController | undefined;
  /** The workload controllers of batch, StatefulSets and DaemonSets (see `workloads.ts`). */
  readonly workloads: WorkloadControllers;
  readonly clock: Clock;
  private readonly rand: Rand;
  private started = false;

  constructor(o: ClusterOptions) {
    const clock = o.clock ?? realClock;
    const logger = o.logger ?? newConsoleLogger("sim-cluster");
    const controllers = o.controllers ?? ALL_CLUSTER_CONTROLLERS;
    for (const c of controllers) {
      if (!ALL_CLUSTER_CONTROLLERS.includes(c)) {
        throw new RangeError(
          `sim-cluster: unknown controller ${JSON.stringify(c)} (known: ${ALL_CLUSTER_CONTROLLERS.join(", ")})`,
        );
      }
    }
    const stages = validateStages(o.stages ?? DEFAULT_POD_STAGES);
    this.clock = clock;
    this.rand = seededRand(o.seed ?? 1);
    const client = o.client;
    const metrics = o.metrics ?? new InMemoryMetrics();
    this.manager = new Manager({
      listerWatcherFor: o.listerWatcherFor ?? ((r, { namespace }) => listWatchFor(client, r, { namespace })),
      client,
      clock,
      rand: this.rand,
      metrics,
      // The cluster's logger, so its level also holds for the manager's controllers and informers (without it the
      // manager logs through the process's JSON runtime logger at info).
      logger,
      gracefulShutdownTimeout: 5000,
      ...(o.trimManagedFields !== false && { informerOptions: { transform: transformStripManagedFields } }),
    });
    const recorder = (component: string): EventRecorder | undefined =>
      o.events === false ? undefined : this.manager.getEventRecorderFor(component);
    const pods = this.manager.informerFor(resources.pods) as SharedIndexInformer<Pod>;
    const nodeInformer = this.manager.informerFor(resources.nodes) as SharedIndexInformer<Node>;
    this.nodes = new NodePool({
      client,
      clock,
      logger,
      count: o.nodes ?? 3,
      ...(o.nodeTemplate !== undefined && { template: o.nodeTemplate }),
      ...(o.leaseRenewIntervalMs !== undefined && { renewIntervalMs: o.leaseRenewIntervalMs }),
    });
    // One recorder per node: a kubelet's events name its node (source.host, reportingInstance).
    const kubeletRecorders = new Map<string, EventRecorder>();
    const manager = this.manager;
    this.kubelet = new PodLifecycle({
      client,
      clock,
      rand: this.rand,
      logger,
      pods,
      nodes: this.nodes,
      stages,
      ...(o.events !== false && {
        nodeRecorder: (node: string) => {
          let r = kubeletRecorders.get(node);
          if (r === undefined) {
            r = manager.getEventRecorderFor("kubelet", node);
            kubeletRecorders.set(node, r);
          }
          return r;
        },
      }),
    });
    const schedulerRecorder = recorder("default-scheduler");
    this.scheduler = new Scheduler({
      client,
      clock,
      rand: this.rand,
      logger,
      pods,
      nodes: nodeInformer,
      ...(schedulerRecorder !== undefined && { recorder: schedulerRecorder }),
    });
    if (controllers.includes("deployment")) {
      const dRecorder = recorder("deployment-controller");
      this.deployments = new DeploymentController({
        client,
        clock,
        logger,
        deployments: this.manager.informerFor(resources.deployments) as SharedIndexInformer<Deployment>,
        replicaSets: this.manager.informerFor(resources.replicaSets) as SharedIndexInformer<ReplicaSet>,
        pods,
        metrics,
        ...(dRecorder !== undefined && { recorder: dRecorder }),
      });
    }
    if (controllers.includes("replicaset")) {
      const rsRecorder = recorder("replicaset-controller");
      this.replicaSets = new ReplicaSetController({
        client,
        clock,
        logger,
        owners: this.manager.informerFor(REPLICA_SETS.resource) as SharedIndexInformer<KubeObject>,
        pods,
        metrics,
        ...(rsRecorder !== undefined && { recorder: rsRecorder }),
      });
    }
    if (controllers.includes("replicationcontroller")) {
      const rcRecorder = recorder("replication-controller");
      this.replicationControllers = new ReplicaSetController({
        client,
        clock,
        logger,
        kind: REPLICATION_CONTROLLERS,
        owners: this.manager.informerFor(REPLICATION_CONTROLLERS.resource) as SharedIndexInformer<KubeObject>,
        pods,
        metrics,
        ...(rcRecorder !== undefined && { recorder: rcRecorder }),
      });
    }
    if (controllers.includes("endpoint")) {
      this.endpoints = new EndpointsController({
        client,
        clock,
        logger,
        metrics,
        services: this.manager.informerFor(resources.services),
        pods,
        endpoints: this.manager.informerFor(resources.endpoints),
      });
    }
    if (controllers.includes("endpointslice")) {
      this.endpointSlices = new EndpointSliceController({
        client,
        clock,
        logger,
        metrics,
        services: this.manager.informerFor(resources.services),
        pods,
        endpointSlices: this.manager.informerFor(resources.endpointSlices),
        ...(o.maxEndpointsPerSlice !== undefined && { maxEndpointsPerSlice: o.maxEndpointsPerSlice }),
      });
    }
    if (controllers.includes("podgc")) {
      this.podGC = new PodGCController({
        ...o.podGC,
        client,
        clock,
        logger,
        pods,
        nodes: nodeInformer,
      });
    }
    if (controllers.includes("nodelifecycle")) {
      this.nodeLifecycle = new NodeLifecycleController({
        ...o.nodeLifecycle,
        client,
        clock,
        logger,
        nodes: nodeInformer,
        pods,
        leases: this.manager.informerFor(resources.leases),
      });
    }
    if (controllers.includes("serviceaccount")) {
      this.serviceAccounts = new ServiceAccountsController({
        client,
        clock,
        logger,
        metrics,
        namespaces: this.manager.informerFor(resources.namespaces),
        serviceAccounts: this.manager.informerFor(resources.serviceAccounts),
      });
    }
    if (controllers.includes("root-ca-cert-publisher")) {
      this.rootCAPublisher = new RootCACertPublisher({
        client,
        clock,
        logger,
        metrics,
        rootCA: o.rootCA ?? PLACEHOLDER_ROOT_CA,
        namespaces: this.manager.informerFor(resources.namespaces),
        configMaps: this.manager.informerFor(resources.configMaps),
      });
    }
    const disruptionRecorder = recorder("controllermanager");
    this.disruption = controllers.includes("disruption")
      ? new DisruptionController({
          client,
          clock,
          logger,
          metrics,
          budgets: this.manager.informerFor(resources.podDisruptionBudgets) as SharedIndexInformer<PodDisruptionBudget>,
          pods,
          scales: [
            { kind: "ReplicaSet", informer: this.manager.informerFor(resources.replicaSets) },
            { kind: "Deployment", informer: this.manager.informerFor(resources.deployments) },
            { kind: "ReplicationController", informer: this.manager.informerFor(REPLICATION_CONTROLLERS.resource) },
            { kind: "StatefulSet", informer: this.manager.informerFor(resources.statefulSets) },
          ] as never,
          ...(disruptionRecorder !== undefined && { recorder: disruptionRecorder }),
        })
      : undefined;
    this.workloads = newWorkloadControllers({
      controllers,
      client,
      clock,
      logger,
      metrics,
      manager: this.manager,
      pods,
      nodes: nodeInformer,
      recorder,
      ...(o.jobPodFailureBackoffMs !== undefined && { jobPodFailureBackoffMs: o.jobPodFailureBackoffMs }),
      ...(o.featureGates !== undefined && { featureGates: o.featureGates }),
    });
    for (const c of workloadControllerList(this.workloads)) this.manager.add(c);
    const noLeader = (name: string, run: (s: AbortSignal) => Promise<void>) => ({
      name,
      run: (s: AbortSignal) => {
        // Every component and controller of the cluster waits on the manager's one signal: more than Node's
        // default of 10 listeners, by design. With every controller running, the count passes 64 (each controller's
        // run, its workers' waits and the components' own), which made Node warn of a leak on every run.
        setMaxListeners(128, s);
        return run(s);
      },
      needLeaderElection: () => false,
    });
    this.manager.add(noLeader("node-pool", (s) => this.nodes.run(s)));
    this.manager.add(noLeader("kubelet", (s) => this.kubelet.run(s)));
    this.manager.add(noLeader("scheduler", (s) => this.scheduler.run(s)));
    if (this.deployments !== undefined) this.manager.add(this.deployments.controller);
    if (this.replicaSets !== undefined) this.manager.add(this.replicaSets.controller);
    if (this.replicationControllers !== undefined) this.manager.add(this.replicationControllers.controller);
    if (this.endpoints !== undefined) this.manager.add(this.endpoints.controller);
    if (this.endpointSlices !== undefined) this.manager.add(this.endpointSlices.controller);
    if (this.podGC !== undefined) {
      const gc = this.podGC;
      this.manager.add(noLeader("podgc", (s) => gc.run(s)));
    }
    if (this.serviceAccounts !== undefined) this.manager.add(this.serviceAccounts.controller);
    if (this.rootCAPublisher !== undefined) this.manager.add(this.rootCAPublisher.controller);
    if (this.disruption !== undefined) this.manager.add(this.disruption.controller);
    if (this.nodeLifecycle !== undefined) {
      const nl = this.nodeLifecycle;
      this.manager.add(noLeader("nodelifecycle", (s) => nl.run(s)));
    }
  }

  /** Runs every component until `signal` aborts (the manager's one lifecycle). A second call rejects. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error("sim-cluster: run was called twice");
    this.started = true;
    await this.manager.run(signal);
  }
}
