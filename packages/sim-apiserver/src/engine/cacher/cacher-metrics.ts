// The watch cache's metrics (kube-apiserver's `pkg/storage/cacher/metrics`) and the cacher hooks that record them.
import { type Counter, type Gauge, type MetricsProvider, noopMetrics } from "@informer-ts/instrumentation";
import type { SimResource } from "../resources.js";
import type { CacherHooks } from "./cacher.js";

/** Watch-cache metrics with kube-apiserver's names. */
export class CacheMetrics {
  readonly registeredWatchers: Gauge;
  readonly terminatedWatchers: Counter;
  readonly dispatchedEvents: Counter;

  constructor(metrics: MetricsProvider = noopMetrics) {
    this.registeredWatchers = metrics.gauge({
      name: "apiserver_registered_watchers",
      help: "Number of currently registered watchers for a given resource",
      labelNames: ["group", "resource"],
    });
    this.terminatedWatchers = metrics.counter({
      name: "apiserver_terminated_watchers_total",
      help: "Counter of watchers closed due to unresponsiveness broken by resource type.",
      labelNames: ["group", "resource"],
    });
    this.dispatchedEvents = metrics.counter({
      name: "apiserver_watch_events_total",
      help: "Number of events sent in watch clients",
      labelNames: ["group", "resource"],
    });
  }
}

/** What {@link cacherHooks} reports to besides the metrics. */
export interface CacherHookSinks {
  /** The bookmark fault in effect. */
  readonly bookmarkMode: CacherHooks["bookmarkMode"];
  /** A klog-style line (watcher terminations, slow initial events); must not throw. */
  readonly log: (message: string) => void;
}

/**
 * The hooks a resource's `Cacher` reports through: the watch-cache metrics and the log. They run inside the
 * dispatcher and timer callbacks, so a throwing metrics provider must not lose an event for the remaining watchers or
 * escape as an uncaught exception: each metric update is guarded (a broken sink loses its own output, nothing else).
 */
export function cacherHooks(metrics: CacheMetrics, sinks: CacherHookSinks): CacherHooks {
  const labels = (r: SimResource) => ({ group: r.group, resource: r.resource });
  return {
    onWatcherTerminated: (r, message) => {
      guarded(() => metrics.terminatedWatchers.inc(labels(r)));
      sinks.log(message);
    },
    onWatcherCountChanged: (r, delta) => guarded(() => metrics.registeredWatchers.inc(labels(r), delta)),
    onEventsDispatched: (r, n) => guarded(() => metrics.dispatchedEvents.inc(labels(r), n)),
    bookmarkMode: sinks.bookmarkMode,
    log: sinks.log,
  };
}

/** Runs a side channel (metrics) so that its failure cannot break the dispatcher calling it. */
function guarded(fn: () => void): void {
  try {
    fn();
  } catch {
    // A broken sink loses its own output, nothing else.
  }
}
