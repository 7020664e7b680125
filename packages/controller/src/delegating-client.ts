import type { KubeList, KubeObject, Status } from "@informer-ts/apimachinery";
import {
  type ApplyOptions,
  apiVersionOf,
  type DeepPartial,
  type DeleteCallOptions,
  type GetCallOptions,
  type ListCallOptions,
  type PatchOptions,
  type ResourceDescriptor,
  type WriteOptions,
} from "@informer-ts/client";
import type { ApplyConfiguration } from "./apply-configuration.js";
import type { CacheReader } from "./cache-reader.js";
import type { PatchBody } from "./merge-patch.js";
import type { ObjectClient, ObjectReader } from "./object-client.js";

/** Options of a {@link DelegatingClient}. */
export interface DelegatingClientOptions {
  /** Reads from the informers' caches. */
  readonly cache: CacheReader;
  /** Reads straight from the API server: subresources and {@link DelegatingClientOptions.disableFor} resources. */
  readonly apiReader?: ObjectReader;
  /** Writes. */
  readonly writer?: ObjectClient;
  /** Resources never read from the cache (controller-runtime's `client.CacheOptions.DisableFor`). */
  readonly disableFor?: readonly ResourceDescriptor<unknown>[];
}

/**
 * The manager's client (controller-runtime's default client: a delegating client): reads (`get`, `list`) are
 * answered from the informers' caches by a {@link CacheReader} — a resource's informer starts on its first read —
 * while writes (`create`, `update`, `patch`, `delete`) go to the API server. Subresource reads and resources listed in
 * `disableFor` are read from the API server. It is an {@link ObjectClient} and an {@link ObjectReader}, so it goes
 * wherever those are expected (finalizer helpers, the leader elector, the event recorder). A call that has no
 * reader or writer to go to rejects with a `TypeError` saying what the manager needs.
 */
export class DelegatingClient implements ObjectClient, ObjectReader {
  private readonly cache: CacheReader;
  private readonly apiReader: ObjectReader | undefined;
  private readonly writer: ObjectClient | undefined;
  private readonly uncached: ReadonlySet<string>;

  constructor(options: DelegatingClientOptions) {
    this.cache = options.cache;
    this.apiReader = options.apiReader;
    this.writer = options.writer;
    this.uncached = new Set((options.disableFor ?? []).map(resourceKey));
  }

  get<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options: GetCallOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const direct = (options.subresource !== undefined && options.subresource !== "") || this.isUncached(resource);
    if (!direct) return this.cache.get(resource, name, options, signal);
    return this.api("get").then((r) => r.get(resource, name, options, signal));
  }

  list<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: ListCallOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T>> {
    if (!this.isUncached(resource)) return this.cache.list(resource, options, signal);
    return this.api("list").then((r) => r.list(resource, options, signal));
  }

  async create<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options?: WriteOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.write("create").create(
      resource as ResourceDescriptor,
      object as KubeObject,
      options,
      signal,
    )) as T;
  }

  async update<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options?: WriteOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.write("update").update(
      resource as ResourceDescriptor,
      object as KubeObject,
      options,
      signal,
    )) as T;
  }

  /**
   * Patches an object. The body is typed by the resource ({@link PatchBody}): a merge patch of a `Deployment` whose
   * `spec.replicas` is a string does not compile.
   */
  async patch<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: NoInfer<PatchBody<T>>,
    options?: PatchOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.write("patch").patch(resource as ResourceDescriptor, name, patch, options, signal)) as T;
  }

  /** Updates the `/status` subresource (`Status().Update`): only the status is written, a stale object is a 409. */
  updateStatus<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    object: NoInfer<DeepPartial<T>>,
    options: Omit<WriteOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    return this.update(resource, object, { ...options, subresource: "status" }, signal);
  }

  /** Patches the `/status` subresource (`Status().Patch`), e.g. with `mergeFrom(old).data(edited)`. */
  patchStatus<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    patch: NoInfer<PatchBody<T>>,
    options: Omit<PatchOptions, "subresource"> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    return this.patch(resource, name, patch, { ...options, subresource: "status" }, signal);
  }

  /**
   * Server-side apply (`Patch(obj, client.Apply, client.FieldOwner(…), client.ForceOwnership)`): sends the fields of
   * `config`, owned by `options.fieldManager`; a field another manager owns is a 409 Conflict unless `force`.
   * `apiVersion`/`kind` must be the descriptor's; the namespace is the configuration's (or `options.namespace`).
   */
  apply<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    config: ApplyConfiguration<T>,
    options: ApplyOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.applyTo(resource, config, options, undefined, signal);
  }

  /** Server-side apply of the `/status` subresource (`Status().Apply`): `config` carries the status fields to own. */
  applyStatus<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    config: ApplyConfiguration<T>,
    options: ApplyOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.applyTo(resource, config, options, "status", signal);
  }

  private applyTo<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    config: ApplyConfiguration<T>,
    options: ApplyOptions,
    subresource: "status" | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const verb = subresource === undefined ? "apply" : "applyStatus";
    if (typeof options?.fieldManager !== "string" || options.fieldManager === "") {
      return Promise.reject(new TypeError(`client ${verb}: options.fieldManager is required (the field owner)`));
    }
    const name = config?.metadata?.name;
    if (typeof name !== "string" || name === "") {
      return Promise.reject(new TypeError(`client ${verb}: the apply configuration needs metadata.name`));
    }
    const apiVersion = apiVersionOf(resource);
    if (config.apiVersion !== apiVersion || config.kind !== resource.kind) {
      return Promise.reject(
        new TypeError(
          `client ${verb}: the configuration is ${String(config.apiVersion)} ${String(config.kind)}, the resource ${apiVersion} ${resource.kind}`,
        ),
      );
    }
    const namespace = config.metadata.namespace ?? options.namespace;
    return this.patch(
      resource,
      name,
      JSON.stringify(config),
      {
        ...options,
        ...(namespace !== undefined && { namespace }),
        patchType: "apply",
        ...(subresource !== undefined && { subresource }),
      },
      signal,
    );
  }

  async delete<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options?: DeleteCallOptions,
    signal?: AbortSignal,
  ): Promise<T | Status> {
    return (await this.write("delete").delete(resource as ResourceDescriptor, name, options, signal)) as T | Status;
  }

  private isUncached(resource: ResourceDescriptor<unknown>): boolean {
    return (
      this.uncached.size > 0 &&
      typeof resource === "object" &&
      resource !== null &&
      this.uncached.has(resourceKey(resource))
    );
  }

  private async api(verb: string): Promise<ObjectReader> {
    if (this.apiReader === undefined) {
      throw new TypeError(
        `client ${verb}: reading from the API server needs the manager's client to be a KubeClient (get and list)`,
      );
    }
    return this.apiReader;
  }

  private write(verb: string): ObjectClient {
    if (this.writer === undefined) throw new TypeError(`client ${verb}: writes need the manager's client option`);
    return this.writer;
  }
}

function resourceKey(r: ResourceDescriptor<unknown>): string {
  return `${r.resource}.${r.group}`;
}
