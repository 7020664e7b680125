/**
 * One `abort` listener per caller's `AbortSignal`, shared by every component of this library that watches it.
 *
 * Node warns (`MaxListenersExceededWarning`) once more than 10 listeners sit on one EventTarget: a factory of 50
 * informers or a test of 100 reflectors sharing one signal would trip it if each added its own. Components
 * register here instead; the single real listener is added with the first registration and removed with the last,
 * so a stopped component leaves nothing on the caller's signal.
 */
interface Entry {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

const entries = new WeakMap<AbortSignal, Entry>();

/**
 * Calls `fn` once when `signal` aborts (at once, synchronously, if it already has). Returns the un-registration
 * function (idempotent). A throwing callback is ignored; the others still run.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    try {
      fn();
    } catch {
      // Like the callbacks run by the listener: a throw must not reach the caller's abort().
    }
    return () => {};
  }
  let entry = entries.get(signal);
  if (entry === undefined) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      entries.delete(signal);
      for (const cb of [...callbacks]) {
        try {
          cb();
        } catch {
          // One component's failure must not keep the others running.
        }
      }
      callbacks.clear();
    };
    entry = { callbacks, listener };
    entries.set(signal, entry);
    signal.addEventListener("abort", listener, { once: true });
  }
  const e = entry;
  e.callbacks.add(fn);
  return () => {
    if (!e.callbacks.delete(fn) || e.callbacks.size > 0) return;
    if (entries.get(signal) === e) entries.delete(signal);
    signal.removeEventListener("abort", e.listener);
  };
}
