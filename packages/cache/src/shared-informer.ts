import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import type { Logger, MetricsProvider, SubscriberCallback } from "@informer-ts/instrumentation";
import type { Observable } from "rxjs";
import type { ResourceEventHandler } from "./controller.js";
import type { FIFOEvent } from "./internal/fifo-core.js";
import type { InformerMetricLabels } from "./internal/rv-metric.js";
import type { ListerWatcher } from "./listwatch.js";
import type { MutationDetector, MutationDetectorOptions } from "./mutation-detector.js";
import type {
  HandlerErrorCallback,
  ListenerEvent,
  ListenerStats,
  Notification,
  ResourceEventHandlerRegistration,
} from "./processor-listener.js";
import type { ReflectorOptions, WatchErrorHandler } from "./reflector/reflector.js";
import type { ReflectorEvent, ReflectorStatus } from "./reflector/status.js";
import { SharedIndexInformerImpl } from "./shared-index-informer.js";
import type { Indexer, Indexers, Store } from "./store.js";
import type { DoneChecker } from "./synctrack.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";
import type { TransformFunc } from "./transform-func.js";

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
