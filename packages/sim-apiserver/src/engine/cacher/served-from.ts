/** Where a read was served from (the accounting label). */
export type ServedFrom = "cache" | "storage";

const answeredErrors = new WeakMap<object, ServedFrom>();

/**
 * Where a failed read was answered, if it got that far: "cache" for the watch cache's 504 after the freshness wait,
 * "storage" for storage's 410/504. Undefined for errors raised before either was asked (validation, 429).
 */
export function servedFromOfError(err: unknown): ServedFrom | undefined {
  return typeof err === "object" && err !== null ? answeredErrors.get(err) : undefined;
}

/** Marks a failed read as answered by `from` (see {@link servedFromOfError}); returns the error. */
export function answeredBy<E>(err: E, from: ServedFrom): E {
  if (typeof err === "object" && err !== null) answeredErrors.set(err, from);
  return err;
}
