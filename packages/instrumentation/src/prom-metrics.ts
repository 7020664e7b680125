import * as prom from "prom-client";
import type { Counter, Gauge, Histogram, HistogramOpts, Labels, MetricOpts, MetricsProvider } from "./metrics.js";

/**
 * A {@link MetricsProvider} backed by prom-client. {@link PromMetrics.render} returns the Prometheus text
 * exposition of everything registered, for a `/metrics` endpoint.
 */
export class PromMetrics implements MetricsProvider {
  readonly registry: prom.Registry;

  constructor(registry: prom.Registry = new prom.Registry()) {
    this.registry = registry;
  }

  counter(opts: MetricOpts): Counter {
    const c = this.getOrCreate(opts, () => new prom.Counter(this.config(opts))) as prom.Counter<string>;
    return { inc: (labels, value = 1) => c.inc(labelsOf(labels), value) };
  }

  gauge(opts: MetricOpts): Gauge {
    const g = this.getOrCreate(opts, () => new prom.Gauge(this.config(opts))) as prom.Gauge<string>;
    return {
      set: (value, labels) => g.set(labelsOf(labels), value),
      inc: (labels, value = 1) => g.inc(labelsOf(labels), value),
      dec: (labels, value = 1) => g.dec(labelsOf(labels), value),
    };
  }

  histogram(opts: HistogramOpts): Histogram {
    const h = this.getOrCreate(
      opts,
      () => new prom.Histogram({ ...this.config(opts), buckets: [...opts.buckets] }),
    ) as prom.Histogram<string>;
    return { observe: (value, labels) => h.observe(labelsOf(labels), value) };
  }

  /** Prometheus text format of every metric in the registry. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type to serve {@link PromMetrics.render} with. */
  get contentType(): string {
    return this.registry.contentType;
  }

  private config(opts: MetricOpts) {
    return { name: opts.name, help: opts.help, labelNames: [...(opts.labelNames ?? [])], registers: [this.registry] };
  }

  private getOrCreate(opts: MetricOpts, create: () => prom.Metric<string>): prom.Metric<string> {
    return this.registry.getSingleMetric(opts.name) ?? create();
  }
}

function labelsOf(labels: Labels | undefined): prom.LabelValues<string> {
  return (labels ?? {}) as prom.LabelValues<string>;
}
