// Deprecated aliases (docs/api-surface.md)
export type { Labels } from "./deprecated.js";
export { EventStream, type EventStreamOptions } from "./event-stream.js";
export { type HistogramSnapshot, InMemoryMetrics } from "./in-memory-metrics.js";
export { onAbort, runAsObservable, SignalLink } from "./lifecycle.js";
export {
  formatLogLine,
  type LogFields,
  type Logger,
  type LogLevel,
  newConsoleLogger,
  newJsonLineLogger,
  newLineLogger,
  safeLog,
  silentLogger,
} from "./logger.js";
export {
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
  bindCounter,
  bindGauge,
  bindHistogram,
  type Counter,
  checkLabels,
  exponentialBuckets,
  type Gauge,
  type Histogram,
  type HistogramOpts,
  type MetricLabels,
  type MetricOpts,
  type MetricsProvider,
  noopMetrics,
  seriesKey,
  withBound,
} from "./metrics.js";
export { PromMetrics } from "./prom-metrics.js";
export {
  defaultRuntimeLogger,
  type LogSink,
  newRuntimeLogger,
  parseLogLevel,
  type RuntimeLoggerOptions,
  withFields,
} from "./runtime-logger.js";
export {
  defaultSubscriberErrorReporter,
  SafeObservable,
  type SubscriberCallback,
  type SubscriberErrorReport,
  SubscriberErrorReporter,
  type SubscriberErrorReporterOptions,
  safeObservable,
  subscriberErrorsMetricName,
} from "./safe-observable.js";
