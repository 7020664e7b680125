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

function d<M>(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  subresources: readonly string[] = [],
): ResourceDescriptor<JsonOf<M>> {
  return { group, version, resource, kind, namespaced, subresources };
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
export const resources = {
  /** `configmaps` (ConfigMap, namespaced). */
  configMaps: d<V1ConfigMap>("", "v1", "configmaps", "ConfigMap", true),
  /** `secrets` (Secret, namespaced). */
  secrets: d<V1Secret>("", "v1", "secrets", "Secret", true),
  /** `pods` (Pod, namespaced). */
  pods: d<V1Pod>("", "v1", "pods", "Pod", true, [
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
  /** `services` (Service, namespaced). */
  services: d<V1Service>("", "v1", "services", "Service", true, ["status", "proxy"]),
  /** `endpoints` (Endpoints, namespaced). */
  endpoints: d<V1Endpoints>("", "v1", "endpoints", "Endpoints", true),
  /** `events` (Event, namespaced). */
  events: d<CoreV1Event>("", "v1", "events", "Event", true),
  /** `nodes` (Node, cluster-scoped). */
  nodes: d<V1Node>("", "v1", "nodes", "Node", false, ["status", "proxy"]),
  /** `namespaces` (Namespace, cluster-scoped). */
  namespaces: d<V1Namespace>("", "v1", "namespaces", "Namespace", false, ["status", "finalize"]),
  /** `serviceaccounts` (ServiceAccount, namespaced). */
  serviceAccounts: d<V1ServiceAccount>("", "v1", "serviceaccounts", "ServiceAccount", true, ["token"]),
  /** `persistentvolumeclaims` (PersistentVolumeClaim, namespaced). */
  persistentVolumeClaims: d<V1PersistentVolumeClaim>(
    "",
    "v1",
    "persistentvolumeclaims",
    "PersistentVolumeClaim",
    true,
    ["status"],
  ),
  /** `persistentvolumes` (PersistentVolume, cluster-scoped). */
  persistentVolumes: d<V1PersistentVolume>("", "v1", "persistentvolumes", "PersistentVolume", false, ["status"]),
  /** `replicationcontrollers` (ReplicationController, namespaced). */
  replicationControllers: d<V1ReplicationController>(
    "",
    "v1",
    "replicationcontrollers",
    "ReplicationController",
    true,
    ["status", "scale"],
  ),
  /** `resourcequotas` (ResourceQuota, namespaced). */
  resourceQuotas: d<V1ResourceQuota>("", "v1", "resourcequotas", "ResourceQuota", true, ["status"]),
  /** `limitranges` (LimitRange, namespaced). */
  limitRanges: d<V1LimitRange>("", "v1", "limitranges", "LimitRange", true),
  /** `deployments.apps` (Deployment, namespaced). */
  deployments: d<V1Deployment>("apps", "v1", "deployments", "Deployment", true, ["status", "scale"]),
  /** `statefulsets.apps` (StatefulSet, namespaced). */
  statefulSets: d<V1StatefulSet>("apps", "v1", "statefulsets", "StatefulSet", true, ["status", "scale"]),
  /** `daemonsets.apps` (DaemonSet, namespaced). */
  daemonSets: d<V1DaemonSet>("apps", "v1", "daemonsets", "DaemonSet", true, ["status"]),
  /** `replicasets.apps` (ReplicaSet, namespaced). */
  replicaSets: d<V1ReplicaSet>("apps", "v1", "replicasets", "ReplicaSet", true, ["status", "scale"]),
  /** `jobs.batch` (Job, namespaced). */
  jobs: d<V1Job>("batch", "v1", "jobs", "Job", true, ["status"]),
  /** `cronjobs.batch` (CronJob, namespaced). */
  cronJobs: d<V1CronJob>("batch", "v1", "cronjobs", "CronJob", true, ["status"]),
  /** `leases.coordination.k8s.io` (Lease, namespaced). */
  leases: d<V1Lease>("coordination.k8s.io", "v1", "leases", "Lease", true),
  /** `events.events.k8s.io` (Event, namespaced). */
  eventsV1: d<EventsV1Event>("events.k8s.io", "v1", "events", "Event", true),
  /** `ingresses.networking.k8s.io` (Ingress, namespaced). */
  ingresses: d<V1Ingress>("networking.k8s.io", "v1", "ingresses", "Ingress", true, ["status"]),
  /** `networkpolicies.networking.k8s.io` (NetworkPolicy, namespaced). */
  networkPolicies: d<V1NetworkPolicy>("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true),
  /** `endpointslices.discovery.k8s.io` (EndpointSlice, namespaced). */
  endpointSlices: d<V1EndpointSlice>("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true),
  /** `roles.rbac.authorization.k8s.io` (Role, namespaced). */
  roles: d<V1Role>("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
  /** `rolebindings.rbac.authorization.k8s.io` (RoleBinding, namespaced). */
  roleBindings: d<V1RoleBinding>("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
  /** `clusterroles.rbac.authorization.k8s.io` (ClusterRole, cluster-scoped). */
  clusterRoles: d<V1ClusterRole>("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
  /** `clusterrolebindings.rbac.authorization.k8s.io` (ClusterRoleBinding, cluster-scoped). */
  clusterRoleBindings: d<V1ClusterRoleBinding>(
    "rbac.authorization.k8s.io",
    "v1",
    "clusterrolebindings",
    "ClusterRoleBinding",
    false,
  ),
  /** `horizontalpodautoscalers.autoscaling` (HorizontalPodAutoscaler, namespaced). */
  horizontalPodAutoscalers: d<V2HorizontalPodAutoscaler>(
    "autoscaling",
    "v2",
    "horizontalpodautoscalers",
    "HorizontalPodAutoscaler",
    true,
    ["status"],
  ),
  /** `poddisruptionbudgets.policy` (PodDisruptionBudget, namespaced). */
  podDisruptionBudgets: d<V1PodDisruptionBudget>("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, [
    "status",
  ]),
  /** `storageclasses.storage.k8s.io` (StorageClass, cluster-scoped). */
  storageClasses: d<V1StorageClass>("storage.k8s.io", "v1", "storageclasses", "StorageClass", false),
  /** `priorityclasses.scheduling.k8s.io` (PriorityClass, cluster-scoped). */
  priorityClasses: d<V1PriorityClass>("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false),
  /** `customresourcedefinitions.apiextensions.k8s.io` (CustomResourceDefinition, cluster-scoped). */
  customResourceDefinitions: d<V1CustomResourceDefinition>(
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    false,
    ["status"],
  ),
} as const;

/** Names of {@link resources}. */
export type ResourceName = keyof typeof resources;

/**
 * The descriptors `@informer-ts/client` shipped before {@link resources}, under their plural lower-case names
 * (`configmaps`, `statefulsets`); the same typed objects. Prefer {@link resources}.
 */
export const builtinResources = {
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
} as const;

/** Names of {@link builtinResources}. */
export type BuiltinResourceName = keyof typeof builtinResources;
