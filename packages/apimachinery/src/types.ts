/** `metav1.OwnerReference`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metav1.ObjectMeta`: the fields informer-ts reads or the simulated server sets. Unknown fields pass through. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [field: string]: unknown;
}

/** Any Kubernetes object: `kind`/`apiVersion` (absent on items of built-in lists), metadata, and the rest. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** `metav1.ListMeta`. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** A list response (`ConfigMapList`, …). `items` is always an array. */
export interface KubeList<T = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** `metav1.StatusCause`. Its Go field `Type` is serialized as `reason`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `metav1.StatusDetails`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `metav1.Status`: the body of every API error and of ERROR watch events. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: ListMeta;
  status?: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** Watch event types on the wire. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * One event of a watch stream (`metav1.WatchEvent` decoded). ERROR events carry a {@link Status}; every
 * other type carries an object of the watched kind (a BOOKMARK carries only `metadata.resourceVersion`,
 * plus the {@link INITIAL_EVENTS_END_ANNOTATION} annotation when it ends a watch-list's initial events).
 */
export type WatchEvent<T = KubeObject> =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; readonly object: T }
  | { readonly type: "ERROR"; readonly object: Status };

/** Annotation on the BOOKMARK that ends the initial events of a watch-list (KEP-3157). */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** `metav1.ResourceVersionMatch`. */
export type ResourceVersionMatch = "Exact" | "NotOlderThan";

/**
 * `metav1.ListOptions` as typed values (the HTTP layer parses and validates the query strings). Used for both
 * list and watch requests, as in Kubernetes.
 */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Opaque. `undefined`/"" = most recent (consistent read); "0" = any. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}
