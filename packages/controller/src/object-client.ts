import type { KubeList, KubeObject, Status } from "@informer-ts/apimachinery";
import type {
  DeleteCallOptions,
  GetCallOptions,
  ListCallOptions,
  ObjectCallOptions,
  PatchOptions,
  ResourceDescriptor,
  WriteOptions,
} from "@informer-ts/client";

/**
 * The writes a controller makes: the subset of `@informer-ts/client`'s `KubeClient` that the finalizer helpers, the
 * leader elector and the event recorder use. A `KubeClient` is one; tests may pass an in-process implementation.
 * Failures reject with apimachinery `StatusError`s (409 Conflict, 404 NotFound…), as the client's do.
 */
export interface ObjectClient {
  get(
    resource: ResourceDescriptor,
    name: string,
    options?: ObjectCallOptions,
    signal?: AbortSignal,
  ): Promise<KubeObject>;
  create(
    resource: ResourceDescriptor,
    object: KubeObject,
    options?: WriteOptions,
    signal?: AbortSignal,
  ): Promise<KubeObject>;
  update(
    resource: ResourceDescriptor,
    object: KubeObject,
    options?: WriteOptions,
    signal?: AbortSignal,
  ): Promise<KubeObject>;
  patch(
    resource: ResourceDescriptor,
    name: string,
    patch: unknown,
    options?: PatchOptions,
    signal?: AbortSignal,
  ): Promise<KubeObject>;
  delete(
    resource: ResourceDescriptor,
    name: string,
    options?: DeleteCallOptions,
    signal?: AbortSignal,
  ): Promise<KubeObject | Status>;
}

/**
 * Reads of objects (controller-runtime's `client.Reader`), typed by the descriptor: `get` resolves to one object or
 * rejects with a `StatusError` (404 NotFound…), `list` to a list whose `items` are the descriptor's objects. A
 * `KubeClient` is one (reads from the API server); {@link CacheReader} answers from the informers' caches; the
 * manager's {@link DelegatingClient} chooses per request.
 */
export interface ObjectReader {
  get<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options?: GetCallOptions,
    signal?: AbortSignal,
  ): Promise<T>;
  list<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    options?: ListCallOptions,
    signal?: AbortSignal,
  ): Promise<KubeList<T>>;
}
