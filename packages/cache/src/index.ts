// Public API of @informer-ts/cache: named re-exports only, grouped by concept.

// Object keys and names

export { indexFuncToKeyFuncAdapter, metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
export {
  deletionHandlingMetaNamespaceKeyFunc,
  type ExplicitKey,
  explicitKey,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from "./keys.js";
export {
  deletionHandlingObjectToName,
  metaObjectToName,
  newObjectName,
  ObjectName,
  objectToName,
  parseObjectName,
} from "./object-names.js";
export { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "./tombstone.js";

// Store, indexer, listers, thread-safe store, transactions

export {
  type AppendFunc,
  type GenericLister,
  type GenericNamespaceLister,
  type LabelSelectorLike,
  listAll,
  listAllByNamespace,
  newGenericLister,
} from "./listers.js";
export {
  type BookmarkStore,
  type DeletedFinalStateUnknownLike,
  IndexError,
  type Indexer,
  type Indexers,
  type IndexFunc,
  KeyError,
  type KeyFunc,
  type ReflectorStore,
  type ResourceVersionUpdater,
  type Store,
} from "./store.js";
export {
  newIndexer,
  newStore,
  type StoreOptions,
  type StoreWithTransactions,
} from "./store-impl.js";
export {
  type InformerMetricLabels,
  newThreadSafeStore,
  type StoreMetricsOptions,
  type ThreadSafeStore,
  type ThreadSafeStoreOptions,
} from "./thread-safe-store.js";
export {
  type ThreadSafeStoreTransaction,
  type Transaction,
  TransactionError,
  type TransactionStore,
  type TransactionType,
} from "./transaction.js";
export type { TransformFunc } from "./transform-func.js";

// Mutation detector

export {
  firstDifferencePath,
  MutationDetectedError,
  type MutationDetector,
  type MutationDetectorEvent,
  type MutationDetectorMode,
  type MutationDetectorOptions,
  type MutationReport,
  mutationDetectionEnabledFromEnv,
  newCacheMutationDetector,
  type ObjectMutation,
} from "./mutation-detector.js";

// Deltas and FIFOs (Queue, DeltaFIFO, RealFIFO)

export {
  type BookmarkInfo,
  type Delta,
  type Deltas,
  DeltaType,
  isDelta,
  newest,
  oldest,
  type ReplacedAllInfo,
  type SyncAllInfo,
} from "./delta.js";
export { DeltaFIFO, type DeltaFIFOOptions } from "./delta-fifo.js";
export {
  ErrFIFOClosed,
  FIFOClosedError,
  isFIFOClosedError,
  type KeyListerGetter,
  type PopProcessFunc,
  type ProcessBatchFunc,
  type Queue,
  type QueueWithBatch,
  type TransformingStore,
} from "./fifo.js";
export type { FIFOEvent } from "./internal/fifo-core.js";
export {
  defaultBatchSize,
  type FIFOMetricsOptions,
  informerProcessingLatencyBuckets,
  RealFIFO,
  type RealFIFOOptions,
} from "./the-real-fifo.js";

// Resource event handlers

export {
  checkEventHandler,
  FilteringResourceEventHandler,
  type FilteringResourceEventHandlerOptions,
  type ResourceEventHandler,
  ResourceEventHandlerDetailedFuncs,
  type ResourceEventHandlerDetailedFuncsOptions,
  ResourceEventHandlerFuncs,
  type ResourceEventHandlerFuncsOptions,
} from "./controller.js";

// ListerWatcher and pager (the list/watch contract and the schema types live in @informer-ts/apimachinery; the
// cache re-exports them under the same names for compatibility)

export {
  type GroupVersionKind,
  gvkString,
  type ListerWatcher,
  type ListerWatcherTarget,
  type Watch,
} from "@informer-ts/apimachinery";
export {
  type ListFunc,
  ListWatch,
  type ListWatchFuncs,
  newFilteredListWatch,
  newListWatchWithFieldSelector,
  toListWatcherWithWatchListSemantics,
  type WatchFunc,
} from "./listwatch-funcs.js";
export {
  DEFAULT_PAGE_BUFFER_SIZE,
  DEFAULT_PAGE_SIZE,
  type ListPageFunc,
  ListPager,
  newListPager,
  type PagedListResult,
} from "./pager.js";

// watcher(): the reflector as a stream of events, and its operators (kube-rs WatchStreamExt)

export { appliedObjects } from "./operators/applied-objects.js";
export { type BackoffPolicy, backoff } from "./operators/backoff.js";
export { type KeysOptions, keys } from "./operators/keys.js";
export {
  annotationsChanged,
  type ChangePredicate,
  generationChanged,
  labelsChanged,
  predicateFilter,
  resourceVersionChanged,
} from "./operators/predicate-filter.js";
export { type ReflectOptions, type ReflectTarget, reflect } from "./operators/reflect.js";
export { touchedObjects } from "./operators/touched-objects.js";
export {
  failAfter,
  type WatcherConfig,
  type WatcherErrorPolicy,
  WatcherFailedError,
  watcher,
} from "./watcher.js";
export {
  isWatcherObjectEvent,
  type WatcherEvent,
  type WatcherEventType,
  type WatcherObjectEvent,
} from "./watcher-event.js";

// Reflector: backoff, errors, logging, metrics, status stream

export {
  type Backoff,
  type BackoffResetMode,
  DEFAULT_BACKOFF_INIT_MS,
  DEFAULT_BACKOFF_MAX_MS,
  DEFAULT_BACKOFF_RESET_MS,
  type DelayFunc,
  defaultReflectorBackoff,
  delayFunc,
  delayWithReset,
  gapResetDelayFunc,
} from "./backoff.js";
export {
  InitialEventsEndTimeoutError,
  isTruncatedWatchStream,
  isWatchStreamEnd,
  VeryShortWatchError,
  watchIterationError,
} from "./reflector/errors.js";
export { consoleLogger, type LogLevel, type ReflectorLogger, silentLogger } from "./reflector/logger.js";
export {
  type CounterMetric,
  type GaugeMetric,
  noopReflectorMetricsProvider,
  type ReflectorMetricsProvider,
  reflectorMetricsProvider,
  type SummaryMetric,
  setReflectorMetricsProvider,
} from "./reflector/metrics.js";
export {
  DEFAULT_EXPECTED_TYPE_NAME,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  defaultWatchErrorHandler,
  extractListWithAlloc,
  newNamespaceKeyedIndexerAndReflector,
  Reflector,
  type ReflectorInfo,
  type ReflectorOptions,
  VERY_SHORT_WATCH_MS,
  type WatchErrorHandler,
  type WatchLivenessOptions,
} from "./reflector/reflector.js";
export {
  errorInfo,
  type FailureKind,
  failureKindOf,
  type ReflectorCounts,
  type ReflectorErrorInfo,
  type ReflectorErrorPhase,
  type ReflectorErrorRecord,
  type ReflectorEvent,
  type ReflectorFailure,
  type ReflectorPhase,
  type ReflectorStatus,
  type RelistCause,
  type RewatchCause,
  type SkipReason,
  type WatchEndReason,
} from "./reflector/status.js";
export { isUnsupportedTableObject } from "./reflector/watch.js";
export { newRetryWithDeadline, type RetryWithDeadline } from "./retry-with-deadline.js";

// Shared informers: listeners, processor, informer, factory, sync tracking

export {
  type InformerResource,
  type InformerScope,
  type ListerWatcherFor,
  type NewInformerFunc,
  newSharedInformerFactory,
  newSharedInformerFactoryWithOptions,
  resourceKey,
  SharedInformerFactory,
  type SharedInformerFactoryConfig,
  type SharedInformerOption,
  type SyncResult,
  syncResultAsError,
  type TweakListOptionsFunc,
  withCustomResyncConfig,
  withInformerName,
  withInformerOptions,
  withNamespace,
  withTransform,
  withTweakListOptions,
} from "./informer-factory.js";
export { ListenerOverflowError } from "./listener-overflow-error.js";
export {
  type HandlerErrorCallback,
  type HandlerErrorInfo,
  type ListenerEvent,
  type ListenerStats,
  listenerPendingNotificationsMetricName,
  type Notification,
  type ResourceEventHandlerRegistration,
} from "./processor-listener.js";
export {
  type HandlerOptions,
  type InformerFifoMode,
  type InformerNotification,
  type InformerReflectorOptions,
  type NotificationsOptions,
  newSharedIndexInformer,
  newSharedInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  type SharedInformer,
  type SharedInformerEvent,
  type SharedInformerStatus,
  shutDownEventHandler,
} from "./shared-informer.js";
export { transformStripManagedFields, withManagedFields } from "./strip-managed-fields.js";
export { AsyncTracker, type DoneChecker, DoneLatch, SingleFileTracker, SyncTrackerError } from "./synctrack.js";
export {
  type InformerSynced,
  type WaitForCacheSyncOptions,
  waitFor,
  waitForCacheSync,
} from "./wait-for-cache-sync.js";

// Deprecated aliases (docs/api-surface.md): the Go reflector constructors that differ only by defaults, the test
// doubles (moved to `@informer-ts/cache/testing`) and the renamed `Predicate` and `ListerWatcherScope`.

export {
  FakeControllerSource,
  FakeWatch,
  type ListerWatcherScope,
  newNamedReflector,
  newReflector,
  newReflectorWithOptions,
  type Predicate,
  RecordingStore,
  runUntilSettled,
  startRun,
} from "./deprecated.js";
