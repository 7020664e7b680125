// Public surface of @informer-ts/studies: the study runtime, the studies, the kubelet model, reports, analyze-logs.

export { analyzeLogFiles } from "./analyze-logs/analyze-logs-command.js";
export { auditEntry, isAuditEvent } from "./analyze-logs/audit-event.js";
export { parseGoDuration } from "./analyze-logs/go-duration.js";
export { httplogEntry, kubernetesVerb } from "./analyze-logs/httplog-record.js";
export {
  type KlogHeader,
  type KlogStructured,
  parseKlogHeader,
  parseKlogStructured,
} from "./analyze-logs/klog-line.js";
export {
  type AggregateOptions,
  aggregateLoad,
  type LoadAnalysis,
  type LoadGroup,
  type SlowRequest,
  userAgentProduct,
} from "./analyze-logs/load-aggregator.js";
export { renderLoadReport } from "./analyze-logs/load-report.js";
export { formatLoadAnalysis } from "./analyze-logs/load-table.js";
export type {
  ApiRequestEntry,
  LogPosition,
  MalformedLine,
  RequestLogFormat,
  SlowRequestTrace,
  TraceStep,
} from "./analyze-logs/log-entry.js";
export { ApiserverLogReader, MALFORMED_KEPT, type ParsedLogs } from "./analyze-logs/log-reader.js";
export { type ReadOptions, readOptionsOfQuery, requestShape } from "./analyze-logs/request-shape.js";
export { parseRequestUri, type RequestTarget } from "./analyze-logs/request-uri.js";
export { parseTraceFields, TraceCollector } from "./analyze-logs/trace-parser.js";
export {
  CacheBasedManager,
  type CacheBasedManagerOptions,
  DEFAULT_OBJECT_TTL_MS,
} from "./kubelet/cache-based-manager.js";
export {
  kubeletMinorVersion,
  newConfigMapManager,
  nodeObjectTTLMs,
  SimKubelet,
  type SimKubeletOptions,
  type SimKubeletStats,
} from "./kubelet/kubelet.js";
export {
  CHANGE_DETECTION_STRATEGIES,
  type ChangeDetectionStrategy,
  type ConfigMapManager,
  isImmutable,
  type KubeletPod,
  type ObjectClient,
} from "./kubelet/manager.js";
export {
  DEFAULT_SYNC_FREQUENCY_MS,
  PodWorkers,
  type PodWorkersOptions,
  SYNC_TICK_MS,
  type SyncPodType,
  WORKER_RESYNC_JITTER_FACTOR,
} from "./kubelet/pod-workers.js";
export { KUBELET_USER_AGENT, simObjectClient } from "./kubelet/sim-object-client.js";
export { SimpleManager } from "./kubelet/simple-manager.js";
export {
  OBJECT_TTL_ANNOTATION_KEY,
  TTL_BOUNDARIES,
  TTL_BOUNDARIES_CURRENT,
  type TTLBoundary,
  TTLController,
  ttlSecondsForClusterSize,
} from "./kubelet/ttl-controller.js";
export {
  MOUNT_RETRY_INITIAL_MS,
  MOUNT_RETRY_MAX_MS,
  VOLUME_LOOP_PERIOD_MS,
  VolumeManager,
  type VolumeManagerOptions,
  type VolumeManagerStats,
} from "./kubelet/volume-manager.js";
export {
  MIN_IDLE_TIME_MS,
  SYNC_WAIT_MS,
  WatchBasedManager,
  type WatchBasedManagerOptions,
  type WatchBasedManagerStats,
} from "./kubelet/watch-based-manager.js";
export { renderHtmlReport } from "./report/html-report.js";
export { type ReportChart, renderReportChart } from "./report/report-chart.js";
export {
  describeRun,
  formatSummaryTable,
  type ScenarioReport,
  type StandardChart,
  type SummaryRow,
  type VariantResult,
} from "./report/study-report.js";
export { barChart, type ChartFrame, type LineSeries, lineChart } from "./report/svg-chart.js";
export { type HistogramBucket, LONG_WAIT_BUCKETS_SECONDS, LongHistogram } from "./runtime/long-histogram.js";
export { costFunction, type ProcessingCost } from "./runtime/processing-cost.js";
export { type Sample, Sampler, type SampleSource } from "./runtime/sampler.js";
export { type SlowConsumerOptions, slowConsumer } from "./runtime/slow-consumer.js";
export {
  type ItemError,
  type ProcessOutcome,
  type RunClock,
  type RunOptions,
  requestsByServedFrom,
  ScenarioRuntime,
  type ScenarioRuntimeOptions,
  ScenarioStalledError,
} from "./runtime/study-runtime.js";
export { openStudyServer, type StudyClock, type StudyServer, studyClock } from "./runtime/study-server.js";
export { type ApiserverLoadOptions, LOAD_CLIENTS, runApiserverLoad } from "./studies/apiserver-load/apiserver-load.js";
export {
  measureRouting,
  ROUTING_PROBES,
  type RoutingOutcome,
  type RoutingProbe,
} from "./studies/apiserver-load/apiserver-load-routing.js";
export {
  LOAD_USER_AGENTS,
  type LoadWorkloadCounts,
  type LoadWorkloadOptions,
  RunningWorkload,
  seedLoadCluster,
} from "./studies/apiserver-load/apiserver-load-workload.js";
export { runKubeletConfigMap } from "./studies/kubelet-configmap/kubelet-configmap.js";
export {
  INTERVAL_BUCKETS_SECONDS,
  KUBELET_CONFIGMAP_VARIANTS,
  type KubeletConfigMapOptions,
  type KubeletConfigMapVariant,
} from "./studies/kubelet-configmap/kubelet-configmap-options.js";
export {
  LIST_MEMORY_VARIANTS,
  type ListMemoryChildResult,
  type ListMemoryOptions,
  type ListMemoryVariant,
  listMemoryReport,
  pins,
  runListMemory,
} from "./studies/list-memory/list-memory.js";
export {
  runStatefulSetResync,
  STATEFULSET_RESYNC_VARIANTS,
  type StatefulSetResyncOptions,
  type StatefulSetResyncVariant,
} from "./studies/statefulset-resync/statefulset-resync.js";
export {
  type FrontierPoint,
  frontierOf,
  runWatchRv0Churn,
  rv0WatchListerWatcher,
  WATCH_RV0_APPROACHES,
  WATCH_RV0_DEFAULT_SWEEP,
  type WatchRv0Approach,
  type WatchRv0Cell,
  type WatchRv0ChurnOptions,
  type WatchRv0Sweep,
} from "./studies/watch-rv0-churn/watch-rv0-churn.js";
