import type { HistogramOpts, MetricOpts } from "@informer-ts/instrumentation";

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
