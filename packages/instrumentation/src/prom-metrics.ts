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
 * label validation and label hashing: a handle's first call goes through prom-client's own method (which creates the
 * series); the handle then keeps the series object and updates it in place, with no table lookup and no allocation
 * per call. Histogram handles also batch their bucket counts (sum and count are updated at once) and add them to the
 * series before prom-client reads the metric (its `collect` hook) or rewrites it. Whatever may replace or drop series
 * objects — a gauge's `set`, `zero`, `reset`, `remove`, also `registry.resetMetrics()` — is wrapped on the metric
 * instance to bump a generation, and a handle whose generation is stale goes through prom-client again, so a reset or
 * a removal is honoured. If the installed prom-client stores its values in another shape than the one this was
 * written against (15.x), the handles always take prom-client's own path.
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
 * The series with exactly `labels` in `metric`'s value table, or `undefined` when there is none or the table does not
 * have the expected shape (`isSeries`).
 */
function findSeries<S extends { labels: Record<string, string | number> }>(
  metric: MetricTable<S>,
  labels: MetricLabels,
  isSeries: (s: S) => boolean,
): S | undefined {
  const table = metric.hashMap;
  if (table === null || typeof table !== "object") return undefined;
  const names = Object.keys(labels);
  for (const key of Object.keys(table)) {
    const s = table[key]!;
    if (s === null || typeof s !== "object" || s.labels === null || typeof s.labels !== "object") continue;
    if (Object.keys(s.labels).length !== names.length) continue;
    if (names.every((n) => s.labels[n] === labels[n]) && isSeries(s)) return s;
  }
  return undefined;
}

const isValueSeries = (s: ValueSeries) => typeof s.value === "number";

/**
 * The bookkeeping PromMetrics keeps beside one prom-client metric: a generation, bumped whenever prom-client may
 * replace or drop series objects, and the handles whose batched bucket counts must reach the table before anyone
 * reads or rewrites it.
 */
class SeriesGeneration {
  /** Handles compare this with the generation they cached their series object in. */
  gen = 0;
  private readonly flushers: (() => void)[] = [];

  /** Adds a handle's flush (called before every read and every rewrite of the table). */
  addFlusher(flush: () => void): void {
    this.flushers.push(flush);
  }

  flush(): void {
    for (const f of this.flushers) f();
  }
}

const generations = new WeakMap<object, SeriesGeneration>();

/** The methods of prom-client 15 metrics that replace (`set` of a gauge, `zero`) or drop (`reset`, `remove`) series. */
const rewriting = ["set", "zero", "reset", "remove"] as const;

/**
 * The {@link SeriesGeneration} of `metric`, created on first use: each of the metric's own {@link rewriting} methods
 * is wrapped (on the instance, so every caller — this provider, `registry.resetMetrics()`, code holding the metric —
 * goes through it) to flush the handles' batches and then bump the generation; its `collect` hook (run by
 * prom-client before every read: `get()`, `registry.metrics()`) flushes first, then calls any hook it had.
 */
function generationOf(metric: object): SeriesGeneration {
  let g = generations.get(metric);
  if (g !== undefined) return g;
  const state = new SeriesGeneration();
  g = state;
  generations.set(metric, state);
  const m = metric as Record<string, unknown>;
  for (const name of rewriting) {
    const original = m[name];
    if (typeof original !== "function") continue;
    m[name] = function (this: unknown, ...args: unknown[]) {
      state.flush();
      try {
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } finally {
        state.gen++;
      }
    };
  }
  const collect = m.collect;
  m.collect = function (this: unknown) {
    state.flush();
    return typeof collect === "function" ? (collect as () => unknown).call(this) : undefined;
  };
  return state;
}

/**
 * A prom-client counter series bound to its labels: after the first call (through prom-client, which creates the
 * series) it keeps the series object and adds to it in place while the metric's generation is unchanged.
 */
class PromBoundCounter implements BoundCounter {
  private series: ValueSeries | undefined;
  private gen = -1;
  private readonly table: MetricTable<ValueSeries>;
  private readonly generation: SeriesGeneration;

  constructor(
    private readonly metric: prom.Counter<string>,
    private readonly labels: MetricLabels,
  ) {
    this.table = metric as unknown as MetricTable<ValueSeries>;
    this.generation = generationOf(metric);
  }

  inc(value = 1): void {
    if (this.gen === this.generation.gen && value >= 0 && value < Number.POSITIVE_INFINITY) {
      this.series!.value += value;
      return;
    }
    this.metric.inc(this.labels as prom.LabelValues<string>, value);
    this.series = findSeries(this.table, this.labels, isValueSeries);
    this.gen = this.series === undefined ? -1 : this.generation.gen;
  }
}

/** A prom-client gauge series bound to its labels (as {@link PromBoundCounter}; `set` replaces prom-client's object). */
class PromBoundGauge implements BoundGauge {
  private series: ValueSeries | undefined;
  private gen = -1;
  private readonly table: MetricTable<ValueSeries>;
  private readonly generation: SeriesGeneration;

  constructor(
    private readonly metric: prom.Gauge<string>,
    private readonly labels: MetricLabels,
  ) {
    this.table = metric as unknown as MetricTable<ValueSeries>;
    this.generation = generationOf(metric);
  }

  set(value: number): void {
    if (this.gen === this.generation.gen && typeof value === "number") {
      this.series!.value = value;
      return;
    }
    this.metric.set(this.labels as prom.LabelValues<string>, value);
    this.learn();
  }

  inc(value = 1): void {
    if (this.gen === this.generation.gen && typeof value === "number") {
      this.series!.value += value;
      return;
    }
    this.metric.inc(this.labels as prom.LabelValues<string>, value);
    this.learn();
  }

  dec(value = 1): void {
    if (this.gen === this.generation.gen && typeof value === "number") {
      this.series!.value -= value;
      return;
    }
    this.metric.dec(this.labels as prom.LabelValues<string>, value);
    this.learn();
  }

  /** After a call through prom-client (whose `set` bumped the generation): the series object now in the table. */
  private learn(): void {
    this.series = findSeries(this.table, this.labels, isValueSeries);
    this.gen = this.series === undefined ? -1 : this.generation.gen;
  }
}

/**
 * A prom-client histogram series bound to its labels: sum and count go into the series object at once (so the sum
 * adds up in the order of the calls, bit for bit what prom-client computes); the bucket counts are batched in a typed
 * array and added to the series' buckets whenever prom-client reads or rewrites the table (its `collect` hook and
 * wrapped `reset`/`remove`/`zero`), which is all the same to anyone reading through prom-client.
 */
class PromBoundHistogram implements BoundHistogram {
  private series: HistogramSeries | undefined;
  private gen = -1;
  private readonly table: MetricTable<HistogramSeries>;
  private readonly generation: SeriesGeneration;
  /** The upper bounds, ascending, and the property names prom-client keeps their counts under. */
  private readonly bounds: readonly number[];
  private readonly bucketKeys: readonly string[];
  /** Observations per bucket not yet added to the series' `bucketValues`. */
  private readonly pending: Float64Array;
  private hasPending = false;

  constructor(
    private readonly metric: prom.Histogram<string>,
    private readonly labels: MetricLabels,
  ) {
    this.table = metric as unknown as MetricTable<HistogramSeries>;
    const upper = (metric as unknown as { upperBounds?: unknown }).upperBounds;
    this.bounds = Array.isArray(upper) && upper.every((b) => typeof b === "number") ? [...upper] : [];
    this.bucketKeys = this.bounds.map(String);
    this.pending = new Float64Array(this.bounds.length);
    this.generation = generationOf(metric);
    this.generation.addFlusher(() => this.flush());
  }

  observe(value: number): void {
    if (this.gen === this.generation.gen && Number.isFinite(value)) {
      const s = this.series!;
      s.sum += value;
      s.count += 1;
      const bounds = this.bounds;
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          this.pending[i]! += 1;
          this.hasPending = true;
          break;
        }
      }
      return;
    }
    this.metric.observe(this.labels as prom.LabelValues<string>, value);
    this.series = findSeries(this.table, this.labels, (s) => this.isSeries(s));
    this.gen = this.series === undefined ? -1 : this.generation.gen;
  }

  /** Adds the batched bucket counts to the series (still the cached one: every rewrite flushes before it). */
  private flush(): void {
    if (!this.hasPending) return;
    this.hasPending = false;
    const s = this.series;
    for (let i = 0; i < this.pending.length; i++) {
      const n = this.pending[i]!;
      if (n === 0) continue;
      this.pending[i] = 0;
      if (s !== undefined) s.bucketValues[this.bucketKeys[i]!]! += n;
    }
  }

  private isSeries(s: HistogramSeries): boolean {
    if (typeof s.sum !== "number" || typeof s.count !== "number") return false;
    const buckets = s.bucketValues;
    if (buckets === null || typeof buckets !== "object" || this.bounds.length === 0) return false;
    return this.bucketKeys.every((k) => typeof buckets[k] === "number");
  }
}
