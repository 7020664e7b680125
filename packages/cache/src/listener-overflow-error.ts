/**
 * The error a bounded `notifications$` subscription fails with when its buffer is full (overflow policy
 * `"error"`), or when a `"relist"` replay of the cache does not fit in the bound. Names the registration and the
 * bound so the fix (a larger `maxPending`, a faster consumer, or the `"relist"` policy) is obvious.
 *
 * Differences from client-go: client-go's listener buffers are unbounded and never overflow.
 */
export class ListenerOverflowError extends Error {
  override readonly name = "ListenerOverflowError";

  constructor(
    /** The registration's name. */
    readonly handlerName: string,
    /** The bound (`maxPending`). */
    readonly maxPending: number,
    /** Why: the consumer fell behind, or the cache itself is larger than the bound. */
    readonly reason: "behind" | "cacheLargerThanBound",
  ) {
    super(
      reason === "behind"
        ? `notifications$ ${handlerName}: more than ${maxPending} notifications waiting (maxPending); the consumer fell behind`
        : `notifications$ ${handlerName}: the cache holds more than ${maxPending} objects (maxPending), so its replay does not fit`,
    );
  }
}
