// The two constants BUILTIN_RESOURCES is built from are imported from their own (leaf) modules, not through
// registry/index.ts: the registry's store imports this module, so loading the registry's index from here would read
// them before they are initialized whenever the registry is loaded first.
import { CUSTOM_RESOURCE_DEFINITIONS } from "./registry/custom-resource-definitions.js";
import { APPS_SCALE, type ScaleSubresource } from "./registry/scale.js";
import { COLLECTION_VERBS, DEFAULT_VERBS, type ServedResource } from "./served-resource.js";

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
   * The field the registry indexes watchers by (kube's "trigger"): `metadata.name` for configmaps, secrets and
   * nodes, `spec.nodeName` for pods. It decides the per-watcher channel size (§5.3 of reference/apiserver.md).
   */
  readonly trigger?: string;
  /** Custom resources: list items keep `kind`/`apiVersion` (built-in typed lists drop them). */
  readonly custom?: boolean;
  /**
   * The subresources the registry serves beside the object (a CRD version's `subresources`): `status` makes
   * `/status` a separate write path (the main resource's writes keep the stored status, `/status` writes keep the
   * rest). Absent: `/status` is 404 and status is an ordinary field.
   */
  readonly subresources?: SimSubresources;
}

/** {@link SimResource.subresources}. */
export interface SimSubresources {
  readonly status?: boolean;
  /** `/scale` (`autoscaling/v1` Scale): where the replica counts and the selector live. */
  readonly scale?: ScaleSubresource;
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

/**
 * The built-in resources: core/v1 (serviceaccounts included, for `kubectl create serviceaccount`), apps/v1,
 * batch/v1 jobs, coordination.k8s.io/v1, events.k8s.io/v1 and apiextensions.k8s.io/v1 customresourcedefinitions
 * (creating one serves its resource).
 */
export const BUILTIN_RESOURCES: readonly SimResource[] = Object.freeze([
  builtin("", "configmaps", "ConfigMap", true, { shortNames: ["cm"], trigger: "metadata.name" }),
  builtin("", "secrets", "Secret", true, { trigger: "metadata.name", fieldLabels: ["type"] }),
  builtin("", "pods", "Pod", true, {
    shortNames: ["po"],
    subresources: { status: true },
    trigger: "spec.nodeName",
    fieldLabels: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
    returnDeletedObject: true,
  }),
  builtin("", "nodes", "Node", false, {
    shortNames: ["no"],
    subresources: { status: true },
    trigger: "metadata.name",
    fieldLabels: ["spec.unschedulable"],
  }),
  builtin("", "namespaces", "Namespace", false, {
    shortNames: ["ns"],
    fieldLabels: ["status.phase"],
    subresources: { status: true },
  }),
  builtin("", "events", "Event", true, {
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
  }),
  builtin("", "services", "Service", true, { shortNames: ["svc"], subresources: { status: true } }),
  builtin("", "serviceaccounts", "ServiceAccount", true, { shortNames: ["sa"] }),
  builtin("apps", "statefulsets", "StatefulSet", true, {
    shortNames: ["sts"],
    subresources: { status: true, scale: APPS_SCALE },
  }),
  builtin("apps", "deployments", "Deployment", true, {
    shortNames: ["deploy"],
    subresources: { status: true, scale: APPS_SCALE },
  }),
  builtin("batch", "jobs", "Job", true, { subresources: { status: true } }),
  builtin("coordination.k8s.io", "leases", "Lease", true),
  // events.k8s.io/v1 registers no field-label conversion: only metadata.name/metadata.namespace select.
  builtin("events.k8s.io", "events", "Event", true, { shortNames: ["ev"] }),
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
