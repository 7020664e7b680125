// Public API of @informer-ts/sim-cluster: named re-exports only, grouped by concept.
// The cluster
export {
  ALL_CLUSTER_CONTROLLERS,
  type ClusterControllerName,
  type ClusterOptions,
  PLACEHOLDER_ROOT_CA,
  SimClusterRuntime,
} from "./cluster.js";
// CronJob
export { CronJobController, type CronJobControllerOptions } from "./cronjob/cronjob-controller.js";
export {
  CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION,
  getJobFromTemplate,
  getJobName,
  getTimeHashInMinutes,
  type MissedSchedules,
  type MostRecentSchedule,
  mostRecentScheduleTime,
  NEXT_SCHEDULE_DELTA_MS,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from "./cronjob/cronjob-utils.js";
export { parseSchedule, type Schedule, UnparseableScheduleError } from "./cronjob/schedule.js";
// DaemonSet
export {
  DaemonSetController,
  type DaemonSetControllerOptions,
  type DaemonSetStatus,
  TEMPLATE_GENERATION_ANNOTATION,
} from "./daemonset/daemon-set-controller.js";
export {
  addOrUpdateDaemonPodTolerations,
  DAEMON_SET_REVISION_LABEL,
  DAEMON_SET_TEMPLATE_GENERATION_LABEL,
  type DaemonSetSpecView,
  DEFAULT_DAEMON_POD_TOLERATIONS,
  getTargetNodeName,
  isPodUpdated,
  NETWORK_UNAVAILABLE_TOLERATION,
  type NodeShouldRun,
  newDaemonPod,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from "./daemonset/daemon-set-util.js";
// Deployment
export {
  type DeploymentCondition,
  type DeploymentStatus,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
} from "./deployment/conditions.js";
export { DeploymentController, type DeploymentControllerOptions } from "./deployment/deployment-controller.js";
export {
  DESIRED_REPLICAS_ANNOTATION,
  type DeploymentSpecDefaults,
  MAX_REPLICAS_ANNOTATION,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  resolveFenceposts,
  scaledValue,
  specOf,
} from "./deployment/replica-sets.js";
export {
  computeHash,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  equalIgnoreHash,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
} from "./deployment/revisions.js";
// Disruption (PodDisruptionBudget status)
export {
  type BudgetCounts,
  DISRUPTED_POD_DELETION_TIMEOUT_MS,
  DISRUPTION_ALLOWED_CONDITION,
  DisruptionController,
  type DisruptionControllerOptions,
  type ScaleSource,
} from "./disruption/disruption-controller.js";
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
// Job
export {
  type BackoffRecord,
  DEFAULT_JOB_POD_FAILURE_BACKOFF_MS,
  type FinishedPod,
  MAX_JOB_POD_FAILURE_BACKOFF_MS,
  nextBackoffRecord,
  remainingBackoffMs,
} from "./job/backoff-record.js";
export {
  DEFAULT_BACKOFF_LIMIT,
  effectiveCounts,
  isJobFinished,
  JOB_CONTROLLER_UID_LABEL,
  JOB_NAME_LABEL,
  JOB_TRACKING_FINALIZER,
  JobController,
  type JobControllerOptions,
  type JobStatus,
} from "./job/job-controller.js";
export {
  matchPodFailurePolicy,
  type OnExitCodes,
  type OnPodCondition,
  type PodFailurePolicyMatch,
  type PodFailurePolicyRule,
} from "./job/pod-failure-policy.js";
export { isPodFailed, onlyReplaceFailedPods } from "./job/pod-replacement-policy.js";
export {
  jobExpireAt,
  TTLAfterFinishedController,
  type TTLAfterFinishedControllerOptions,
} from "./job/ttl-after-finished-controller.js";
// Kubelet stand-in: pod lifecycles as stages
export { PodLifecycle, type PodLifecycleOptions, type PodLifecycleStats } from "./kubelet/pod-lifecycle.js";
export {
  DEFAULT_POD_STAGES,
  EXIT_CODE_ANNOTATION,
  FAST_POD_STAGES,
  InvalidStageError,
  OUTCOME_ANNOTATION,
  type Stage,
  type StageContainers,
  type StageDelay,
  type StageNext,
  type StageRequirement,
  type StageSelector,
  TERMINATION_DELAY_ANNOTATION,
  TERMINATION_EXIT_CODE_ANNOTATION,
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
  type HostPort,
  hostPortsConflict,
  leastAllocatedScore,
  type NodeInfo,
  nodeInfoOf,
  numFeasibleNodesToFind,
  type PodRequests,
  podHostPorts,
  podRequests,
  type Taint,
  type Toleration,
  toleratesTaint,
} from "./scheduler/fit.js";
export { Scheduler, type SchedulerOptions, type SchedulerStats } from "./scheduler/scheduler.js";
// StatefulSet
export {
  CONTROLLER_REVISIONS,
  completeRollingUpdate,
  StatefulSetController,
  type StatefulSetControllerOptions,
  type StatefulSetStatus,
} from "./statefulset/stateful-set-controller.js";
export {
  applyRevision,
  type ControllerRevision,
  createsFromCurrent,
  equalRevision,
  getOrdinal,
  getParentNameAndOrdinal,
  getPersistentVolumeClaimName,
  getPodName,
  getPodRevision,
  identityMatches,
  isMemberOf,
  newRevision,
  newStatefulSetPod,
  nextRevision,
  POD_INDEX_LABEL,
  STATEFUL_SET_POD_NAME_LABEL,
  STATEFUL_SET_REVISION_LABEL,
  storageMatches,
} from "./statefulset/stateful-set-utils.js";
// Workload controllers (Job, CronJob, StatefulSet, DaemonSet) of a cluster
export {
  newWorkloadControllers,
  type WorkloadControllers,
  type WorkloadControllersOptions,
  workloadControllerList,
} from "./workloads.js";
