import * as prom from "prom-client";
import {
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
  type Counter,
  checkLabels,
  type Gauge,
  type Histogram,
  type HistogramOpts,
  type MetricLabels,
  type MetricOpts,
  type MetricsProvider,
  seriesKey,
  withBound,
} from "./metrics.js";

/**
 * A {@link MetricsProvider} backed by prom-client. {@link PromMetrics.render} returns the Prometheus text
 * exposition of everything registered, for a `/metrics` endpoint.
 *
 * The bound handles (`with(labels)`) record the same values as the unbound methods but skip prom-client's per-call
 * label validation and label hashing: a handle learns the key of its series in the metric's value table the first
 * time it records (through prom-client's own method) and afterwards updates that series in place, one table lookup
 * per call. It re-checks the series on every call, so a `reset()` or `remove()` of the metric is honoured (the next
 * call goes through prom-client again and re-creates the series). If the installed prom-client stores its values
 * in another shape than the one this was written against (15.x), the handles always take prom-client's own path.
 * Handles are cached per metric and label set.
 */
export class PromMetrics implements MetricsProvider {
  readonly registry: prom.Registry;
  private readonly bound = new Map<string, BoundCounter | BoundGauge | BoundHistogram>();
  private defaultsCollected = false;

  constructor(registry: prom.Registry = new prom.Registry()) {
    this.registry = registry;
  }

  counter(opts: MetricOpts): Counter {
    const c = this.getOrCreate(opts, () => new prom.Counter(this.config(opts))) as prom.Counter<string>;
    return withBound<Counter>({ inc: (labels, value = 1) => c.inc(labelsOf(labels), value) }, (labels) =>
      this.bind("counter", opts, labels, (own) => new PromBoundCounter(c, own)),
    );
  }

  gauge(opts: MetricOpts): Gauge {
    const g = this.getOrCreate(opts, () => new prom.Gauge(this.config(opts))) as prom.Gauge<string>;
    return withBound<Gauge>(
      {
        set: (value, labels) => g.set(labelsOf(labels), value),
        inc: (labels, value = 1) => g.inc(labelsOf(labels), value),
        dec: (labels, value = 1) => g.dec(labelsOf(labels), value),
      },
      (labels) => this.bind("gauge", opts, labels, (own) => new PromBoundGauge(g, own)),
    );
  }

  histogram(opts: HistogramOpts): Histogram {
    const h = this.getOrCreate(
      opts,
      () => new prom.Histogram({ ...this.config(opts), buckets: [...opts.buckets] }),
    ) as prom.Histogram<string>;
    return withBound<Histogram>({ observe: (value, labels) => h.observe(labelsOf(labels), value) }, (labels) =>
      this.bind("histogram", opts, labels, (own) => new PromBoundHistogram(h, own)),
    );
  }

  /**
   * Adds prom-client's default metrics to the registry — process (`process_cpu_seconds_total`,
   * `process_resident_memory_bytes`, open fds…) and Node.js runtime (`nodejs_eventloop_lag_seconds`, heap, GC) —
   * once per registry; returns this. They are read at scrape time (no timer keeps the process alive).
   */
  collectDefaultMetrics(): this {
    if (!this.defaultsCollected) {
      this.defaultsCollected = true;
      prom.collectDefaultMetrics({ register: this.registry });
    }
    return this;
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

  /** The cached handle of (metric, label set), created by `create` with a frozen copy of the labels. */
  private bind<B extends BoundCounter | BoundGauge | BoundHistogram>(
    kind: string,
    opts: MetricOpts,
    labels: MetricLabels | undefined,
    create: (labels: MetricLabels) => B,
  ): B {
    checkLabels(opts.name, opts.labelNames ?? [], labels);
    const key = `${kind}\u0000${opts.name}\u0000${seriesKey(labels)}`;
    let handle = this.bound.get(key);
    if (handle === undefined) {
      handle = create(Object.freeze({ ...labels }));
      this.bound.set(key, handle);
    }
    return handle as B;
  }
}

function labelsOf(labels: MetricLabels | undefined): prom.LabelValues<string> {
  return (labels ?? {}) as prom.LabelValues<string>;
}

/** A counter's or gauge's series in prom-client 15's value table. */
interface ValueSeries {
  value: number;
  labels: Record<string, string | number>;
}

/** A histogram's series in prom-client 15's value table. */
interface HistogramSeries {
  sum: number;
  count: number;
  bucketValues: Record<string, number>;
  labels: Record<string, string | number>;
}

/** What a bound handle reads of a prom-client metric: its value table, keyed by prom-client's label hash. */
interface MetricTable<S> {
  hashMap?: Record<string, S>;
}

/**
 * The key of the series with exactly `labels` in `metric`'s value table, or `undefined` when there is none or the
 * table does not have the expected shape (`isSeries`).
 */
function findSeriesKey<S extends { labels: Record<string, string | number> }>(
  metric: MetricTable<S>,
  labels: MetricLabels,
  isSeries: (s: S) => boolean,
): string | undefined {
  const table = metric.hashMap;
  if (table === null || typeof table !== "object") return undefined;
  const names = Object.keys(labels);
  for (const key of Object.keys(table)) {
    const s = table[key]!;
    if (s === null || typeof s !== "object" || s.labels === null || typeof s.labels !== "object") continue;
    if (Object.keys(s.labels).length !== names.length) continue;
    if (names.every((n) => s.labels[n] === labels[n]) && isSeries(s)) return key;
  }
  return undefined;
}

const isValueSeries = (s: ValueSeries) => typeof s.value === "number";

/** A prom-client counter series bound to its labels. */
class PromBoundCounter implements BoundCounter {
  private key: string | undefined;
  private readonly table: MetricTable<ValueSeries>;

  constructor(
    private readonly metric: prom.Counter<string>,
    private readonly labels: MetricLabels,
  ) {
    this.table = metric as unknown as MetricTable<ValueSeries>;
  }

  inc(value = 1): void {
    if (this.key !== undefined && value >= 0 && value < Number.POSITIVE_INFINITY) {
      const s = this.table.hashMap![this.key];
      if (s !== undefined) {
        s.value += value;
        return;
      }
    }
    this.metric.inc(this.labels as prom.LabelValues<string>, value);
    this.key = findSeriesKey(this.table, this.labels, isValueSeries);
  }
}

/** A prom-client gauge series bound to its labels. */
class PromBoundGauge implements BoundGauge {
  private key: string | undefined;
  private readonly table: MetricTable<ValueSeries>;

  constructor(
    private readonly metric: prom.Gauge<string>,
    private readonly labels: MetricLabels,
  ) {
    this.table = metric as unknown as MetricTable<ValueSeries>;
  }

  set(value: number): void {
    if (this.key !== undefined && typeof value === "number") {
      const s = this.table.hashMap![this.key];
      if (s !== undefined) {
        s.value = value;
        return;
      }
    }
    this.metric.set(this.labels as prom.LabelValues<string>, value);
    this.key = findSeriesKey(this.table, this.labels, isValueSeries);
  }

  inc(value = 1): void {
    this.add(value, value, (v) => this.metric.inc(this.labels as prom.LabelValues<string>, v));
  }

  dec(value = 1): void {
    this.add(-value, value, (v) => this.metric.dec(this.labels as prom.LabelValues<string>, v));
  }

  private add(delta: number, value: number, slow: (value: number) => void): void {
    if (this.key !== undefined && typeof value === "number") {
      const s = this.table.hashMap![this.key];
      if (s !== undefined) {
        s.value += delta;
        return;
      }
    }
    slow(value);
    this.key = findSeriesKey(this.table, this.labels, isValueSeries);
  }
}

/** A prom-client histogram series bound to its labels. */
class PromBoundHistogram implements BoundHistogram {
  private key: string | undefined;
  private readonly table: MetricTable<HistogramSeries>;
  /** The upper bounds, ascending, and the property names prom-client keeps their counts under. */
  private readonly bounds: readonly number[];
  private readonly bucketKeys: readonly string[];

  constructor(
    private readonly metric: prom.Histogram<string>,
    private readonly labels: MetricLabels,
  ) {
    this.table = metric as unknown as MetricTable<HistogramSeries>;
    const upper = (metric as unknown as { upperBounds?: unknown }).upperBounds;
    this.bounds = Array.isArray(upper) && upper.every((b) => typeof b === "number") ? [...upper] : [];
    this.bucketKeys = this.bounds.map(String);
  }

  observe(value: number): void {
    if (this.key !== undefined && Number.isFinite(value)) {
      const s = this.table.hashMap![this.key];
      if (s !== undefined) {
        s.sum += value;
        s.count += 1;
        const bounds = this.bounds;
        for (let i = 0; i < bounds.length; i++) {
          if (value <= bounds[i]!) {
            s.bucketValues[this.bucketKeys[i]!]! += 1;
            break;
          }
        }
        return;
      }
    }
    this.metric.observe(this.labels as prom.LabelValues<string>, value);
    this.key = findSeriesKey(this.table, this.labels, (s) => this.isSeries(s));
  }

  private isSeries(s: HistogramSeries): boolean {
    if (typeof s.sum !== "number" || typeof s.count !== "number") return false;
    const buckets = s.bucketValues;
    if (buckets === null || typeof buckets !== "object" || this.bounds.length === 0) return false;
    return this.bucketKeys.every((k) => typeof buckets[k] === "number");
  }
}
