// The engine of the simulated apiserver: storage, watch caches, list/watch semantics, faults, accounting.
export {
  type AccountingDimension,
  type AccountingRow,
  auditLine,
  metricsVerb,
  RequestAccounting,
  type RequestRecord,
} from "./accounting.js";
export { CacheWatcher, FixedWatch, type WatchCloseReason } from "./cache-watcher.js";
export { Cacher, type CacherConfig, type ServedFrom } from "./cacher.js";
export { CacheMetrics } from "./cacher-metrics.js";
export { type ContinueToken, decodeContinue, encodeContinue, encodeContinueFrom } from "./continue-token.js";
export { type ControllerDeps, ControllerLoop } from "./controller-loop.js";
export {
  type CostInput,
  type CostModel,
  costModelFor,
  DEFAULT_COST_MODEL,
  newCostModel,
  type RequestCost,
  requestCost,
  seatSeconds,
  validateCostModel,
} from "./cost-model.js";
export { APISERVER_USER_AGENT, CrdFinalizer, type DefinitionServing } from "./crd-finalizer.js";
export {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  CUSTOM_RESOURCE_DEFINITIONS,
  establishedDefinition,
  resourceFromCrd,
  validateCustomResourceDefinition,
  withTerminatingCondition,
} from "./custom-resource-definitions.js";
export { encodedListSize, encodedSize } from "./encoded-size.js";
export type { EngineRequests } from "./engine-requests.js";
export { EVENT_FRESH_DURATION_MS, EventHistory, HISTORY_LOWER_BOUND, HISTORY_UPPER_BOUND } from "./event-history.js";
export { CUSTOM_RESOURCE_SCHEMA, schemaFor } from "./field-manager/builtin-schemas.js";
export { type Conflict, newApplyConflict, printManager } from "./field-manager/conflict.js";
export { FieldSet } from "./field-manager/field-set.js";
export {
  decodeManagedFields,
  encodeManagedFields,
  type ManagedFields,
  type ManagedFieldsEntry,
  type ManagerFields,
  managerIdentifier,
} from "./field-manager/managed-fields.js";
export {
  comparePathElements,
  deserializePathElement,
  type Path,
  type PathElement,
  pathString,
  serializePathElement,
} from "./field-manager/path-element.js";
export type { TypeDef } from "./field-manager/schema.js";
export { ServerSideApply } from "./field-manager/server-side-apply.js";
export {
  FIELD_MANAGER_MAX_LENGTH,
  StructuredMergeManager,
  type StructuredMergeManagerOptions,
} from "./field-manager/structured-merge-manager.js";
export { GARBAGE_COLLECTOR_USER_AGENT, GarbageCollector } from "./garbage-collector.js";
export {
  type HttpFault,
  HttpFaultInjector,
  type HttpFaultRule,
  type HttpFaultState,
  type HttpRequestDescriptor,
  parseHttpFaultRule,
} from "./http-faults.js";
export { SimConnectionError } from "./in-process-faults.js";
export {
  DEFAULT_KUBE_VERSION,
  isKubeVersion,
  KUBE_VERSIONS,
  type KubeVersion,
  type KubeVersionGates,
  kubeVersionGates,
  parseKubeVersion,
} from "./kube-version.js";
export {
  ensureKubernetesService,
  KUBERNETES_SERVICE_IP,
  KUBERNETES_SERVICE_TARGET_PORT,
} from "./kubernetes-service.js";
export { type DecodedListOptions, setListOptionsDefaults, validateListOptions } from "./list-options.js";
export {
  defaultWorkEstimatorConfig,
  type EstimatedListOptions,
  estimateListWork,
  estimateMutatingWork,
  type ListWorkRequest,
  type ResourceStats,
  shouldDelegateList,
  type WorkEstimate,
  type WorkEstimatorConfig,
} from "./list-work-estimator.js";
export type { InProcessListerWatcher, ListerWatcherScope } from "./listwatch.js";
export {
  APF_BYTES_PER_SEAT,
  APF_CACHE_STREAMING_MAX_BYTES,
  APF_EVENT_ADDITIONAL_DURATION_MS,
  APF_MAX_LIST_SEATS_COUNT_BASED,
  APF_MAX_LIST_SEATS_SIZE_BASED,
  APF_MAX_MUTATING_SEATS,
  APF_MAX_OBJECT_SIZE,
  APF_MINIMUM_SEATS,
  APF_OBJECTS_PER_SEAT,
  APF_WATCHES_PER_SEAT,
  CACHE_MS_PER_OBJECT,
  ENCODE_MS_PER_KIB,
  MAX_WATCH_CHAN_SIZE_WITH_INDEX_AND_TRIGGER,
  MAX_WATCH_CHAN_SIZE_WITH_INDEX_WITHOUT_TRIGGER,
  MAX_WATCH_CHAN_SIZE_WITHOUT_INDEX,
  MIN_WATCH_CHAN_SIZE,
  REQUEST_OVERHEAD_MS,
  STORAGE_MS_PER_KEY,
  STORAGE_MS_PER_KIB,
  STORAGE_ROUND_TRIP_MS,
  STORAGE_WRITE_COMMIT_MS,
  TRACE_LOG_THRESHOLD_MS,
  WATCH_FIXED_OVERHEAD_BYTES,
  WATCH_INPUT_SLOT_BYTES,
  WATCH_RESULT_SLOT_BYTES,
} from "./model-calibration.js";
export { NamespaceController } from "./namespace-controller.js";
export { decodeApplyConfiguration } from "./registry/apply-patch.js";
export {
  type DeleteOptions,
  finalizersForDeletion,
  type PropagationPolicy,
  validateDeleteOptions,
} from "./registry/delete-options.js";
export {
  FINALIZER_FOREGROUND,
  FINALIZER_KUBERNETES,
  FINALIZER_ORPHAN,
  validateFinalizers,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from "./registry/object-meta-validation.js";
export {
  applyPatch,
  decodePatch,
  jsonPatch,
  MAX_JSON_PATCH_OPERATIONS,
  mergePatch,
  type PatchTarget,
  type PatchType,
  patchTypeOf,
  unsupportedPatchType,
} from "./registry/patch.js";
export { answerReview, IN_PROCESS_USER, type ReviewUser, reviewUserOf } from "./registry/reviews.js";
export {
  APPS_SCALE,
  CORE_SCALE,
  formatLabelSelector,
  type ScaleSubresource,
  scaleOf,
  validateScale,
  withScaledReplicas,
} from "./registry/scale.js";
export {
  type DeleteResult,
  type FieldManager,
  type FieldManagerContext,
  type FieldManagerOperation,
  IMMORTAL_NAMESPACES,
  managerOrUserAgent,
  RegistryStore,
  type RegistryStoreOptions,
  SYSTEM_NAMESPACES,
  type WriteOptions,
} from "./registry/store.js";
export { strategicMergePatch } from "./registry/strategic-merge-patch.js";
export { type ResourceStrategy, strategyFor } from "./registry/strategy.js";
export type { EngineRequest, RequestContext, ResourceRef, Served } from "./request-context.js";
export type { RequestInFlight } from "./request-in-flight.js";
export type { LatencyRule } from "./request-latency.js";
export type { CostModelLatency, RequestOutcome, TraceLogConfig } from "./request-models.js";
export {
  type HandlerSteps,
  handlerSteps,
  handlerTraceName,
  newRequestTrace,
  type RequestTraceInfo,
  requestScope,
} from "./request-trace.js";
export { type RequestTarget, requestPath, requestURI } from "./request-uri.js";
export {
  apiVersionOf,
  BUILTIN_RESOURCES,
  fieldLabelsOf,
  groupResourceString,
  type SimResource,
  type SimSubresources,
} from "./resources.js";
export { parseSelection, type Selection } from "./selection.js";
export { COLLECTION_VERBS, CREATE_ONLY_VERBS, DEFAULT_VERBS, type ServedResource } from "./served-resource.js";
export { SimApiServer } from "./sim-apiserver.js";
export type { SimApiServerOptions } from "./sim-apiserver-options.js";
export { SimTruncatedWatchError, type SimWatch } from "./sim-watch.js";
export { keyOf, MvccStorage, prefixOf, type StorageEvent, type StorageListener } from "./storage.js";
export { BUDGET_REFRESH_MS_PER_SECOND, MAX_DISPATCH_BUDGET_MS, TimeBudget } from "./time-budget.js";
export {
  formatClockTime,
  formatGoDuration,
  formatTraceStart,
  Trace,
  type TraceField,
  type TraceLogOptions,
} from "./trace.js";
export { type UnansweredRequestStatus, unansweredRequestStatus } from "./unanswered-request.js";
export { UnknownResourceError } from "./unknown-resource-error.js";
export {
  DEFAULT_WATCH_MEMORY_MODEL,
  type OpenWatchSample,
  suggestedWatchChannelSize,
  type WatchMemoryEstimate,
  type WatchMemoryGauge,
  type WatchMemoryInput,
  type WatchMemoryModel,
  watchMemoryEstimate,
  watchMemoryGauge,
} from "./watch-memory-model.js";
export type { BookmarkMode, WatcherInfo, WatcherSelector } from "./watcher-faults.js";
