import type { KubeObject } from "@informer-ts/apimachinery";
import {
  type DeletedFinalStateUnknown,
  isDeletedFinalStateUnknown,
  type ResourceEventHandler,
} from "@informer-ts/cache";
import type { Predicate } from "./predicate.js";
import { type Request, requestFromKey } from "./request.js";

/**
 * Turns the notifications of one watched resource into requests for the controller's `for` resource
 * (controller-runtime's `handler.EventHandler`). Each method returns the requests to enqueue; duplicates are
 * harmless (the work queue collapses them). `delete` receives the last known state.
 */
export interface EventHandler<T = KubeObject> {
  create(obj: T): readonly Request[];
  update(oldObj: T, newObj: T): readonly Request[];
  delete(obj: T): readonly Request[];
}

/** A request for an object's own namespace and name (`handler.EnqueueRequestForObject`); `for` uses it. */
export function enqueueRequestForObject(): EventHandler<KubeObject> {
  return {
    create: (obj) => requestsOf(obj),
    update: (_old, obj) => requestsOf(obj),
    delete: (obj) => requestsOf(obj),
  };
}

function requestsOf(obj: KubeObject): readonly Request[] {
  const name = obj.metadata?.name;
  if (typeof name !== "string" || name === "") return [];
  const ns = obj.metadata?.namespace;
  return [{ namespace: typeof ns === "string" ? ns : "", name }];
}

/** Identifies an owner type by API group and kind (the version does not matter, as in controller-runtime). */
export interface OwnerType {
  /** `""` for the core group. */
  readonly group: string;
  readonly kind: string;
  /** Whether owners of this type are namespaced; a cluster-scoped owner is requested with namespace `""`. Default true. */
  readonly namespaced?: boolean;
}

/** Options of {@link enqueueRequestForOwner}. */
export interface EnqueueRequestForOwnerOptions {
  /** Only the controlling owner (`controller: true`), as `owns` does (`handler.OnlyControllerOwner()`). Default true. */
  readonly onlyControllerOwner?: boolean;
}

/**
 * Requests for the owners of an object whose group and kind match `owner` (`handler.EnqueueRequestForOwner`); `owns`
 * uses it with `onlyControllerOwner`. An update enqueues the owners of both the old and the new object, so a child
 * that changes owner reconciles both.
 */
export function enqueueRequestForOwner(
  owner: OwnerType,
  options: EnqueueRequestForOwnerOptions = {},
): EventHandler<KubeObject> {
  const onlyController = options.onlyControllerOwner ?? true;
  const namespaced = owner.namespaced ?? true;
  const ownersOf = (obj: KubeObject): Request[] => {
    const refs = obj.metadata?.ownerReferences;
    if (!Array.isArray(refs)) return [];
    const out: Request[] = [];
    for (const ref of refs) {
      if (typeof ref !== "object" || ref === null) continue;
      if (onlyController && ref.controller !== true) continue;
      if (ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) continue;
      if (typeof ref.name !== "string" || ref.name === "") continue;
      const ns = namespaced ? (obj.metadata?.namespace ?? "") : "";
      out.push({ namespace: ns, name: ref.name });
    }
    return out;
  };
  return {
    create: ownersOf,
    update: (oldObj, newObj) => [...ownersOf(oldObj), ...ownersOf(newObj)],
    delete: ownersOf,
  };
}

/** The group of an `apiVersion` (`apps/v1` → `apps`, `v1` → `""`). */
export function groupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== "string") return "";
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** Maps an object of a watched resource to the requests it affects. */
export type MapFunc<T = KubeObject> = (obj: T) => readonly Request[];

/**
 * Requests computed by `map` (`handler.EnqueueRequestsFromMapFunc`); `watches` uses it. An update maps both the old
 * and the new object.
 */
export function enqueueRequestsFromMapFunc<T = KubeObject>(map: MapFunc<T>): EventHandler<T> {
  return { create: map, update: (oldObj, newObj) => [...map(oldObj), ...map(newObj)], delete: map };
}

/**
 * Adapts an {@link EventHandler} and its predicates to an informer's `ResourceEventHandler`, calling `enqueue` for each
 * request. A `DeletedFinalStateUnknown` is unwrapped to its last known object; a tombstone without one enqueues its key
 * only when `keyFallback` is set (the `for` resource). `onMapError` receives errors thrown by predicates or handlers,
 * which are otherwise contained (the notification is skipped).
 */
export function toResourceEventHandler<T extends KubeObject>(
  handler: EventHandler<T>,
  predicates: readonly Predicate<T>[],
  enqueue: (request: Request) => void,
  options: { readonly keyFallback?: boolean; readonly onMapError?: (err: unknown) => void } = {},
): ResourceEventHandler<T> {
  const guard = (fn: () => readonly Request[] | undefined): void => {
    let requests: readonly Request[] | undefined;
    try {
      requests = fn();
    } catch (err) {
      options.onMapError?.(err);
      return;
    }
    if (requests === undefined) return;
    for (const r of requests) enqueue(r);
  };
  return {
    onAdd: (obj) => guard(() => (predicates.every((p) => p.create?.(obj) ?? true) ? handler.create(obj) : undefined)),
    onUpdate: (oldObj, newObj) =>
      guard(() =>
        predicates.every((p) => p.update?.(oldObj, newObj) ?? true) ? handler.update(oldObj, newObj) : undefined,
      ),
    onDelete: (o: T | DeletedFinalStateUnknown<T>) =>
      guard(() => {
        if (isDeletedFinalStateUnknown<T>(o)) {
          if (o.obj === undefined) return options.keyFallback === true ? [requestFromKey(o.key)] : undefined;
          o = o.obj;
        }
        const obj = o as T;
        return predicates.every((p) => p.delete?.(obj) ?? true) ? handler.delete(obj) : undefined;
      }),
  };
}
