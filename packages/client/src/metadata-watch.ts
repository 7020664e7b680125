// Metadata-only reads (client-go's metadata client): full objects reduced to PartialObjectMetadata when the server
// did not honour the `as=PartialObjectMetadata` Accept.
import type { KubeObject, Watch, WatchEvent } from "@informer-ts/apimachinery";
import type { PartialObjectMetadata } from "./object-types.js";

/** `Accept` of a metadata-only list (client-go's metadata client). */
export const METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/** `Accept` of a metadata-only get or watch (client-go's metadata client). */
export const METADATA_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** How the metadata client decodes a metadata-only LIST or watch (`listMetadata`, `watchMetadata`, `metadataListWatchFor`). */
export interface MetadataDecodeOptions {
  /**
   * Leave every object's `metadata.managedFields` out while decoding the LIST body or each watch event's line
   * (default false): the `"managedFields":[…]` members are cut from the JSON text before `JSON.parse`, so their many
   * small nested objects are never built (see `managed-fields-skip.ts`). A body or line the cut does not recognise
   * (pretty-printed, or anything unexpected) is parsed whole, so objects may still carry the field: a cache that must
   * not hold it also strips it after decoding (`transformStripManagedFields`, as metadata informers do).
   */
  readonly dropManagedFields?: boolean;
}

/** `meta.AsPartialObjectMetadata`: the object's metadata under the `meta.k8s.io/v1` type. */
export function asPartialObjectMetadata(obj: KubeObject): PartialObjectMetadata {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata ?? {} };
}

/** One event of a metadata watch: as it came when it is metadata (or an ERROR), else reduced to metadata. */
function asMetadataEvent(e: WatchEvent<KubeObject>): WatchEvent<PartialObjectMetadata> {
  if (e.type === "ERROR" || e.object.kind === "PartialObjectMetadata") return e as WatchEvent<PartialObjectMetadata>;
  return { type: e.type, object: asPartialObjectMetadata(e.object) };
}

/**
 * A watch whose object events are reduced to PartialObjectMetadata when the server sent full objects. When `w` has
 * the batch path (`nextBatch`), so has the result: a batch of metadata events is handed on as it is (no copy).
 */
export function metadataWatch(w: Watch<KubeObject>): Watch<PartialObjectMetadata> {
  const nextBatch = w.nextBatch?.bind(w);
  const batchPath =
    nextBatch === undefined
      ? {}
      : {
          nextBatch: async (): Promise<IteratorResult<readonly WatchEvent<PartialObjectMetadata>[]>> => {
            const r = await nextBatch();
            if (r.done === true) return r;
            const events = r.value;
            for (const e of events) {
              if (e.type !== "ERROR" && e.object.kind !== "PartialObjectMetadata") {
                return { done: false, value: events.map(asMetadataEvent) };
              }
            }
            return r as IteratorResult<readonly WatchEvent<PartialObjectMetadata>[]>;
          },
        };
  return {
    ...batchPath,
    stop: () => w.stop(),
    async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<PartialObjectMetadata>> {
      for await (const e of w) yield asMetadataEvent(e);
    },
  };
}
