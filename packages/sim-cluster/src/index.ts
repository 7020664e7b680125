// Public API of @informer-ts/sim-cluster: named re-exports only, grouped by concept.
// The cluster
export {
  ALL_CLUSTER_CONTROLLERS,
  type ClusterControllerName,
  type ClusterOptions,
  PLACEHOLDER_ROOT_CA,
  SimClusterRuntime,
} from "./cluster.js";
// Deployment
export { DeploymentController, type DeploymentControllerOptions } from "./deployment/deployment-controller.js";
export {
  computeHash,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  DESIRED_REPLICAS_ANNOTATION,
  type DeploymentCondition,
  type DeploymentSpecDefaults,
  type DeploymentStatus,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  equalIgnoreHash,
  MAX_REPLICAS_ANNOTATION,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  resolveFenceposts,
  scaledValue,
  specOf,
} from "./deployment/deployment-util.js";
// Endpoints and EndpointSlices
export {
  desiredSubsets,
  ENDPOINTS_CONTROLLER_NAME,
  ENDPOINTS_MANAGED_BY_LABEL,
  ENDPOINTS_MAX_CAPACITY,
  type EndpointAddress,
  type EndpointPort,
  type EndpointSubset,
  EndpointsController,
  type EndpointsControllerOptions,
  HEADLESS_LABEL,
  OVER_CAPACITY_ANNOTATION,
} from "./endpoints/endpoints-controller.js";
export {
  DEFAULT_MAX_ENDPOINTS_PER_SLICE,
  type DesiredSlice,
  desiredSlices,
  EndpointSliceController,
  type EndpointSliceControllerOptions,
  podToEndpoint,
  SERVICE_NAME_LABEL,
  SLICE_CONTROLLER_NAME,
  SLICE_MANAGED_BY_LABEL,
  type SliceEndpoint,
  type SlicePort,
} from "./endpointslice/endpointslice-controller.js";
export { parseMilli } from "./internal/quantity.js";
export { findPort } from "./internal/service-endpoints.js";
// Kubelet stand-in: pod lifecycles as stages
export { PodLifecycle, type PodLifecycleOptions, type PodLifecycleStats } from "./kubelet/pod-lifecycle.js";
export {
  DEFAULT_POD_STAGES,
  InvalidStageError,
  type Stage,
  type StageContainers,
  type StageDelay,
  type StageNext,
  type StageRequirement,
  type StageSelector,
  validateStages,
} from "./kubelet/stage.js";
export { matchesStageSelector, valueAt } from "./kubelet/stage-selector.js";
// Namespaced defaults: ServiceAccounts and the root CA ConfigMap
export {
  ROOT_CA_CONFIG_MAP,
  ROOT_CA_DESCRIPTION,
  RootCACertPublisher,
  type RootCACertPublisherOptions,
} from "./namespaced/root-ca-publisher.js";
export {
  ServiceAccountsController,
  type ServiceAccountsControllerOptions,
} from "./namespaced/service-account-controller.js";
// Nodes
export {
  NodeLifecycleController,
  type NodeLifecycleOptions,
  TAINT_UNREACHABLE,
} from "./nodes/node-lifecycle-controller.js";
export { NodePool, type NodePoolOptions, type NodeTemplate } from "./nodes/node-pool.js";
// Pod GC
export { PodGCController, type PodGCOptions, type PodGCStats } from "./podgc/podgc-controller.js";
// ReplicaSet / ReplicationController
export {
  activePodsLess,
  getPodsToDelete,
  POD_DELETION_COST,
  rankByRelatedPodsOnSameNode,
} from "./replicaset/active-pods.js";
export {
  type ControlleeExpectations,
  ControllerExpectations,
  EXPECTATIONS_TIMEOUT_MS,
  UIDTrackingControllerExpectations,
} from "./replicaset/controller-expectations.js";
export {
  BURST_REPLICAS,
  REPLICA_SETS,
  REPLICATION_CONTROLLERS,
  type ReplicaKind,
  type ReplicaOwner,
  type ReplicaOwnerStatus,
  ReplicaSetController,
  type ReplicaSetControllerOptions,
} from "./replicaset/replica-set-controller.js";
export { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "./replicaset/slow-start.js";
// Scheduler
export {
  filterNode,
  leastAllocatedScore,
  type NodeInfo,
  nodeInfoOf,
  numFeasibleNodesToFind,
  type PodRequests,
  podRequests,
  type Taint,
  type Toleration,
  toleratesTaint,
} from "./scheduler/fit.js";
export { Scheduler, type SchedulerOptions, type SchedulerStats } from "./scheduler/scheduler.js";
