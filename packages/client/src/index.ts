export {
  type AuthProvider,
  type ClientConfig,
  ConfigError,
  DEFAULT_BURST,
  DEFAULT_QPS,
  type PemData,
  type RequestCredentials,
  rateLimitOf,
  validateClientConfig,
} from "./client-config.js";
export {
  inClusterConfig,
  type KubeconfigLoadOptions,
  type LoadedClientConfig,
  loadClientConfig,
  SERVICE_ACCOUNT_ROOT,
} from "./kubeconfig.js";
export { type ListWatchScope, listWatchFor } from "./listwatch.js";
export { RequestTimeoutError } from "./request-executor.js";
export {
  apiVersionOf,
  type BuiltinResourceName,
  builtinResources,
  customResource,
  goDurationSeconds,
  groupResourceOf,
  isValidPathSegmentName,
  listOptionsQuery,
  RequestConstructionError,
  type ResourceDescriptor,
  type ResourceLocation,
  resourcePath,
  resourceURL,
} from "./resources.js";
export {
  CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE,
  isTextResponse,
  MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES,
  newGenericServerResponse,
  parseFailureStatus,
  type RequestDescription,
  statusErrorFromResponse,
} from "./response-errors.js";
export {
  type DeleteCallOptions,
  KubeClient,
  type KubeClientOptions,
  type ListCallOptions,
  type ObjectCallOptions,
  type PatchOptions,
  type PatchType,
  type WriteOptions,
} from "./rest-client.js";
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
  decodeWatchStream,
  WATCH_DECODE_EXCERPT_CHARS,
  WatchDecodeError,
  type WatchDecodeErrorKind,
  type WatchDecoderOptions,
} from "./watch-decoder.js";
export {
  type AttemptResult,
  checkWait,
  DEFAULT_MAX_RETRIES,
  type ResponseHeaders,
  type RetryAfter,
  retryAfterSeconds,
  WithRetry,
} from "./with-retry.js";
