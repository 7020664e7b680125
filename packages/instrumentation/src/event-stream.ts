import { type Observable, Subject } from "rxjs";
import { defaultSubscriberErrorReporter, SafeObservable, type SubscriberErrorReporter } from "./safe-observable.js";

/** Options of {@link EventStream}. */
export interface EventStreamOptions {
  /** The stream's name in subscriber-error reports. Default `events$`. */
  readonly name?: string;
  /** Where consumer errors go. Default {@link defaultSubscriberErrorReporter}. */
  readonly reporter?: SubscriberErrorReporter;
}

/**
 * The publishing side of a typed, hot stream of events that a component publishes about itself (the reflector's
 * list/watch cycle, a queue's shutdown, a watcher closed by the server…). Emitting with no subscriber costs one
 * branch. A component keeps its `EventStream` private and hands out only {@link EventStream.events$}, a
 * read-only {@link SafeObservable}: consumers can neither emit nor complete it, and one that throws is reported
 * (never re-thrown into the host) while the others are still served.
 *
 * `E` is a discriminated union on `type`; subscribers narrow with `filter((e) => e.type === "…")`.
 * The stream never errors; it completes when the component is done for good.
 */
export class EventStream<E extends { readonly type: string }> {
  private readonly subject = new Subject<E>();

  /** Subscribe here: read-only and safe against throwing subscribers. */
  readonly events$: Observable<E>;

  constructor(options: EventStreamOptions = {}) {
    this.events$ = new SafeObservable<E>(
      this.subject.asObservable(),
      options.name ?? "events$",
      options.reporter ?? defaultSubscriberErrorReporter,
    );
  }

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
