import type { Clock } from "@informer-ts/clock";
import {
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
  bindCounter,
  bindGauge,
  bindHistogram,
  exponentialBuckets,
  type HistogramOpts,
  type Labels,
  type MetricOpts,
  type MetricsProvider,
  noopMetrics,
} from "@informer-ts/instrumentation";

/** Buckets of both workqueue histograms: `ExponentialBuckets(10e-9, 10, 10)`, i.e. 10 ns … 10 s. */
const durationBuckets: readonly number[] = exponentialBuckets(10e-9, 10, 10);

/**
 * The seven workqueue metrics with the names, help texts, label and buckets that component-base registers
 * (`metrics/prometheus/workqueue`). Help texts carry the `[BETA] ` prefix that component-base adds to every
 * BETA metric, so a scrape of informer-ts reads like a scrape of kube-controller-manager. Every series has
 * the single label `name` (the queue name); durations are in seconds.
 */
export const workqueueMetrics = {
  /** Gauge: items added and not yet handed out (dirty-while-processing items count). */
  depth: {
    name: "workqueue_depth",
    help: "[BETA] Current depth of workqueue",
    labelNames: ["name"],
  },
  /** Counter: adds that were not deduplicated. */
  adds: {
    name: "workqueue_adds_total",
    help: "[BETA] Total number of adds handled by workqueue",
    labelNames: ["name"],
  },
  /** Histogram: seconds from an item's first non-deduplicated add to its `get`. */
  latency: {
    name: "workqueue_queue_duration_seconds",
    help: "[BETA] How long in seconds an item stays in workqueue before being requested.",
    labelNames: ["name"],
    buckets: durationBuckets,
  },
  /** Histogram: seconds from `get` to `done`. */
  workDuration: {
    name: "workqueue_work_duration_seconds",
    help: "[BETA] How long in seconds processing an item from workqueue takes.",
    labelNames: ["name"],
    buckets: durationBuckets,
  },
  /** Gauge, set every 500 ms: the summed age of every in-flight item. */
  unfinishedWork: {
    name: "workqueue_unfinished_work_seconds",
    help:
      "[BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
      "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate " +
      "at which this increases.",
    labelNames: ["name"],
  },
  /** Gauge, set every 500 ms: the age of the oldest in-flight item. */
  longestRunningProcessor: {
    name: "workqueue_longest_running_processor_seconds",
    help: "[BETA] How many seconds has the longest running processor for workqueue been running.",
    labelNames: ["name"],
  },
  /** Counter: every `addAfter` call (and so every `addRateLimited`) on a queue that was not shutting down. */
  retries: {
    name: "workqueue_retries_total",
    help: "[BETA] Total number of retries handled by workqueue",
    labelNames: ["name"],
  },
} as const satisfies Record<string, MetricOpts | HistogramOpts>;

let globalMetricsProvider: MetricsProvider = noopMetrics;
let globalProviderSet = false;

/**
 * Sets the provider used by every queue created afterwards without an explicit `metricsProvider`
 * (`workqueue.SetProvider`). Only the first call has an effect, as in client-go; later calls are ignored.
 *
 * Prefer passing `metricsProvider` to each queue: a process-wide provider is shared by every test in the
 * same worker.
 */
export function setProvider(provider: MetricsProvider): void {
  if (globalProviderSet) return;
  globalProviderSet = true;
  globalMetricsProvider = provider;
}

/** The provider a queue uses when its config names none. */
export function resolveProvider(provider: MetricsProvider | undefined): MetricsProvider {
  return provider ?? globalMetricsProvider;
}

/**
 * The metric timestamps of one item, kept in the queue's own record of the item (client-go keeps them in two maps
 * keyed by item; one record per item is the same state without two hash lookups per add, get and done). A queue
 * creates the record with both fields `undefined` and keeps it while the item is dirty or in flight.
 */
export interface ItemTimes {
  /** First non-deduplicated add since the item was last handed out (`addTimes`). */
  addedAt: number | undefined;
  /** When the item was handed out, while it is in flight (`processingStartTimes`). */
  startedAt: number | undefined;
}

/**
 * What a queue reports about its items (client-go's unexported `queueMetrics`). Every method runs inside the
 * queue's synchronous turn; `times` is the item's record (see {@link ItemTimes}).
 */
export interface QueueMetrics {
  add(times: ItemTimes): void;
  get(times: ItemTimes): void;
  /** `times` is `undefined` when the queue has no record of the item (`done` of an item never handed out). */
  done(times: ItemTimes | undefined): void;
  /** Sets the unfinished-work gauges from the records of the items in flight (those with a `startedAt`). */
  updateUnfinishedWork(records: Iterable<ItemTimes>): void;
}

/**
 * `defaultQueueMetrics`: the six queue metrics of one named queue. Each metric's series of the queue is bound once,
 * at construction; the per-item timestamps live in the queue's item records.
 */
class DefaultQueueMetrics implements QueueMetrics {
  private readonly depth: BoundGauge;
  private readonly adds: BoundCounter;
  private readonly latency: BoundHistogram;
  private readonly workDuration: BoundHistogram;
  private readonly unfinishedWorkSeconds: BoundGauge;
  private readonly longestRunningProcessor: BoundGauge;

  constructor(
    provider: MetricsProvider,
    name: string,
    private readonly clock: Clock,
  ) {
    const labels: Labels = Object.freeze({ name });
    this.depth = bindGauge(provider.gauge(workqueueMetrics.depth), labels);
    this.adds = bindCounter(provider.counter(workqueueMetrics.adds), labels);
    this.latency = bindHistogram(provider.histogram(workqueueMetrics.latency), labels);
    this.workDuration = bindHistogram(provider.histogram(workqueueMetrics.workDuration), labels);
    this.unfinishedWorkSeconds = bindGauge(provider.gauge(workqueueMetrics.unfinishedWork), labels);
    this.longestRunningProcessor = bindGauge(provider.gauge(workqueueMetrics.longestRunningProcessor), labels);
  }

  add(times: ItemTimes): void {
    this.adds.inc();
    this.depth.inc();
    if (times.addedAt === undefined) times.addedAt = this.clock.now();
  }

  get(times: ItemTimes): void {
    this.depth.dec();
    const now = this.clock.now();
    times.startedAt = now;
    const added = times.addedAt;
    if (added !== undefined) {
      this.latency.observe(seconds(now - added));
      times.addedAt = undefined;
    }
  }

  done(times: ItemTimes | undefined): void {
    const started = times?.startedAt;
    if (started !== undefined) {
      this.workDuration.observe(seconds(this.clock.since(started)));
      times!.startedAt = undefined;
    }
  }

  updateUnfinishedWork(records: Iterable<ItemTimes>): void {
    let total = 0;
    let oldest = 0;
    for (const { startedAt } of records) {
      if (startedAt === undefined) continue;
      const age = seconds(this.clock.since(startedAt));
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinishedWorkSeconds.set(total);
    this.longestRunningProcessor.set(oldest);
  }
}

function seconds(ms: number): number {
  return ms / 1000;
}

/**
 * The metrics of a queue named `name` (`newQueueMetrics`), or `undefined` — record nothing — when the name
 * is empty or the provider is {@link noopMetrics}. A queue only runs its unfinished-work ticker when this
 * returns metrics.
 */
export function newQueueMetrics(provider: MetricsProvider, name: string, clock: Clock): QueueMetrics | undefined {
  if (name.length === 0 || provider === noopMetrics) return undefined;
  return new DefaultQueueMetrics(provider, name, clock);
}

/** Counts `addAfter` calls (`retryMetrics`). */
export interface RetryMetrics {
  retry(): void;
}

/**
 * The retries counter of a queue named `name` (`newRetryMetrics`), or `undefined` for an unnamed queue. With
 * {@link noopMetrics} the counter records nothing.
 */
export function newRetryMetrics(name: string, provider: MetricsProvider): RetryMetrics | undefined {
  if (name.length === 0) return undefined;
  const retries = bindCounter(provider.counter(workqueueMetrics.retries), Object.freeze({ name }));
  return { retry: () => retries.inc() };
}
