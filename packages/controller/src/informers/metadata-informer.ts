import {
  newSharedInformerFactoryWithOptions,
  type SharedInformerFactory,
  type SharedInformerOption,
  transformStripManagedFields,
  withTransform,
} from "@informer-ts/cache";
import {
  type KubeClient,
  metadataListWatchFor,
  type PartialObjectMetadata,
  type ResourceDescriptor,
} from "@informer-ts/client";

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
 * It joins the client and the cache, so it lives in the controller package, which imports both; until 0.1 it was
 * `@informer-ts/client`'s.
 *
 * Keep it apart from a full-object factory: both key informers by resource, so the same resource may have one
 * informer of each kind, one per factory.
 *
 * The informers expect no particular kind from the watch (their objects are `meta.k8s.io/v1`
 * `PartialObjectMetadata`, not the resource's kind): `informerFor` hands the cache factory the resource without
 * its `kind`, which the factory would otherwise turn into the reflector's expected type and reject every event
 * with ("Unexpected watch event object gvk"). client-go's metadata informers likewise expect the
 * `PartialObjectMetadata` type, not the resource's kind. Informers are keyed, named and labelled by
 * group/version/resource as usual.
 *
 * Its informers drop `metadata.managedFields` before storing (a default `withTransform` of
 * {@link transformStripManagedFields}, as controller-runtime's metadata caches do with
 * `TransformStripManagedFields`): for small objects the server-side-apply bookkeeping is most of what a
 * metadata cache would hold. Pass {@link withManagedFields} to keep them; a `withTransform` of your own replaces
 * the default (call `transformStripManagedFields` inside it to keep stripping). While that default transform is the
 * one in effect, the LISTs and watch events also leave `managedFields` out while decoding (`dropManagedFields` of
 * {@link metadataListWatchFor}), so the client never parses them: a metadata LIST of 1 KiB ConfigMaps costs a
 * fraction of the CPU (see packages/bench/README.md). With {@link withManagedFields} or a transform of your own,
 * LISTs and watch events are decoded whole.
 */
export function newMetadataSharedInformerFactory(
  client: KubeClient,
  defaultResync: number,
  ...options: SharedInformerOption<PartialObjectMetadata>[]
): MetadataSharedInformerFactory {
  // Whether the options left the default strip in place: only then may the LISTs skip managedFields while decoding.
  let dropManagedFields = true;
  const factory = newSharedInformerFactoryWithOptions<ResourceDescriptor<unknown>, PartialObjectMetadata>(
    (resource, scope) => metadataListWatchFor(client, resource, { namespace: scope.namespace }, { dropManagedFields }),
    defaultResync,
    withTransform<PartialObjectMetadata>(transformStripManagedFields),
    ...options,
    (config) => {
      dropManagedFields = config.transform === transformStripManagedFields;
    },
  );
  const informerFor = factory.informerFor.bind(factory);
  factory.informerFor = (resource, newFunc) => {
    const { kind: _kind, ...withoutKind } = resource;
    // The cache factory reads `kind` only to build the expected object type; nothing else here needs it.
    return informerFor(withoutKind as ResourceDescriptor<unknown>, newFunc);
  };
  return factory;
}
