// Public surface of @informer-ts/scenarios: the scenario runtime for users' own studies.

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
export {
  LIST_MEMORY_VARIANTS,
  type ListMemoryChildResult,
  type ListMemoryOptions,
  type ListMemoryVariant,
  pins,
  runListMemory,
} from "./scenarios/list-memory.js";
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
