/** A value that goes up and down (`cache.GaugeMetric`). */
export interface GaugeMetric {
  set(value: number): void;
}

/** A monotonically increasing count (`cache.CounterMetric`). */
export interface CounterMetric {
  inc(): void;
}

/** Individual observations (`cache.SummaryMetric`). */
export interface SummaryMetric {
  observe(value: number): void;
}

/**
 * Factory of per-reflector metrics (`cache.MetricsProvider`, reflector_metrics.go).
 *
 * Kept for API parity only: as in client-go since 2019 (PR 74636, issues 52121/53485/73587, unbounded
 * per-reflector series), **no reflector ever calls it**. Use the reflector's status and event stream instead.
 */
export interface ReflectorMetricsProvider {
  newListsMetric(name: string): CounterMetric;
  newListDurationMetric(name: string): SummaryMetric;
  newItemsInListMetric(name: string): SummaryMetric;
  newWatchesMetric(name: string): CounterMetric;
  newShortWatchesMetric(name: string): CounterMetric;
  newWatchDurationMetric(name: string): SummaryMetric;
  newItemsInWatchMetric(name: string): SummaryMetric;
  newLastResourceVersionMetric(name: string): GaugeMetric;
}

const noopMetric: GaugeMetric & CounterMetric & SummaryMetric = { set() {}, inc() {}, observe() {} };

/** The provider in effect until {@link setReflectorMetricsProvider} is called: every metric is a no-op. */
export const noopReflectorMetricsProvider: ReflectorMetricsProvider = {
  newListsMetric: () => noopMetric,
  newListDurationMetric: () => noopMetric,
  newItemsInListMetric: () => noopMetric,
  newWatchesMetric: () => noopMetric,
  newShortWatchesMetric: () => noopMetric,
  newWatchDurationMetric: () => noopMetric,
  newItemsInWatchMetric: () => noopMetric,
  newLastResourceVersionMetric: () => noopMetric,
};

let provider: ReflectorMetricsProvider = noopReflectorMetricsProvider;
let providerSet = false;

/**
 * Sets the process-wide reflector metrics provider; only the first call has an effect
 * (`SetReflectorMetricsProvider`, a `sync.Once`). The provider is never used by reflectors.
 */
export function setReflectorMetricsProvider(p: ReflectorMetricsProvider): void {
  if (providerSet) return;
  providerSet = true;
  provider = p;
}

/** The provider recorded by {@link setReflectorMetricsProvider} (for inspection; reflectors never read it). */
export function reflectorMetricsProvider(): ReflectorMetricsProvider {
  return provider;
}
