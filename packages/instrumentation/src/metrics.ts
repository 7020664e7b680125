/** Label values of one time series, by label name. */
export type MetricLabels = Readonly<Record<string, string>>;

/** A monotonically increasing count. */
export interface Counter {
  inc(labels?: MetricLabels, value?: number): void;
  /**
   * The series of `labels`, resolved once: a handle whose `inc(value)` records exactly what `inc(labels, value)`
   * records, without a label lookup per call (Prometheus Go's `With`). Throws, naming the metric, when `labels` does
   * not have exactly the metric's label names. Optional, so that providers written before it still implement the
   * interface: call it through {@link bindCounter}, which falls back to the unbound method. The built-in providers
   * define it as a non-enumerable property (see {@link withBound}), so that a wrapper made by spreading a metric
   * (`{ ...counter, inc: … }`) has no `with` and its handles go through the wrapper's own methods.
   */
  with?(labels?: MetricLabels): BoundCounter;
}

/** A value that goes up and down. */
export interface Gauge {
  set(value: number, labels?: MetricLabels): void;
  inc(labels?: MetricLabels, value?: number): void;
  dec(labels?: MetricLabels, value?: number): void;
  /** The series of `labels`, resolved once (see {@link Counter.with}); call it through {@link bindGauge}. */
  with?(labels?: MetricLabels): BoundGauge;
}

/** Observations counted into fixed buckets (Prometheus semantics: `le` upper bounds, plus sum and count). */
export interface Histogram {
  observe(value: number, labels?: MetricLabels): void;
  /** The series of `labels`, resolved once (see {@link Counter.with}); call it through {@link bindHistogram}. */
  with?(labels?: MetricLabels): BoundHistogram;
}

/** One series of a {@link Counter}: `inc(value)` is the counter's `inc(labels, value)` for the bound labels. */
export interface BoundCounter {
  inc(value?: number): void;
}

/** One series of a {@link Gauge}, its methods those of the gauge for the bound labels. */
export interface BoundGauge {
  set(value: number): void;
  inc(value?: number): void;
  dec(value?: number): void;
}

/** One series of a {@link Histogram}: `observe(value)` is the histogram's `observe(value, labels)`. */
export interface BoundHistogram {
  observe(value: number): void;
}

/**
 * The series of `counter` for `labels`: `counter.with(labels)` when the provider implements it, else a handle that
 * calls the unbound `inc` with `labels` (which then validates the labels on each call, as before). Bind once, at
 * construction, and keep the handle: that is what makes the hot path cheap.
 */
export function bindCounter(counter: Counter, labels?: MetricLabels): BoundCounter {
  if (counter.with !== undefined) return counter.with(labels);
  return { inc: (value) => counter.inc(labels, value) };
}

/** The series of `gauge` for `labels` (see {@link bindCounter}). */
export function bindGauge(gauge: Gauge, labels?: MetricLabels): BoundGauge {
  if (gauge.with !== undefined) return gauge.with(labels);
  return {
    set: (value) => gauge.set(value, labels),
    inc: (value) => gauge.inc(labels, value),
    dec: (value) => gauge.dec(labels, value),
  };
}

/** The series of `histogram` for `labels` (see {@link bindCounter}). */
export function bindHistogram(histogram: Histogram, labels?: MetricLabels): BoundHistogram {
  if (histogram.with !== undefined) return histogram.with(labels);
  return { observe: (value) => histogram.observe(value, labels) };
}

/**
 * Checks that `labels` has exactly the label names `labelNames` (each with a defined value), throwing an error that
 * names the metric otherwise. What `InMemoryMetrics` checks on every call and both built-in providers check in `with`.
 */
export function checkLabels(name: string, labelNames: readonly string[], labels: MetricLabels | undefined): void {
  const given = labels === undefined ? [] : Object.keys(labels);
  if (given.length !== labelNames.length || !labelNames.every((n) => labels?.[n] !== undefined)) {
    throw new Error(`metric ${name} expects labels [${labelNames}], got [${given}]`);
  }
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

/**
 * `metric` with `bind` installed as its non-enumerable `with` method: spreading `metric` into a wrapper that
 * overrides a method does not copy `with`, so {@link bindCounter} and its siblings then use the wrapper's methods.
 */
export function withBound<M extends Counter | Gauge | Histogram>(metric: M, bind: NonNullable<M["with"]>): M {
  Object.defineProperty(metric, "with", { value: bind, enumerable: false, writable: true, configurable: true });
  return metric;
}

const noopBoundCounter: BoundCounter = { inc() {} };
const noopBoundGauge: BoundGauge = { set() {}, inc() {}, dec() {} };
const noopBoundHistogram: BoundHistogram = { observe() {} };
const noopCounter: Counter = withBound<Counter>({ inc() {} }, () => noopBoundCounter);
const noopGauge: Gauge = withBound<Gauge>({ set() {}, inc() {}, dec() {} }, () => noopBoundGauge);
const noopHistogram: Histogram = withBound<Histogram>({ observe() {} }, () => noopBoundHistogram);

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
export function seriesKey(labels: MetricLabels | undefined): string {
  if (labels === undefined) return "";
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",");
}
