import type { KubeObject } from "@informer-ts/apimachinery";
import { type Clock, type Rand, realClock } from "@informer-ts/clock";
import {
  EventStream,
  type Gauge,
  type Logger,
  type MetricsProvider,
  newConsoleLogger,
  runAsObservable,
  SignalLink,
  type SubscriberCallback,
  SubscriberErrorReporter,
  safeLog,
  safeObservable,
} from "@informer-ts/instrumentation";
import { EMPTY, Observable, ReplaySubject, Subject, switchMap, takeUntil } from "rxjs";
import {
  newQueueFIFO,
  processDeltas,
  processDeltasInBatch,
  processLoop,
  type ResourceEventHandler,
} from "./controller.js";
import type { Queue } from "./fifo.js";
import type { FIFOEvent } from "./internal/fifo-core.js";
import { describeValue, metaOf } from "./internal/meta-accessor.js";
import type { InformerMetricLabels } from "./internal/rv-metric.js";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.js";
import { ListenerOverflowError } from "./listener-overflow-error.js";
import type { ListerWatcher } from "./listwatch.js";
import { type MutationDetector, type MutationDetectorOptions, newCacheMutationDetector } from "./mutation-detector.js";
import {
  type HandlerErrorCallback,
  type ListenerEvent,
  type ListenerStats,
  listenerPendingNotificationsMetricName,
  type Notification,
  type NotificationSink,
  ProcessorListener,
  type ResourceEventHandlerRegistration,
} from "./processor-listener.js";
import { Reflector, type ReflectorOptions, type WatchErrorHandler } from "./reflector.js";
import type { ReflectorEvent, ReflectorStatus } from "./reflector-status.js";
import { determineResyncPeriod, minimumResyncPeriod, SharedProcessor } from "./shared-processor.js";
import type { Indexer, Indexers, Store } from "./store.js";
import { newIndexer, type StoreWithTransactions, type TransformFunc } from "./store-impl.js";
import { type DoneChecker, DoneLatch } from "./synctrack.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";

const defaultLogger = newConsoleLogger("informer");

/**
 * Which FIFO feeds an informer (client-go's feature gates, reference §0): `"real-atomic"` = atomic `RealFIFO` with
 * unlock-while-processing and bookmark deltas (1.36 default); `"real"` = non-atomic `RealFIFO` reading the
 * indexer as known objects (1.33–1.35); `"delta"` = `DeltaFIFO` (≤ 1.32).
 */
export type InformerFifoMode = "real-atomic" | "real" | "delta";

/** Reflector options an informer passes through (the informer sets the rest itself). */
export type InformerReflectorOptions<T> = Omit<
  ReflectorOptions<T>,
  "clock" | "rand" | "resyncPeriod" | "shouldResync" | "watchErrorHandler" | "transformer" | "typeDescription"
>;

/** Options of {@link SharedInformer.addEventHandlerWithOptions} (`cache.HandlerOptions`, plus error policy). */
export interface HandlerOptions<T> {
  /**
   * Requested resync period in ms; 0 = this handler does not want resyncs. Default: the informer's
   * `resyncPeriod`. Clamped as described in {@link SharedIndexInformerOptions.resyncPeriod} (I4).
   */
  readonly resyncPeriod?: number;
  /** Name for events and stats. Default: the handler's class name. */
  readonly handlerName?: string;
  /** Error policy for this handler. Default: the informer's `onHandlerError`. */
  readonly onHandlerError?: HandlerErrorCallback<T>;
  /** Crash the process on a handler error (client-go `ReallyCrash`). Default: the informer's setting (false). */
  readonly crashOnHandlerError?: boolean;
}

/** Options of {@link newSharedIndexInformer} (`cache.SharedIndexInformerOptions` plus informer-ts additions). */
export interface SharedIndexInformerOptions<T> {
  /**
   * Default handler resync period **and** resync check period, in ms (I2). 0 (the default) disables resync for
   * every handler, whatever it requests. A handler's non-zero request is raised to 1 s; before `run`, a request
   * below the check period lowers the check period to it; after `run`, it is raised to the check period (I4).
   */
  readonly resyncPeriod?: number;
  /** Indexes of the informer's indexer. Default none. */
  readonly indexers?: Indexers<T>;
  /** Applied to every object before it is stored; must be idempotent. Also settable by `setTransform`. */
  readonly transform?: TransformFunc<T>;
  /** The informer's name: in status, events, the reflector's name and the mutation detector. */
  readonly name?: string;
  /** Describes the objects (`ObjectDescription`, the reflector's type description). Default from `objectType`. */
  readonly objectDescription?: string;
  /** Time source for resync, backoff, watch timeouts and the handler-error pause. Default `realClock`. */
  readonly clock?: Clock;
  /** Randomness for the reflector's jitter. Default `mathRand`. */
  readonly rand?: Rand;
  /**
   * Metrics provider for `informer_queued_items` and `informer_processing_latency_seconds` (RealFIFO) and
   * `informer_store_resource_version` (indexer) (§2b). Published only when `metricLabels` is given too.
   */
  readonly metrics?: MetricsProvider;
  /** Identity labels of the metrics (`InformerNameAndResource`); the caller keeps them unique per process. */
  readonly metricLabels?: InformerMetricLabels;
  /** The FIFO; default `"real-atomic"` (client-go 1.36). */
  readonly fifo?: InformerFifoMode;
  /** Process popped deltas in batches (`InOrderInformersBatchProcess`; RealFIFO only). Default true. */
  readonly batchProcessing?: boolean;
  /** Called for each error `ListAndWatch` returns (F21). Default: the reflector's. Also `setWatchErrorHandler`. */
  readonly watchErrorHandler?: WatchErrorHandler;
  /** Passed to the reflector: watch timeouts, backoff, watch-list, page size, logger, liveness… */
  readonly reflector?: InformerReflectorOptions<T>;
  /**
   * The cache mutation detector (I18), or options for one. Default: enabled by `KUBE_CACHE_MUTATION_DETECTOR`,
   * on `clock`. It records every object delivered by `onAdd` / `onUpdate`.
   */
  readonly mutationDetector?: MutationDetector | MutationDetectorOptions;
  /** Default error policy of every handler (see {@link HandlerOptions.onHandlerError}). */
  readonly onHandlerError?: HandlerErrorCallback<T>;
  /** Default for every handler: crash like client-go's `ReallyCrash`. Default false (report and skip). */
  readonly crashOnHandlerError?: boolean;
  /**
   * Where the informer writes what nobody else received (a handler or processing error with no `events$`
   * subscriber, a second `run`, a subscriber that threw). Default: a console logger showing `warn` and `error`.
   */
  readonly logger?: Logger;
}

/** Options of {@link SharedInformer.notifications$}: one registration per subscription. */
export interface NotificationsOptions {
  /** The registration's name in stats, events and metrics. Default `notifications$#<n>`. */
  readonly name?: string;
  /** Requested resync period in ms, as for `addEventHandlerWithResyncPeriod`. Default: the informer's. */
  readonly resyncPeriod?: number;
  /**
   * Bound of the registration's buffer. Default: unbounded (client-go's listener buffer): the stream is push and
   * a consumer that falls behind grows the buffer. With a bound, `overflow` says what happens when it is hit.
   * The bound must exceed the cache size plus the largest burst (a relist delivers the whole cache at once).
   */
  readonly maxPending?: number;
  /**
   * What a full buffer does: `"error"` (default) fails the subscription with a {@link ListenerOverflowError};
   * `"relist"` drops the buffered notifications, emits `{ type: "relist" }`, replays the cache as
   * `add(obj, isInInitialList: true)` notifications and a new `{ type: "synced" }`, then goes on. Either way a
   * `listenerOverflow` event is published.
   */
  readonly overflow?: "error" | "relist";
}

/**
 * What {@link SharedInformer.notifications$} emits: the handler notifications (`add` with `isInInitialList`,
 * `update`, `delete` whose `oldObj` may be a {@link DeletedFinalStateUnknown} tombstone), plus two markers:
 * `synced` once the registration has synced (its `hasSynced` turned true: the informer synced and every
 * initial-list `add` was delivered), and `relist` before a replay of the cache after an overflow (bounded
 * `"relist"` policy only). After `relist`, the `add`s up to the next `synced` are the complete cache: an object
 * the consumer knew that is not among them was deleted meanwhile (kube-rs's `Init`/`InitApply`/`InitDone`).
 */
export type InformerNotification<T> = Notification<T> | { readonly type: "synced" } | { readonly type: "relist" };

/**
 * Events an informer publishes: its handlers' errors and slow calls (see {@link ListenerEvent}), delta processing
 * errors (an index function or key function that throws; client-go logs and drops the delta), and its lifecycle.
 */
export type SharedInformerEvent =
  | ListenerEvent
  | { readonly type: "processError"; readonly error: unknown }
  | {
      /** A consumer of one of the informer's streams threw; caught, counted and skipped (never re-thrown). */
      readonly type: "subscriberError";
      readonly stream: string;
      readonly callback: SubscriberCallback;
      readonly error: unknown;
    }
  | {
      /** A bounded `notifications$` registration hit its `maxPending`. */
      readonly type: "listenerOverflow";
      readonly handlerName: string;
      readonly pendingNotifications: number;
      readonly policy: "error" | "relist";
    }
  | { readonly type: "started" }
  | { readonly type: "synced" }
  | { readonly type: "stopped" };

/** A snapshot of an informer: "why isn't it synced?" answered by data. */
export interface SharedInformerStatus {
  readonly name: string;
  readonly started: boolean;
  readonly stopped: boolean;
  /** `hasSynced()`: the store holds the initial list (says nothing about handlers). */
  readonly synced: boolean;
  readonly lastSyncResourceVersion: string;
  /** Objects in the indexer. */
  readonly storeSize: number;
  /** The resync check period in ms (I4: lowered by handlers added before `run`); 0 = no resync. */
  readonly resyncCheckPeriod: number;
  /** Deltas waiting in the FIFO (0 before `run`). */
  readonly queuedDeltas: number;
  /** Delta processing errors so far (see the `processError` event). */
  readonly processErrors: number;
  /** The reflector's status (phase, last error with code and reason, counts…); undefined before `run`. */
  readonly reflector: ReflectorStatus | undefined;
  /** Per-handler delivery statistics, in registration order. */
  readonly handlers: readonly ListenerStats[];
}

/**
 * `cache.SharedInformer`: a cache of one resource kept eventually consistent with the server by a reflector, fanned
 * out to any number of event handlers. See {@link newSharedIndexInformer} for the contract.
 */
export interface SharedInformer<T> {
  /** Adds a handler with the informer's default resync period. Throws once the informer has stopped (I3). */
  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration;
  /** Adds a handler asking for its own resync period (ms; clamped per I4). Throws once stopped. */
  addEventHandlerWithResyncPeriod(
    handler: ResourceEventHandler<T>,
    resyncPeriod: number,
  ): ResourceEventHandlerRegistration;
  /** Adds a handler with options. Throws once stopped. */
  addEventHandlerWithOptions(
    handler: ResourceEventHandler<T>,
    options: HandlerOptions<T>,
  ): ResourceEventHandlerRegistration;
  /**
   * Removes a handler (I14): no callback starts after this returns and its buffered notifications are dropped; a
   * callback in flight finishes (await `handle.shutdownDone()`, or use {@link shutDownEventHandler}). Idempotent;
   * another informer's handle is a no-op; a value that is not a registration throws `TypeError`.
   */
  removeEventHandler(handle: ResourceEventHandlerRegistration): void;
  /** The informer's cache. Objects are shared with every handler: never mutate them. */
  getStore(): Store<T>;
  /**
   * Runs the informer until `signal` aborts, then resolves once the reflector, the delta loop and every handler's
   * in-flight callback have stopped and every timer and listener is released (I15). The informer adds exactly one
   * listener to `signal`, removed when it stops. An informer runs once: a second call logs a warning and
   * resolves at once.
   */
  run(signal: AbortSignal): Promise<void>;
  /**
   * `run` as an Observable: subscribing runs the informer, unsubscribing stops it; emits nothing and completes
   * once everything is released. Subscribe once (an informer runs once).
   */
  run$(): Observable<never>;
  /**
   * The informer's notifications as a stream: **each subscription is a registration** (as `addEventHandler`),
   * with its own buffer, resync and `hasSynced`; unsubscribing removes it (I14). A subscription made while the
   * informer runs first gets the cache as `add(obj, true)` (I5). Completes when the informer stops; a
   * subscription to a stopped informer completes at once. Push, unbounded by default; see
   * {@link NotificationsOptions} for the bounded form. Read-only and safe: a consumer that throws is reported
   * (a `subscriberError` event) and keeps receiving.
   */
  notifications$(options?: NotificationsOptions): Observable<InformerNotification<T>>;
  /**
   * True once the FIFO has delivered the initial list into the store (I13). Bound: `informer.hasSynced` can be
   * passed around as a function. Says nothing about handlers: use the registration's `hasSynced`.
   */
  hasSynced(): boolean;
  /** {@link SharedInformer.hasSynced} as a {@link DoneChecker}. */
  hasSyncedChecker(): DoneChecker;
  /** The reflector's last synced resource version; "" before the first list (I19). Not synchronised with the store. */
  lastSyncResourceVersion(): string;
  /** Sets the watch error handler. Throws `informer has already started` after `run` (I16). */
  setWatchErrorHandler(handler: WatchErrorHandler): void;
  /** Sets the transform. Throws `informer has already started` after `run` (I16). */
  setTransform(transform: TransformFunc<T>): void;
  /** Whether `run` has been called. */
  hasStarted(): boolean;
  /** Whether the informer has stopped; a stopped informer never runs again. */
  isStopped(): boolean;
  /**
   * Handler errors, slow handlers, processing errors, subscriber errors, overflows and lifecycle. Hot, no replay,
   * read-only; completes once stopped.
   */
  readonly events$: Observable<SharedInformerEvent>;
  /** `hasSynced()` as a stream: the current value on subscribe, then `true` once; completes after `true` or on stop. */
  readonly synced$: Observable<boolean>;
  /** The current status snapshot. */
  status(): SharedInformerStatus;
  /**
   * The status: a snapshot on subscribe, then one on every reflector status change, handler change and lifecycle
   * change; completes once the informer has stopped.
   */
  readonly status$: Observable<SharedInformerStatus>;
  /** The reflector's events (list/watch cycle, backoffs, errors, bookmarks) while the informer runs. */
  readonly reflectorEvents$: Observable<ReflectorEvent>;
  /** The FIFO's events (slow processing, known-object lookups) while the informer runs. */
  readonly fifoEvents$: Observable<FIFOEvent>;
}

/** `cache.SharedIndexInformer`: a {@link SharedInformer} whose cache is an {@link Indexer}. */
export interface SharedIndexInformer<T> extends SharedInformer<T> {
  /** Adds indexers and indexes the cached objects: allowed before and after `run`, throws once stopped (S16). */
  addIndexers(indexers: Indexers<T>): void;
  getIndexer(): Indexer<T>;
}

/** The FIFO, reflector and delta loop of one `run` (client-go's `controller`). */
interface Pipeline<T> {
  readonly queue: Queue<T>;
  readonly reflector: Reflector<T>;
}

function checkPeriod(what: string, ms: unknown): asserts ms is number {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`${what} must be a finite number of milliseconds ≥ 0, got ${describeValue(ms)}`);
  }
}

function describeObjectType(t: KubeObject | undefined): string | undefined {
  if (typeof t?.kind !== "string" || t.kind === "") return undefined;
  return typeof t.apiVersion === "string" && t.apiVersion !== "" ? `${t.apiVersion}, Kind=${t.kind}` : t.kind;
}

function hasEvents(queue: unknown): queue is { events$: Observable<FIFOEvent> } {
  return (queue as { events$?: unknown }).events$ instanceof Observable;
}

let anonymousSubscriptions = 0;

class SharedIndexInformerImpl<T> implements SharedIndexInformer<T> {
  readonly events$: Observable<SharedInformerEvent>;
  readonly synced$: Observable<boolean>;
  readonly status$: Observable<SharedInformerStatus>;
  readonly reflectorEvents$: Observable<ReflectorEvent>;
  readonly fifoEvents$: Observable<FIFOEvent>;

  private readonly indexer: StoreWithTransactions<T>;
  private readonly processor: SharedProcessor<T>;
  private readonly listerWatcher: ListerWatcher<T>;
  private readonly objectType: KubeObject | undefined;
  private readonly name: string;
  private readonly objectDescription: string;
  private readonly clock: Clock;
  private readonly options: SharedIndexInformerOptions<T>;
  private readonly defaultEventHandlerResyncPeriod: number;
  private resyncCheckPeriod: number;
  private readonly synced: DoneLatch;
  private readonly detector: MutationDetector;
  private transform: TransformFunc<T> | undefined;
  private watchErrorHandler: WatchErrorHandler | undefined;
  private pipeline: Pipeline<T> | undefined;
  private readonly pipeline$ = new ReplaySubject<Pipeline<T>>(1);
  private readonly statusChanged = new Subject<void>();
  private readonly syncedNow = new Subject<void>();
  private readonly events: EventStream<SharedInformerEvent>;
  private readonly reporter: SubscriberErrorReporter;
  private readonly logger: Logger;
  private readonly pendingGauge: Gauge | undefined;
  /** Emits once (and replays) when the informer has stopped for good: completes the streams. */
  private readonly stopped$ = new ReplaySubject<void>(1);
  private started = false;
  private stopped = false;
  private processErrors = 0;
  /** The informer as the `processDeltas` handler (`sharedIndexInformer.OnAdd/OnUpdate/OnDelete`, I7). */
  private readonly deltaHandler: ResourceEventHandler<T>;

  constructor(lw: ListerWatcher<T>, objectType: KubeObject | undefined, options: SharedIndexInformerOptions<T>) {
    if (typeof lw !== "object" || lw === null || typeof lw.list !== "function" || typeof lw.watch !== "function") {
      throw new TypeError(`listerWatcher must have list and watch functions, got ${describeValue(lw)}`);
    }
    const resync = options.resyncPeriod ?? 0;
    checkPeriod("resyncPeriod", resync);
    const fifo = options.fifo ?? "real-atomic";
    if (fifo !== "real-atomic" && fifo !== "real" && fifo !== "delta") {
      throw new RangeError(`fifo must be "real-atomic", "real" or "delta", got ${describeValue(fifo)}`);
    }
    this.listerWatcher = lw;
    this.objectType = objectType;
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.name = options.name ?? describeObjectType(objectType) ?? "informer";
    this.objectDescription = options.objectDescription ?? describeObjectType(objectType) ?? this.name;
    this.defaultEventHandlerResyncPeriod = resync;
    this.resyncCheckPeriod = resync;
    this.transform = options.transform;
    this.watchErrorHandler = options.watchErrorHandler;
    const metrics =
      options.metrics !== undefined && options.metricLabels !== undefined
        ? { provider: options.metrics, labels: options.metricLabels }
        : undefined;
    this.indexer = newIndexer<T>(deletionHandlingMetaNamespaceKeyFunc, options.indexers ?? {}, { metrics });
    this.logger = options.logger ?? defaultLogger;
    this.reporter = new SubscriberErrorReporter({
      metrics: options.metrics,
      logger: this.logger,
      publish: (r) => {
        if (!this.events.observed) return false;
        this.events.emit({ type: "subscriberError", stream: r.stream, callback: r.callback, error: r.error });
        return true;
      },
    });
    this.events = new EventStream<SharedInformerEvent>({
      name: `informer ${this.name} events$`,
      reporter: this.reporter,
    });
    this.events$ = this.events.events$;
    this.pendingGauge = metrics?.provider.gauge({
      name: listenerPendingNotificationsMetricName,
      help: "Notifications waiting in an informer handler's buffer (the handler's lag)",
      labelNames: ["name", "group", "version", "resource", "handler"],
    });
    this.processor = new SharedProcessor<T>(this.clock);
    this.synced = new DoneLatch(`SharedIndexInformer ${this.objectDescription}`);
    const md = options.mutationDetector;
    this.detector =
      md !== undefined && "addObject" in md ? md : newCacheMutationDetector(this.name, { clock: this.clock, ...md });
    this.deltaHandler = {
      onAdd: (obj, isInInitialList) => this.onAdd(obj, isInInitialList),
      onUpdate: (oldObj, newObj) => this.onUpdate(oldObj, newObj),
      onDelete: (obj) => this.onDelete(obj),
    };
    const safe = <V>(stream: Observable<V>, what: string) =>
      safeObservable(stream, `informer ${this.name} ${what}`, this.reporter);
    this.synced$ = safe(
      new Observable<boolean>((subscriber) => {
        const now = this.synced.isDone();
        subscriber.next(now);
        if (now || this.stopped) {
          subscriber.complete();
          return undefined;
        }
        const synced = this.syncedNow.subscribe(() => {
          subscriber.next(true);
          subscriber.complete();
        });
        const done = this.stopped$.subscribe(() => subscriber.complete());
        return () => {
          synced.unsubscribe();
          done.unsubscribe();
        };
      }),
      "synced$",
    );
    const status$ = new Observable<SharedInformerStatus>((subscriber) => {
      subscriber.next(this.status());
      const changes = this.statusChanged.subscribe(() => subscriber.next(this.status()));
      const reflector = this.pipeline$
        .pipe(
          switchMap((p) => p.reflector.status$),
          takeUntil(this.stopped$),
        )
        .subscribe(() => subscriber.next(this.status()));
      const done = this.stopped$.subscribe(() => subscriber.complete());
      return () => {
        changes.unsubscribe();
        reflector.unsubscribe();
        done.unsubscribe();
      };
    });
    this.status$ = safe(status$, "status$");
    this.reflectorEvents$ = safe(
      this.pipeline$.pipe(
        switchMap((p) => p.reflector.events$),
        takeUntil(this.stopped$),
      ),
      "reflectorEvents$",
    );
    this.fifoEvents$ = safe(
      this.pipeline$.pipe(
        switchMap((p) => (hasEvents(p.queue) ? p.queue.events$ : EMPTY)),
        takeUntil(this.stopped$),
      ),
      "fifoEvents$",
    );
    this.hasSynced = this.hasSynced.bind(this);
  }

  // ---- configuration (I16, S16) ---------------------------------------------------------------------------

  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.started) throw new Error("informer has already started");
    if (typeof handler !== "function") {
      throw new TypeError(`watch error handler is not a function: ${describeValue(handler)}`);
    }
    this.watchErrorHandler = handler;
  }

  setTransform(transform: TransformFunc<T>): void {
    if (this.started) throw new Error("informer has already started");
    if (typeof transform !== "function")
      throw new TypeError(`transform is not a function: ${describeValue(transform)}`);
    this.transform = transform;
  }

  addIndexers(indexers: Indexers<T>): void {
    if (this.stopped) throw new Error("indexer was not added because it has stopped already");
    this.indexer.addIndexers(indexers);
  }

  getStore(): Store<T> {
    return this.indexer;
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  // ---- handlers (I3–I5, I14) ------------------------------------------------------------------------------

  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    return this.addEventHandlerWithOptions(handler, {});
  }

  addEventHandlerWithResyncPeriod(
    handler: ResourceEventHandler<T>,
    resyncPeriod: number,
  ): ResourceEventHandlerRegistration {
    return this.addEventHandlerWithOptions(handler, { resyncPeriod });
  }

  addEventHandlerWithOptions(
    handler: ResourceEventHandler<T>,
    options: HandlerOptions<T>,
  ): ResourceEventHandlerRegistration {
    return this.register(handler, options);
  }

  notifications$(options: NotificationsOptions = {}): Observable<InformerNotification<T>> {
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
      if (this.stopped) {
        subscriber.complete();
        return undefined;
      }
      let current: ProcessorListener<T> | undefined;
      let registering = false;
      const sink: NotificationSink<T> = (n) => subscriber.next(n);
      const onOverflow = (listener: ProcessorListener<T>, pending: number) => {
        // Inside the producer's synchronous turn: stop the registration now (later notifications are ignored)
        // and act between turns, where a replay of the cache is exact (as when a handler joins, I5).
        if (current !== listener || listener.isStopped) return;
        const cacheTooLarge = registering;
        this.processor.removeListener(listener);
        this.statusChanged.next();
        this.events.emit({ type: "listenerOverflow", handlerName: name, pendingNotifications: pending, policy });
        queueMicrotask(() => {
          if (current !== listener || subscriber.closed) return;
          current = undefined;
          if (policy === "error" || cacheTooLarge || this.stopped) {
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
          listener = this.register(sink, {
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
      const done = this.stopped$.subscribe(() => subscriber.complete());
      return () => {
        done.unsubscribe();
        const listener = current;
        current = undefined;
        if (listener !== undefined && this.processor.removeListener(listener)) this.statusChanged.next();
      };
    });
    return safeObservable(stream, `informer ${this.name} notifications$ ${name}`, this.reporter);
  }

  private register(
    handler: ResourceEventHandler<T> | NotificationSink<T>,
    options: HandlerOptions<T> & {
      readonly maxPending?: number;
      readonly onOverflow?: (pending: number) => void;
      readonly onBeforeReplay?: (listener: ProcessorListener<T>) => void;
    },
  ): ProcessorListener<T> {
    if (this.stopped) {
      const name = options.handlerName ?? describeValue(handler);
      throw new Error(`handler ${name} was not added to shared informer because it has stopped already`);
    }
    let resyncPeriod = options.resyncPeriod ?? this.defaultEventHandlerResyncPeriod;
    checkPeriod("resyncPeriod", resyncPeriod);
    if (resyncPeriod > 0) {
      if (resyncPeriod < minimumResyncPeriod) resyncPeriod = minimumResyncPeriod;
      if (resyncPeriod < this.resyncCheckPeriod) {
        if (this.started) {
          resyncPeriod = this.resyncCheckPeriod;
        } else {
          this.resyncCheckPeriod = resyncPeriod;
          this.processor.resyncCheckPeriodChanged(resyncPeriod);
        }
      }
    }
    const listener = new ProcessorListener<T>(handler, {
      clock: this.clock,
      handlerName: options.handlerName,
      requestedResyncPeriod: resyncPeriod,
      resyncPeriod: determineResyncPeriod(resyncPeriod, this.resyncCheckPeriod),
      upstreamHasSynced: this.synced,
      onHandlerError: options.onHandlerError ?? this.options.onHandlerError,
      crashOnHandlerError: options.crashOnHandlerError ?? this.options.crashOnHandlerError,
      events: this.events,
      maxPending: options.maxPending,
      onOverflow: options.onOverflow,
      pendingGauge: this.pendingGaugeOption(),
      logger: this.logger,
    });
    options.onBeforeReplay?.(listener);
    if (!this.started) {
      this.processor.addListener(listener);
      this.statusChanged.next();
      return listener;
    }
    // Joining a running informer (I5). This block is one synchronous turn, so no delta is processed meanwhile
    // (client-go holds blockDeltas): the replay is exactly the cache at this instant, queued before any later
    // notification and before the listener may learn that upstream has synced.
    const processorRunning = this.processor.addListener(listener);
    for (const item of this.indexer.list()) listener.add({ type: "add", newObj: item, isInInitialList: true });
    if (processorRunning) listener.watchSynced();
    this.statusChanged.next();
    return listener;
  }

  /** The lag gauge for a new listener (which adds its `handler` label), when metrics are on. */
  private pendingGaugeOption(): { gauge: Gauge; labels: Record<string, string> } | undefined {
    const labels = this.options.metricLabels;
    if (this.pendingGauge === undefined || labels === undefined) return undefined;
    return { gauge: this.pendingGauge, labels: { ...labels } };
  }

  removeEventHandler(handle: ResourceEventHandlerRegistration): void {
    if (!(handle instanceof ProcessorListener)) {
      throw new TypeError(`not an event handler registration: ${describeValue(handle)}`);
    }
    if (this.processor.removeListener(handle)) this.statusChanged.next();
  }

  // ---- state ----------------------------------------------------------------------------------------------

  hasSynced(): boolean {
    return this.synced.isDone();
  }

  hasSyncedChecker(): DoneChecker {
    return this.synced;
  }

  lastSyncResourceVersion(): string {
    return this.pipeline?.reflector.lastSyncResourceVersion() ?? "";
  }

  hasStarted(): boolean {
    return this.started;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  status(): SharedInformerStatus {
    const queue = this.pipeline?.queue as { length?: unknown } | undefined;
    return {
      name: this.name,
      started: this.started,
      stopped: this.stopped,
      synced: this.synced.isDone(),
      lastSyncResourceVersion: this.lastSyncResourceVersion(),
      storeSize: this.indexer.size,
      resyncCheckPeriod: this.resyncCheckPeriod,
      queuedDeltas: typeof queue?.length === "number" ? queue.length : 0,
      processErrors: this.processErrors,
      reflector: this.pipeline?.reflector.status(),
      handlers: this.processor.list().map((l) => l.stats()),
    };
  }

  /** @internal The processor (tests). */
  get sharedProcessor(): SharedProcessor<T> {
    return this.processor;
  }

  // ---- running (I15) --------------------------------------------------------------------------------------

  run$(): Observable<never> {
    return runAsObservable((signal) => this.run(signal));
  }

  async run(callerSignal: AbortSignal): Promise<void> {
    if (this.started) {
      safeLog(
        this.logger,
        "warn",
        `the shared informer ${this.name} has started already; running it more than once is not allowed`,
        { informer: this.name },
      );
      return;
    }
    const pipeline = this.buildPipeline();
    // One listener on the caller's signal (shared by many informers in a factory); every part of this run
    // listens to the link instead, and the link lets go of the caller's signal once the run is over.
    const link = new SignalLink(callerSignal);
    const signal = link.signal;
    this.pipeline = pipeline;
    this.started = true;
    this.pipeline$.next(pipeline);
    this.events.emit({ type: "started" });
    this.statusChanged.next();

    // The processor and the mutation detector stop strictly after the reflector and the delta loop.
    const processorStop = new AbortController();
    const detectorDone = this.detector.run(processorStop.signal);
    const processorDone = this.processor.run(processorStop.signal);
    const markSynced = () => {
      if (signal.aborted || this.synced.isDone()) return;
      this.synced.complete();
      this.events.emit({ type: "synced" });
      this.statusChanged.next();
      this.syncedNow.next();
    };
    const fifoSynced = pipeline.queue.hasSyncedChecker();
    if (fifoSynced.isDone()) markSynced();
    else fifoSynced.done().then(markSynced, (error: unknown) => this.reportProcessError(error));

    // The reflector stops with the caller's signal, or when the delta loop ends first.
    const reflectorStop = new AbortController();
    let reflectorRun: Promise<void> | undefined;
    try {
      // Handled at once: a rejection (only "already running", which a fresh reflector cannot hit) must not wait
      // for the finally block below, where it would already count as an unhandled rejection.
      reflectorRun = pipeline.reflector
        .run(AbortSignal.any([signal, reflectorStop.signal]))
        .catch((error: unknown) => this.reportProcessError(error));
      await processLoop<T>({
        queue: pipeline.queue,
        process: (deltas, isInInitialList) =>
          processDeltas(this.deltaHandler, this.indexer, deltas, isInInitialList, deletionHandlingMetaNamespaceKeyFunc),
        processBatch: (deltas, isInInitialList) =>
          processDeltasInBatch(
            this.deltaHandler,
            this.indexer,
            deltas,
            isInInitialList,
            deletionHandlingMetaNamespaceKeyFunc,
          ),
        batchProcess: this.options.batchProcessing ?? true,
        signal,
        onError: (error) => this.reportProcessError(error),
      });
    } finally {
      reflectorStop.abort();
      await reflectorRun;
      this.stopped = true;
      processorStop.abort();
      await Promise.all([processorDone, detectorDone]);
      link.release();
      this.events.emit({ type: "stopped" });
      this.statusChanged.next();
      // Stopped for good: complete every stream.
      this.stopped$.next();
      this.stopped$.complete();
      this.statusChanged.complete();
      this.syncedNow.complete();
      this.events.complete();
    }
  }

  private buildPipeline(): Pipeline<T> {
    const fifo = this.options.fifo ?? "real-atomic";
    const metrics =
      this.options.metrics !== undefined && this.options.metricLabels !== undefined
        ? { provider: this.options.metrics, labels: this.options.metricLabels }
        : undefined;
    const queue = newQueueFIFO<T>({
      knownObjects: this.indexer,
      name: `${fifo === "delta" ? "DeltaFIFO" : "RealFIFO"} ${this.objectDescription}`,
      transformer: this.transform,
      metrics,
      clock: this.clock,
      inOrderInformers: fifo !== "delta",
      atomicFIFO: fifo === "real-atomic",
    });
    const reflector = new Reflector<T>(this.listerWatcher, this.objectType, queue, {
      name: this.name,
      ...this.options.reflector,
      typeDescription: this.objectDescription,
      clock: this.clock,
      rand: this.options.rand,
      resyncPeriod: this.resyncCheckPeriod,
      shouldResync: () => this.processor.shouldResync(),
      watchErrorHandler: this.watchErrorHandler,
      transformer: this.transform,
    });
    return { queue, reflector };
  }

  private reportProcessError(error: unknown): void {
    this.processErrors++;
    if (this.events.observed) {
      this.events.emit({ type: "processError", error });
    } else {
      const message = error instanceof Error ? error.message : describeValue(error);
      safeLog(this.logger, "error", `informer ${this.name}: error processing deltas: ${message}`, {
        informer: this.name,
      });
    }
  }

  // ---- the informer as the delta handler (I6, I7) -----------------------------------------------------------

  private onAdd(obj: T, isInInitialList: boolean): void {
    this.detector.addObject(obj);
    this.processor.distribute({ type: "add", newObj: obj, isInInitialList }, false);
  }

  private onUpdate(oldObj: T, newObj: T): void {
    // An update that did not change the resource version (a resync, or a relist of an unchanged object) is a
    // sync notification: only the listeners due a resync receive it.
    let isSync = false;
    const newMeta = metaOf(newObj);
    const oldMeta = metaOf(oldObj);
    if (newMeta !== undefined && oldMeta !== undefined) {
      isSync = (newMeta.resourceVersion ?? "") === (oldMeta.resourceVersion ?? "");
    }
    this.detector.addObject(newObj);
    this.processor.distribute({ type: "update", oldObj, newObj }, isSync);
  }

  private onDelete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.processor.distribute({ type: "delete", oldObj: obj }, false);
  }
}

/**
 * Creates a shared index informer (`cache.NewSharedIndexInformerWithOptions`) over the objects `lw` lists and
 * watches. `objectType` is client-go's `exampleObject`: its `apiVersion`/`kind` (when set) make the reflector skip
 * objects of another kind and name the informer.
 *
 * Contract (client-go's SharedInformer): the cache ({@link SharedIndexInformer.getIndexer}, keyed by
 * `deletionHandlingMetaNamespaceKeyFunc`) is eventually consistent with the server, and for each object the states
 * it holds are a subsequence of the server's, in order. A handler added before `run` sees every change; a handler
 * added later first gets `onAdd(obj, true)` for each cached object, then every later change (I5). A notification
 * is delivered after the cache and its indexes reflect it. Per handler, callbacks are sequential and in order per
 * object; there is no ordering across handlers. `onUpdate` may merge several changes; `onDelete` may receive a
 * `DeletedFinalStateUnknown` whose `obj` is stale; a delete and re-create under one name may appear as one update
 * (compare UIDs). Handlers must not mutate objects.
 *
 * Pipeline (I6, I15): on `run`, a {@link Reflector} lists and watches into a FIFO (`fifo`: atomic RealFIFO by
 * default); a loop pops deltas and, in one synchronous turn per pop (client-go's `blockDeltas`), applies them to the
 * indexer with `processDeltas` and queues notifications in every handler's own unbounded buffer; each handler
 * drains its buffer in its own async loop, so a slow handler delays neither the cache nor other handlers.
 *
 * Resync (I4, I9): with `resyncPeriod` > 0 the reflector asks every check period whether a handler is due; if so
 * the FIFO replays the cache as updates with an unchanged resource version, delivered only to the due handlers. A
 * relist item whose resource version did not change counts as such a sync update too.
 *
 * Differences from client-go: periods are milliseconds; errors are thrown instead of returned; `run` takes an
 * `AbortSignal` and returns a promise; handler errors are reported and skipped by default (`crashOnHandlerError`
 * restores client-go's crash); callbacks may be async (awaited per handler); a failing initial-list `onAdd` still
 * counts toward the registration's `hasSynced`; listener buffers shrink; there is no `GetController()`;
 * `lastSyncResourceVersion` always returns the real value; metrics need explicit `metricLabels`; `status()`,
 * `status$`, `synced$`, `events$`, `reflectorEvents$`, `fifoEvents$`, `run$()` and `notifications$()` are
 * additions. Every stream is a read-only Observable whose throwing consumers are reported (`subscriberError`
 * event, `stream_subscriber_errors_total`), never re-thrown into the host.
 */
export function newSharedIndexInformer<T>(
  lw: ListerWatcher<T>,
  objectType?: KubeObject,
  options: SharedIndexInformerOptions<T> = {},
): SharedIndexInformer<T> {
  return new SharedIndexInformerImpl<T>(lw, objectType, options);
}

/** `cache.NewSharedInformer`: {@link newSharedIndexInformer} with a default resync period (ms) and no indexers. */
export function newSharedInformer<T>(
  lw: ListerWatcher<T>,
  objectType?: KubeObject,
  resyncPeriod = 0,
): SharedInformer<T> {
  return new SharedIndexInformerImpl<T>(lw, objectType, { resyncPeriod });
}

/**
 * Removes `handle` and resolves once its in-flight callback, if any, has returned (client-go master's
 * `ShutDownEventHandler`). Do not await it from inside that handler's own callback: it would wait for itself.
 */
export async function shutDownEventHandler<T>(
  informer: SharedInformer<T>,
  handle: ResourceEventHandlerRegistration,
): Promise<void> {
  informer.removeEventHandler(handle);
  await handle.shutdownDone();
}
