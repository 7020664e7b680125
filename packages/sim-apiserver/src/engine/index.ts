// Public API of @informer-ts/sim-apiserver/engine: the engine of the simulated apiserver by role — storage,
// cacher, registry, admission, controllers, filters (faults, accounting, APF, cost model, trace) — knowing no wire. `.`
// re-exports the part a user of the simulator needs.

// Deprecated aliases (docs/api-surface.md)
export type { PatchType } from "../deprecated.js";
export {
  Admission,
  type AdmissionAttributes,
  type AdmissionOptions,
  AdmissionWebhooks,
  type AdmissionWebhooksOptions,
  BUILTIN_DEFINITIONS,
  type BuiltinDecodeResult,
  builtinRootOf,
  decodeBuiltin,
  defaultCustomResource,
  duplicateJsonFields,
  type FieldValidationDirective,
  OPENAPI_KUBE_VERSION,
  type OpenApiDefinitions,
  type OpenApiSchema,
  type PolicyAuditRecord,
  type PolicyOperation,
  type PolicyRequest,
  pruneCustomResource,
  type StructuralSchema,
  ValidatingAdmissionPolicies,
  type ValidatingAdmissionPoliciesOptions,
  validateCustomResource,
  type WebhookRequest,
} from "./admission/index.js";
export {
  ALWAYS_ALLOW,
  type AuthorizationMode,
  type Authorizer,
  type AuthzAttributes,
  type AuthzDecision,
  type AuthzRule,
  type AuthzUser,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  checkAuthorized,
  forbiddenMessage,
  RbacAuthorizer,
  type RbacKind,
  type RbacObjects,
} from "./authorization/index.js";
export { CacheWatcher, FixedWatch, type WatchCloseReason } from "./cacher/cache-watcher.js";
export { Cacher, type CacherConfig, type ServedFrom } from "./cacher/cacher.js";
export { CacheMetrics } from "./cacher/cacher-metrics.js";
export { BUDGET_REFRESH_MS_PER_SECOND, MAX_DISPATCH_BUDGET_MS, TimeBudget } from "./cacher/time-budget.js";
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
} from "./cacher/watch-memory-model.js";
export type { BookmarkMode, WatcherInfo, WatcherSelector } from "./cacher/watcher-faults.js";
export { type ContainerWorld, containerOutput, type MountedFile } from "./containers/container-output.js";
export type { PodLogOptions, PodLogResponse } from "./containers/pod-log.js";
export { type ControllerAction, type ControllerDeps, ControllerLoop } from "./controllers/controller-loop.js";
export { APISERVER_USER_AGENT, CrdFinalizer, type DefinitionServing } from "./controllers/crd-finalizer.js";
export { GARBAGE_COLLECTOR_USER_AGENT, GarbageCollector } from "./controllers/garbage-collector.js";
export { GRACEFUL_DELETION_USER_AGENT, GracefulDeletion } from "./controllers/graceful-deletion.js";
export {
  ensureKubernetesService,
  KUBERNETES_SERVICE_IP,
  KUBERNETES_SERVICE_TARGET_PORT,
} from "./controllers/kubernetes-service.js";
export {
  type ContentTotals,
  NAMESPACE_CONDITION_TYPES,
  type NamespaceCondition,
  updatedConditions,
} from "./controllers/namespace-conditions.js";
export {
  NAMESPACE_CONTROLLER_USER_AGENT,
  NamespaceController,
  type NamespaceControllerOptions,
} from "./controllers/namespace-controller.js";
export {
  VAP_STATUS_CONTROLLER,
  ValidatingAdmissionPolicyStatusController,
} from "./controllers/validating-admission-policy-status.js";
export { EngineCaches, type EngineCachesDeps } from "./engine-caches.js";
export { EngineFaults, type EngineFaultsDeps } from "./engine-faults.js";
export {
  type AccountingDimension,
  type AccountingRow,
  auditLine,
  metricsVerb,
  RequestAccounting,
  type RequestRecord,
} from "./filters/accounting.js";
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
} from "./filters/cost-model.js";
export { encodedListSize, encodedSize } from "./filters/encoded-size.js";
export {
  type HttpFault,
  HttpFaultInjector,
  type HttpFaultRule,
  type HttpFaultState,
  type HttpRequestDescriptor,
  parseHttpFaultRule,
} from "./filters/http-faults.js";
export { SimConnectionError } from "./filters/in-process-faults.js";
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
} from "./filters/list-work-estimator.js";
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
} from "./filters/model-calibration.js";
export {
  type FilteredRequest,
  type RequestEnd,
  type RequestFilterPorts,
  RequestFilters,
} from "./filters/request-filters.js";
export type { RequestInFlight } from "./filters/request-in-flight.js";
export type { LatencyRule } from "./filters/request-latency.js";
export {
  type HandlerSteps,
  handlerSteps,
  handlerTraceName,
  newRequestTrace,
  type RequestTraceInfo,
  requestScope,
} from "./filters/request-trace.js";
export {
  formatClockTime,
  formatGoDuration,
  formatTraceStart,
  Trace,
  type TraceField,
  type TraceLogOptions,
} from "./filters/trace.js";
export { type UnansweredRequestStatus, unansweredRequestStatus } from "./filters/unanswered-request.js";
export type { EngineRequests } from "./handlers/engine-requests.js";
export type {
  CollectionReadRequest,
  CreateRequest,
  DeleteCollectionRequest,
  DeleteRequest,
  GetRequest,
  PatchRequest,
  ResourceRequest,
  ResourceRequestTarget,
  ResultOf,
  UpdateRequest,
  VerbResults,
} from "./handlers/resource-request.js";
export {
  type AggregatedDiscoveryVersion,
  DEFAULT_KUBE_VERSION,
  isKubeVersion,
  KUBE_VERSIONS,
  type KubeVersion,
  type KubeVersionGates,
  kubeVersionGates,
  parseKubeVersion,
} from "./kube-version.js";
export { type DecodedListOptions, setListOptionsDefaults, validateListOptions } from "./list-options.js";
export type { InProcessListerWatcher, InProcessListWatchScope } from "./listwatch.js";
export { decodeApplyConfiguration } from "./registry/apply-patch.js";
export {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  CUSTOM_RESOURCE_DEFINITIONS,
  establishedDefinition,
  resourceFromCrd,
  validateCustomResourceDefinition,
  withTerminatingCondition,
} from "./registry/custom-resource-definitions.js";
export {
  type DeleteOptions,
  finalizersForDeletion,
  type PropagationPolicy,
  validateDeleteOptions,
} from "./registry/delete-options.js";
export { CUSTOM_RESOURCE_SCHEMA, schemaFor } from "./registry/field-manager/builtin-schemas.js";
export { type Conflict, newApplyConflict, printManager } from "./registry/field-manager/conflict.js";
export { FieldSet } from "./registry/field-manager/field-set.js";
export {
  decodeManagedFields,
  encodeManagedFields,
  type ManagedFields,
  type ManagedFieldsEntry,
  type ManagerFields,
  managerIdentifier,
} from "./registry/field-manager/managed-fields.js";
export {
  comparePathElements,
  deserializePathElement,
  type Path,
  type PathElement,
  pathString,
  serializePathElement,
} from "./registry/field-manager/path-element.js";
export type { TypeDef } from "./registry/field-manager/schema.js";
export { ServerSideApply } from "./registry/field-manager/server-side-apply.js";
export {
  FIELD_MANAGER_MAX_LENGTH,
  StructuredMergeManager,
  type StructuredMergeManagerOptions,
} from "./registry/field-manager/structured-merge-manager.js";
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
  type PatchContentType,
  type PatchTarget,
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
  clusterIpsOf,
  IP_ADDRESS_FAMILY,
  IP_ADDRESS_MANAGED_BY,
  IP_ALLOCATOR_NAME,
  ServiceIpAddresses,
  type ServiceIpAddressesOptions,
} from "./registry/service-ip-addresses.js";
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
  type WebhookPass,
  type WriteOptions,
} from "./registry/store.js";
export { strategicMergePatch } from "./registry/strategic-merge-patch.js";
export { type ResourceStrategy, strategyFor } from "./registry/strategy.js";
export type { EngineRequest, RequestContext, ResourceRef, Served } from "./request-context.js";
export type { CostModelLatency, RequestOutcome, TraceLogConfig } from "./request-models.js";
export { type RequestTarget, requestPath, requestURI } from "./request-uri.js";
export {
  apiVersionOf,
  BUILTIN_RESOURCES,
  fieldLabelsOf,
  groupResourceString,
  type PrinterColumn,
  type SimResource,
  type StoredAs,
} from "./resources.js";
export { parseSelection, type Selection } from "./selection.js";
export { COLLECTION_VERBS, CREATE_ONLY_VERBS, DEFAULT_VERBS, type ServedResource } from "./served-resource.js";
export type { TokenAuthentication } from "./serviceaccount/service-account-tokens.js";
export { SimApiServer } from "./sim-apiserver.js";
export type { SimApiServerOptions } from "./sim-apiserver-options.js";
export { SimTruncatedWatchError, type SimWatch } from "./sim-watch.js";
export { type ContinueToken, decodeContinue, encodeContinue, encodeContinueFrom } from "./storage/continue-token.js";
export {
  EVENT_FRESH_DURATION_MS,
  EventHistory,
  HISTORY_LOWER_BOUND,
  HISTORY_UPPER_BOUND,
} from "./storage/event-history.js";
export { keyOf, MvccStorage, prefixOf, type StorageEvent, type StorageListener } from "./storage/storage.js";
export { UnknownResourceError } from "./unknown-resource-error.js";
