import type { NotificationSink, ProcessorListener } from "./processor-listener.js";

/** What a {@link NotificationFanOut} needs of its informer (a part of `NotificationsHost`). */
export interface FanOutHost<T> {
  register(
    sink: NotificationSink<T>,
    options: { handlerName: string; registrationNames: () => readonly string[] },
  ): ProcessorListener<T>;
  unregister(listener: ProcessorListener<T>): boolean;
  statusChanged(): void;
}

/** One subscription of a {@link NotificationFanOut}. */
export interface FanOutMember<T> {
  /** The shared listener (its `hasSyncedChecker()` is this member's). */
  readonly listener: ProcessorListener<T>;
  /** Leaves the fan-out; the last member to leave removes the listener. Idempotent. */
  leave(): void;
}

interface Member<T> {
  readonly name: string;
  readonly sink: NotificationSink<T>;
}

/**
 * One registration shared by the `notifications$` subscriptions made **before the informer started** with an
 * unbounded buffer and no resync: a single {@link ProcessorListener} (one buffer, one delivery loop) hands each
 * notification to every member in subscription order, instead of one listener per subscription.
 *
 * Why this is exact: each of those subscriptions would have had its own listener created before anything was
 * distributed, with the same (absent) resync and bound, so every one of them would have buffered the same
 * notifications from the first one on and synced at the same moment; and a member's consumer is an RxJS subscriber
 * behind a `SafeObservable` guard, which never throws and never returns a promise, so one member can not delay or
 * fail another's delivery. What differs is only bookkeeping: the informer's status still lists one handler per
 * member (the shared listener's stats under each member's name), while the listener's slow-handler events and the
 * pending-notifications gauge carry the first member's name. A subscription made once the informer runs (it needs
 * its own replay of the cache), a bounded one (its own overflow) or one with a resync period (its own schedule)
 * keeps a listener of its own.
 *
 * The fan-out is over once its listener is gone (the last member left, or the informer stopped); the next early
 * subscription starts a new one.
 */
export class NotificationFanOut<T> {
  private members: readonly Member<T>[] = [];
  private listener: ProcessorListener<T> | undefined;

  constructor(private readonly host: FanOutHost<T>) {}

  /** Adds a member named `name` receiving through `sink`; registers the shared listener for the first one. */
  join(name: string, sink: NotificationSink<T>): FanOutMember<T> {
    const member: Member<T> = { name, sink };
    if (this.listener === undefined || this.listener.isStopped) {
      this.members = [member];
      // Registering publishes the status change itself.
      this.listener = this.host.register((n) => this.deliver(n), {
        handlerName: name,
        registrationNames: () => this.members.map((m) => m.name),
      });
    } else {
      // Copy on write: a delivery in progress keeps the array it started with.
      this.members = [...this.members, member];
      this.host.statusChanged();
    }
    const listener = this.listener;
    let left = false;
    return {
      listener,
      leave: () => {
        if (left) return;
        left = true;
        if (this.listener !== listener) return;
        this.members = this.members.filter((m) => m !== member);
        if (this.members.length > 0) {
          if (!listener.isStopped) this.host.statusChanged();
          return;
        }
        this.listener = undefined;
        if (this.host.unregister(listener)) this.host.statusChanged();
      },
    };
  }

  private deliver(n: Parameters<NotificationSink<T>>[0]): void {
    // A member that left during this delivery (another member's consumer unsubscribed it) gets nothing more: its
    // subscriber is closed, and RxJS drops what a closed subscriber is handed, as its own stopped listener would.
    for (const m of this.members) m.sink(n);
  }
}
