import type { SubscriberErrorReporter } from "@informer-ts/instrumentation";
import { Observable } from "rxjs";
import { checkPeriod } from "./internal/check-period.js";
import { describeValue } from "./internal/meta-accessor.js";
import { ListenerOverflowError } from "./listener-overflow-error.js";
import { NotificationFanOut } from "./notification-fan-out.js";
import { type DirectSubscribe, NotificationsObservable } from "./notifications-observable.js";
import type { NotificationSink, ProcessorListener } from "./processor-listener.js";
import type {
  HandlerOptions,
  InformerNotification,
  NotificationsOptions,
  SharedInformerEvent,
} from "./shared-informer.js";

/** Options of {@link NotificationsHost.register} beyond {@link HandlerOptions}. */
export interface RegistrationOptions<T> extends HandlerOptions<T> {
  /** Bound of the listener's buffer (see `ProcessorListenerOptions.maxPending`). */
  readonly maxPending?: number;
  /** Called when the bound is hit. */
  readonly onOverflow?: (pending: number) => void;
  /** Called with the new listener before a running informer replays its cache into it. */
  readonly onBeforeReplay?: (listener: ProcessorListener<T>) => void;
  /** For a shared listener: the names of the registrations it delivers for (see `ProcessorListenerOptions`). */
  readonly registrationNames?: () => readonly string[];
}

/** What a `notifications$` subscription needs from its informer. */
export interface NotificationsHost<T> {
  /** The informer's name (in the stream's name for subscriber-error reports). */
  readonly name: string;
  /** Reports a subscriber that threw. */
  readonly reporter: SubscriberErrorReporter;
  /** Emits (and replays) once the informer has stopped for good. */
  readonly stopped$: Observable<void>;
  isStopped(): boolean;
  /**
   * Whether a subscription with this requested resync period may join the shared listener
   * ({@link NotificationFanOut}): the informer has not started (nor stopped) and the effective resync period is 0.
   */
  canShare(resyncPeriod: number | undefined): boolean;
  /** Registers `sink` as a handler (`addEventHandlerWithOptions`). Throws once stopped. */
  register(sink: NotificationSink<T>, options: RegistrationOptions<T>): ProcessorListener<T>;
  /** Removes and stops `listener`; false when it was not registered. */
  unregister(listener: ProcessorListener<T>): boolean;
  /** The informer's status changed (a registration came or went). */
  statusChanged(): void;
  /** Publishes an event on the informer's `events$`. */
  publish(event: SharedInformerEvent): void;
}

let anonymousSubscriptions = 0;

/** The shared listener of each informer's early, unbounded, resync-free subscriptions. */
const fanOuts = new WeakMap<NotificationsHost<unknown>, NotificationFanOut<unknown>>();

function fanOutOf<T>(host: NotificationsHost<T>): NotificationFanOut<T> {
  let f = fanOuts.get(host as NotificationsHost<unknown>) as NotificationFanOut<T> | undefined;
  if (f === undefined) {
    f = new NotificationFanOut<T>(host);
    fanOuts.set(host as NotificationsHost<unknown>, f as NotificationFanOut<unknown>);
  }
  return f;
}

/**
 * A subscription that joins the informer's {@link NotificationFanOut}: the same notifications and `synced` marker as a
 * registration of its own would give it.
 */
function sharedSubscription<T>(
  host: NotificationsHost<T>,
  name: string,
  next: (n: InformerNotification<T>) => void,
  closed: () => boolean,
  complete: () => void,
): () => void {
  const member = fanOutOf(host).join(name, next);
  let left = false;
  member.listener
    .hasSyncedChecker()
    .done()
    .then(
      () => {
        if (!left && !closed()) next({ type: "synced" });
      },
      () => {},
    );
  const done = host.stopped$.subscribe(() => complete());
  return () => {
    left = true;
    done.unsubscribe();
    member.leave();
  };
}

/**
 * The informer's `notifications$(options)`: a cold, read-only Observable where **each subscription is a registration**
 * (as `addEventHandler`) with its own buffer, resync and `hasSynced`, delivered through `host.register` — except
 * that the unbounded, resync-free subscriptions made before the informer starts share one listener that fans out to
 * them ({@link NotificationFanOut}; the same notifications, one buffer and delivery loop instead of one each); it emits the
 * handler notifications, `{ type: "synced" }` once the registration has synced, and completes when the informer
 * stops (at once when it has stopped already). Unsubscribing removes the registration. With `maxPending`, a full
 * buffer publishes a `listenerOverflow` event and then, between turns, either errors the subscription with a
 * {@link ListenerOverflowError} (`overflow: "error"`, or when the cache alone exceeds the bound) or emits
 * `{ type: "relist" }` and registers again, replaying the cache (`"relist"`).
 *
 * @throws RangeError for a `maxPending` that is not a positive integer (or Infinity), an unknown `overflow`, or a
 *   negative or non-finite `resyncPeriod`.
 */
export function notificationsStream<T>(
  host: NotificationsHost<T>,
  options: NotificationsOptions,
): Observable<InformerNotification<T>> {
  const maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
  if (!(maxPending >= 1) || (Number.isFinite(maxPending) && !Number.isInteger(maxPending))) {
    throw new RangeError(`maxPending must be a positive integer, got ${describeValue(options.maxPending)}`);
  }
  const policy = options.overflow ?? "error";
  if (policy !== "error" && policy !== "relist") {
    throw new RangeError(`overflow must be "error" or "relist", got ${describeValue(policy)}`);
  }
  if (options.resyncPeriod !== undefined) checkPeriod("resyncPeriod", options.resyncPeriod);
  const name = options.name ?? `notifications$#${++anonymousSubscriptions}`;
  const stream = new Observable<InformerNotification<T>>((subscriber) => {
    if (host.isStopped()) {
      subscriber.complete();
      return undefined;
    }
    if (!Number.isFinite(maxPending) && host.canShare(options.resyncPeriod)) {
      return sharedSubscription(
        host,
        name,
        (n) => subscriber.next(n),
        () => subscriber.closed,
        () => subscriber.complete(),
      );
    }
    let current: ProcessorListener<T> | undefined;
    let registering = false;
    const sink: NotificationSink<T> = (n) => subscriber.next(n);
    const onOverflow = (listener: ProcessorListener<T>, pending: number) => {
      // Inside the producer's synchronous turn: stop the registration now (later notifications are ignored)
      // and act between turns, where a replay of the cache is exact (as when a handler joins, I5).
      if (current !== listener || listener.isStopped) return;
      const cacheTooLarge = registering;
      host.unregister(listener);
      host.statusChanged();
      host.publish({ type: "listenerOverflow", handlerName: name, pendingNotifications: pending, policy });
      queueMicrotask(() => {
        if (current !== listener || subscriber.closed) return;
        current = undefined;
        if (policy === "error" || cacheTooLarge || host.isStopped()) {
          subscriber.error(
            new ListenerOverflowError(name, maxPending, cacheTooLarge ? "cacheLargerThanBound" : "behind"),
          );
          return;
        }
        subscriber.next({ type: "relist" });
        try {
          register();
        } catch (error) {
          subscriber.error(error); // never thrown from a microtask (that would be an uncaughtException)
        }
      });
    };
    const register = () => {
      registering = true;
      let listener: ProcessorListener<T> | undefined;
      try {
        listener = host.register(sink, {
          handlerName: name,
          resyncPeriod: options.resyncPeriod,
          maxPending,
          onOverflow: (pending) => {
            if (listener !== undefined) onOverflow(listener, pending);
          },
          onBeforeReplay: (l) => {
            listener = l;
            current = l;
          },
        });
      } finally {
        registering = false;
      }
      if (listener.isStopped) return; // overflowed during the replay: the microtask errors the subscription
      const registered = listener;
      registered
        .hasSyncedChecker()
        .done()
        .then(
          () => {
            if (current === registered && !subscriber.closed) subscriber.next({ type: "synced" });
          },
          () => {},
        );
    };
    register();
    const done = host.stopped$.subscribe(() => subscriber.complete());
    return () => {
      done.unsubscribe();
      const listener = current;
      current = undefined;
      if (listener !== undefined && host.unregister(listener)) host.statusChanged();
    };
  });
  // A consumer's own subscription that may share the listener skips RxJS's subscriber layers (the guard and the
  // notifications are the same; see NotificationsObservable).
  const direct: DirectSubscribe<InformerNotification<T>> = (next, complete) =>
    Number.isFinite(maxPending) || host.isStopped() || !host.canShare(options.resyncPeriod)
      ? undefined
      : sharedSubscription(host, name, next, () => false, complete);
  return new NotificationsObservable(stream, `informer ${host.name} notifications$ ${name}`, host.reporter, direct);
}
