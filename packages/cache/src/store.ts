/**
 * The contracts of client-go's `tools/cache` Store family (store.go, index.go). Implementations live in
 * `thread-safe-store.ts` and `store-impl.ts`; FIFOs and the reflector depend only on these interfaces.
 *
 * Go's `(item, exists, err)` returns become `T | undefined`, and key-function errors become thrown
 * {@link KeyError}s. Index-function failures (a panic in Go) throw {@link IndexError}.
 */

import type { TransformFunc } from "./transform-func.js";

/** Computes an object's key; throws {@link KeyError} when it cannot. */
export type KeyFunc = (obj: unknown) => string;

/** Computes the index values of an object; throws to signal a bug (treated like Go's panic). */
export type IndexFunc<T> = (obj: T) => string[];

/** Index name → index function. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** A key function could not compute a key. The message names the object. */
export class KeyError extends Error {
  override readonly name = "KeyError";
  constructor(
    message: string,
    readonly object?: unknown,
  ) {
    super(message);
  }
}

/** An index function threw while the store was being mutated (a panic in client-go: a programming error). */
export class IndexError extends Error {
  override readonly name = "IndexError";
}

/**
 * The part of a store a Reflector writes to (`cache.ReflectorStore`), with the optional capabilities the reflector
 * uses when a store has them (client-go discovers them by type assertion; here they are typed members):
 * `bookmark` (`ReflectorBookmarkStore`), `updateResourceVersion` (`ResourceVersionUpdater`) and `transformer`
 * (`TransformingStore`).
 */
export interface ReflectorStore<T> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T | DeletedFinalStateUnknownLike<T>): void;
  /** Replaces the whole contents with `list`, recorded as of `resourceVersion`. */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Re-delivers known items (a no-op for plain stores). */
  resync(): void;
  /** Optional: told the resource version of every BOOKMARK the watch receives. */
  bookmark?(resourceVersion: string): void;
  /** Optional: told every resource version the watch advances to (after each event past the initial ones). */
  updateResourceVersion?(resourceVersion: string): void;
  /**
   * Optional: the transformer this store applies to incoming objects. The reflector applies the same one to the
   * temporary store of a watch-list, so both see transformed objects.
   */
  transformer?(): TransformFunc<T> | undefined;
}

/** Optional store capability: record a BOOKMARK's resource version (`ReflectorBookmarkStore`). */
export interface BookmarkStore {
  bookmark(resourceVersion: string): void;
}

/** Optional store capability: told of every resource version the watch advances to (`ResourceVersionUpdater`). */
export interface ResourceVersionUpdater {
  updateResourceVersion(resourceVersion: string): void;
}

/** `cache.Store`. */
export interface Store<T> extends ReflectorStore<T> {
  /** Records a BOOKMARK's resource version (a Store always has it). */
  bookmark(resourceVersion: string): void;
  list(): T[];
  listKeys(): string[];
  get(obj: T): T | undefined;
  getByKey(key: string): T | undefined;
  /** The resource version of the last write, replace or bookmark ("" if none). */
  lastStoreSyncResourceVersion(): string;
}

/** `cache.Indexer`: a {@link Store} with secondary indexes. */
export interface Indexer<T> extends Store<T> {
  /** Objects sharing any index value with `obj` under `indexName`. Throws for an unknown index. */
  index(indexName: string, obj: T): T[];
  /** Keys in bucket `value` of `indexName`, sorted. Throws for an unknown index. */
  indexKeys(indexName: string, value: string): string[];
  /** Objects in bucket `value` of `indexName`. Throws for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  /** Bucket names of `indexName`; empty for an unknown index. */
  listIndexFuncValues(indexName: string): string[];
  getIndexers(): Indexers<T>;
  /** Adds indexers and indexes existing items. Throws if a name already exists, changing nothing. */
  addIndexers(indexers: Indexers<T>): void;
}

/** Structural form of `DeletedFinalStateUnknown` used by interfaces (the class lives in `tombstone.ts`). */
export interface DeletedFinalStateUnknownLike<T> {
  readonly key: string;
  readonly obj: T | undefined;
}
