// Metadata-only reads (client-go's metadata client): full objects reduced to PartialObjectMetadata when the server
// did not honour the `as=PartialObjectMetadata` Accept.
import type { KubeObject, Watch, WatchEvent } from "@informer-ts/apimachinery";
import type { PartialObjectMetadata } from "./object-types.js";

/** `Accept` of a metadata-only list (client-go's metadata client). */
export const METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/** `Accept` of a metadata-only get or watch (client-go's metadata client). */
export const METADATA_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** How the metadata client decodes a metadata-only LIST (`listMetadata`, `metadataListWatchFor`). */
export interface MetadataDecodeOptions {
  /**
   * Leave every object's `metadata.managedFields` out while decoding the LIST body (default false): the
   * `"managedFields":[…]` members are cut from the JSON text before `JSON.parse`, so their many small nested objects
   * are never built (see `managed-fields-skip.ts`). A body the cut does not recognise (pretty-printed, or anything
   * unexpected) is parsed whole, so objects may still carry the field: a cache that must not hold it also strips it
   * after decoding (`transformStripManagedFields`, as metadata informers do). Watch events are decoded whole.
   */
  readonly dropManagedFields?: boolean;
}

/** `meta.AsPartialObjectMetadata`: the object's metadata under the `meta.k8s.io/v1` type. */
export function asPartialObjectMetadata(obj: KubeObject): PartialObjectMetadata {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata ?? {} };
}

/** A watch whose object events are reduced to PartialObjectMetadata when the server sent full objects. */
export function metadataWatch(w: Watch<KubeObject>): Watch<PartialObjectMetadata> {
  return {
    stop: () => w.stop(),
    async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<PartialObjectMetadata>> {
      for await (const e of w) {
        if (e.type === "ERROR" || e.object.kind === "PartialObjectMetadata") {
          yield e as WatchEvent<PartialObjectMetadata>;
        } else {
          yield { type: e.type, object: asPartialObjectMetadata(e.object) };
        }
      }
    },
  };
}
