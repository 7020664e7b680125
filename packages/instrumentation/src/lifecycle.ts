import { Observable } from "rxjs";

/** The callbacks registered on one caller signal, served by its single `abort` listener. */
interface Entry {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

const entries = new WeakMap<AbortSignal, Entry>();

/**
 * Calls `fn` once when `signal` aborts (at once, synchronously, if it already has); returns the idempotent
 * un-registration. The library's one way to watch a caller's signal: however many components register on one
 * signal (a factory of 50 informers, 100 reflectors in a test), the signal carries a **single** `abort` listener,
 * added with the first registration and removed with the last, so there is no `MaxListenersExceededWarning` and
 * a stopped component leaves nothing behind. A throwing callback is ignored; the others still run.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    try {
      fn();
    } catch {
      // Like the callbacks run by the listener: a throw must not reach the caller.
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

/**
 * An `AbortController` tied to a caller's signal through {@link onAbort}. Long-running components give their
 * parts the link's `signal` instead of the caller's, and {@link SignalLink.release} the link once they have
 * stopped: all links and registrations on one caller signal share its single listener, removed with the last.
 */
export class SignalLink {
  private readonly controller = new AbortController();
  private readonly unregister: () => void;

  constructor(parent?: AbortSignal) {
    this.unregister = parent === undefined ? () => {} : onAbort(parent, () => this.controller.abort(parent.reason));
  }

  /** Aborts when the parent aborts or {@link SignalLink.abort} is called. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts the link (not the parent). */
  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  /**
   * Detaches the link from the parent signal (the last registration of a parent removes the shared listener).
   * Idempotent; call once the component has stopped. A released link no longer follows the parent.
   */
  release(): void {
    this.unregister();
  }
}

/**
 * The Observable form of a `run(signal): Promise<void>` lifecycle: subscribing starts `run` with a signal that
 * aborts on unsubscribe; the Observable emits nothing, completes when `run` resolves and errors when it rejects.
 * So `component.run$().pipe(takeUntil(stop$)).subscribe()` runs until `stop$` emits, and the subscription is
 * the run.
 */
export function runAsObservable(run: (signal: AbortSignal) => Promise<void>): Observable<never> {
  return new Observable<never>((subscriber) => {
    const controller = new AbortController();
    let promise: Promise<void>;
    try {
      promise = run(controller.signal);
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
    promise.then(
      () => subscriber.complete(),
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort(new Error("unsubscribed"));
  });
}
