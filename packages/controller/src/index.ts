// Public API of @informer-ts/controller: named re-exports only, grouped by concept.
// Requests and the reconcile contract

// Typed write bodies: apply configurations, merge patches
export type { ApplyConfiguration, DeepPartial } from "./apply-configuration.js";
export {
  type BuilderControllerOptions,
  ControllerBuilder,
  type ControllerContext,
  type FinalizeHook,
  newControllerManagedBy,
  type OwnsOptions,
  type WatchOptions,
} from "./builder.js";
// The manager's client: reads from the caches, field indexes, writes to the API server
export {
  CacheNotStartedError,
  CacheReader,
  type CacheReaderOptions,
  type SyncedInformerFor,
} from "./cache-reader.js";
// Controller and builder
export {
  Controller,
  type ControllerEvent,
  type ControllerOptions,
  type ControllerStatus,
  type WatchSource,
} from "./controller.js";
// controllerutil and util/retry
export {
  type CreateOrUpdateOptions,
  createOrPatch,
  createOrUpdate,
  type MutateFn,
  MutateKeyChangedError,
  type OperationOutcome,
  type OperationResult,
} from "./create-or-update.js";
export {
  DelegatingClient,
  type DelegatingClientOptions,
} from "./delegating-client.js";
export {
  allNamespacesPrefix,
  type FieldIndexer,
  fieldIndexName,
  type IndexerFunc,
  keyToNamespacedKey,
} from "./field-indexer.js";
export {
  addFinalizer,
  containsFinalizer,
  type FinalizerPatchOptions,
  InvalidFinalizerError,
  patchAddFinalizer,
  patchRemoveFinalizer,
  removeFinalizer,
  validateFinalizerName,
} from "./finalizer.js";
export {
  type EnqueueRequestForOwnerOptions,
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  groupOf,
  type MapFunc,
  type OwnerType,
  toResourceEventHandler,
} from "./handler.js";
export { ignoreAlreadyExists, ignoreNotFound } from "./ignore-errors.js";
// Leader election
export {
  DEFAULT_LEASE_DURATION,
  DEFAULT_RENEW_DEADLINE,
  DEFAULT_RETRY_PERIOD,
  JitterFactor,
  type LeaderCallbacks,
  type LeaderElectionConfig,
  type LeaderElectionEvent,
  LeaderElector,
  LeaseFencedError,
  leaderElectionMetrics,
  validateLeaderElectionConfig,
} from "./leaderelection/leader-election.js";
export {
  formatMicroTime,
  InvalidLeaseError,
  type LeaderElectionRecord,
  LeaseLock,
  type LeaseLockOptions,
  leaderElectionRecordToLeaseSpec,
  leaseSpecToLeaderElectionRecord,
  leasesResource,
  type ResourceLock,
} from "./leaderelection/lease-lock.js";
// Manager, probes, signals
export {
  LeaderElectionLostError,
  Manager,
  type ManagerEvent,
  type ManagerLeaderElectionOptions,
  type ManagerOptions,
  newDefaultMetrics,
} from "./manager.js";
export {
  type BindAddress,
  bindAddress,
  FlagError,
  type ManagerFlags,
  managerFlagsUsage,
  parseManagerFlags,
} from "./manager-flags.js";
export {
  createMergePatch,
  type JsonPatchOp,
  type JsonPointer,
  type MergeFromOptions,
  type MergeFromPatch,
  type MergePatch,
  mergeFrom,
  type PatchBody,
} from "./merge-patch.js";
export { controllerRuntimeMetrics, type ReconcileResultLabel, reconcileTimeBuckets } from "./metrics.js";
// Writes: client interface, finalizers, owner references
export { type BuiltManager, type NewManagerOptions, newManager } from "./new-manager.js";
export type { ObjectClient, ObjectReader } from "./object-client.js";
export {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  type OwnerReferenceOptions,
  type RemoveOwnerReferenceOptions,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./owner-reference.js";
// Predicates and event handlers
export {
  and,
  annotationChangedPredicate,
  generationChangedPredicate,
  hasLabelsPredicate,
  labelChangedPredicate,
  newPredicateFuncs,
  not,
  or,
  type Predicate,
  resourceVersionChangedPredicate,
} from "./predicate.js";
export {
  type HealthChecker,
  type HealthCheckResult,
  type ProbeCheck,
  ProbeServer,
  type ProbeServerOptions,
} from "./probe-server.js";
export {
  describe,
  InvalidResultError,
  isTerminalError,
  NonErrorThrownError,
  type ReconcileContext,
  type ReconcileReturn,
  type Reconciler,
  ReconcileTimeoutError,
  type Result,
  TerminalError,
  validateResult,
} from "./reconciler.js";
// Event recorder
export {
  defaultSleepDuration,
  EventBroadcaster,
  type EventBroadcasterEvent,
  type EventBroadcasterOptions,
  type EventDropReason,
  type EventRecorder,
  EventTypeNormal,
  EventTypeWarning,
  eventRecorderMetrics,
  eventsResource,
  FakeRecorder,
  maxQueuedEvents,
  maxTriesPerEvent,
  referenceOf,
} from "./record/event.js";
export {
  type CoreEvent,
  type CorrelatorOptions,
  defaultAggregateIntervalInSeconds,
  defaultAggregateMaxEvents,
  defaultSpamBurst,
  defaultSpamQPS,
  type EventCorrelateResult,
  EventCorrelator,
  type EventSource,
  eventAggregatorByReasonFunc,
  eventAggregatorByReasonMessageFunc,
  eventName,
  formatTime,
  getEventKey,
  getSpamKey,
  maxLruCacheEntries,
  type ObjectReference,
} from "./record/events-cache.js";
export { type Request, requestFromKey, requestKey } from "./request.js";
export { DefaultBackoff, DefaultRetry, onError, type RetryOptions, retryOnConflict } from "./retry.js";
// Runnables of a manager
export {
  GracefulShutdownTimeoutError,
  type LeaderElectionRunnable,
  needsLeaderElection,
  type Runnable,
  RunnableError,
} from "./runnable.js";
export { type SignalHandler, setupSignalHandler } from "./signals.js";
