import type { Clock } from "@informer-ts/clock";
import { type Delta, type Deltas, DeltaType } from "./delta.js";
import { Deque, type KeyListerGetter, type PopProcessFunc, type Queue, type TransformingStore } from "./fifo.js";
import { FIFOCore, type Taken } from "./internal/fifo-core.js";
import type { metaNamespaceKeyFunc } from "./keys.js";
import type { DeletedFinalStateUnknownLike, KeyFunc } from "./store.js";
import { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "./tombstone.js";
import type { TransformFunc } from "./transform-func.js";

/** Options of {@link DeltaFIFO} (`cache.DeltaFIFOOptions`). */
export interface DeltaFIFOOptions<T> {
  /** Name for the sync checker and events. Default `"DeltaFIFO"`. */
  readonly name?: string;
  /** Key of queued objects. Default {@link metaNamespaceKeyFunc}; tombstones and Deltas are unwrapped first. */
  readonly keyFunction?: KeyFunc;
  /**
   * The consumer's store. With it, `delete` of an object the store knows is queued, `replace` queues
   * tombstones for known keys missing from the list, and `resync` works. Without it, `resync` is a no-op.
   */
  readonly knownObjects?: KeyListerGetter<T>;
  /**
   * Queue relist items as `Replaced` instead of `Sync` (informers set it; the default `false` is client-go's
   * backwards-compatible zero value).
   */
  readonly emitDeltaTypeReplaced?: boolean;
  /** Applied to each incoming object except tombstones and `Sync` deltas (D7). Must be idempotent. */
  readonly transformer?: TransformFunc<T>;
  /** Clock for the slow-processing trace. Default `realClock`. */
  readonly clock?: Clock;
}

/**
 * The per-key merging queue of client-go before 1.33 (`cache.DeltaFIFO`; still public API, selected with
 * `newQueueFIFO({ inOrderInformers: false })`). Each key has one queue slot holding all its pending
 * {@link Deltas}, oldest first (D1): a new key goes to the tail, a key already queued keeps its position, and
 * `pop` hands out every delta of the head key at once.
 *
 * - add / update (D4) append `Added` / `Updated`. delete (D5) appends `Deleted` unless the key is neither
 *   queued nor (with `knownObjects`) known, in which case it is dropped.
 * - Only two consecutive `Deleted` deltas are merged (D6, `dedupDeltas`): the older is kept unless it is a
 *   tombstone.
 * - The transformer (D7) runs on every object except tombstones and `Sync` deltas, also on `Deleted` and
 *   relist items.
 * - `replace(list)` (D8): `Replaced` (or `Sync`) per item; then `Deleted(DeletedFinalStateUnknown)` for each
 *   queued key missing from the list, carrying its newest queued object; then, with `knownObjects`, for each
 *   known key missing from the list and with nothing queued, carrying the known object. The first replace
 *   sets the initial population to the number of distinct list keys plus those deletions.
 * - `resync()` (D9) queues `Sync(knownObj)` for each known key with nothing queued.
 * - Sync (D11): once populated and the initial population has been popped **and processed**.
 *
 * Pops are served one at a time; the callback always runs under the queue's lock: mutations made meanwhile
 * (also from inside an async callback) are validated at once and applied in order after it settles.
 *
 * Differences from client-go: the initial-population count is decremented **after** the callback settles
 * (client-go decrements before processing, so its sync signal can fire while the last initial item is still
 * being applied; this is the deliberate fix listed in the docs). Mutations are all-or-nothing (Go may queue
 * part of a replace before an error). Step 2 of replace visits keys in queue order (Go: map order). Lookup
 * failures are `knownObjectLookup` events, not log lines. The queue shrinks after draining.
 */
export class DeltaFIFO<T> extends FIFOCore<T> implements Queue<T>, TransformingStore<T> {
  private readonly items = new Map<string, Delta<T>[]>();
  private readonly queue = new Deque<string>(16);
  private readonly emitDeltaTypeReplaced: boolean;

  /** @throws TypeError for a key function or transformer that is not a function. */
  constructor(options: DeltaFIFOOptions<T> = {}) {
    super("DeltaFIFO", options);
    this.emitDeltaTypeReplaced = options.emitDeltaTypeReplaced === true;
  }

  /** Number of queued keys. Not in client-go (for statistics and tests). */
  get length(): number {
    return this.queue.length;
  }

  /**
   * The key of `obj` (`DeltaFIFO.KeyOf`, D3): a {@link Deltas} list is keyed by its newest object, a tombstone by
   * its `key`, anything else by the key function.
   *
   * @throws KeyError for an empty Deltas list or when the key function fails.
   */
  keyOf(obj: unknown): string {
    return this.keyOfQueued(obj, false);
  }

  /** Appends `Added(obj)` (D4). @throws KeyError / the transformer's error. */
  add(obj: T): void {
    this.enqueueAddOrUpdate("add", DeltaType.Added, obj);
  }

  /** Appends `Updated(obj)` (D4). @throws KeyError / the transformer's error. */
  update(obj: T): void {
    this.enqueueAddOrUpdate("update", DeltaType.Updated, obj);
  }

  /**
   * Appends `Deleted(obj)` unless the key is neither queued nor known (D5); marks the queue populated either
   * way. @throws KeyError / the transformer's error.
   */
  delete(obj: T | DeletedFinalStateUnknownLike<T>): void {
    const id = this.keyOf(obj);
    const tombstone = isDeletedFinalStateUnknown(obj);
    if (!this.isLocked) {
      this.markPopulated();
      if (this.dropsDelete(id)) return;
      const stored = this.transform !== undefined && !tombstone ? this.applyTransform(obj as T) : obj;
      this.append(id, DeltaType.Deleted, stored as T);
      return;
    }
    // Deferred: transform now so that errors reach the caller; decide about dropping when applied.
    const stored = this.transform !== undefined && !tombstone ? this.applyTransform(obj as T) : obj;
    this.mutate("delete", () => {
      this.markPopulated();
      if (this.dropsDelete(id)) return;
      this.append(id, DeltaType.Deleted, stored as T);
    });
  }

  /**
   * Queues a relist (D8): `Replaced` (or `Sync` without `emitDeltaTypeReplaced`) for each item, then
   * tombstones for queued keys and for known keys missing from `list`. The resource version is ignored. On
   * the first populate, the initial population becomes the number of distinct keys in `list` plus the
   * tombstones queued.
   *
   * @throws KeyError or the transformer's error; nothing is queued then.
   */
  replace(list: readonly T[], _resourceVersion: string): void {
    const keys = new Array<string>(list.length);
    for (let i = 0; i < list.length; i++) keys[i] = this.keyOf(list[i]);
    const objects = this.transformAll(list);
    const action = this.emitDeltaTypeReplaced ? DeltaType.Replaced : DeltaType.Sync;
    this.mutate("replace", () => {
      const listed = new Set<string>();
      for (let i = 0; i < objects.length; i++) {
        const key = keys[i] as string;
        listed.add(key);
        this.append(key, action, objects[i] as T);
      }
      let queuedDeletions = 0;
      // Step 2: queued keys missing from the list (issue 115658: not only known keys).
      for (const [key, deltas] of this.items) {
        if (listed.has(key)) continue;
        let deleted = (deltas[deltas.length - 1] as Delta<T>).object as unknown;
        if (isDeletedFinalStateUnknown<T>(deleted)) deleted = deleted.obj;
        queuedDeletions++;
        this.append(key, DeltaType.Deleted, new DeletedFinalStateUnknown<T>(key, deleted as T | undefined));
      }
      // Step 3: known keys missing from the list, with nothing queued.
      const known = this.knownObjects;
      if (known !== undefined) {
        for (const key of known.listKeys()) {
          if (listed.has(key)) continue;
          if ((this.items.get(key)?.length ?? 0) > 0) continue;
          const obj = this.lookupKnown(known, key, "replace");
          queuedDeletions++;
          this.append(key, DeltaType.Deleted, new DeletedFinalStateUnknown<T>(key, obj));
        }
      }
      // Step 4.
      if (!this.populated) {
        this.populated = true;
        this.initialPopulationCount = listed.size + queuedDeletions;
        this.checkSynced();
      }
    });
  }

  /**
   * Queues `Sync(knownObj)`, untransformed, for each known key with nothing queued (D9). A no-op without
   * `knownObjects`. Does not mark the queue populated.
   *
   * @throws KeyError when a known object has no key (nothing after it is queued).
   */
  resync(): void {
    const known = this.knownObjects;
    if (known === undefined) return;
    this.mutate("resync", () => {
      for (const key of known.listKeys()) {
        const obj = this.lookupKnown(known, key, "resync");
        if (obj === undefined) continue;
        const id = this.keyOf(obj);
        if ((this.items.get(id)?.length ?? 0) > 0) continue;
        this.append(id, DeltaType.Sync, obj);
      }
    });
  }

  /**
   * Waits for a queued key, removes it with all its deltas and calls `process(deltas, isInInitialList)` under
   * the queue's lock (D10). `isInInitialList` is true while the queue has not synced. The initial-population
   * count drops after `process` settles. Resolves with the deltas; rejects with `ErrFIFOClosed` once closed
   * and empty (D12), or with `process`'s error (nothing is requeued).
   */
  pop(process: PopProcessFunc<T>): Promise<Deltas<T>> {
    return this.schedule(() => {
      const isInInitialList = !this.hasSynced();
      const id = this.queue.shift() as string;
      const deltas = this.items.get(id) ?? [];
      this.items.delete(id);
      return {
        result: deltas,
        unlock: false,
        depth: this.queue.length,
        batchSize: 1,
        firstKey: () => id,
        run: () => process(deltas, isInInitialList),
        after: () => this.decrementInitialPopulation(1),
      } satisfies Taken<Deltas<T>>;
    });
  }

  protected queuedCount(): number {
    return this.queue.length;
  }

  private enqueueAddOrUpdate(operation: string, type: "Added" | "Updated", obj: T): void {
    const [id, stored] = this.prepareObject(operation, obj);
    if (!this.isLocked) {
      this.markPopulated();
      this.append(id, type, stored);
      return;
    }
    this.mutate(operation, () => {
      this.markPopulated();
      this.append(id, type, stored);
    });
  }

  private dropsDelete(id: string): boolean {
    if (this.items.has(id)) return false;
    const known = this.knownObjects;
    if (known === undefined) return true;
    try {
      return known.getByKey(id) === undefined;
    } catch {
      // A lookup error is not "does not exist": the delete is queued.
      return false;
    }
  }

  /** `queueActionLocked` after the key and transform are known: append, dedup, enqueue a new key, wake. */
  private append(id: string, type: DeltaType, obj: unknown): void {
    const delta = { type, object: obj } as Delta<T>;
    const existing = this.items.get(id);
    if (existing === undefined) {
      this.items.set(id, [delta]);
      this.queue.push(id);
    } else {
      existing.push(delta);
      dedupDeltas(existing);
    }
    this.wake();
  }
}

/**
 * Merges the last two deltas when both are `Deleted` (D6, `dedupDeltas`), in place: the older one is kept
 * unless it is a tombstone, in which case the newer one is kept. Nothing else is ever merged.
 */
export function dedupDeltas<T>(deltas: Delta<T>[]): Delta<T>[] {
  const n = deltas.length;
  if (n < 2) return deltas;
  const a = deltas[n - 1] as Delta<T>;
  const b = deltas[n - 2] as Delta<T>;
  if (a.type !== DeltaType.Deleted || b.type !== DeltaType.Deleted) return deltas;
  deltas[n - 2] = isDeletedFinalStateUnknown(b.object) ? a : b;
  deltas.length = n - 1;
  return deltas;
}
