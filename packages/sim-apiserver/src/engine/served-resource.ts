import type { ResourceDescriptor } from "@informer-ts/apimachinery";

/**
 * One served resource as discovery and OpenAPI describe it (`metav1.APIResource` plus its group/version): the
 * packages' one resource descriptor ({@link ResourceDescriptor}: group, version, resource, kind, scope and the
 * subresource names, `status`/`scale`, that discovery lists as `<resource>/<name>` entries) plus what discovery adds.
 */
export interface ServedResource extends ResourceDescriptor {
  readonly singularName: string;
  readonly shortNames?: readonly string[];
  /** Discovery categories (`all` for the workloads `kubectl get all` lists, `api-extensions`). */
  readonly categories?: readonly string[];
  readonly verbs: readonly string[];
  /** DELETE answers with the deleted object (pods) instead of a `Status` (the registry's `ReturnDeletedObject`). */
  readonly returnDeletedObject?: boolean;
}

/** The verbs the simulator serves for every resource. */
export const DEFAULT_VERBS: readonly string[] = Object.freeze([
  "create",
  "delete",
  "get",
  "list",
  "patch",
  "update",
  "watch",
]);

/**
 * The verbs of a resource that also serves `deletecollection` (every built-in but namespaces and
 * CustomResourceDefinitions here, and the resources CustomResourceDefinitions serve), in discovery's sorted order.
 */
export const COLLECTION_VERBS: readonly string[] = Object.freeze([
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
]);

/** The verbs of the review kinds (`authorization.k8s.io`, `authentication.k8s.io`): create only, as upstream. */
export const CREATE_ONLY_VERBS: readonly string[] = Object.freeze(["create"]);
