export {
  type BuiltinResourceName,
  type BuiltinResources,
  builtinResources,
  type ClusterRole,
  type ClusterRoleBinding,
  type ConfigMap,
  type CoreEvent,
  type CronJob,
  type CustomResourceDefinition,
  type DaemonSet,
  type Deployment,
  type EndpointSlice,
  type Endpoints,
  type EventsEvent,
  type HorizontalPodAutoscaler,
  type Ingress,
  type Job,
  type Lease,
  type LimitRange,
  type Namespace,
  type NetworkPolicy,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type PodDisruptionBudget,
  type PriorityClass,
  type ReplicaSet,
  type ReplicationController,
  type ResourceName,
  type ResourceQuota,
  type Role,
  type RoleBinding,
  resources,
  type Secret,
  type Service,
  type ServiceAccount,
  type StatefulSet,
  type StorageClass,
} from "./builtin-resources.js";
export {
  type ApplyOptions,
  type DeleteCallOptions,
  type DeleteCollectionOptions,
  FIELD_MANAGER_MAX_LENGTH,
  type FieldValidation,
  type GetCallOptions,
  type ListCallOptions,
  type ObjectCallOptions,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  type PatchType,
  type Preconditions,
  type PropagationPolicy,
  type WriteOptions,
} from "./call-options.js";
export {
  type AuthProvider,
  type ClientConfig,
  ConfigError,
  DEFAULT_BURST,
  DEFAULT_QPS,
  type KubeClientOptions,
  type PemData,
  type RequestCredentials,
  rateLimitOf,
  validateClientConfig,
} from "./client-config.js";
export {
  AGGREGATED_DISCOVERY_ACCEPT,
  AmbiguousResourceError,
  DEFAULT_DISCOVERY_TTL_MS,
  type DiscoveredResource,
  DiscoveryClient,
  type DiscoveryClientOptions,
  NoResourceMatchError,
} from "./discovery-client.js";
export {
  inClusterConfig,
  type KubeConfigCluster,
  type KubeConfigSource,
  type KubeConfigUser,
  type KubeconfigLoadOptions,
  type LoadedClientConfig,
  loadClientConfig,
  SERVICE_ACCOUNT_ROOT,
} from "./kubeconfig.js";
export { type ListWatchScope, listWatchFor, metadataListWatchFor } from "./listwatch.js";
export { METADATA_ACCEPT, METADATA_LIST_ACCEPT, type MetadataDecodeOptions } from "./metadata-watch.js";
export type { DeepPartial, JsonOf, PartialObjectMetadata, PartialObjectMetadataList, Scale } from "./object-types.js";
export { RequestTimeoutError } from "./request-executor.js";
export {
  apiVersionOf,
  customResource,
  goDurationSeconds,
  groupResourceOf,
  isBuiltinGroup,
  isValidPathSegmentName,
  listOptionsQuery,
  type ObjectOf,
  RequestConstructionError,
  type ResourceDescriptor,
  type ResourceLocation,
  resourcePath,
  resourceURL,
} from "./resources.js";
export {
  CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE,
  MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES,
  newGenericServerResponse,
  type RequestDescription,
  statusErrorFromResponse,
} from "./response-errors.js";
export { KubeClient } from "./rest-client.js";
export {
  REST_CLIENT_LATENCY_BUCKETS,
  REST_CLIENT_METRICS,
  type RestClientEvent,
  RestClientMetrics,
} from "./rest-client-metrics.js";
export {
  emptyWatch,
  StreamWatcher,
  type StreamWatcherOptions,
  type StreamWatcherResult,
  type WatchBody,
} from "./stream-watcher.js";
export { newTokenBucketRateLimiter, type RateLimiter, TokenBucketRateLimiter } from "./throttle.js";
export { LONG_THROTTLE_LATENCY_MS, ThrottleWarning } from "./throttle-warning.js";
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  newAgent,
  type TLSMaterial,
  tlsMaterialFor,
} from "./transport.js";
export { defaultUserAgent, VERSION } from "./version.js";
export {
  DEFAULT_MAX_WATCH_LINE_BYTES,
  decodeWatchBatches,
  decodeWatchStream,
  WATCH_DECODE_EXCERPT_CHARS,
  WatchDecodeError,
  type WatchDecodeErrorKind,
  type WatchDecoderOptions,
} from "./watch-decoder.js";
export {
  type AttemptResult,
  DEFAULT_MAX_RETRIES,
  type ResponseHeaders,
  type RetryAfter,
  WithRetry,
} from "./with-retry.js";
