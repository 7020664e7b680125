import type { CoreV1Event } from "@kubernetes/client-node/dist/gen/models/CoreV1Event.js";
import type { EventsV1Event } from "@kubernetes/client-node/dist/gen/models/EventsV1Event.js";
import type { V1ClusterRole } from "@kubernetes/client-node/dist/gen/models/V1ClusterRole.js";
import type { V1ClusterRoleBinding } from "@kubernetes/client-node/dist/gen/models/V1ClusterRoleBinding.js";
import type { V1ConfigMap } from "@kubernetes/client-node/dist/gen/models/V1ConfigMap.js";
import type { V1CronJob } from "@kubernetes/client-node/dist/gen/models/V1CronJob.js";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node/dist/gen/models/V1CustomResourceDefinition.js";
import type { V1DaemonSet } from "@kubernetes/client-node/dist/gen/models/V1DaemonSet.js";
import type { V1Deployment } from "@kubernetes/client-node/dist/gen/models/V1Deployment.js";
import type { V1EndpointSlice } from "@kubernetes/client-node/dist/gen/models/V1EndpointSlice.js";
import type { V1Endpoints } from "@kubernetes/client-node/dist/gen/models/V1Endpoints.js";
import type { V1Ingress } from "@kubernetes/client-node/dist/gen/models/V1Ingress.js";
import type { V1Job } from "@kubernetes/client-node/dist/gen/models/V1Job.js";
import type { V1Lease } from "@kubernetes/client-node/dist/gen/models/V1Lease.js";
import type { V1LimitRange } from "@kubernetes/client-node/dist/gen/models/V1LimitRange.js";
import type { V1Namespace } from "@kubernetes/client-node/dist/gen/models/V1Namespace.js";
import type { V1NetworkPolicy } from "@kubernetes/client-node/dist/gen/models/V1NetworkPolicy.js";
import type { V1Node } from "@kubernetes/client-node/dist/gen/models/V1Node.js";
import type { V1PersistentVolume } from "@kubernetes/client-node/dist/gen/models/V1PersistentVolume.js";
import type { V1PersistentVolumeClaim } from "@kubernetes/client-node/dist/gen/models/V1PersistentVolumeClaim.js";
import type { V1Pod } from "@kubernetes/client-node/dist/gen/models/V1Pod.js";
import type { V1PodDisruptionBudget } from "@kubernetes/client-node/dist/gen/models/V1PodDisruptionBudget.js";
import type { V1PriorityClass } from "@kubernetes/client-node/dist/gen/models/V1PriorityClass.js";
import type { V1ReplicaSet } from "@kubernetes/client-node/dist/gen/models/V1ReplicaSet.js";
import type { V1ReplicationController } from "@kubernetes/client-node/dist/gen/models/V1ReplicationController.js";
import type { V1ResourceQuota } from "@kubernetes/client-node/dist/gen/models/V1ResourceQuota.js";
import type { V1Role } from "@kubernetes/client-node/dist/gen/models/V1Role.js";
import type { V1RoleBinding } from "@kubernetes/client-node/dist/gen/models/V1RoleBinding.js";
import type { V1Secret } from "@kubernetes/client-node/dist/gen/models/V1Secret.js";
import type { V1Service } from "@kubernetes/client-node/dist/gen/models/V1Service.js";
import type { V1ServiceAccount } from "@kubernetes/client-node/dist/gen/models/V1ServiceAccount.js";
import type { V1StatefulSet } from "@kubernetes/client-node/dist/gen/models/V1StatefulSet.js";
import type { V1StorageClass } from "@kubernetes/client-node/dist/gen/models/V1StorageClass.js";
import type { V2HorizontalPodAutoscaler } from "@kubernetes/client-node/dist/gen/models/V2HorizontalPodAutoscaler.js";
import type { JsonOf } from "./object-types.js";
import type { ResourceDescriptor } from "./resources.js";

/** `v1` `ConfigMap` as JSON (`@kubernetes/client-node` `V1ConfigMap`). */
export type ConfigMap = JsonOf<V1ConfigMap>;

/** `v1` `Secret` as JSON (`@kubernetes/client-node` `V1Secret`). */
export type Secret = JsonOf<V1Secret>;

/** `v1` `Pod` as JSON (`@kubernetes/client-node` `V1Pod`). */
export type Pod = JsonOf<V1Pod>;

/** `v1` `Service` as JSON (`@kubernetes/client-node` `V1Service`). */
export type Service = JsonOf<V1Service>;

/** `v1` `Endpoints` as JSON (`@kubernetes/client-node` `V1Endpoints`). */
export type Endpoints = JsonOf<V1Endpoints>;

/** `v1` `Event` as JSON (`@kubernetes/client-node` `CoreV1Event`). */
export type CoreEvent = JsonOf<CoreV1Event>;

/** `v1` `Node` as JSON (`@kubernetes/client-node` `V1Node`). */
export type Node = JsonOf<V1Node>;

/** `v1` `Namespace` as JSON (`@kubernetes/client-node` `V1Namespace`). */
export type Namespace = JsonOf<V1Namespace>;

/** `v1` `ServiceAccount` as JSON (`@kubernetes/client-node` `V1ServiceAccount`). */
export type ServiceAccount = JsonOf<V1ServiceAccount>;

/** `v1` `PersistentVolumeClaim` as JSON (`@kubernetes/client-node` `V1PersistentVolumeClaim`). */
export type PersistentVolumeClaim = JsonOf<V1PersistentVolumeClaim>;

/** `v1` `PersistentVolume` as JSON (`@kubernetes/client-node` `V1PersistentVolume`). */
export type PersistentVolume = JsonOf<V1PersistentVolume>;

/** `v1` `ReplicationController` as JSON (`@kubernetes/client-node` `V1ReplicationController`). */
export type ReplicationController = JsonOf<V1ReplicationController>;

/** `v1` `ResourceQuota` as JSON (`@kubernetes/client-node` `V1ResourceQuota`). */
export type ResourceQuota = JsonOf<V1ResourceQuota>;

/** `v1` `LimitRange` as JSON (`@kubernetes/client-node` `V1LimitRange`). */
export type LimitRange = JsonOf<V1LimitRange>;

/** `apps/v1` `Deployment` as JSON (`@kubernetes/client-node` `V1Deployment`). */
export type Deployment = JsonOf<V1Deployment>;

/** `apps/v1` `StatefulSet` as JSON (`@kubernetes/client-node` `V1StatefulSet`). */
export type StatefulSet = JsonOf<V1StatefulSet>;

/** `apps/v1` `DaemonSet` as JSON (`@kubernetes/client-node` `V1DaemonSet`). */
export type DaemonSet = JsonOf<V1DaemonSet>;

/** `apps/v1` `ReplicaSet` as JSON (`@kubernetes/client-node` `V1ReplicaSet`). */
export type ReplicaSet = JsonOf<V1ReplicaSet>;

/** `batch/v1` `Job` as JSON (`@kubernetes/client-node` `V1Job`). */
export type Job = JsonOf<V1Job>;

/** `batch/v1` `CronJob` as JSON (`@kubernetes/client-node` `V1CronJob`). */
export type CronJob = JsonOf<V1CronJob>;

/** `coordination.k8s.io/v1` `Lease` as JSON (`@kubernetes/client-node` `V1Lease`). */
export type Lease = JsonOf<V1Lease>;

/** `events.k8s.io/v1` `Event` as JSON (`@kubernetes/client-node` `EventsV1Event`). */
export type EventsEvent = JsonOf<EventsV1Event>;

/** `networking.k8s.io/v1` `Ingress` as JSON (`@kubernetes/client-node` `V1Ingress`). */
export type Ingress = JsonOf<V1Ingress>;

/** `networking.k8s.io/v1` `NetworkPolicy` as JSON (`@kubernetes/client-node` `V1NetworkPolicy`). */
export type NetworkPolicy = JsonOf<V1NetworkPolicy>;

/** `discovery.k8s.io/v1` `EndpointSlice` as JSON (`@kubernetes/client-node` `V1EndpointSlice`). */
export type EndpointSlice = JsonOf<V1EndpointSlice>;

/** `rbac.authorization.k8s.io/v1` `Role` as JSON (`@kubernetes/client-node` `V1Role`). */
export type Role = JsonOf<V1Role>;

/** `rbac.authorization.k8s.io/v1` `RoleBinding` as JSON (`@kubernetes/client-node` `V1RoleBinding`). */
export type RoleBinding = JsonOf<V1RoleBinding>;

/** `rbac.authorization.k8s.io/v1` `ClusterRole` as JSON (`@kubernetes/client-node` `V1ClusterRole`). */
export type ClusterRole = JsonOf<V1ClusterRole>;

/** `rbac.authorization.k8s.io/v1` `ClusterRoleBinding` as JSON (`@kubernetes/client-node` `V1ClusterRoleBinding`). */
export type ClusterRoleBinding = JsonOf<V1ClusterRoleBinding>;

/** `autoscaling/v2` `HorizontalPodAutoscaler` as JSON (`@kubernetes/client-node` `V2HorizontalPodAutoscaler`). */
export type HorizontalPodAutoscaler = JsonOf<V2HorizontalPodAutoscaler>;

/** `policy/v1` `PodDisruptionBudget` as JSON (`@kubernetes/client-node` `V1PodDisruptionBudget`). */
export type PodDisruptionBudget = JsonOf<V1PodDisruptionBudget>;

/** `storage.k8s.io/v1` `StorageClass` as JSON (`@kubernetes/client-node` `V1StorageClass`). */
export type StorageClass = JsonOf<V1StorageClass>;

/** `scheduling.k8s.io/v1` `PriorityClass` as JSON (`@kubernetes/client-node` `V1PriorityClass`). */
export type PriorityClass = JsonOf<V1PriorityClass>;

/** `apiextensions.k8s.io/v1` `CustomResourceDefinition` as JSON (`@kubernetes/client-node` `V1CustomResourceDefinition`). */
export type CustomResourceDefinition = JsonOf<V1CustomResourceDefinition>;

function d(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  subresources: readonly string[] = [],
): ResourceDescriptor<never> {
  return { group, version, resource, kind, namespaced, subresources };
}

/** The type of {@link resources}: one typed descriptor per built-in resource. */
export interface BuiltinResources {
  /** `configmaps` (ConfigMap, namespaced). */
  readonly configMaps: ResourceDescriptor<ConfigMap>;
  /** `secrets` (Secret, namespaced). */
  readonly secrets: ResourceDescriptor<Secret>;
  /** `pods` (Pod, namespaced). */
  readonly pods: ResourceDescriptor<Pod>;
  /** `services` (Service, namespaced). */
  readonly services: ResourceDescriptor<Service>;
  /** `endpoints` (Endpoints, namespaced). */
  readonly endpoints: ResourceDescriptor<Endpoints>;
  /** `events` (Event, namespaced). */
  readonly events: ResourceDescriptor<CoreEvent>;
  /** `nodes` (Node, cluster-scoped). */
  readonly nodes: ResourceDescriptor<Node>;
  /** `namespaces` (Namespace, cluster-scoped). */
  readonly namespaces: ResourceDescriptor<Namespace>;
  /** `serviceaccounts` (ServiceAccount, namespaced). */
  readonly serviceAccounts: ResourceDescriptor<ServiceAccount>;
  /** `persistentvolumeclaims` (PersistentVolumeClaim, namespaced). */
  readonly persistentVolumeClaims: ResourceDescriptor<PersistentVolumeClaim>;
  /** `persistentvolumes` (PersistentVolume, cluster-scoped). */
  readonly persistentVolumes: ResourceDescriptor<PersistentVolume>;
  /** `replicationcontrollers` (ReplicationController, namespaced). */
  readonly replicationControllers: ResourceDescriptor<ReplicationController>;
  /** `resourcequotas` (ResourceQuota, namespaced). */
  readonly resourceQuotas: ResourceDescriptor<ResourceQuota>;
  /** `limitranges` (LimitRange, namespaced). */
  readonly limitRanges: ResourceDescriptor<LimitRange>;
  /** `deployments.apps` (Deployment, namespaced). */
  readonly deployments: ResourceDescriptor<Deployment>;
  /** `statefulsets.apps` (StatefulSet, namespaced). */
  readonly statefulSets: ResourceDescriptor<StatefulSet>;
  /** `daemonsets.apps` (DaemonSet, namespaced). */
  readonly daemonSets: ResourceDescriptor<DaemonSet>;
  /** `replicasets.apps` (ReplicaSet, namespaced). */
  readonly replicaSets: ResourceDescriptor<ReplicaSet>;
  /** `jobs.batch` (Job, namespaced). */
  readonly jobs: ResourceDescriptor<Job>;
  /** `cronjobs.batch` (CronJob, namespaced). */
  readonly cronJobs: ResourceDescriptor<CronJob>;
  /** `leases.coordination.k8s.io` (Lease, namespaced). */
  readonly leases: ResourceDescriptor<Lease>;
  /** `events.events.k8s.io` (Event, namespaced). */
  readonly eventsV1: ResourceDescriptor<EventsEvent>;
  /** `ingresses.networking.k8s.io` (Ingress, namespaced). */
  readonly ingresses: ResourceDescriptor<Ingress>;
  /** `networkpolicies.networking.k8s.io` (NetworkPolicy, namespaced). */
  readonly networkPolicies: ResourceDescriptor<NetworkPolicy>;
  /** `endpointslices.discovery.k8s.io` (EndpointSlice, namespaced). */
  readonly endpointSlices: ResourceDescriptor<EndpointSlice>;
  /** `roles.rbac.authorization.k8s.io` (Role, namespaced). */
  readonly roles: ResourceDescriptor<Role>;
  /** `rolebindings.rbac.authorization.k8s.io` (RoleBinding, namespaced). */
  readonly roleBindings: ResourceDescriptor<RoleBinding>;
  /** `clusterroles.rbac.authorization.k8s.io` (ClusterRole, cluster-scoped). */
  readonly clusterRoles: ResourceDescriptor<ClusterRole>;
  /** `clusterrolebindings.rbac.authorization.k8s.io` (ClusterRoleBinding, cluster-scoped). */
  readonly clusterRoleBindings: ResourceDescriptor<ClusterRoleBinding>;
  /** `horizontalpodautoscalers.autoscaling` (HorizontalPodAutoscaler, namespaced). */
  readonly horizontalPodAutoscalers: ResourceDescriptor<HorizontalPodAutoscaler>;
  /** `poddisruptionbudgets.policy` (PodDisruptionBudget, namespaced). */
  readonly podDisruptionBudgets: ResourceDescriptor<PodDisruptionBudget>;
  /** `storageclasses.storage.k8s.io` (StorageClass, cluster-scoped). */
  readonly storageClasses: ResourceDescriptor<StorageClass>;
  /** `priorityclasses.scheduling.k8s.io` (PriorityClass, cluster-scoped). */
  readonly priorityClasses: ResourceDescriptor<PriorityClass>;
  /** `customresourcedefinitions.apiextensions.k8s.io` (CustomResourceDefinition, cluster-scoped). */
  readonly customResourceDefinitions: ResourceDescriptor<CustomResourceDefinition>;
}

/**
 * Typed descriptors of built-in Kubernetes resources (the typed clientset's resources, `kubernetes.Interface`).
 * Each carries its object type from `@kubernetes/client-node`'s models as it travels in JSON
 * ({@link JsonOf}: timestamps are RFC 3339 strings, not `Date`s), at compile time only: the client hands out the
 * decoded JSON, never class instances. `subresources` lists what kube-apiserver v1.34 serves for each.
 *
 * ```ts
 * const cm = await client.get(resources.configMaps, "app-config", { namespace: "default" });
 * cm.data?.["key"];           // typed: ConfigMap.data is Record<string, string> | undefined
 * ```
 */
export const resources: BuiltinResources = {
  configMaps: d("", "v1", "configmaps", "ConfigMap", true),
  secrets: d("", "v1", "secrets", "Secret", true),
  pods: d("", "v1", "pods", "Pod", true, [
    "status",
    "binding",
    "eviction",
    "ephemeralcontainers",
    "resize",
    "log",
    "exec",
    "attach",
    "portforward",
    "proxy",
  ]),
  services: d("", "v1", "services", "Service", true, ["status", "proxy"]),
  endpoints: d("", "v1", "endpoints", "Endpoints", true),
  events: d("", "v1", "events", "Event", true),
  nodes: d("", "v1", "nodes", "Node", false, ["status", "proxy"]),
  namespaces: d("", "v1", "namespaces", "Namespace", false, ["status", "finalize"]),
  serviceAccounts: d("", "v1", "serviceaccounts", "ServiceAccount", true, ["token"]),
  persistentVolumeClaims: d("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, ["status"]),
  persistentVolumes: d("", "v1", "persistentvolumes", "PersistentVolume", false, ["status"]),
  replicationControllers: d("", "v1", "replicationcontrollers", "ReplicationController", true, ["status", "scale"]),
  resourceQuotas: d("", "v1", "resourcequotas", "ResourceQuota", true, ["status"]),
  limitRanges: d("", "v1", "limitranges", "LimitRange", true),
  deployments: d("apps", "v1", "deployments", "Deployment", true, ["status", "scale"]),
  statefulSets: d("apps", "v1", "statefulsets", "StatefulSet", true, ["status", "scale"]),
  daemonSets: d("apps", "v1", "daemonsets", "DaemonSet", true, ["status"]),
  replicaSets: d("apps", "v1", "replicasets", "ReplicaSet", true, ["status", "scale"]),
  jobs: d("batch", "v1", "jobs", "Job", true, ["status"]),
  cronJobs: d("batch", "v1", "cronjobs", "CronJob", true, ["status"]),
  leases: d("coordination.k8s.io", "v1", "leases", "Lease", true),
  eventsV1: d("events.k8s.io", "v1", "events", "Event", true),
  ingresses: d("networking.k8s.io", "v1", "ingresses", "Ingress", true, ["status"]),
  networkPolicies: d("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true),
  endpointSlices: d("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true),
  roles: d("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
  roleBindings: d("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
  clusterRoles: d("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
  clusterRoleBindings: d("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false),
  horizontalPodAutoscalers: d("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, [
    "status",
  ]),
  podDisruptionBudgets: d("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, ["status"]),
  storageClasses: d("storage.k8s.io", "v1", "storageclasses", "StorageClass", false),
  priorityClasses: d("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false),
  customResourceDefinitions: d(
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    false,
    ["status"],
  ),
};

/** Names of {@link resources}. */
export type ResourceName = keyof typeof resources;

/**
 * The descriptors `@informer-ts/client` shipped before {@link resources}, under their plural lower-case names
 * (`configmaps`, `statefulsets`); the same typed objects. Prefer {@link resources}.
 */
export const builtinResources: {
  readonly configmaps: ResourceDescriptor<ConfigMap>;
  readonly secrets: ResourceDescriptor<Secret>;
  readonly pods: ResourceDescriptor<Pod>;
  readonly services: ResourceDescriptor<Service>;
  readonly events: ResourceDescriptor<CoreEvent>;
  readonly nodes: ResourceDescriptor<Node>;
  readonly namespaces: ResourceDescriptor<Namespace>;
  readonly deployments: ResourceDescriptor<Deployment>;
  readonly statefulsets: ResourceDescriptor<StatefulSet>;
  readonly leases: ResourceDescriptor<Lease>;
} = {
  configmaps: resources.configMaps,
  secrets: resources.secrets,
  pods: resources.pods,
  services: resources.services,
  events: resources.events,
  nodes: resources.nodes,
  namespaces: resources.namespaces,
  deployments: resources.deployments,
  statefulsets: resources.statefulSets,
  leases: resources.leases,
};

/** Names of {@link builtinResources}. */
export type BuiltinResourceName = keyof typeof builtinResources;
