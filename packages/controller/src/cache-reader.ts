import {
  type KubeList,
  type KubeObject,
  newNotFound,
  parseFieldSelector,
  parseLabelSelector,
} from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { apiVersionOf, type GetCallOptions, type ListCallOptions, type ResourceDescriptor } from "@informer-ts/client";
import { checkResource } from "./check-resource.js";
import { allNamespacesPrefix, fieldIndexName, keyToNamespacedKey } from "./field-indexer.js";
import type { ObjectReader } from "./object-client.js";

/**
 * A read from the cache before the manager started or after it stopped (controller-runtime's `ErrCacheNotStarted`),
 * or while the manager stopped before the resource's cache synced.
 */
export class CacheNotStartedError extends Error {
  override readonly name = "CacheNotStartedError";
}

/**
 * Where a {@link CacheReader} gets its informers: the started, synced informer of `resource` (started on first use,
 * waited for), or a rejection — a {@link CacheNotStartedError}, or `signal`'s reason.
 */
export type SyncedInformerFor = (
  resource: ResourceDescriptor<unknown>,
  signal?: AbortSignal,
) => Promise<SharedIndexInformer<KubeObject>>;

/** Options of a {@link CacheReader}. */
export interface CacheReaderOptions {
  /**
   * Hand out the cached objects themselves instead of deep copies (controller-runtime's `UnsafeDisableDeepCopy`):
   * faster, but a caller that mutates one corrupts the cache. Default false.
   */
  readonly unsafeDisableDeepCopy?: boolean;
}

/** Fields a cached list can select on without an index. */
const BUILTIN_FIELDS = new Set(["metadata.name", "metadata.namespace"]);

/**
 * Reads answered from the informers' caches (controller-runtime's `CacheReader` behind the informer cache):
 *
 * - `get(resource, name, { namespace })`: the cached object, or a 404 `StatusError` (`newNotFound`) when the cache
 *   does not hold it. The cache lags the server: an object just created may not be there yet.
 * - `list(resource, { namespace, labelSelector, fieldSelector, limit })`: the cached objects that match. Field
 *   selectors must be exact matches (`a=b` or `a==b`), each on `metadata.name`, `metadata.namespace`, or a field indexed
 *   with {@link FieldIndexer.indexField}; the first indexed term is answered by its index. `limit` truncates;
 *   `continue` is refused. `metadata.resourceVersion` of the list is the informer's last synced resource version.
 *
 * The first read of a resource starts its informer (a watch for the manager's lifetime) and waits for it to sync.
 * Returned objects are deep copies with `apiVersion` and `kind` set from the descriptor (list items in the cache
 * carry none), so a caller may change them and pass them to `setControllerReference` or a write. Subresources are
 * not cached: a `get` with `subresource` is refused (the {@link DelegatingClient} sends it to the API server). Every
 * failure is a rejection with an error naming the bad input.
 */
export class CacheReader implements ObjectReader {
  private readonly copy: boolean;

  constructor(
    private readonly informerFor: SyncedInformerFor,
    options: CacheReaderOptions = {},
  ) {
    this.copy = options.unsafeDisableDeepCopy !== true;
  }

  async get<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    name: string,
    options: GetCallOptions = {},
    signal?: AbortSignal,
  ): Promise<T> {
    checkResource(resource, "cache reader");
    if (typeof name !== "string" || name === "")
      throw new TypeError(`get ${resource.resource}: name must be a non-empty string`);
    if (options.subresource !== undefined && options.subresource !== "") {
      throw new TypeError(`get ${resource.resource}/${options.subresource}: the cache holds no subresources`);
    }
    const namespace = options.namespace ?? "";
    if (resource.namespaced && namespace === "") {
      throw new TypeError(
        `get ${resource.resource} ${name}: the resource is namespaced, options.namespace is required`,
      );
    }
    const informer = await this.informerFor(resource, signal);
    const key = resource.namespaced ? `${namespace}/${name}` : name;
    const obj = informer.getIndexer().getByKey(key);
    if (obj === undefined) throw newNotFound({ group: resource.group, resource: resource.resource }, name);
    return this.out(resource, obj) as T;
  }

  async list<T = KubeObject>(
    resource: ResourceDescriptor<T>,
    options: ListCallOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T>> {
    checkResource(resource, "cache reader");
    if (options.continue !== undefined && options.continue !== "") {
      throw new TypeError(`list ${resource.resource}: continue is not supported by the cache (use the API reader)`);
    }
    const limit = options.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      throw new RangeError(`list ${resource.resource}: limit must be a non-negative integer, got ${limit}`);
    }
    const namespace = resource.namespaced && options.namespace !== undefined ? options.namespace : "";
    const labels =
      options.labelSelector !== undefined && options.labelSelector !== ""
        ? parseLabelSelector(options.labelSelector)
        : undefined;
    const fields =
      options.fieldSelector !== undefined && options.fieldSelector !== ""
        ? parseFieldSelector(options.fieldSelector).requirements()
        : [];
    for (const r of fields) {
      if (r.operator !== "=") {
        throw new TypeError(
          `list ${resource.resource}: field selector ${r.field}${r.operator}${r.value} is not supported by the cache: only exact matches (field=value)`,
        );
      }
    }
    const informer = await this.informerFor(resource, signal);
    const indexer = informer.getIndexer();
    const indexers = indexer.getIndexers();
    for (const r of fields) {
      if (!BUILTIN_FIELDS.has(r.field) && !(fieldIndexName(r.field) in indexers)) {
        throw new TypeError(
          `list ${resource.resource}: field selector ${r.field}=${r.value} needs an index: getFieldIndexer().indexField(resource, ${JSON.stringify(r.field)}, extract)`,
        );
      }
    }
    const indexed = fields.find((r) => !BUILTIN_FIELDS.has(r.field));
    let candidates: KubeObject[];
    if (indexed !== undefined) {
      candidates = indexer.byIndex(fieldIndexName(indexed.field), keyToNamespacedKey(namespace, indexed.value));
    } else if (namespace !== "" && "namespace" in indexers) {
      candidates = indexer.byIndex("namespace", namespace);
    } else {
      candidates = indexer.list();
    }
    const items: T[] = [];
    for (const obj of candidates) {
      if (limit !== undefined && limit > 0 && items.length >= limit) break;
      const meta = obj.metadata;
      if (namespace !== "" && (meta?.namespace ?? "") !== namespace) continue;
      if (labels !== undefined && !labels.matches(meta?.labels)) continue;
      if (!fields.every((r) => fieldMatches(obj, r.field, r.value, indexers))) continue;
      items.push(this.out(resource, obj) as T);
    }
    return {
      apiVersion: apiVersionOf(resource),
      kind: `${resource.kind}List`,
      metadata: { resourceVersion: informer.lastSyncResourceVersion() },
      items,
    };
  }

  /** A copy (unless disabled) with the descriptor's `apiVersion` and `kind`. */
  private out(resource: ResourceDescriptor<unknown>, obj: KubeObject): KubeObject {
    if (!this.copy) return obj;
    const copy = structuredClone(obj);
    copy.apiVersion = apiVersionOf(resource);
    copy.kind = resource.kind;
    return copy;
  }
}

function fieldMatches(
  obj: KubeObject,
  field: string,
  value: string,
  indexers: Readonly<Record<string, (obj: KubeObject) => string[]>>,
): boolean {
  if (field === "metadata.name") return (obj.metadata?.name ?? "") === value;
  if (field === "metadata.namespace") return (obj.metadata?.namespace ?? "") === value;
  return indexers[fieldIndexName(field)]!(obj).includes(`${allNamespacesPrefix}/${value}`);
}
