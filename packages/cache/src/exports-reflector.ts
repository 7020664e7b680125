// Named re-exports owned by the reflector work; consolidated into index.ts later.
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
export {
  DEFAULT_EXPECTED_TYPE_NAME,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  defaultWatchErrorHandler,
  extractListWithAlloc,
  newNamedReflector,
  newNamespaceKeyedIndexerAndReflector,
  newReflector,
  newReflectorWithOptions,
  Reflector,
  type ReflectorInfo,
  type ReflectorOptions,
  VERY_SHORT_WATCH_MS,
  type WatchErrorHandler,
  type WatchLivenessOptions,
} from "./reflector.js";
export {
  type ConsistencyCheckArgs,
  checkWatchListDataConsistency,
  isDataConsistencyDetectionForWatchListEnabled,
} from "./reflector-data-consistency-detector.js";
export {
  errorInfo,
  InitialEventsEndTimeoutError,
  isConnectionRefused,
  isExpiredError,
  isProbableEOF,
  isTooLargeResourceVersionError,
  isTruncatedWatchStream,
  isWatchErrorRetriable,
  type ReflectorErrorInfo,
  VeryShortWatchError,
  watchIterationError,
} from "./reflector-errors.js";
export { consoleLogger, type LogLevel, type ReflectorLogger, silentLogger } from "./reflector-logger.js";
export {
  type CounterMetric,
  type GaugeMetric,
  noopReflectorMetricsProvider,
  type ReflectorMetricsProvider,
  reflectorMetricsProvider,
  type SummaryMetric,
  setReflectorMetricsProvider,
} from "./reflector-metrics.js";
export type {
  ReflectorCounts,
  ReflectorErrorPhase,
  ReflectorErrorRecord,
  ReflectorEvent,
  ReflectorPhase,
  ReflectorStatus,
  RelistCause,
  RewatchCause,
  SkipReason,
  WatchEndReason,
} from "./reflector-status.js";
export { type GroupVersionKind, gvkString, isUnsupportedTableObject } from "./reflector-watch.js";
export { newRetryWithDeadline, type RetryWithDeadline } from "./retry-with-deadline.js";
export {
  FakeControllerSource,
  type FakeControllerSourceOptions,
  FakeWatch,
  type FakeWatchListSupport,
} from "./testing/fake-controller-source.js";
export { type RecordedCall, RecordingStore } from "./testing/recording-store.js";
export { runUntilSettled } from "./testing/run-until-settled.js";
