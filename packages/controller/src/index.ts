// Public API of @informer-ts/controller: named re-exports only, grouped by concept.

// Requests and the reconcile contract

export {
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
export { type Request, requestFromKey, requestKey } from "./request.js";

// Typed write bodies: apply configurations, merge and JSON patches (client.MergeFrom)

export type { DeepPartial } from "@informer-ts/client";
export { type ApplyConfiguration, applyConfiguration } from "./apply-configuration.js";
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

// Controller and builder (controller-runtime pkg/controller, pkg/builder)

export {
  type BuilderControllerOptions,
  ControllerBuilder,
  type ControllerContext,
  type FinalizeHook,
  newControllerManagedBy,
  type OwnsOptions,
  type WatchOptions,
} from "./builder.js";
export {
  Controller,
  type ControllerEvent,
  type ControllerOptions,
  type ControllerStatus,
  type WatchSource,
} from "./controller.js";

// Event handlers and predicates (pkg/handler, pkg/predicate)

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

// Manager, its runnables, probes and signals (pkg/manager, pkg/healthz, pkg/manager/signals)

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
export { controllerRuntimeMetrics, type ReconcileResultLabel, reconcileTimeBuckets } from "./metrics.js";
export { type BuiltManager, type NewManagerOptions, newManager } from "./new-manager.js";
export {
  type HealthChecker,
  type HealthCheckResult,
  type ProbeCheck,
  ProbeServer,
  type ProbeServerOptions,
} from "./probe-server.js";
export {
  GracefulShutdownTimeoutError,
  type LeaderElectionRunnable,
  needsLeaderElection,
  type Runnable,
  RunnableError,
} from "./runnable.js";
export { type SignalHandler, setupSignalHandler } from "./signals.js";

// The manager's client: cache reads, field indexes, writes to the API server (pkg/client, pkg/cache)

export {
  CacheNotStartedError,
  CacheReader,
  type CacheReaderOptions,
  type SyncedInformerFor,
} from "./cache-reader.js";
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
export type { ObjectClient, ObjectReader } from "./object-client.js";

// Informer factories over a client (client-go informers, metadatainformer)

export {
  type MetadataSharedInformerFactory,
  newMetadataSharedInformerFactory,
} from "./informers/metadata-informer.js";
export { newTypedSharedInformerFactory, type TypedSharedInformerFactory } from "./informers/typed-informer-factory.js";

// controllerutil (create-or-update, finalizers, owner references) and util/retry

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
  addFinalizer,
  containsFinalizer,
  type FinalizerPatchOptions,
  InvalidFinalizerError,
  patchAddFinalizer,
  patchRemoveFinalizer,
  removeFinalizer,
  validateFinalizerName,
} from "./finalizer.js";
export { ignoreAlreadyExists, ignoreNotFound } from "./ignore-errors.js";
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
export { DefaultBackoff, DefaultRetry, onError, type RetryOptions, retryOnConflict } from "./retry.js";

// Leader election (client-go tools/leaderelection)

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

// Event recorder (client-go tools/record)

export {
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
  referenceOf,
} from "./record/event.js";
export {
  type CorrelatorOptions,
  type EventCorrelateResult,
  EventCorrelator,
  type EventSource,
  eventAggregatorByReasonFunc,
  eventAggregatorByReasonMessageFunc,
  eventName,
  formatTime,
  type ObjectReference,
  type RecordedEvent,
} from "./record/events-cache.js";

// Deprecated aliases (docs/api-surface.md)

export { type CoreEvent, describe } from "./deprecated.js";
