// Public surface of @informer-ts/scenarios: the scenario runtime for users' own studies.

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
export { renderHtmlReport } from "./report/html-report.js";
export {
  describeRun,
  formatSummaryTable,
  type ReportChart,
  type ScenarioReport,
  type StandardChart,
  type SummaryRow,
  type VariantResult,
} from "./report/scenario-report.js";
export { barChart, type ChartFrame, type LineSeries, lineChart } from "./report/svg-chart.js";
export { type HistogramBucket, LONG_WAIT_BUCKETS_SECONDS, LongHistogram } from "./scenario/long-histogram.js";
export { costFunction, type ProcessingCost } from "./scenario/processing-cost.js";
export { type Sample, Sampler, type SampleSource } from "./scenario/sampler.js";
export {
  type ItemError,
  type ProcessOutcome,
  type RunOptions,
  requestsByServedFrom,
  ScenarioRuntime,
  type ScenarioRuntimeOptions,
  ScenarioStalledError,
} from "./scenario/scenario-runtime.js";
export { type SlowConsumerOptions, slowConsumer } from "./scenario/slow-consumer.js";
export { type ApiserverLoadOptions, LOAD_CLIENTS, runApiserverLoad } from "./scenarios/apiserver-load.js";
export {
  measureRouting,
  ROUTING_PROBES,
  type RoutingOutcome,
  type RoutingProbe,
} from "./scenarios/apiserver-load-routing.js";
export {
  LOAD_USER_AGENTS,
  type LoadWorkloadCounts,
  type LoadWorkloadOptions,
  RunningWorkload,
  seedLoadCluster,
} from "./scenarios/apiserver-load-workload.js";
export { KUBE_VERSIONS, type KubeVersion, simOptionsForVersion } from "./scenarios/kube-version.js";
export {
  runStatefulSetResync,
  STATEFULSET_RESYNC_VARIANTS,
  type StatefulSetResyncOptions,
  type StatefulSetResyncVariant,
} from "./scenarios/statefulset-resync.js";
// study 002 (scen-lists)
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
} from "./scenarios/watch-rv0-churn.js";
