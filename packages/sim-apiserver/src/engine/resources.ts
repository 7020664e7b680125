// The two constants BUILTIN_RESOURCES is built from are imported from their own (leaf) modules, not through
// registry/index.ts: the registry's store imports this module, so loading the registry's index from here would read
// them before they are initialized whenever the registry is loaded first.
import type { KubeObject } from "@informer-ts/apimachinery";
import { defaultHpaV2 } from "./admission/defaults/autoscaling-defaults.js";
import { coreEventToEventsV1, eventsV1ToCoreEvent } from "./event-conversion.js";
import { hpaV1ToV2, hpaV2ToV1 } from "./hpa-conversion.js";
import { CUSTOM_RESOURCE_DEFINITIONS } from "./registry/custom-resource-definitions.js";
import { APPS_SCALE, CORE_SCALE, type ScaleSubresource } from "./registry/scale.js";
import { COLLECTION_VERBS, CREATE_ONLY_VERBS, DEFAULT_VERBS, type ServedResource } from "./served-resource.js";

/**
 * A resource the engine stores and serves: what discovery needs ({@link ServedResource}) plus the parts of the
 * registry that change list/watch behaviour.
 */
export interface SimResource extends ServedResource {
  /**
   * Field labels beyond `metadata.name`/`metadata.namespace` that field selectors may use (pods: `spec.nodeName`,
   * …). A selector on any other field is a 400.
   */
  readonly fieldLabels?: readonly string[];
  /**
   * Field labels whose value is read at another path of the object (the kind's field-label conversion): core Events'
   * `source` is `source.component`, else `reportingComponent`. Several paths: the first non-empty value. Labels not
   * named here are their own path.
   */
  readonly fieldLabelPaths?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The field the registry indexes watchers by (kube's "trigger"): `metadata.name` for configmaps, secrets and
   * nodes, `spec.nodeName` for pods. It decides the per-watcher channel size (§5.3 of reference/apiserver.md).
   */
  readonly trigger?: string;
  /** Custom resources: list items keep `kind`/`apiVersion` (built-in typed lists drop them). */
  readonly custom?: boolean;
  /**
   * The subresources the registry serves beside the object (the names of a CRD version's `subresources`), the
   * contract's list (apimachinery's `ResourceDescriptor.subresources`): `status` makes `/status` a separate write path (the
   * main resource's writes keep the stored status, `/status` writes keep the rest); `scale` serves `/scale` from the
   * paths in {@link SimResource.scale}. Absent: `/status` and `/scale` are 404 and status is an ordinary field.
   */
  readonly subresources?: readonly string[];
  /**
   * `/scale` (`autoscaling/v1` Scale): where the replica counts and the selector live. Present exactly when
   * {@link SimResource.subresources} names `scale`.
   */
  readonly scale?: ScaleSubresource;
  /**
   * Custom resources: the served version's `schema.openAPIV3Schema` (the admission chain prunes, defaults and
   * validates against it). Absent: schemaless.
   */
  readonly openAPIV3Schema?: Readonly<Record<string, unknown>>;
  /** Custom resources: the definition's `spec.names.listKind` (OpenAPI names the List kind's schema after it). */
  readonly listKind?: string;
  /**
   * A review kind (SelfSubjectAccessReview, TokenReview, …): `create` only, answered from the request's user
   * (`registry/reviews.ts`) and never stored, as upstream's review REST storages.
   */
  readonly review?: boolean;
  /**
   * Custom resources: the `Warning` every request to this version gets, when the definition marks the version
   * `deprecated` (its `deprecationWarning`, or the default one naming a newer served version).
   */
  readonly deprecationWarning?: string;
  /**
   * Custom resources: the version the definition stores its objects at now (discovery's `storageVersionHash` hashes
   * it). Absent: the version of {@link SimResource.storedAs}'s resource, or the resource's own.
   */
  readonly storageVersion?: string;
  /**
   * Custom resources: the served version's `additionalPrinterColumns` (Table output prints `Name` and these). Absent:
   * `Name` and `Age`.
   */
  readonly printerColumns?: readonly PrinterColumn[];
  /**
   * A resource whose objects live in another resource's storage, converted on every read and write
   * ({@link StoredAs}): `events.k8s.io/v1` events are core `v1` events. Absent: the resource's own storage.
   */
  readonly storedAs?: StoredAs;
}

/** One of a CustomResourceDefinition version's `additionalPrinterColumns` (`CustomResourceColumnDefinition`). */
export interface PrinterColumn {
  /** The column's header. */
  readonly name: string;
  /** `integer`, `number`, `string`, `boolean` or `date`. */
  readonly type: string;
  /** An OpenAPI format hint for the column (`int32`, `date-time`, …). */
  readonly format?: string;
  /** What the column shows (the Table's column description). */
  readonly description?: string;
  /** 0 for the standard view; higher for `kubectl get -o wide` only. */
  readonly priority?: number;
  /** Where the cell's value is, a JSONPath relative to the object (`.status.replicas`). */
  readonly jsonPath: string;
}

/**
 * Where a served version keeps its objects: kube-apiserver stores several versions of one kind in one etcd prefix at
 * the storage version and converts at the codec. Storage keeps the objects of {@link StoredAs.resource} only; a
 * create through this resource is visible through that one at once, with the same uid and resourceVersion, and the
 * other way round.
 */
export interface StoredAs {
  /** The resource whose storage holds the objects (the storage version). */
  readonly resource: SimResource;
  /** The served object as the storage version keeps it. */
  toStorage(served: KubeObject): KubeObject;
  /** A stored object as this resource serves it. */
  fromStorage(stored: KubeObject): KubeObject;
}

function builtin(
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<Omit<SimResource, "group" | "resource" | "kind" | "namespaced">> = {},
): SimResource {
  return {
    group,
    version: "v1",
    resource,
    kind,
    singularName: kind.toLowerCase(),
    namespaced,
    // Namespaces serve no deletecollection (kube-apiserver's namespace REST does not offer it).
    verbs: resource === "namespaces" ? DEFAULT_VERBS : COLLECTION_VERBS,
    ...extra,
  };
}

/** A create-only review resource (`authorization.k8s.io`, `authentication.k8s.io`): answered, never stored. */
function review(group: string, resource: string, kind: string, namespaced = false): SimResource {
  return builtin(group, resource, kind, namespaced, { verbs: CREATE_ONLY_VERBS, review: true });
}

const ALL = ["all"] as const;
const API_EXTENSIONS = ["api-extensions"] as const;

/**
 * Core `v1` events: the storage version of both Event APIs (`pkg/registry/core/event`). Field labels as
 * `EventToSelectableFields`: `source` is `source.component`, or `reportingComponent` when that is empty.
 */
const CORE_EVENTS: SimResource = builtin("", "events", "Event", true, {
  shortNames: ["ev"],
  fieldLabels: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  fieldLabelPaths: { source: ["source.component", "reportingComponent"] },
});

/**
 * `autoscaling/v2` HorizontalPodAutoscalers, the storage version of both served versions (`pkg/registry/autoscaling/
 * horizontalpodautoscaler`), and the preferred one.
 */
const HPA_V2: SimResource = {
  ...builtin("autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, {
    shortNames: ["hpa"],
    categories: ALL,
    subresources: ["status"],
  }),
  version: "v2",
};

/** A v1 HPA as storage keeps it: converted to v2, with v2's defaults (which upstream applies decoding it from etcd). */
function hpaV1ToStorage(v1: KubeObject): KubeObject {
  const v2 = hpaV1ToV2(v1);
  defaultHpaV2(v2);
  return v2;
}

/**
 * The built-in resources: what `kubectl api-resources` lists on a kube-apiserver v1.34 with its default feature
 * gates, each group at its preferred version (see `docs/sim-apiserver.md`, Resources). Plain storage with the
 * upstream scope, verbs, short names and categories; the review kinds answer a create without storing
 * (`registry/reviews.ts`); `apiextensions.k8s.io/v1` customresourcedefinitions serve the resources they declare.
 *
 * Differences from kube-apiserver: one version per resource except horizontalpodautoscalers (`autoscaling/v2`
 * and `autoscaling/v1` over one storage); `bindings`, `componentstatuses` and the connect subresources other than
 * `pods/log` (`exec`, `attach`, `portforward`, `proxy`) are not served; beta groups off by default upstream are not
 * listed.
 */
export const BUILTIN_RESOURCES: readonly SimResource[] = Object.freeze([
  builtin("", "configmaps", "ConfigMap", true, { shortNames: ["cm"], trigger: "metadata.name" }),
  builtin("", "endpoints", "Endpoints", true, { shortNames: ["ep"], singularName: "endpoints" }),
  builtin("", "limitranges", "LimitRange", true, { shortNames: ["limits"] }),
  builtin("", "persistentvolumeclaims", "PersistentVolumeClaim", true, {
    shortNames: ["pvc"],
    subresources: ["status"],
  }),
  builtin("", "persistentvolumes", "PersistentVolume", false, {
    shortNames: ["pv"],
    subresources: ["status"],
  }),
  builtin("", "podtemplates", "PodTemplate", true),
  builtin("", "replicationcontrollers", "ReplicationController", true, {
    shortNames: ["rc"],
    categories: ALL,
    subresources: ["status", "scale"],
    scale: CORE_SCALE,
    fieldLabels: ["status.replicas"],
  }),
  builtin("", "resourcequotas", "ResourceQuota", true, { shortNames: ["quota"], subresources: ["status"] }),
  builtin("", "secrets", "Secret", true, { trigger: "metadata.name", fieldLabels: ["type"] }),
  builtin("", "pods", "Pod", true, {
    shortNames: ["po"],
    categories: ALL,
    subresources: ["status"],
    trigger: "spec.nodeName",
    fieldLabels: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
    returnDeletedObject: true,
  }),
  builtin("", "nodes", "Node", false, {
    shortNames: ["no"],
    subresources: ["status"],
    trigger: "metadata.name",
    fieldLabels: ["spec.unschedulable"],
  }),
  builtin("", "namespaces", "Namespace", false, {
    shortNames: ["ns"],
    fieldLabels: ["status.phase"],
    subresources: ["status"],
  }),
  CORE_EVENTS,
  builtin("", "services", "Service", true, {
    shortNames: ["svc"],
    categories: ALL,
    subresources: ["status"],
  }),
  builtin("", "serviceaccounts", "ServiceAccount", true, { shortNames: ["sa"] }),
  builtin("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false, {
    categories: API_EXTENSIONS,
  }),
  builtin("admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false, {
    categories: API_EXTENSIONS,
    subresources: ["status"],
  }),
  builtin(
    "admissionregistration.k8s.io",
    "validatingadmissionpolicybindings",
    "ValidatingAdmissionPolicyBinding",
    false,
    { categories: API_EXTENSIONS },
  ),
  builtin("admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false, {
    categories: API_EXTENSIONS,
  }),
  builtin("apiregistration.k8s.io", "apiservices", "APIService", false, {
    categories: API_EXTENSIONS,
    subresources: ["status"],
  }),
  builtin("apps", "controllerrevisions", "ControllerRevision", true),
  builtin("apps", "daemonsets", "DaemonSet", true, {
    shortNames: ["ds"],
    categories: ALL,
    subresources: ["status"],
  }),
  builtin("apps", "replicasets", "ReplicaSet", true, {
    shortNames: ["rs"],
    categories: ALL,
    subresources: ["status", "scale"],
    scale: APPS_SCALE,
  }),
  builtin("apps", "statefulsets", "StatefulSet", true, {
    shortNames: ["sts"],
    categories: ALL,
    subresources: ["status", "scale"],
    scale: APPS_SCALE,
  }),
  builtin("apps", "deployments", "Deployment", true, {
    shortNames: ["deploy"],
    categories: ALL,
    subresources: ["status", "scale"],
    scale: APPS_SCALE,
  }),
  review("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview"),
  review("authentication.k8s.io", "tokenreviews", "TokenReview"),
  review("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true),
  review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview"),
  review("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview"),
  review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview"),
  HPA_V2,
  // autoscaling/v1 HorizontalPodAutoscalers: the same objects, converted (pkg/apis/autoscaling/v1/conversion.go).
  builtin("autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, {
    shortNames: ["hpa"],
    categories: ALL,
    subresources: ["status"],
    storedAs: { resource: HPA_V2, toStorage: hpaV1ToStorage, fromStorage: hpaV2ToV1 },
  }),
  builtin("batch", "cronjobs", "CronJob", true, {
    shortNames: ["cj"],
    categories: ALL,
    subresources: ["status"],
  }),
  builtin("batch", "jobs", "Job", true, { categories: ALL, subresources: ["status"] }),
  builtin("certificates.k8s.io", "certificatesigningrequests", "CertificateSigningRequest", false, {
    shortNames: ["csr"],
    // `approval` (the conditions) beside `status` (the rest): pkg/registry/certificates/certificates/storage.
    subresources: ["status", "approval"],
    fieldLabels: ["spec.signerName"],
  }),
  builtin("coordination.k8s.io", "leases", "Lease", true),
  builtin("discovery.k8s.io", "endpointslices", "EndpointSlice", true, { fieldLabels: ["addressType"] }),
  // events.k8s.io/v1 Events: kept in core events' storage (`pkg/registry/events/rest` serves the core event store),
  // field labels as `pkg/apis/events/v1` AddFieldLabelConversionsForEvent maps them onto the core event's fields.
  builtin("events.k8s.io", "events", "Event", true, {
    storedAs: { resource: CORE_EVENTS, toStorage: eventsV1ToCoreEvent, fromStorage: coreEventToEventsV1 },
    fieldLabelPaths: { source: ["deprecatedSource.component", "reportingController"] },
    shortNames: ["ev"],
    fieldLabels: [
      "reason",
      "regarding.kind",
      "regarding.namespace",
      "regarding.name",
      "regarding.uid",
      "regarding.apiVersion",
      "regarding.resourceVersion",
      "regarding.fieldPath",
      "reportingController",
      "source",
      "type",
    ],
  }),
  builtin("flowcontrol.apiserver.k8s.io", "flowschemas", "FlowSchema", false, { subresources: ["status"] }),
  builtin("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", "PriorityLevelConfiguration", false, {
    subresources: ["status"],
  }),
  builtin("networking.k8s.io", "ingressclasses", "IngressClass", false),
  builtin("networking.k8s.io", "ingresses", "Ingress", true, { shortNames: ["ing"], subresources: ["status"] }),
  builtin("networking.k8s.io", "ipaddresses", "IPAddress", false, { shortNames: ["ip"] }),
  builtin("networking.k8s.io", "networkpolicies", "NetworkPolicy", true, { shortNames: ["netpol"] }),
  builtin("networking.k8s.io", "servicecidrs", "ServiceCIDR", false, { subresources: ["status"] }),
  builtin("node.k8s.io", "runtimeclasses", "RuntimeClass", false),
  builtin("policy", "poddisruptionbudgets", "PodDisruptionBudget", true, {
    shortNames: ["pdb"],
    subresources: ["status"],
  }),
  builtin("rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", false),
  builtin("rbac.authorization.k8s.io", "clusterroles", "ClusterRole", false),
  builtin("rbac.authorization.k8s.io", "rolebindings", "RoleBinding", true),
  builtin("rbac.authorization.k8s.io", "roles", "Role", true),
  builtin("resource.k8s.io", "deviceclasses", "DeviceClass", false),
  builtin("resource.k8s.io", "resourceclaims", "ResourceClaim", true, { subresources: ["status"] }),
  builtin("resource.k8s.io", "resourceclaimtemplates", "ResourceClaimTemplate", true),
  builtin("resource.k8s.io", "resourceslices", "ResourceSlice", false, {
    fieldLabels: ["spec.nodeName", "spec.driver"],
  }),
  builtin("scheduling.k8s.io", "priorityclasses", "PriorityClass", false, { shortNames: ["pc"] }),
  builtin("storage.k8s.io", "csidrivers", "CSIDriver", false),
  builtin("storage.k8s.io", "csinodes", "CSINode", false),
  builtin("storage.k8s.io", "csistoragecapacities", "CSIStorageCapacity", true),
  builtin("storage.k8s.io", "storageclasses", "StorageClass", false, { shortNames: ["sc"] }),
  builtin("storage.k8s.io", "volumeattachments", "VolumeAttachment", false, { subresources: ["status"] }),
  builtin("storage.k8s.io", "volumeattributesclasses", "VolumeAttributesClass", false, { shortNames: ["vac"] }),
  CUSTOM_RESOURCE_DEFINITIONS,
]);

/** `v1` or `<group>/<version>`. */
export function apiVersionOf(r: ServedResource): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/** `configmaps`, `deployments.apps`: how kube names a resource in messages and metrics. */
export function groupResourceString(r: ServedResource): string {
  return r.group === "" ? r.resource : `${r.resource}.${r.group}`;
}

/** The field labels a resource's field selectors may use. */
export function fieldLabelsOf(r: SimResource): readonly string[] {
  return ["metadata.name", "metadata.namespace", ...(r.fieldLabels ?? [])];
}
