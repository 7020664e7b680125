import {
  type NewInformerFunc,
  newSharedInformerFactoryWithOptions,
  type SharedIndexInformer,
  type SharedInformerFactory,
  type SharedInformerOption,
} from "@informer-ts/cache";
import { type KubeClient, listWatchFor, type ResourceDescriptor } from "@informer-ts/client";

/**
 * A shared informer factory over a {@link KubeClient} whose `informerFor` is typed by the descriptor:
 * `factory.informerFor(resources.deployments)` is a `SharedIndexInformer<Deployment>` and its indexer and listers
 * hand out `Deployment`s. Everything else is `@informer-ts/cache`'s `SharedInformerFactory`.
 *
 * It joins the client and the cache (client-go's `informers` package does the same over a clientset), so it lives
 * in the controller package, which imports both; until 0.1 it was `@informer-ts/client`'s.
 */
export interface TypedSharedInformerFactory
  extends Omit<SharedInformerFactory<ResourceDescriptor<unknown>, unknown>, "informerFor"> {
  /** The shared informer of `resource` (created on first use, not started), typed by the descriptor. */
  informerFor<T>(
    resource: ResourceDescriptor<T>,
    newFunc?: NewInformerFunc<ResourceDescriptor<T>, T>,
  ): SharedIndexInformer<T>;
}

/**
 * `informers.NewSharedInformerFactoryWithOptions(clientset, resync, options...)`: a factory whose informers list
 * and watch through `client` ({@link listWatchFor}, one informer per resource), typed per resource. Options are
 * the cache package's (`withNamespace`, `withTweakListOptions`, `withTransform`…); a transform that changes the
 * objects' type makes the typing wrong, as it would in client-go.
 */
export function newTypedSharedInformerFactory(
  client: KubeClient,
  defaultResync: number,
  ...options: SharedInformerOption<unknown>[]
): TypedSharedInformerFactory {
  // The lister-watcher of each resource serves that descriptor's type, which is what makes the typed view sound.
  return newSharedInformerFactoryWithOptions<ResourceDescriptor<unknown>, unknown>(
    (resource, scope) => listWatchFor(client, resource, { namespace: scope.namespace }),
    defaultResync,
    ...options,
  ) as TypedSharedInformerFactory;
}
