import type { KubeObject } from "@informer-ts/apimachinery";
import { type Clock, realClock } from "@informer-ts/clock";
import {
  EventStream,
  type Gauge,
  type Logger,
  newConsoleLogger,
  runAsObservable,
  SignalLink,
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
import { type NotificationsHost, notificationsStream, type RegistrationOptions } from "./informer-notifications.js";
import { checkPeriod } from "./internal/check-period.js";
import type { FIFOEvent } from "./internal/fifo-core.js";
import { describeValue, metaOf } from "./internal/meta-accessor.js";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.js";
import type { ListerWatcher } from "./listwatch.js";
import { type MutationDetector, newCacheMutationDetector } from "./mutation-detector.js";
import {
  listenerPendingNotificationsMetricName,
  type NotificationSink,
  ProcessorListener,
  type ResourceEventHandlerRegistration,
} from "./processor-listener.js";
import { Reflector, type WatchErrorHandler } from "./reflector/reflector.js";
import type { ReflectorEvent } from "./reflector/status.js";
import type {
  HandlerOptions,
  InformerNotification,
  NotificationsOptions,
  SharedIndexInformer,
  SharedIndexInformerOptions,
  SharedInformerEvent,
  SharedInformerStatus,
} from "./shared-informer.js";
import { determineResyncPeriod, minimumResyncPeriod, SharedProcessor } from "./shared-processor.js";
import type { Indexer, Indexers, Store } from "./store.js";
import { newIndexer, type StoreWithTransactions } from "./store-impl.js";
import { type DoneChecker, DoneLatch } from "./synctrack.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";
import type { TransformFunc } from "./transform-func.js";

const defaultLogger = newConsoleLogger("informer");

/** The FIFO, reflector and delta loop of one `run` (client-go's `controller`). */
interface Pipeline<T> {
  readonly queue: Queue<T>;
  readonly reflector: Reflector<T>;
}

function describeObjectType(t: KubeObject | undefined): string | undefined {
  if (typeof t?.kind !== "string" || t.kind === "") return undefined;
  return typeof t.apiVersion === "string" && t.apiVersion !== "" ? `${t.apiVersion}, Kind=${t.kind}` : t.kind;
}

function hasEvents(queue: unknown): queue is { events$: Observable<FIFOEvent> } {
  return (queue as { events$?: unknown }).events$ instanceof Observable;
}

/**
 * The implementation behind {@link newSharedIndexInformer} (`sharedIndexInformer`): configuration, handler
 * registration, state and status, the run (reflector → FIFO → delta loop → processor), and the informer as the delta
 * handler. The contract is on {@link SharedInformer} and {@link newSharedIndexInformer}.
 */
export class SharedIndexInformerImpl<T> implements SharedIndexInformer<T> {
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
  /** What `notifications$` subscriptions use of this informer. */
  private readonly notificationsHost: NotificationsHost<T>;

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
    this.notificationsHost = {
      name: this.name,
      reporter: this.reporter,
      stopped$: this.stopped$,
      isStopped: () => this.stopped,
      canShare: (resyncPeriod) =>
        !this.started && !this.stopped && (resyncPeriod ?? this.defaultEventHandlerResyncPeriod) === 0,
      register: (sink, registration) => this.register(sink, registration),
      unregister: (listener) => this.processor.removeListener(listener),
      statusChanged: () => this.statusChanged.next(),
      publish: (event) => this.events.emit(event),
    };
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
    return notificationsStream(this.notificationsHost, options);
  }

  private register(
    handler: ResourceEventHandler<T> | NotificationSink<T>,
    options: RegistrationOptions<T>,
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
      registrationNames: options.registrationNames,
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
    return {
      name: this.name,
      started: this.started,
      stopped: this.stopped,
      synced: this.synced.isDone(),
      lastSyncResourceVersion: this.lastSyncResourceVersion(),
      storeSize: this.indexer.size,
      resyncCheckPeriod: this.resyncCheckPeriod,
      queuedDeltas: this.pipeline?.queue.length ?? 0,
      processErrors: this.processErrors,
      reflector: this.pipeline?.reflector.status(),
      handlers: this.processor.list().flatMap((l) => l.registrationStats()),
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

    // The reflector stops with the caller's signal, or when the delta loop ends first: it runs on a link of this
    // run's link (no second listener on the caller's signal), aborted and released once the loop is over.
    const reflectorLink = new SignalLink(signal);
    let reflectorRun: Promise<void> | undefined;
    try {
      // Handled at once: a rejection (only "already running", which a fresh reflector cannot hit) must not wait
      // for the finally block below, where it would already count as an unhandled rejection.
      reflectorRun = pipeline.reflector
        .run(reflectorLink.signal)
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
      reflectorLink.abort();
      await reflectorRun;
      reflectorLink.release();
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
