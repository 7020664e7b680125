/** Label values of one time series, by label name. */
export type Labels = Readonly<Record<string, string>>;

/** A monotonically increasing count. */
export interface Counter {
  inc(labels?: Labels, value?: number): void;
}

/** A value that goes up and down. */
export interface Gauge {
  set(value: number, labels?: Labels): void;
  inc(labels?: Labels, value?: number): void;
  dec(labels?: Labels, value?: number): void;
}

/** Observations counted into fixed buckets (Prometheus semantics: `le` upper bounds, plus sum and count). */
export interface Histogram {
  observe(value: number, labels?: Labels): void;
}

/** Identity of a metric. `name` is the full Prometheus name, e.g. `workqueue_adds_total`. */
export interface MetricOpts {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
}

export interface HistogramOpts extends MetricOpts {
  /** Upper bounds, ascending. `+Inf` is implicit. */
  readonly buckets: readonly number[];
}

/**
 * Creates metrics (component-base `metrics` registry). Asking twice for the same name returns a metric that
 * records into the same series, so many queues or informers can share one family distinguished by labels.
 * Every component takes a provider and defaults to {@link noopMetrics}.
 */
export interface MetricsProvider {
  counter(opts: MetricOpts): Counter;
  gauge(opts: MetricOpts): Gauge;
  histogram(opts: HistogramOpts): Histogram;
}

const noopCounter: Counter = { inc() {} };
const noopGauge: Gauge = { set() {}, inc() {}, dec() {} };
const noopHistogram: Histogram = { observe() {} };

/** The provider that records nothing. Components may check `provider === noopMetrics` to skip work. */
export const noopMetrics: MetricsProvider = {
  counter: () => noopCounter,
  gauge: () => noopGauge,
  histogram: () => noopHistogram,
};

/** `prometheus.ExponentialBuckets(start, factor, count)`. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (count < 1 || start <= 0 || factor <= 1) {
    throw new RangeError(
      `exponentialBuckets needs count ≥ 1, start > 0, factor > 1; got ${start}, ${factor}, ${count}`,
    );
  }
  const out: number[] = [];
  let v = start;
  for (let i = 0; i < count; i++) {
    out.push(v);
    v *= factor;
  }
  return out;
}

/** Canonical series key: label pairs sorted by name. */
export function seriesKey(labels: Labels | undefined): string {
  if (labels === undefined) return "";
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",");
}
