// The manager's event recorders: objects from its caches get their apiVersion/kind from the informer's descriptor.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { apiVersionOf, type ResourceDescriptor } from "@informer-ts/client";
import type { EventRecorder } from "./record/event.js";

/**
 * `recorder`, with every recorded object that lacks `apiVersion`/`kind` and is held by one of `descriptors`' informers
 * typed from that informer's descriptor (the manager's "scheme"), so the Event's `involvedObject` names its kind.
 */
export function typedEventRecorder(
  recorder: EventRecorder,
  descriptors: ReadonlyMap<SharedIndexInformer<KubeObject>, ResourceDescriptor>,
): EventRecorder {
  const withType = <O>(object: O): O => typedObject(object, descriptors);
  return {
    event: (object, type, reason, message) => recorder.event(withType(object), type, reason, message),
    annotatedEvent: (object, annotations, type, reason, message) =>
      recorder.annotatedEvent(withType(object), annotations, type, reason, message),
  };
}

/** `object` with the apiVersion/kind of the informer whose cache holds this very object, when it lacks them. */
function typedObject<O>(object: O, descriptors: ReadonlyMap<SharedIndexInformer<KubeObject>, ResourceDescriptor>): O {
  const o = object as KubeObject;
  const meta = o?.metadata;
  if (meta === undefined || typeof meta?.name !== "string" || (typeof o.kind === "string" && o.kind !== "")) {
    return object;
  }
  const key = meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
  for (const [informer, resource] of descriptors) {
    if (informer.getIndexer().getByKey(key) === o) {
      return { ...o, apiVersion: apiVersionOf(resource), kind: resource.kind } as O;
    }
  }
  return object;
}
