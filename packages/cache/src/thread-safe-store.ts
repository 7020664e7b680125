import type { MetricsProvider } from "@informer-ts/instrumentation";
import { describeValue, metaOf } from "./internal/meta-accessor.js";
import { type InformerMetricLabels, StoreResourceVersionGauge } from "./internal/rv-metric.js";
import { IndexError, type Indexers, type IndexFunc } from "./store.js";
import type { ThreadSafeStoreTransaction } from "./transaction.js";

export type { InformerMetricLabels } from "./internal/rv-metric.js";

/**
 * Where a store publishes `informer_store_resource_version` (client-go `WithStoreMetrics` /
 * `WithThreadSafeStoreMetrics`): a provider plus the informer's identity labels.
 */
export interface StoreMetricsOptions {
  readonly provider: MetricsProvider;
  readonly labels: InformerMetricLabels;
}

/** Options of {@link newThreadSafeStore}. */
export interface ThreadSafeStoreOptions {
  /** Publish the store resource-version gauge. Default: no metrics. */
  readonly metrics?: StoreMetricsOptions;
  /**
   * The `AtomicFIFO` feature gate as seen by {@link ThreadSafeStore.lastStoreSyncResourceVersion}: when
   * false it returns "" (client-go ≤ 1.35 behaviour and 1.36 with the gate off). Default `true` (1.36).
   * The resource version is tracked either way.
   */
  readonly atomicFIFO?: boolean;
}

/**
 * A key → object map with secondary indexes (`cache.ThreadSafeStore`, implemented by client-go's
 * `threadSafeMap`). It is keyed by caller-supplied keys; `newStore`/`newIndexer` add the key function.
 *
 * Every method is one synchronous turn, which is what Go's mutex gives. Objects are stored and returned **by
 * reference** (S7): callers must treat them as immutable; mutating a stored object corrupts the indexes,
 * which are not recomputed.
 *
 * Index maintenance (S10): on every write the values of each index function are computed for the old and
 * the new object; if both are exactly one equal value nothing changes, otherwise the key leaves every old
 * bucket and joins every new one, and a bucket that becomes empty is removed.
 *
 * Index-function failure (S11): the function's error becomes an {@link IndexError} naming the index and the
 * key. All index values of an operation are computed **before** anything is changed, so a failing write,
 * replace, transaction or `addIndexers` leaves the store exactly as it was.
 *
 * Differences from client-go: an index function error is a thrown `IndexError` instead of a panic, and
 * the operation is all-or-nothing (Go panics midway and may leave a half-updated index). `getIndexers`
 * returns a copy. `newThreadSafeStore` takes no pre-built `Indices`. Mutating the store from inside an
 * index function throws (Go would deadlock).
 */
export interface ThreadSafeStore<T> {
  /** Same as {@link ThreadSafeStore.update} (S5): adding an existing key overwrites it. */
  add(key: string, obj: T): void;
  /** Stores `obj` under `key`, moves its index entries, and sets the RV from `obj`'s metadata if it has any. */
  update(key: string, obj: T): void;
  /** Deletes `key` without touching the RV (prefer {@link ThreadSafeStore.deleteWithObject}). */
  delete(key: string): void;
  /**
   * Deletes `key` (a missing key is a no-op) and, when `obj` has metadata, sets the RV from it (S6).
   * Tombstones have no metadata, so they leave the RV unchanged.
   */
  deleteWithObject(key: string, obj: unknown): void;
  get(key: string): T | undefined;
  /** All stored objects (insertion order of their keys; client-go's order is unspecified). */
  list(): T[];
  listKeys(): string[];
  /**
   * Makes `items` the whole content (S8), records `resourceVersion`, and rebuilds every index. The store
   * takes ownership of `items`: the caller must not use it afterwards.
   */
  replace(items: Map<string, T>, resourceVersion: string): void;
  /** Objects sharing any `indexName` value with `obj`, deduplicated (S12). Throws for an unknown index. */
  index(indexName: string, obj: T): T[];
  /** Keys in bucket `indexedValue` of `indexName`, sorted (S13). Throws for an unknown index. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Objects in bucket `indexedValue` of `indexName` (S14). Throws for an unknown index. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** Bucket names of `indexName`; empty for an unknown index (S15). */
  listIndexFuncValues(indexName: string): string[];
  /** A copy of the installed index functions. */
  getIndexers(): Indexers<T>;
  /**
   * Installs more index functions and indexes the existing items (S16). A name that already exists throws
   * `indexer conflict: …` and changes nothing.
   */
  addIndexers(newIndexers: Indexers<T>): void;
  /** Records a BOOKMARK's resource version (S18). */
  bookmark(resourceVersion: string): void;
  /** The tracked RV (S18), or "" when built with `atomicFIFO: false`. */
  lastStoreSyncResourceVersion(): string;
  /** Does nothing (client-go: deprecated no-op). */
  resync(): void;
  /**
   * Applies keyed writes in order in one synchronous turn (S19). The RV is taken from the last
   * transaction's object when it has metadata. All index values are computed first: an index failure
   * throws {@link IndexError} and applies none of them.
   */
  transaction(txns: readonly ThreadSafeStoreTransaction<T>[]): void;
  /** Number of stored objects. (Not in client-go's interface; `len(List())` there.) */
  readonly size: number;
}

const NO_VALUES: readonly string[] = Object.freeze([]);

/** One installed index: its function and its buckets (indexed value → keys). */
interface IndexEntry<T> {
  readonly name: string;
  readonly fn: IndexFunc<T>;
  buckets: Map<string, Set<string>>;
}

/** The RV a write sets (client-go `rvFromObject`): `undefined` when `obj` has no metadata. */
function rvOf(obj: unknown): string | undefined {
  const meta = metaOf(obj);
  if (meta === undefined) return undefined;
  const rv = meta.resourceVersion;
  return typeof rv === "string" ? rv : "";
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : describeValue(err);
}

/** Runs `entry.fn` on `obj`, turning a throw or a malformed result into an {@link IndexError}. */
function indexValues<T>(entry: IndexEntry<T>, obj: T, key: string): readonly string[] {
  let values: unknown;
  try {
    values = entry.fn(obj);
  } catch (err) {
    throw new IndexError(
      `unable to calculate an index entry for key ${JSON.stringify(key)} on index ${JSON.stringify(entry.name)}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  if (!Array.isArray(values)) {
    throw new IndexError(
      `index function ${JSON.stringify(entry.name)} returned ${describeValue(values)} for key ${JSON.stringify(key)}; expected an array of strings`,
    );
  }
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== "string") {
      throw new IndexError(
        `index function ${JSON.stringify(entry.name)} returned a non-string value ${describeValue(values[i])} for key ${JSON.stringify(key)}`,
      );
    }
  }
  return values as readonly string[];
}

function addToBucket(buckets: Map<string, Set<string>>, value: string, key: string): void {
  let set = buckets.get(value);
  if (set === undefined) {
    set = new Set();
    buckets.set(value, set);
  }
  set.add(key);
}

function removeFromBucket(buckets: Map<string, Set<string>>, value: string, key: string): void {
  const set = buckets.get(value);
  if (set === undefined) return;
  set.delete(key);
  // An empty bucket is dropped, or high-cardinality short-lived values leak memory (kubernetes issue 84959).
  if (set.size === 0) buckets.delete(value);
}

/** Moves `key` from the `oldValues` buckets to the `newValues` buckets of one index (S10). */
function moveKey(
  buckets: Map<string, Set<string>>,
  key: string,
  oldValues: readonly string[],
  newValues: readonly string[],
): void {
  if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) return;
  for (let i = 0; i < oldValues.length; i++) removeFromBucket(buckets, oldValues[i]!, key);
  for (let i = 0; i < newValues.length; i++) addToBucket(buckets, newValues[i]!, key);
}

function unknownIndex(indexName: string): Error {
  return new Error(`Index with name ${indexName} does not exist`);
}

/** Where an object stands during the planning phase of a transaction. */
interface Planned<T> {
  readonly present: boolean;
  readonly obj: T | undefined;
  /** Index values per installed index, or undefined when not computed yet. */
  values: (readonly string[])[] | undefined;
}

class ThreadSafeMap<T> implements ThreadSafeStore<T> {
  private items = new Map<string, T>();
  private readonly entries: IndexEntry<T>[] = [];
  private readonly byName = new Map<string, IndexEntry<T>>();
  private rv = "";
  private readonly gauge: StoreResourceVersionGauge | undefined;
  private readonly atomicFIFO: boolean;
  /** True while index functions run: a write from inside one is refused. */
  private busy = false;
  /** Scratch space for the old and new index values of one write (no allocation per write). */
  private readonly oldScratch: (readonly string[])[] = [];
  private readonly newScratch: (readonly string[])[] = [];

  constructor(indexers: Indexers<T>, options: ThreadSafeStoreOptions) {
    this.atomicFIFO = options.atomicFIFO ?? true;
    this.gauge =
      options.metrics === undefined
        ? undefined
        : new StoreResourceVersionGauge(options.metrics.provider, options.metrics.labels);
    for (const [name, fn] of Object.entries(indexers)) {
      checkIndexFunc(name, fn);
      const entry: IndexEntry<T> = { name, fn, buckets: new Map() };
      this.entries.push(entry);
      this.byName.set(name, entry);
    }
  }

  get size(): number {
    return this.items.size;
  }

  add(key: string, obj: T): void {
    this.update(key, obj);
  }

  update(key: string, obj: T): void {
    this.enter();
    try {
      this.updateLocked(key, obj);
    } finally {
      this.busy = false;
    }
    this.setRVFrom(obj);
  }

  delete(key: string): void {
    this.enter();
    try {
      this.deleteLocked(key);
    } finally {
      this.busy = false;
    }
  }

  deleteWithObject(key: string, obj: unknown): void {
    this.delete(key);
    if (obj !== undefined && obj !== null) this.setRVFrom(obj);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return Array.from(this.items.values());
  }

  listKeys(): string[] {
    return Array.from(this.items.keys());
  }

  replace(items: Map<string, T>, resourceVersion: string): void {
    this.enter();
    try {
      // Build every new index aside first: a failing index function leaves the current state untouched.
      const fresh: Map<string, Set<string>>[] = [];
      for (const entry of this.entries) {
        const buckets = new Map<string, Set<string>>();
        for (const [key, item] of items) {
          if (item === undefined || item === null) continue;
          const values = indexValues(entry, item, key);
          for (let i = 0; i < values.length; i++) addToBucket(buckets, values[i]!, key);
        }
        fresh.push(buckets);
      }
      this.items = items;
      for (let i = 0; i < this.entries.length; i++) this.entries[i]!.buckets = fresh[i]!;
    } finally {
      this.busy = false;
    }
    this.rv = resourceVersion;
    this.gauge?.observe(resourceVersion);
  }

  index(indexName: string, obj: T): T[] {
    const entry = this.byName.get(indexName);
    if (entry === undefined) throw unknownIndex(indexName);
    const values = indexValues(entry, obj, "<query>");
    const out: T[] = [];
    if (values.length === 1) {
      const set = entry.buckets.get(values[0]!);
      if (set !== undefined) for (const key of set) out.push(this.items.get(key) as T);
      return out;
    }
    const seen = new Set<string>();
    for (const value of values) {
      const set = entry.buckets.get(value);
      if (set === undefined) continue;
      for (const key of set) {
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(this.items.get(key) as T);
      }
    }
    return out;
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    const entry = this.byName.get(indexName);
    if (entry === undefined) throw unknownIndex(indexName);
    const set = entry.buckets.get(indexedValue);
    return set === undefined ? [] : Array.from(set).sort();
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    const entry = this.byName.get(indexName);
    if (entry === undefined) throw unknownIndex(indexName);
    const set = entry.buckets.get(indexedValue);
    const out: T[] = [];
    if (set !== undefined) for (const key of set) out.push(this.items.get(key) as T);
    return out;
  }

  listIndexFuncValues(indexName: string): string[] {
    const entry = this.byName.get(indexName);
    return entry === undefined ? [] : Array.from(entry.buckets.keys());
  }

  getIndexers(): Indexers<T> {
    const out: Indexers<T> = {};
    for (const entry of this.entries) out[entry.name] = entry.fn;
    return out;
  }

  addIndexers(newIndexers: Indexers<T>): void {
    const names = Object.keys(newIndexers);
    const conflicts = names.filter((n) => this.byName.has(n)).sort();
    if (conflicts.length > 0) throw new Error(`indexer conflict: ${conflicts.join(", ")}`);
    for (const name of names) checkIndexFunc(name, newIndexers[name]);
    this.enter();
    try {
      const added: IndexEntry<T>[] = [];
      for (const name of names) {
        const entry: IndexEntry<T> = { name, fn: newIndexers[name]!, buckets: new Map() };
        for (const [key, item] of this.items) {
          if (item === undefined || item === null) continue;
          const values = indexValues(entry, item, key);
          for (let i = 0; i < values.length; i++) addToBucket(entry.buckets, values[i]!, key);
        }
        added.push(entry);
      }
      for (const entry of added) {
        this.entries.push(entry);
        this.byName.set(entry.name, entry);
      }
    } finally {
      this.busy = false;
    }
  }

  bookmark(resourceVersion: string): void {
    this.rv = resourceVersion;
    this.gauge?.observe(resourceVersion);
  }

  lastStoreSyncResourceVersion(): string {
    return this.atomicFIFO ? this.rv : "";
  }

  resync(): void {}

  transaction(txns: readonly ThreadSafeStoreTransaction<T>[]): void {
    if (txns.length === 0) return;
    for (const txn of txns) {
      if (txn.type !== "add" && txn.type !== "update" && txn.type !== "delete") {
        throw new TypeError(`unknown transaction type ${describeValue(txn.type)} for key ${JSON.stringify(txn.key)}`);
      }
    }
    this.enter();
    try {
      if (this.entries.length === 0) {
        for (const txn of txns) {
          if (txn.type === "delete") this.items.delete(txn.key);
          else this.items.set(txn.key, txn.object as T);
        }
      } else {
        const plan = this.planTransaction(txns);
        for (let t = 0; t < txns.length; t++) {
          const txn = txns[t]!;
          const step = plan[t]!;
          if (txn.type === "delete") {
            if (!this.items.has(txn.key)) continue;
            this.items.delete(txn.key);
          } else {
            this.items.set(txn.key, txn.object as T);
          }
          for (let i = 0; i < this.entries.length; i++) {
            moveKey(this.entries[i]!.buckets, txn.key, step.old[i]!, step.new[i]!);
          }
        }
      }
    } finally {
      this.busy = false;
    }
    this.setRVFrom(txns[txns.length - 1]!.object);
  }

  /** Computes the old and new index values of every transaction against the evolving state. */
  private planTransaction(
    txns: readonly ThreadSafeStoreTransaction<T>[],
  ): { old: (readonly string[])[]; new: (readonly string[])[] }[] {
    const n = this.entries.length;
    const none: (readonly string[])[] = new Array(n).fill(NO_VALUES);
    const overlay = new Map<string, Planned<T>>();
    const plan: { old: (readonly string[])[]; new: (readonly string[])[] }[] = [];
    for (const txn of txns) {
      let cur = overlay.get(txn.key);
      if (cur === undefined) {
        const present = this.items.has(txn.key);
        cur = { present, obj: present ? this.items.get(txn.key) : undefined, values: undefined };
      }
      if (cur.values === undefined) {
        cur.values = cur.present && cur.obj !== undefined && cur.obj !== null ? this.valuesOf(cur.obj, txn.key) : none;
      }
      if (txn.type === "delete") {
        plan.push({ old: cur.values, new: none });
        overlay.set(txn.key, { present: false, obj: undefined, values: none });
      } else {
        const obj = txn.object as T;
        const values = obj === undefined || obj === null ? none : this.valuesOf(obj, txn.key);
        plan.push({ old: cur.values, new: values });
        overlay.set(txn.key, { present: true, obj, values });
      }
    }
    return plan;
  }

  private valuesOf(obj: T, key: string): (readonly string[])[] {
    const out: (readonly string[])[] = [];
    for (const entry of this.entries) out.push(indexValues(entry, obj, key));
    return out;
  }

  private enter(): void {
    if (this.busy) {
      throw new Error("ThreadSafeStore: the store was modified from inside one of its index functions");
    }
    this.busy = true;
  }

  private updateLocked(key: string, obj: T): void {
    const entries = this.entries;
    const n = entries.length;
    if (n === 0) {
      this.items.set(key, obj);
      return;
    }
    const old = this.items.get(key);
    const oldScratch = this.oldScratch;
    const newScratch = this.newScratch;
    // Compute everything first so that a failing index function changes nothing.
    for (let i = 0; i < n; i++) {
      const entry = entries[i]!;
      oldScratch[i] = old === undefined || old === null ? NO_VALUES : indexValues(entry, old, key);
      newScratch[i] = obj === undefined || obj === null ? NO_VALUES : indexValues(entry, obj, key);
    }
    this.items.set(key, obj);
    for (let i = 0; i < n; i++) {
      moveKey(entries[i]!.buckets, key, oldScratch[i]!, newScratch[i]!);
      oldScratch[i] = NO_VALUES;
      newScratch[i] = NO_VALUES;
    }
  }

  private deleteLocked(key: string): void {
    if (!this.items.has(key)) return;
    const entries = this.entries;
    const n = entries.length;
    const old = this.items.get(key);
    if (n > 0 && old !== undefined && old !== null) {
      const oldScratch = this.oldScratch;
      for (let i = 0; i < n; i++) oldScratch[i] = indexValues(entries[i]!, old, key);
      for (let i = 0; i < n; i++) {
        moveKey(entries[i]!.buckets, key, oldScratch[i]!, NO_VALUES);
        oldScratch[i] = NO_VALUES;
      }
    }
    this.items.delete(key);
  }

  private setRVFrom(obj: unknown): void {
    const rv = rvOf(obj);
    if (rv === undefined) return;
    this.rv = rv;
    this.gauge?.observe(rv);
  }
}

function checkIndexFunc(name: string, fn: unknown): void {
  if (typeof fn !== "function") {
    throw new TypeError(`index function ${JSON.stringify(name)} is not a function: ${describeValue(fn)}`);
  }
}

/**
 * Creates an empty {@link ThreadSafeStore} with the given index functions (`cache.NewThreadSafeStore`).
 *
 * Differences from client-go: there is no `indices` argument (client-go callers always pass an empty one).
 *
 * @throws TypeError when an indexer is not a function.
 */
export function newThreadSafeStore<T>(
  indexers: Indexers<T> = {},
  options: ThreadSafeStoreOptions = {},
): ThreadSafeStore<T> {
  return new ThreadSafeMap<T>(indexers, options);
}
