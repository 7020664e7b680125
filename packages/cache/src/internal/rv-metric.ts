import type { Gauge, MetricLabels, MetricsProvider } from "@informer-ts/instrumentation";

/**
 * Parses a resource version for the `informer_store_resource_version` gauge: the last 15 characters parsed as
 * a base-10 integer (so the value stays below 2^53), "" reads as 0, anything unparsable gives `undefined`
 * (the metric is then left alone). Mirrors client-go's `parseRVForMetricsWithTruncation`, which uses
 * `strconv.ParseInt` (an optional sign, then digits).
 */
export function resourceVersionMetricValue(rv: string): number | undefined {
  if (rv === "") return 0;
  const tail = rv.length > 15 ? rv.slice(rv.length - 15) : rv;
  if (!/^[+-]?[0-9]+$/.test(tail)) return undefined;
  return Number(tail);
}

/** Identity labels of an informer's metrics (client-go `InformerNameAndResource`). */
export interface InformerMetricLabels {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** The `informer_store_resource_version` gauge bound to one informer's labels. */
export class StoreResourceVersionGauge {
  private readonly gauge: Gauge;
  private readonly labels: MetricLabels;

  constructor(provider: MetricsProvider, labels: InformerMetricLabels) {
    this.gauge = provider.gauge({
      name: "informer_store_resource_version",
      help: "Resource version of the informer's store (last 15 digits), updated on every write, replace and bookmark",
      labelNames: ["name", "group", "version", "resource"],
    });
    this.labels = { name: labels.name, group: labels.group, version: labels.version, resource: labels.resource };
  }

  /** Sets the gauge from `rv`; an unparsable RV leaves it unchanged. */
  observe(rv: string): void {
    const v = resourceVersionMetricValue(rv);
    if (v !== undefined) this.gauge.set(v, this.labels);
  }
}
