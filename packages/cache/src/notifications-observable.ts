import { SafeObservable, type SubscriberErrorReporter } from "@informer-ts/instrumentation";
import { type Observable, type Observer, Subscriber, Subscription } from "rxjs";

/**
 * What a {@link NotificationsObservable} calls for a direct subscription: join the informer's shared listener with
 * `next` (already guarded) and `complete`, and return the teardown that leaves it, or return undefined when the
 * subscription can not share (then it is made the usual way).
 */
export type DirectSubscribe<V> = (next: (value: V) => void, complete: () => void) => (() => void) | undefined;

function isRxSubscriber(value: unknown): boolean {
  if (value instanceof Subscriber) return true;
  // rxjs's own test (as SafeObservable's): an observer that is also a subscription, from another copy of rxjs.
  const v = value as { unsubscribe?: unknown; add?: unknown } | null | undefined;
  return typeof v === "object" && v !== null && typeof v.unsubscribe === "function" && typeof v.add === "function";
}

/**
 * The `notifications$` stream: a {@link SafeObservable} whose direct subscriptions — `subscribe(fn)` or
 * `subscribe(observer)` by a consumer, not an operator's or `firstValueFrom`'s inner subscriber — that may share the
 * informer's listener skip RxJS's subscriber layers: the shared listener calls the consumer's `next` inside the
 * same guard a `SafeObservable` puts around it (a throw is reported as `callback: "next"` for this stream, the
 * consumer stays subscribed), and the informer's stop calls its `complete` in that guard and closes the
 * subscription, as a subscriber's `complete` would. Nothing reaches a subscription once it is closed (an unsubscribe
 * during a delivery included). Every other subscription (piped, bounded, with a resync period, or made once the
 * informer runs) goes through `SafeObservable` as before.
 *
 * Why: with many subscribers, each notification otherwise passes four RxJS and guard calls per subscriber
 * (`Subscriber.next`, `_next`, `ConsumerObserver.next`, the guard) before the consumer's own function.
 */
export class NotificationsObservable<V> extends SafeObservable<V> {
  constructor(
    inner: Observable<V>,
    streamName: string,
    private readonly reporterOf: SubscriberErrorReporter,
    private readonly direct: DirectSubscribe<V>,
  ) {
    super(inner, streamName, reporterOf);
  }

  override subscribe(
    observerOrNext?: Partial<Observer<V>> | ((value: V) => void) | null,
    error?: ((error: unknown) => void) | null,
    complete?: (() => void) | null,
  ): Subscription {
    if (isRxSubscriber(observerOrNext)) return super.subscribe(observerOrNext);
    let next: ((value: V) => void) | undefined;
    let onComplete: (() => void) | undefined;
    if (typeof observerOrNext === "function") {
      next = observerOrNext;
      onComplete = complete ?? undefined;
    } else if (observerOrNext !== null && observerOrNext !== undefined) {
      const o = observerOrNext;
      next = o.next === undefined ? undefined : (v) => o.next?.(v);
      onComplete = o.complete === undefined ? undefined : () => o.complete?.();
    } else {
      onComplete = complete ?? undefined;
    }
    const stream = this.name;
    const reporter = this.reporterOf;
    let closed = false;
    let subscription: Subscription | undefined;
    const guardedNext =
      next === undefined
        ? () => {}
        : (value: V) => {
            if (closed) return;
            try {
              next(value);
            } catch (err) {
              reporter.report({ stream, callback: "next", error: err });
            }
          };
    const guardedComplete = () => {
      if (closed) return;
      closed = true;
      if (onComplete !== undefined) {
        try {
          onComplete();
        } catch (err) {
          reporter.report({ stream, callback: "complete", error: err });
        }
      }
      // As a subscriber's `complete`: the consumer is told first, then the subscription is torn down.
      subscription?.unsubscribe();
    };
    const leave = this.direct(guardedNext, guardedComplete);
    if (leave === undefined) return super.subscribe(observerOrNext, error, complete);
    subscription = new Subscription(() => {
      closed = true;
      leave();
    });
    // Completed while joining (the informer's stop replays): the subscription ends at once, as a completed one does.
    if (closed) subscription.unsubscribe();
    return subscription;
  }
}
