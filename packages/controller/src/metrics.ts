import {
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
  bindCounter,
  bindGauge,
  bindHistogram,
  type HistogramOpts,
  type MetricOpts,
  type MetricsProvider,
} from "@informer-ts/instrumentation";

/** The `result` label values of `controller_runtime_reconcile_total`. */
export type ReconcileResultLabel = "success" | "error" | "requeue" | "requeue_after";

/** Bucket bounds (seconds) of `controller_runtime_reconcile_time_seconds`, as in controller-runtime. */
export const reconcileTimeBuckets: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * controller-runtime's `internal/controller/metrics` definitions, every one labelled `controller`. Counters are
 * initialised to 0 for the controller when it starts, so dashboards see the series before the first reconcile.
 */
export const controllerRuntimeMetrics = {
  reconcileTotal: {
    name: "controller_runtime_reconcile_total",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"],
  } satisfies MetricOpts,
  reconcileErrors: {
    name: "controller_runtime_reconcile_errors_total",
    help: "Total number of reconciliation errors per controller",
    labelNames: ["controller"],
  } satisfies MetricOpts,
  terminalReconcileErrors: {
    name: "controller_runtime_terminal_reconcile_errors_total",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames: ["controller"],
  } satisfies MetricOpts,
  reconcilePanics: {
    name: "controller_runtime_reconcile_panics_total",
    help: "Total number of reconciliation panics per controller",
    labelNames: ["controller"],
  } satisfies MetricOpts,
  reconcileTimeouts: {
    name: "controller_runtime_reconcile_timeouts_total",
    help: "Total number of reconciliation timeouts per controller",
    labelNames: ["controller"],
  } satisfies MetricOpts,
  reconcileTime: {
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"],
    buckets: reconcileTimeBuckets,
  } satisfies HistogramOpts,
  workerCount: {
    name: "controller_runtime_max_concurrent_reconciles",
    help: "Maximum number of concurrent reconciles per controller",
    labelNames: ["controller"],
  } satisfies MetricOpts,
  activeWorkers: {
    name: "controller_runtime_active_workers",
    help: "Number of currently used workers per controller",
    labelNames: ["controller"],
  } satisfies MetricOpts,
} as const;

/** The controller's series of the `controller_runtime_*` metrics, bound once to its `controller` label. */
export interface ControllerMetricSet {
  /** `controller_runtime_reconcile_total`, one series per result. */
  readonly reconcileTotal: Readonly<Record<ReconcileResultLabel, BoundCounter>>;
  readonly reconcileErrors: BoundCounter;
  readonly terminalReconcileErrors: BoundCounter;
  readonly reconcilePanics: BoundCounter;
  readonly reconcileTimeouts: BoundCounter;
  readonly reconcileTime: BoundHistogram;
  readonly workerCount: BoundGauge;
  readonly activeWorkers: BoundGauge;
}

/** Binds the controller's series of {@link controllerRuntimeMetrics} on `p`, every counter initialised to 0. */
export function metricSet(p: MetricsProvider, controller: string): ControllerMetricSet {
  const d = controllerRuntimeMetrics;
  const labels = Object.freeze({ controller });
  const total = p.counter(d.reconcileTotal);
  const perResult = (result: ReconcileResultLabel) => bindCounter(total, Object.freeze({ controller, result }));
  const set: ControllerMetricSet = {
    reconcileTotal: {
      success: perResult("success"),
      error: perResult("error"),
      requeue: perResult("requeue"),
      requeue_after: perResult("requeue_after"),
    },
    reconcileErrors: bindCounter(p.counter(d.reconcileErrors), labels),
    terminalReconcileErrors: bindCounter(p.counter(d.terminalReconcileErrors), labels),
    reconcilePanics: bindCounter(p.counter(d.reconcilePanics), labels),
    reconcileTimeouts: bindCounter(p.counter(d.reconcileTimeouts), labels),
    reconcileTime: bindHistogram(p.histogram(d.reconcileTime), labels),
    workerCount: bindGauge(p.gauge(d.workerCount), labels),
    activeWorkers: bindGauge(p.gauge(d.activeWorkers), labels),
  };
  // controller-runtime initialises every series of the controller to 0 so that rates exist before the first event.
  for (const result of ["success", "error", "requeue", "requeue_after"] as const) set.reconcileTotal[result].inc(0);
  set.reconcileErrors.inc(0);
  set.terminalReconcileErrors.inc(0);
  set.reconcilePanics.inc(0);
  set.reconcileTimeouts.inc(0);
  set.activeWorkers.set(0);
  return set;
}
