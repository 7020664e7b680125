import { Observable } from "rxjs";

/** The links of one caller signal, served by a single `abort` listener on it. */
interface Fanout {
  readonly links: Set<SignalLink>;
  readonly onAbort: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * An `AbortController` tied to a caller's signal. Long-running components give their parts the link's
 * `signal` instead of the caller's, and {@link SignalLink.release} the link once they have stopped.
 *
 * However many links are made on one caller signal (a factory of 50 informers, 100 reflectors in a test, each
 * with its own link), the caller's signal carries **one** `abort` listener, shared by all of them, and none once
 * the last link is released: no `MaxListenersExceededWarning`, no listener leak. Links abort in creation order.
 */
export class SignalLink {
  private readonly controller = new AbortController();
  private readonly parent: AbortSignal | undefined;
  private released = false;

  constructor(parent?: AbortSignal) {
    this.parent = parent;
    if (parent === undefined) return;
    if (parent.aborted) {
      this.controller.abort(parent.reason);
      return;
    }
    let fanout = fanouts.get(parent);
    if (fanout === undefined) {
      const links = new Set<SignalLink>();
      const onAbort = () => {
        fanouts.delete(parent);
        for (const link of links) link.controller.abort(parent.reason);
        links.clear();
      };
      fanout = { links, onAbort };
      fanouts.set(parent, fanout);
      parent.addEventListener("abort", onAbort, { once: true });
    }
    fanout.links.add(this);
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
   * Detaches the link from the parent signal; the last link of a parent removes the shared listener. Idempotent;
   * call once the component has stopped. A released link no longer follows the parent.
   */
  release(): void {
    if (this.released || this.parent === undefined) return;
    this.released = true;
    const fanout = fanouts.get(this.parent);
    if (fanout === undefined || !fanout.links.delete(this)) return;
    if (fanout.links.size === 0) {
      fanouts.delete(this.parent);
      this.parent.removeEventListener("abort", fanout.onAbort);
    }
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
