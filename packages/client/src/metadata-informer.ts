import {
  newSharedInformerFactoryWithOptions,
  type SharedInformerFactory,
  type SharedInformerOption,
} from "@informer-ts/cache";
import { metadataListWatchFor } from "./listwatch.js";
import type { PartialObjectMetadata } from "./object-types.js";
import type { ResourceDescriptor } from "./resources.js";
import type { KubeClient } from "./rest-client.js";

/** A factory of metadata-only informers: every informer caches {@link PartialObjectMetadata}. */
export type MetadataSharedInformerFactory = SharedInformerFactory<ResourceDescriptor<unknown>, PartialObjectMetadata>;

/**
 * A shared informer factory whose informers list and watch metadata only (client-go
 * `metadatainformer.NewFilteredSharedInformerFactory`; controller-runtime's `OnlyMetadata` informers, kube-rs
 * `metadata_watcher`), built on `@informer-ts/cache`'s factory with {@link metadataListWatchFor} as its
 * lister-watcher: same options (`withNamespace`, `withTweakListOptions`, …), same sharing (one informer per
 * resource), same start/sync/shutdown. A controller that only needs names, labels, owners or finalizers keeps a
 * fraction of the memory of a full-object cache.
 *
 * Keep it apart from a full-object factory: both key informers by resource, so the same resource may have one
 * informer of each kind, one per factory.
 */
export function newMetadataSharedInformerFactory(
  client: KubeClient,
  defaultResync: number,
  ...options: SharedInformerOption<PartialObjectMetadata>[]
): MetadataSharedInformerFactory {
  return newSharedInformerFactoryWithOptions<ResourceDescriptor<unknown>, PartialObjectMetadata>(
    (resource, scope) => metadataListWatchFor(client, resource, { namespace: scope.namespace }),
    defaultResync,
    ...options,
  );
}
