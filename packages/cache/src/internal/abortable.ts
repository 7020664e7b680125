/** Thrown (internally) when an operation is abandoned because its AbortSignal fired. */
export const STOP_REQUESTED: unique symbol = Symbol("stop requested");

/**
 * Waits for `promise` unless `signal` aborts first, in which case it rejects with {@link STOP_REQUESTED}.
 * If the promise settles after the abort, its value goes to `onLateValue` (e.g. to stop a watch that opened
 * too late) and its rejection is swallowed, so nothing is ever reported as unhandled.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal, onLateValue?: (value: T) => void): Promise<T> {
  if (signal.aborted) {
    promise.then(onLateValue, () => {});
    return Promise.reject(STOP_REQUESTED);
  }
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      reject(STOP_REQUESTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (settled) {
          onLateValue?.(value);
          return;
        }
        settled = true;
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (settled) return;
        settled = true;
        reject(err);
      },
    );
  });
}
