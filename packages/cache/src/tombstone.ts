import type { DeletedFinalStateUnknownLike } from "./store.js";

/** Marks tombstones on the prototype so that two copies of this module (src and dist) still recognise each other. */
const TOMBSTONE_BRAND: unique symbol = Symbol.for("@informer-ts/cache.DeletedFinalStateUnknown");

/**
 * The tombstone delivered to `OnDelete` when a delete was missed (for example because the watch was down and
 * the next relist no longer contained the object): `key` is the store key, `obj` the last known state, which
 * may be stale or `undefined`.
 *
 * Instances are frozen value objects. Key functions built with {@link deletionHandlingMetaNamespaceKeyFunc}
 * return `key` unchanged, so a tombstone deletes the right store entry. A tombstone has no `metadata`, so
 * deleting one never moves the store's resource version (S6).
 *
 * Differences from client-go: `DeletedFinalStateUnknown` is a Go struct compared by type assertion; here it
 * is a class recognised by {@link isDeletedFinalStateUnknown}, which also accepts instances created by another
 * copy of this module.
 */
export class DeletedFinalStateUnknown<T = unknown> implements DeletedFinalStateUnknownLike<T> {
  declare readonly [TOMBSTONE_BRAND]: true;

  constructor(
    readonly key: string,
    readonly obj: T | undefined,
  ) {
    Object.freeze(this);
  }
}
Object.defineProperty(DeletedFinalStateUnknown.prototype, TOMBSTONE_BRAND, { value: true });

/** True when `value` is a {@link DeletedFinalStateUnknown} (the Go `obj.(DeletedFinalStateUnknown)` check). */
export function isDeletedFinalStateUnknown<T = unknown>(value: unknown): value is DeletedFinalStateUnknown<T> {
  return (
    typeof value === "object" && value !== null && (value as { [TOMBSTONE_BRAND]?: unknown })[TOMBSTONE_BRAND] === true
  );
}
