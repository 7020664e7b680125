// The store's transformer type (client-go's cache.TransformFunc in store.go).

/**
 * Rewrites an object before it is stored (`cache.TransformFunc`), typically to drop fields the program
 * never reads (managedFields…) and save memory. It must be idempotent: with watch-list the same object can
 * be transformed twice. It may return the same object modified in place or a new one; a throw aborts the
 * write with an error `transforming: …`.
 */
export type TransformFunc<T> = (obj: T) => T;
