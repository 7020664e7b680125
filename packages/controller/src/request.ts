import { splitMetaNamespaceKey } from "@informer-ts/cache";

/**
 * What a controller reconciles: the namespace and name of one object of its `for` resource
 * (controller-runtime's `reconcile.Request`). `namespace` is `""` for cluster-scoped objects.
 *
 * Requests carry no object: the reconciler reads the current state from the cache, so a burst of changes to one
 * object collapses into one reconcile of its latest state.
 */
export interface Request {
  readonly namespace: string;
  readonly name: string;
}

/** The work-queue key of a request: `namespace/name`, or `name` when cluster-scoped (`types.NamespacedName.String`). */
export function requestKey(request: Request): string {
  return request.namespace === "" ? request.name : `${request.namespace}/${request.name}`;
}

/** The inverse of {@link requestKey}. Throws a `TypeError` naming the key when it has more than one `/`. */
export function requestFromKey(key: string): Request {
  const [namespace, name] = splitMetaNamespaceKey(key);
  return { namespace, name };
}
