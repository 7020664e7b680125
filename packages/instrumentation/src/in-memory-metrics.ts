import {
  type BoundGauge,
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

/** What an {@link InMemoryMetrics} histogram series holds. */
export interface HistogramSnapshot {
  count: number;
  sum: number;
  /** Cumulative counts per upper bound, in bucket order (as Prometheus exposes them). */
  buckets: { le: number; count: number }[];
  /** Every observed value in order, for exact assertions in tests. */
  values: number[];
}

type Kind = "counter" | "gauge" | "histogram";

interface Cell {
  labels: MetricLabels;
  value: number;
  hist?: HistogramSnapshot;
}

interface Family {
  kind: Kind;
  opts: MetricOpts | HistogramOpts;
  series: Map<string, Cell>;
}

/**
 * A {@link MetricsProvider} that keeps every series in memory and lets tests read exact values. Asking for a
 * name already registered with another kind, or with other label names, throws: that is a bug in the caller.
 */
export class InMemoryMetrics implements MetricsProvider {
  private readonly families = new Map<string, Family>();

  counter(opts: MetricOpts): Counter {
    const f = this.family("counter", opts);
    const inc = (cell: Cell, value: number) => {
      if (value < 0) throw new RangeError(`counter ${opts.name} cannot decrease (inc by ${value})`);
      cell.value += value;
    };
    return withBound<Counter>({ inc: (labels, value = 1) => inc(this.cell(f, labels), value) }, (labels) => {
      const cell = this.boundCell(f, labels);
      return { inc: (value = 1) => inc(cell(), value) };
    });
  }

  gauge(opts: MetricOpts): Gauge {
    const f = this.family("gauge", opts);
    const gauge: Gauge = {
      set: (value, labels) => {
        this.cell(f, labels).value = value;
      },
      inc: (labels, value = 1) => {
        this.cell(f, labels).value += value;
      },
      dec: (labels, value = 1) => {
        this.cell(f, labels).value -= value;
      },
    };
    return withBound(gauge, (labels): BoundGauge => {
      const cell = this.boundCell(f, labels);
      return {
        set: (value) => {
          cell().value = value;
        },
        inc: (value = 1) => {
          cell().value += value;
        },
        dec: (value = 1) => {
          cell().value -= value;
        },
      };
    });
  }

  histogram(opts: HistogramOpts): Histogram {
    const f = this.family("histogram", opts);
    const observe = (cell: Cell, value: number) => {
      cell.hist ??= {
        count: 0,
        sum: 0,
        buckets: opts.buckets.map((le) => ({ le, count: 0 })),
        values: [],
      };
      cell.hist.count++;
      cell.hist.sum += value;
      cell.hist.values.push(value);
      for (const b of cell.hist.buckets) if (value <= b.le) b.count++;
    };
    return withBound<Histogram>({ observe: (value, labels) => observe(this.cell(f, labels), value) }, (labels) => {
      const cell = this.boundCell(f, labels);
      return { observe: (value) => observe(cell(), value) };
    });
  }

  /** The value of a counter or gauge series; 0 when the series was never touched. */
  value(name: string, labels?: MetricLabels): number {
    return this.families.get(name)?.series.get(seriesKey(labels))?.value ?? 0;
  }

  /** A histogram series; an empty snapshot when never observed. */
  histogramValue(name: string, labels?: MetricLabels): HistogramSnapshot {
    const f = this.families.get(name);
    const hist = f?.series.get(seriesKey(labels))?.hist;
    if (hist !== undefined) return hist;
    const buckets = f !== undefined && "buckets" in f.opts ? f.opts.buckets : [];
    return { count: 0, sum: 0, buckets: buckets.map((le) => ({ le, count: 0 })), values: [] };
  }

  /** Names of every registered metric family. */
  names(): string[] {
    return [...this.families.keys()].sort();
  }

  /** The options a family was registered with (to check names, labels and buckets). */
  describe(name: string): MetricOpts | HistogramOpts | undefined {
    return this.families.get(name)?.opts;
  }

  /** Every series of a family with its labels and value (histograms: the count). */
  series(name: string): { labels: MetricLabels; value: number }[] {
    const f = this.families.get(name);
    if (f === undefined) return [];
    return [...f.series.values()].map((s) => ({ labels: s.labels, value: s.hist?.count ?? s.value }));
  }

  private family(kind: Kind, opts: MetricOpts | HistogramOpts): Family {
    const existing = this.families.get(opts.name);
    if (existing !== undefined) {
      const sameLabels =
        JSON.stringify([...(existing.opts.labelNames ?? [])]) === JSON.stringify([...(opts.labelNames ?? [])]);
      if (existing.kind !== kind || !sameLabels) {
        throw new Error(
          `metric ${opts.name} already registered as a ${existing.kind} with labels [${existing.opts.labelNames ?? []}]`,
        );
      }
      return existing;
    }
    const f: Family = { kind, opts, series: new Map() };
    this.families.set(opts.name, f);
    return f;
  }

  /**
   * The cell of a bound series: the labels are checked now, the cell is created on first use (so that a handle that
   * never records leaves no series, as with the unbound methods) and then kept.
   */
  private boundCell(f: Family, labels: MetricLabels | undefined): () => Cell {
    checkLabels(f.opts.name, f.opts.labelNames ?? [], labels);
    const own: MetricLabels | undefined = labels === undefined ? undefined : Object.freeze({ ...labels });
    let cell: Cell | undefined;
    return () => {
      cell ??= this.cell(f, own);
      return cell;
    };
  }

  private cell(f: Family, labels: MetricLabels | undefined): Cell {
    checkLabels(f.opts.name, f.opts.labelNames ?? [], labels);
    const key = seriesKey(labels);
    let cell = f.series.get(key);
    if (cell === undefined) {
      cell = { labels: { ...labels }, value: 0 };
      f.series.set(key, cell);
    }
    return cell;
  }
}
