import type { KubeObject } from "@informer-ts/apimachinery";
import type { EventHandler, Request } from "@informer-ts/controller";

/** An owner reference as JSON (`metav1.OwnerReference`). */
export interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metav1.GetControllerOf`: the owner reference with `controller: true`, if any. */
export function controllerRefOf(obj: KubeObject): OwnerRef | undefined {
  return (obj.metadata?.ownerReferences as OwnerRef[] | undefined)?.find((r) => r?.controller === true);
}

/** `metav1.NewControllerRef`: a controlling, deletion-blocking reference to `owner`. */
export function newControllerRef(owner: KubeObject, apiVersion: string, kind: string): Required<OwnerRef> {
  return {
    apiVersion,
    kind,
    name: owner.metadata?.name ?? "",
    uid: owner.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The work-queue request of an object (`namespace/name`). */
export function requestOf(obj: KubeObject): Request {
  return { namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}

/** The handler of a controller's own kind: any change of an object asks for a sync of that object. */
export const selfHandler: EventHandler<KubeObject> = {
  create: (obj) => [requestOf(obj)],
  update: (_old, cur) => [requestOf(cur)],
  delete: (obj) => [requestOf(obj)],
};

/**
 * The handler of the objects a controller owns (pods, revisions, jobs): a change asks for a sync of the owner before
 * and after it (`ownerOf` resolves the controller reference), so an object that changed owners wakes both.
 */
export function ownedHandler(ownerOf: (obj: KubeObject) => Request[]): EventHandler<KubeObject> {
  return {
    create: (obj) => ownerOf(obj),
    update: (old, cur) => [...ownerOf(cur), ...ownerOf(old)],
    delete: (obj) => ownerOf(obj),
  };
}

/**
 * The owner `ref` names in `ns`, looked up in `getByKey` (an informer's indexer), when kind and UID match
 * (`resolveControllerRef` of the workload controllers).
 */
export function resolveControllerRef<T extends KubeObject>(
  getByKey: (key: string) => unknown,
  kind: string,
  ns: string,
  ref: OwnerRef | undefined,
): T | undefined {
  if (ref === undefined || ref.kind !== kind) return undefined;
  const owner = getByKey(`${ns}/${ref.name ?? ""}`) as T | undefined;
  if (owner === undefined || owner.metadata?.uid !== ref.uid) return undefined;
  return owner;
}
