import type { DeletedFinalStateUnknown } from "./tombstone.js";

/**
 * The kinds of change a FIFO queues (`cache.DeltaType`). `Added`, `Updated`, `Deleted`, `Replaced` and `Sync`
 * carry one object; `ReplacedAll`, `SyncAll` and `Bookmark` are whole-queue markers emitted only by a
 * {@link RealFIFO} in atomic mode (client-go 1.36 `AtomicFIFO`).
 *
 * - `Added` / `Updated` / `Deleted`: a watch event (or a direct `add`/`update`/`delete`).
 * - `Replaced`: an item of a relist (`replace`), emitted per object by `DeltaFIFO` and non-atomic `RealFIFO`.
 * - `Sync`: a resync of a known object (or, in a `DeltaFIFO` built without `emitDeltaTypeReplaced`, a relist item).
 * - `ReplacedAll`: a whole relist as one delta ({@link ReplacedAllInfo}).
 * - `SyncAll`: a whole resync as one delta ({@link SyncAllInfo}); the consumer re-reads its store.
 * - `Bookmark`: a watch BOOKMARK's resource version ({@link BookmarkInfo}).
 */
export const DeltaType = {
  Added: "Added",
  Updated: "Updated",
  Deleted: "Deleted",
  Replaced: "Replaced",
  ReplacedAll: "ReplacedAll",
  Sync: "Sync",
  SyncAll: "SyncAll",
  Bookmark: "Bookmark",
} as const;

/** One of the {@link DeltaType} values. */
export type DeltaType = (typeof DeltaType)[keyof typeof DeltaType];

/**
 * The payload of a `ReplacedAll` delta (`cache.ReplacedAllInfo`): the resource version of the relist and the
 * complete list, already transformed by the FIFO's transformer.
 *
 * Memory: `objects` is an array owned by the delta (the FIFO copies the caller's list into it), so the list
 * response that held the items is not kept alive by the queue; once the delta is popped and processed, the
 * array itself is garbage.
 */
export interface ReplacedAllInfo<T> {
  readonly resourceVersion: string;
  readonly objects: readonly T[];
}

/** The payload of a `SyncAll` delta (`cache.SyncAllInfo`): no data; the consumer re-delivers its store. */
export type SyncAllInfo = Readonly<Record<string, never>>;

/** The payload of a `Bookmark` delta (`cache.BookmarkInfo`). */
export interface BookmarkInfo {
  readonly resourceVersion: string;
}

/**
 * One queued change (`cache.Delta`): a {@link DeltaType} and its object. A `Deleted` delta may carry a
 * {@link DeletedFinalStateUnknown} tombstone (a delete synthesised by a relist, whose `obj` may be stale or
 * `undefined`).
 *
 * Differences from client-go: a discriminated union on `type`, so the payload type follows from the type.
 */
export type Delta<T> =
  | { readonly type: "Added" | "Updated" | "Replaced" | "Sync"; readonly object: T }
  | { readonly type: "Deleted"; readonly object: T | DeletedFinalStateUnknown<T> }
  | { readonly type: "ReplacedAll"; readonly object: ReplacedAllInfo<T> }
  | { readonly type: "SyncAll"; readonly object: SyncAllInfo }
  | { readonly type: "Bookmark"; readonly object: BookmarkInfo };

/**
 * The changes handed to a pop callback (`cache.Deltas`), oldest first. A `DeltaFIFO` gives all queued changes
 * of one key; a `RealFIFO` always gives exactly one delta.
 */
export type Deltas<T> = readonly Delta<T>[];

/** The oldest delta (`Deltas.Oldest`), or `undefined` for an empty list. */
export function oldest<T>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas.length > 0 ? deltas[0] : undefined;
}

/** The newest delta (`Deltas.Newest`), or `undefined` for an empty list. */
export function newest<T>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas.length > 0 ? deltas[deltas.length - 1] : undefined;
}

const deltaTypes: ReadonlySet<string> = new Set(Object.values(DeltaType));

/**
 * True when `value` has the shape of a {@link Delta}: an object with a known `type`, an `object` field and no
 * `metadata` (every Kubernetes object has `metadata`; a delta never does). Used by key functions that unwrap
 * deltas (client-go's `obj.(Delta)` type switch).
 */
export function isDelta(value: unknown): value is Delta<unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as { type?: unknown; metadata?: unknown };
  return typeof v.type === "string" && deltaTypes.has(v.type) && "object" in v && v.metadata === undefined;
}
