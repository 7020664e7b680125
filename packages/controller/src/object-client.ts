import type { KubeObject, Status } from "@informer-ts/apimachinery";
import type {
  DeleteCallOptions,
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
