import { type Observable, Subject } from "rxjs";

/**
 * A typed, hot stream of events that a component publishes about itself (the reflector's list/watch cycle,
 * a queue's shutdown, a watcher closed by the server…). Emitting with no subscriber costs one branch.
 *
 * `E` is a discriminated union on `type`; subscribers narrow with `filter((e) => e.type === "…")`.
 * The stream never errors; it completes when the component is done for good.
 */
export class EventStream<E extends { readonly type: string }> {
  private readonly subject = new Subject<E>();

  /** Subscribe here. */
  readonly events$: Observable<E> = this.subject.asObservable();

  /** Publishes one event to the current subscribers (no replay for later ones). */
  emit(event: E): void {
    if (this.subject.observed) this.subject.next(event);
  }

  /** Whether anyone listens: lets a component skip building an expensive event. */
  get observed(): boolean {
    return this.subject.observed;
  }

  /** Completes the stream; later emits are ignored. */
  complete(): void {
    this.subject.complete();
  }
}
