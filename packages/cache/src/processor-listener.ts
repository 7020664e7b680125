import { type Clock, realClock } from "@informer-ts/clock";
import {
  EventStream,
  type Gauge,
  type Labels,
  type Logger,
  newConsoleLogger,
  safeLog,
} from "@informer-ts/instrumentation";
import { isThenable } from "./internal/thenable.js";
import { NotificationRing } from "./notification-ring.js";
import { type DoneChecker, SingleFileTracker } from "./synctrack.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";

/** `initialBufferSize`: the listener buffer's starting (and minimum) capacity, in notifications (I1). */
export const initialBufferSize = 1024;

/** How long a listener pauses after a handler error before delivering the next notification (I11). */
export const handlerErrorBackoffMs = 1000;

/**
 * The callbacks an informer delivers to (`cache.ResourceEventHandler`). Structurally identical to the
 * `ResourceEventHandler` of `controller.ts`; repeated here so the listener does not depend on the controller.
 *
 * A callback may return a promise: the listener then waits for it before delivering the next notification to
 * the same handler (other handlers are not held up), and a rejection is handled like a throw. Any subset of the
 * three callbacks may be implemented; a missing one skips that notification.
 */
export interface ListenerHandler<T> {
  onAdd?(obj: T, isInInitialList: boolean): unknown;
  onUpdate?(oldObj: T, newObj: T): unknown;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): unknown;
}

/**
 * The other form of a listener's consumer: one function receiving each {@link Notification} as queued (used by
 * `notifications$`, which hands the notification objects on without re-allocating them).
 */
export type NotificationSink<T> = (notification: Notification<T>) => unknown;

/**
 * One notification queued for a handler (client-go's `addNotification`, `updateNotification`,
 * `deleteNotification`).
 */
export type Notification<T> =
  | { readonly type: "add"; readonly newObj: T; readonly isInInitialList: boolean }
  | { readonly type: "update"; readonly oldObj: T; readonly newObj: T }
  | { readonly type: "delete"; readonly oldObj: T | DeletedFinalStateUnknown<T> };

/** What {@link HandlerErrorCallback} is told about a failed delivery. */
export interface HandlerErrorInfo<T> {
  /** The handler's name (option `handlerName`, else its class or function name). */
  readonly handlerName: string;
  /** The notification whose callback threw or rejected. It is skipped, not retried. */
  readonly notification: Notification<T>;
}

/** Decides what happens to an error thrown (or a rejection returned) by a handler callback. */
export type HandlerErrorCallback<T> = (error: unknown, info: HandlerErrorInfo<T>) => void;

/** Events a listener publishes about its handler. */
export type ListenerEvent =
  | {
      readonly type: "handlerError";
      readonly handlerName: string;
      readonly notification: "add" | "update" | "delete";
      readonly error: unknown;
    }
  | {
      /** A handler call took ≥ 100 ms (on the clock) while more than `initialBufferSize` notifications waited. */
      readonly type: "slowHandler";
      readonly handlerName: string;
      readonly durationMs: number;
      readonly pendingNotifications: number;
    };

/** Where a listener publishes its {@link ListenerEvent}s: any `EventStream` whose event type includes them. */
export interface ListenerEventSink {
  emit(event: ListenerEvent): void;
  /** Whether anyone listens; when not, handler errors are logged instead. */
  readonly observed: boolean;
}

/** A snapshot of a listener's delivery statistics. */
export interface ListenerStats {
  readonly handlerName: string;
  /** Notifications buffered and not yet handed to the handler (the one being handled is not counted). */
  readonly pendingNotifications: number;
  /** The largest `pendingNotifications` ever observed. */
  readonly highWaterMark: number;
  /** Current buffer capacity in slots (grows by doubling, shrinks back as it drains). */
  readonly bufferCapacity: number;
  /** Callbacks that returned (or whose promise resolved). */
  readonly delivered: number;
  /** Callbacks that threw or rejected. */
  readonly errors: number;
  /** Whether a callback is running now. */
  readonly inFlight: boolean;
  readonly synced: boolean;
  readonly stopped: boolean;
}

/**
 * The handle returned by `addEventHandler` (`cache.ResourceEventHandlerRegistration`). Give it back to the same
 * informer's `removeEventHandler`.
 */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced **and** this handler has returned from every `onAdd` of the initial list
   * (I12). Controllers should wait on this, not only on the informer's `hasSynced`.
   */
  hasSynced(): boolean;
  /** The same condition as a {@link DoneChecker}. */
  hasSyncedChecker(): DoneChecker;
  readonly handlerName: string;
  /** Delivery statistics of this handler. */
  stats(): ListenerStats;
  /**
   * Resolves once the handler has been removed (or the informer stopped) and its in-flight callback, if any,
   * has returned (client-go's `ShutdownChan`).
   */
  shutdownDone(): Promise<void>;
}

/** Options of {@link ProcessorListener}. */
export interface ProcessorListenerOptions<T> {
  /** Clock for resync bookkeeping and the pause after a handler error. Default `realClock`. */
  readonly clock?: Clock;
  /** Name used in events, stats and the sync checker's name. Default: the handler's class or function name. */
  readonly handlerName?: string;
  /** The resync period asked for, after the 1 s minimum (ms). Default 0. */
  readonly requestedResyncPeriod?: number;
  /** The effective resync period (`determineResyncPeriod`), in ms. Default 0 (never). */
  readonly resyncPeriod?: number;
  /** The informer's "has synced"; the registration is synced only after it. Default: already synced. */
  readonly upstreamHasSynced?: DoneChecker;
  /** Starting and minimum buffer capacity. Default {@link initialBufferSize}. */
  readonly initialBufferSize?: number;
  /**
   * Called with every error a handler callback throws or rejects with; the notification is then skipped and the
   * listener pauses {@link handlerErrorBackoffMs} before the next one. Default: publish a `handlerError` event on
   * `events` (or, when nobody subscribes, a line on `logger`). An error thrown by this callback is itself
   * logged.
   */
  readonly onHandlerError?: HandlerErrorCallback<T>;
  /**
   * client-go's default `ReallyCrash = true`: after reporting a handler error, crash the host process (the error
   * is re-thrown as an uncaught exception) and stop delivering. Default false: report and skip.
   */
  readonly crashOnHandlerError?: boolean;
  /** How to crash when `crashOnHandlerError` is set. Default: throw `error` from a microtask. For tests. */
  readonly crash?: (error: unknown) => void;
  /** Where `handlerError` and `slowHandler` events go. Default: a stream owned by the listener. */
  readonly events?: ListenerEventSink;
  /**
   * Bound of the buffer: when an `add` finds `maxPending` notifications waiting, the notification is not queued
   * and `onOverflow` is called instead (synchronously, inside the producer's turn). Default: unbounded
   * (client-go). Requires `onOverflow`.
   */
  readonly maxPending?: number;
  /** Called when the bound is hit, with the number of waiting notifications. Usually stops the listener. */
  readonly onOverflow?: (pendingNotifications: number) => void;
  /**
   * Gauge `informer_listener_pending_notifications` (set on every add and delivery) and its labels, to which the
   * listener adds `handler` (its name), so the lag of each handler is visible. Default none.
   */
  readonly pendingGauge?: { readonly gauge: Gauge; readonly labels: Labels };
  /**
   * Where a handler error goes when there is no `onHandlerError` and nobody subscribes to `events` (level
   * `error`), and where a throwing `onHandlerError` is reported. Default: a console logger.
   */
  readonly logger?: Logger;
  /**
   * The names of the registrations this one listener delivers for, when it is shared (`notifications$`
   * subscriptions made before the informer started fan out from one listener): the informer's status then lists one
   * entry per name. Default: the listener is one registration, named `handlerName`.
   */
  readonly registrationNames?: () => readonly string[];
}

/** Name of the gauge of notifications waiting in one listener's buffer (informer-ts addition). */
export const listenerPendingNotificationsMetricName = "informer_listener_pending_notifications";

/** Most notifications a listener delivers in one turn before it yields (while its callbacks return synchronously). */
const drainBudget = 64;

/** {@link ProcessorListener}'s `deliver` outcomes for a callback that returned or threw synchronously. */
const DELIVERED = 0;
const FAILED = 1;

const ALREADY_SYNCED: DoneChecker = {
  name: () => "always synced",
  done: () => Promise.resolve(),
  isDone: () => true,
};

let anonymousHandlers = 0;

const defaultLogger = newConsoleLogger("informer");

/** client-go `nameForHandler`: the handler's constructor name, else a numbered placeholder. */
function nameForHandler(handler: object): string {
  if (typeof handler === "function" && handler.name !== "") return handler.name;
  const ctor =
    typeof handler === "function" ? undefined : (handler as { constructor?: { name?: unknown } }).constructor;
  const name = ctor !== undefined && ctor !== Object ? ctor.name : undefined;
  if (typeof name === "string" && name !== "") return name;
  anonymousHandlers++;
  return `handler#${anonymousHandlers}`;
}

type State = "created" | "running" | "stopped";

/**
 * Relays notifications from a `sharedProcessor` to one handler (`processorListener`, I10): `add()` appends to an
 * unbounded buffer in one synchronous step (it never blocks or fails), and one async loop per listener takes
 * notifications in order and calls the handler **sequentially**: the next callback starts only after the
 * previous one returned (or its promise settled). Different listeners run independently: a slow or failing
 * handler never delays the producer or another handler.
 *
 * Notifications added before {@link ProcessorListener.run} are buffered and delivered once it starts. After
 * {@link ProcessorListener.stop} (handler removed or informer stopped) buffered notifications are dropped, later
 * `add`s are ignored, and only the in-flight callback, if any, completes.
 *
 * Per-registration sync (I12): every `add` notification with `isInInitialList` counts as started in a
 * {@link SingleFileTracker}, and as finished once its `onAdd` returned; the registration is synced when the
 * upstream checker (the informer) is done and nothing is outstanding.
 *
 * Handler errors (I11): a throw or a rejected promise is passed to `onHandlerError` (default: a `handlerError`
 * event), the notification is skipped, and the listener waits 1 s on the clock before the next delivery.
 *
 * Differences from client-go: one async loop instead of the `pop`/`run`/`watchSynced` goroutines; the buffer
 * shrinks when it drains and exposes a pending count and high-water mark; a handler error is reported and
 * skipped by default (client-go panics the process unless `ReallyCrash` is turned off; see
 * `crashOnHandlerError`); an initial-list `onAdd` that fails still counts as finished for `hasSynced` (client-go
 * never finishes it, so such a registration would never sync); callbacks may be async.
 */
export class ProcessorListener<T> implements ResourceEventHandlerRegistration {
  readonly handlerName: string;
  /** Resync period as requested (after the 1 s minimum), in ms. */
  readonly requestedResyncPeriod: number;
  /** Effective resync period in ms; 0 = never. */
  resyncPeriod: number;
  /** Earliest time (clock ms) of this listener's next resync. */
  nextResync = 0;
  readonly events: ListenerEventSink;

  private readonly handler: ListenerHandler<T> | undefined;
  private readonly sink: NotificationSink<T> | undefined;
  private readonly maxPending: number;
  private readonly onOverflow: ((pendingNotifications: number) => void) | undefined;
  private readonly pendingGauge: { readonly gauge: Gauge; readonly labels: Labels } | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly tracker: SingleFileTracker;
  private readonly upstream: DoneChecker;
  private readonly pending: NotificationRing<Notification<T>>;
  private readonly minCapacity: number;
  private readonly onHandlerError: HandlerErrorCallback<T> | undefined;
  private readonly crashOnHandlerError: boolean;
  private readonly crash: (error: unknown) => void;
  private readonly registrationNames: (() => readonly string[]) | undefined;
  private state: State = "created";
  private wake: (() => void) | undefined;
  private readonly stopController = new AbortController();
  private loopDone: Promise<void> | undefined;
  private highWater = 0;
  private deliveredCount = 0;
  private errorCount = 0;
  private running = false;

  constructor(handler: ListenerHandler<T> | NotificationSink<T>, options: ProcessorListenerOptions<T> = {}) {
    if (typeof handler === "function") {
      this.sink = handler;
    } else {
      if (typeof handler !== "object" || handler === null) {
        throw new TypeError(`event handler must be an object with onAdd/onUpdate/onDelete, got ${String(handler)}`);
      }
      for (const m of ["onAdd", "onUpdate", "onDelete"] as const) {
        if (handler[m] !== undefined && typeof handler[m] !== "function") {
          throw new TypeError(`event handler ${m} is not a function: ${String(handler[m])}`);
        }
      }
      this.handler = handler;
    }
    const maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
    if (!(maxPending >= 1) || (Number.isFinite(maxPending) && !Number.isInteger(maxPending))) {
      throw new RangeError(`maxPending must be a positive integer or Infinity, got ${String(options.maxPending)}`);
    }
    if (Number.isFinite(maxPending) && options.onOverflow === undefined) {
      throw new TypeError("a bounded listener (maxPending) needs an onOverflow callback");
    }
    this.maxPending = maxPending;
    this.onOverflow = options.onOverflow;
    this.logger = options.logger ?? defaultLogger;
    this.handlerName = options.handlerName ?? nameForHandler(handler);
    const gauge = options.pendingGauge;
    this.pendingGauge =
      gauge === undefined ? undefined : { gauge: gauge.gauge, labels: { ...gauge.labels, handler: this.handlerName } };
    this.clock = options.clock ?? realClock;
    this.requestedResyncPeriod = options.requestedResyncPeriod ?? 0;
    this.resyncPeriod = options.resyncPeriod ?? 0;
    this.upstream = options.upstreamHasSynced ?? ALREADY_SYNCED;
    this.tracker = new SingleFileTracker(`${this.upstream.name()} + event handler ${this.handlerName}`);
    const capacity = options.initialBufferSize ?? initialBufferSize;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`initialBufferSize must be a positive integer, got ${capacity}`);
    }
    this.minCapacity = capacity;
    this.pending = new NotificationRing(capacity);
    this.onHandlerError = options.onHandlerError;
    this.crashOnHandlerError = options.crashOnHandlerError ?? false;
    this.crash =
      options.crash ??
      ((error) =>
        queueMicrotask(() => {
          throw error;
        }));
    this.events = options.events ?? new EventStream<ListenerEvent>();
    this.registrationNames = options.registrationNames;
    this.determineNextResync(this.clock.now());
    // Bound, so `registration.hasSynced` can be passed around as a function (e.g. to waitForCacheSync).
    this.hasSynced = this.hasSynced.bind(this);
  }

  // ---- registration -------------------------------------------------------------------------------------

  hasSynced(): boolean {
    return this.tracker.hasSynced();
  }

  hasSyncedChecker(): DoneChecker {
    return this.tracker;
  }

  stats(): ListenerStats {
    return {
      handlerName: this.handlerName,
      pendingNotifications: this.pending.size,
      highWaterMark: this.highWater,
      bufferCapacity: this.pending.capacity,
      delivered: this.deliveredCount,
      errors: this.errorCount,
      inFlight: this.running,
      synced: this.tracker.hasSynced(),
      stopped: this.state === "stopped",
    };
  }

  /** The stats of each registration this listener delivers for: its own, or one per name of a shared listener. */
  registrationStats(): ListenerStats[] {
    const stats = this.stats();
    if (this.registrationNames === undefined) return [stats];
    return this.registrationNames().map((handlerName) => ({ ...stats, handlerName }));
  }

  shutdownDone(): Promise<void> {
    if (this.loopDone !== undefined) return this.loopDone;
    if (this.state === "stopped") return Promise.resolve();
    // Not started yet: completes when stopped, or when the started loop ends.
    return new Promise<void>((resolve) => {
      this.stopController.signal.addEventListener(
        "abort",
        () => {
          resolve(this.loopDone ?? Promise.resolve());
        },
        { once: true },
      );
    });
  }

  // ---- processor side -----------------------------------------------------------------------------------

  /** Buffered notifications not yet handed to the handler. */
  get pendingNotifications(): number {
    return this.pending.size;
  }

  /** The largest number of buffered notifications seen so far. */
  get highWaterMark(): number {
    return this.highWater;
  }

  get isStopped(): boolean {
    return this.state === "stopped";
  }

  /**
   * Queues `notification` for delivery; one synchronous step that never blocks. Ignored once stopped. An initial
   * list `add` is counted by the sync tracker before it is queued.
   */
  add(notification: Notification<T>): void {
    if (this.state === "stopped") return;
    if (this.pending.size >= this.maxPending) {
      this.onOverflow?.(this.pending.size);
      return;
    }
    if (notification.type === "add" && notification.isInInitialList) this.tracker.start();
    this.pending.push(notification);
    if (this.pending.size > this.highWater) this.highWater = this.pending.size;
    this.pendingGauge?.gauge.set(this.pending.size, this.pendingGauge.labels);
    const wake = this.wake;
    if (wake !== undefined) {
      this.wake = undefined;
      wake();
    }
  }

  /** Starts the delivery loop (idempotent; a no-op once stopped). */
  run(): void {
    if (this.state !== "created") return;
    this.state = "running";
    this.loopDone = this.loop();
  }

  /**
   * Watches the upstream checker and tells the tracker once it is done (client-go `watchSynced`). Call after the
   * initial list has been added. When upstream is already done this takes effect synchronously.
   */
  watchSynced(): void {
    if (this.state === "stopped") return;
    if (this.upstream.isDone()) {
      this.tracker.upstreamHasSynced();
      return;
    }
    this.upstream.done().then(
      () => {
        if (this.state !== "stopped") this.tracker.upstreamHasSynced();
      },
      () => {
        // An upstream checker that fails never syncs: neither does this registration (nothing to report here;
        // the informer reports its own failure).
      },
    );
  }

  /** Stops delivery: drops buffered notifications; the in-flight callback, if any, completes. Idempotent. */
  stop(): void {
    if (this.state === "stopped") return;
    this.state = "stopped";
    this.pending.clear();
    this.pendingGauge?.gauge.set(0, this.pendingGauge.labels);
    this.stopController.abort();
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** `shouldResync(now)`: whether this listener is due a resync at `now`; always false for period 0. */
  shouldResync(now: number): boolean {
    if (this.resyncPeriod === 0) return false;
    return now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriod;
  }

  setResyncPeriod(resyncPeriod: number): void {
    this.resyncPeriod = resyncPeriod;
  }

  // ---- delivery -----------------------------------------------------------------------------------------

  private async loop(): Promise<void> {
    let pauseAfterError = false;
    while (this.state === "running") {
      if (this.pending.size === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      if (pauseAfterError) {
        pauseAfterError = false;
        try {
          await this.clock.sleep(handlerErrorBackoffMs, this.stopController.signal);
        } catch {
          break; // stopped while pausing
        }
        continue;
      }
      // Deliver in one turn while callbacks return synchronously, at most `drainBudget` of them: no promise per
      // notification on the hot path. A callback returning a promise is awaited before the next one.
      let failed = false;
      for (let budget = drainBudget; budget > 0 && this.state === "running" && this.pending.size > 0; budget--) {
        const notification = this.pending.shift() as Notification<T>;
        this.pendingGauge?.gauge.set(this.pending.size, this.pendingGauge.labels);
        const outcome = this.deliver(notification);
        failed = outcome === FAILED || (outcome !== DELIVERED && (await outcome));
        if (failed) break;
      }
      if (failed && this.crashOnHandlerError) {
        this.stop();
        break;
      }
      pauseAfterError = failed;
      // Yield between bursts so that other listeners and the producer interleave with a busy handler (an empty
      // buffer yields anyway: the loop then waits to be woken).
      if (failed || this.pending.size > 0) await undefined;
    }
  }

  /**
   * Calls the handler for one notification: {@link DELIVERED} or {@link FAILED} when the callback returned or threw
   * synchronously, else a promise of whether its promise rejected.
   */
  private deliver(n: Notification<T>): typeof DELIVERED | typeof FAILED | Promise<boolean> {
    const tracePending = this.pending.size > this.minCapacity ? this.pending.size : 0;
    const started = tracePending > 0 ? this.clock.now() : 0;
    this.running = true;
    let result: unknown;
    try {
      if (this.sink !== undefined) result = this.sink(n);
      else
        switch (n.type) {
          case "add":
            result = this.handler?.onAdd?.(n.newObj, n.isInInitialList);
            break;
          case "update":
            result = this.handler?.onUpdate?.(n.oldObj, n.newObj);
            break;
          case "delete":
            result = this.handler?.onDelete?.(n.oldObj);
            break;
        }
    } catch (error) {
      this.errorCount++;
      this.reportError(error, n);
      this.afterDelivery(n, tracePending, started);
      return FAILED;
    }
    if (!isThenable(result)) {
      this.deliveredCount++;
      this.afterDelivery(n, tracePending, started);
      return DELIVERED;
    }
    return Promise.resolve(result).then(
      () => {
        this.deliveredCount++;
        this.afterDelivery(n, tracePending, started);
        return false;
      },
      (error: unknown) => {
        this.errorCount++;
        this.reportError(error, n);
        this.afterDelivery(n, tracePending, started);
        return true;
      },
    );
  }

  /** Bookkeeping once a callback has returned, thrown or settled: sync tracking and the slow-handler event. */
  private afterDelivery(n: Notification<T>, tracePending: number, started: number): void {
    this.running = false;
    if (n.type === "add" && n.isInInitialList) this.tracker.finished();
    if (tracePending > 0) {
      const durationMs = this.clock.since(started);
      if (durationMs >= 100) {
        this.events.emit({
          type: "slowHandler",
          handlerName: this.handlerName,
          durationMs,
          pendingNotifications: tracePending,
        });
      }
    }
  }

  private reportError(error: unknown, notification: Notification<T>): void {
    if (this.onHandlerError !== undefined) {
      try {
        this.onHandlerError(error, { handlerName: this.handlerName, notification });
      } catch (callbackError) {
        this.warn(`onHandlerError of event handler ${this.handlerName} threw: ${describeError(callbackError)}`);
      }
    } else if (this.events.observed) {
      this.events.emit({ type: "handlerError", handlerName: this.handlerName, notification: notification.type, error });
    } else {
      this.warn(`event handler ${this.handlerName} failed on ${notification.type} (skipped): ${describeError(error)}`);
    }
    if (this.crashOnHandlerError) this.crash(error);
  }

  private warn(message: string): void {
    safeLog(this.logger, "error", message, { handler: this.handlerName });
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
