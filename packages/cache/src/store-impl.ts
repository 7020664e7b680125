import { computeKey } from "./internal/compute-key.js";
import { describeValue } from "./internal/meta-accessor.js";
import type { MutationDetector } from "./mutation-detector.js";
import {
  type DeletedFinalStateUnknownLike,
  type Indexer,
  type Indexers,
  KeyError,
  type KeyFunc,
  type Store,
} from "./store.js";
import {
  newThreadSafeStore,
  type StoreMetricsOptions,
  type ThreadSafeStore,
  type ThreadSafeStoreOptions,
} from "./thread-safe-store.js";
import {
  type ThreadSafeStoreTransaction,
  type Transaction,
  TransactionError,
  type TransactionStore,
} from "./transaction.js";
import type { TransformFunc } from "./transform-func.js";

/** Options of {@link newStore} and {@link newIndexer} (client-go `StoreOption`s). */
export interface StoreOptions<T> extends ThreadSafeStoreOptions {
  /** Applied on add, update and replace, never on delete (S9; `WithTransformer`). */
  readonly transformer?: TransformFunc<T>;
  /** `informer_store_resource_version` (`WithStoreMetrics`). */
  readonly metrics?: StoreMetricsOptions;
  /**
   * Told of every object the store accepts (add, update, replace, transaction), after the transformer, so
   * that it can freeze or snapshot it. Not in client-go, where the informer feeds its detector from
   * OnAdd/OnUpdate.
   */
  readonly mutationDetector?: MutationDetector;
}

/**
 * The {@link Indexer} built by {@link newStore} / {@link newIndexer}: a {@link ThreadSafeStore} plus a key
 * function and an optional transformer, and {@link TransactionStore} batches.
 */
export interface StoreWithTransactions<T> extends Indexer<T>, TransactionStore<T> {
  /** Number of stored objects. */
  readonly size: number;
}

class Cache<T> implements StoreWithTransactions<T> {
  private readonly storage: ThreadSafeStore<T>;
  private readonly keyFunc: KeyFunc;
  private readonly transformFn: TransformFunc<T> | undefined;
  private readonly detector: MutationDetector | undefined;

  constructor(keyFunc: KeyFunc, indexers: Indexers<T>, options: StoreOptions<T>) {
    if (typeof keyFunc !== "function") throw new TypeError(`keyFunc is not a function: ${describeValue(keyFunc)}`);
    if (options.transformer !== undefined && typeof options.transformer !== "function") {
      throw new TypeError(`transformer is not a function: ${describeValue(options.transformer)}`);
    }
    this.keyFunc = keyFunc;
    this.transformFn = options.transformer;
    this.detector = options.mutationDetector?.enabled ? options.mutationDetector : undefined;
    this.storage = newThreadSafeStore(indexers, options);
  }

  get size(): number {
    return this.storage.size;
  }

  add(obj: T): void {
    const key = this.keyOf(obj);
    const stored = this.transform(obj);
    this.storage.add(key, stored);
    this.detector?.addObject(stored);
  }

  update(obj: T): void {
    const key = this.keyOf(obj);
    const stored = this.transform(obj);
    this.storage.update(key, stored);
    this.detector?.addObject(stored);
  }

  delete(obj: T | DeletedFinalStateUnknownLike<T>): void {
    this.storage.deleteWithObject(this.keyOf(obj), obj);
  }

  /**
   * `add` when the key is new, else `update`, computing the key once; returns the object replaced (undefined when
   * there was none). The hot path of delta processing, which would otherwise key the object for `get` and again for
   * `add`/`update`. Throws what `add`/`update` throw.
   */
  upsert(obj: T): T | undefined {
    const key = this.keyOf(obj);
    const old = this.storage.get(key);
    const stored = this.transform(obj);
    if (old === undefined) this.storage.add(key, stored);
    else this.storage.update(key, stored);
    this.detector?.addObject(stored);
    return old;
  }

  list(): T[] {
    return this.storage.list();
  }

  listKeys(): string[] {
    return this.storage.listKeys();
  }

  get(obj: T): T | undefined {
    return this.storage.get(this.keyOf(obj));
  }

  getByKey(key: string): T | undefined {
    return this.storage.get(key);
  }

  replace(list: readonly T[], resourceVersion: string): void {
    // Copy each item out of `list` into a fresh map; the array (and whatever list or page object holds it)
    // is never referenced once this returns.
    const items = new Map<string, T>();
    for (let i = 0; i < list.length; i++) {
      const item = list[i] as T;
      const key = this.keyOf(item);
      items.set(key, this.transform(item));
    }
    this.storage.replace(items, resourceVersion);
    if (this.detector !== undefined) for (const item of items.values()) this.detector.addObject(item);
  }

  resync(): void {}

  bookmark(resourceVersion: string): void {
    this.storage.bookmark(resourceVersion);
  }

  lastStoreSyncResourceVersion(): string {
    return this.storage.lastStoreSyncResourceVersion();
  }

  index(indexName: string, obj: T): T[] {
    return this.storage.index(indexName, obj);
  }

  indexKeys(indexName: string, value: string): string[] {
    return this.storage.indexKeys(indexName, value);
  }

  byIndex(indexName: string, value: string): T[] {
    return this.storage.byIndex(indexName, value);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.storage.listIndexFuncValues(indexName);
  }

  getIndexers(): Indexers<T> {
    return this.storage.getIndexers();
  }

  addIndexers(indexers: Indexers<T>): void {
    this.storage.addIndexers(indexers);
  }

  transaction(txns: readonly Transaction<T>[]): TransactionError | undefined {
    const keyed: ThreadSafeStoreTransaction<T>[] = [];
    const successfulIndices: number[] = [];
    const errors: Error[] = [];
    for (let i = 0; i < txns.length; i++) {
      const txn = txns[i]!;
      if (txn.type !== "add" && txn.type !== "update" && txn.type !== "delete") {
        errors.push(new TypeError(`transaction ${i}: unknown type ${describeValue(txn.type)}`));
        continue;
      }
      let key: string;
      try {
        key = this.keyOf(txn.object);
      } catch (err) {
        errors.push(err as Error);
        continue;
      }
      successfulIndices.push(i);
      keyed.push({ type: txn.type, object: txn.object, key });
    }
    this.storage.transaction(keyed);
    if (this.detector !== undefined) {
      for (const txn of keyed) if (txn.type !== "delete") this.detector.addObject(txn.object);
    }
    if (errors.length > 0) return new TransactionError(successfulIndices, txns.length, errors);
    return undefined;
  }

  private keyOf(obj: unknown): string {
    return computeKey(this.keyFunc, obj);
  }

  private transform(obj: T): T {
    const fn = this.transformFn;
    if (fn === undefined) return obj;
    try {
      return fn(obj);
    } catch (err) {
      const reason = err instanceof Error ? err.message : describeValue(err);
      throw new Error(`transforming: ${reason}`, { cause: err });
    }
  }
}

/**
 * A {@link Store} backed by a map (`cache.NewStore`): `keyFunc` names objects (usually
 * `deletionHandlingMetaNamespaceKeyFunc`), writes are synchronous, objects are stored by reference.
 *
 * Errors: a key-function failure throws {@link KeyError} (wrapping any other error as `couldn't create key
 * for object …`); a transformer failure throws `transforming: …`; both happen before anything changes.
 * `replace` keys and transforms every item first, so one bad item aborts the whole replace with the store
 * unchanged (S8).
 *
 * Memory: `replace(list, rv)` copies the items into a new map and never keeps `list`, so a LIST response
 * or page that held the items is garbage once the caller drops it.
 *
 * Differences from client-go: Go methods return `error`; here they throw. `transaction` does not apply the
 * transformer (as in client-go, whose objects come already transformed from the FIFO) and reports an
 * unknown transaction type as a per-transaction error (Go ignores it silently).
 */
/** Whether `store` is one built by {@link newStore} / {@link newIndexer} (which has `upsert`). Internal. */
export function isUpsertStore<T>(store: Store<T>): store is Store<T> & { upsert(obj: T): T | undefined } {
  return store instanceof Cache;
}

export function newStore<T>(keyFunc: KeyFunc, options: StoreOptions<T> = {}): StoreWithTransactions<T> {
  return new Cache<T>(keyFunc, {}, options);
}

/**
 * An {@link Indexer} backed by a map with the given secondary indexes (`cache.NewIndexer`); see
 * {@link newStore} for errors and memory, and `ThreadSafeStore` for index semantics.
 */
export function newIndexer<T>(
  keyFunc: KeyFunc,
  indexers: Indexers<T>,
  options: StoreOptions<T> = {},
): StoreWithTransactions<T> {
  return new Cache<T>(keyFunc, indexers, options);
}
