export { EventStream } from "./event-stream.js";
export { type HistogramSnapshot, InMemoryMetrics } from "./in-memory-metrics.js";
export {
  type Counter,
  exponentialBuckets,
  type Gauge,
  type Histogram,
  type HistogramOpts,
  type Labels,
  type MetricOpts,
  type MetricsProvider,
  noopMetrics,
  seriesKey,
} from "./metrics.js";
export { PromMetrics } from "./prom-metrics.js";
