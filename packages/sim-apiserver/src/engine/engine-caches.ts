import {
  type Cacher,
  type CacheWatcher,
  type OpenWatchSample,
  type WatcherFaults,
  type WatcherInfo,
  type WatchMemoryGauge,
  type WatchMemoryModel,
  watchMemoryGauge,
} from "./cacher/index.js";
import type { ObjectCountTracker } from "./filters/index.js";
import type { ResourceTable } from "./registry/index.js";
import type { ResourceRef } from "./request-context.js";
import { groupResourceString, type SimResource } from "./resources.js";

/** What {@link EngineCaches} reads (the engine's parts). */
export interface EngineCachesDeps {
  readonly table: ResourceTable;
  readonly watcherFaults: WatcherFaults;
  readonly objectCounts: ObjectCountTracker<SimResource>;
  readonly watchMemoryModel: WatchMemoryModel;
}

/**
 * The engine's watch caches as tests, metrics and the admin API look at them (`SimApiServer.caches`): each
 * resource's cacher, its open watchers with their buffer fill, and the watch memory kube-apiserver would hold for
 * them. Each method given a resource that is not served throws `UnknownResourceError` (a 404 naming it).
 */
export class EngineCaches {
  constructor(private readonly deps: EngineCachesDeps) {}

  /** The watch cache of a resource. */
  cacher(ref: ResourceRef): Cacher {
    return this.deps.table.cacher(ref);
  }

  /** Open watchers of a resource. */
  watchers(ref: ResourceRef): readonly CacheWatcher[] {
    return this.deps.table.cacher(ref).openWatchers();
  }

  /** Every open watcher (all resources, or one), with its id, user agent and buffer fill. */
  watcherInfo(ref?: ResourceRef): WatcherInfo[] {
    return this.deps.watcherFaults.info(ref);
  }

  /**
   * kube-apiserver's memory for the watches open now, per the watch memory model (`watchMemoryEstimate` for each
   * watcher with its own channel size and buffered events, events sized at its resource's average encoded object), by
   * resource. A model of the real server, not this process's heap.
   */
  watchMemory(): WatchMemoryGauge {
    const samples: OpenWatchSample[] = [];
    const byName = new Map<string, SimResource>();
    for (const c of this.deps.table.allCachers()) {
      const name = groupResourceString(c.resource);
      byName.set(name, c.resource);
      for (const w of c.openWatchers()) {
        samples.push({ resource: name, chanSize: w.chanSize, buffered: w.inputLength + w.resultLength });
      }
    }
    return watchMemoryGauge(
      samples,
      (name) => this.deps.objectCounts.get(byName.get(name)!).averageObjectSizeBytes,
      this.deps.watchMemoryModel,
    );
  }
}
