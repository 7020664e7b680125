import { transformStripManagedFields } from "@informer-ts/cache";

/**
 * The cluster's informer transform: kube-controller-manager's managedFields trim
 * (`cmd/kube-controller-manager/app/controllermanager.go`, `CreateControllerContext`), for objects that may be shared.
 * `transformStripManagedFields` replaces `metadata` on the object it is given, which suits a freshly decoded object
 * but not a frozen one handed over by the simulator's in-process lister-watcher (the engine's stored object): that
 * one gets a shallow copy whose `metadata` lacks `managedFields`, everything else (spec, status) still shared.
 */
export function trimManagedFieldsShared<T>(obj: T): T {
  if (typeof obj !== "object" || obj === null || !Object.isFrozen(obj)) return transformStripManagedFields(obj);
  const metadata = (obj as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null || !("managedFields" in metadata)) return obj;
  const { managedFields: _dropped, ...rest } = metadata as { managedFields?: unknown };
  return { ...obj, metadata: rest };
}
