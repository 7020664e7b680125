// The engine's watch cache (kube-apiserver's pkg/storage/cacher): the Cacher and its delegator, the watch cache,
// the dispatcher with its time budget, cache watchers, bookmarks, cacher metrics, the per-watch memory model and
// the faults injected into cache watchers (stalls, bookmark modes).
// These are the names the other engine folders may use.
export { CacheWatcher, type FixedWatch, type WatchCloseReason } from "./cache-watcher.js";
export { Cacher, type CacherConfig } from "./cacher.js";
export { CacheMetrics, cacherHooks } from "./cacher-metrics.js";
export { answeredBy, type ServedFrom, servedFromOfError } from "./served-from.js";
export { BUDGET_REFRESH_MS_PER_SECOND, MAX_DISPATCH_BUDGET_MS } from "./time-budget.js";
export {
  DEFAULT_WATCH_MEMORY_MODEL,
  type OpenWatchSample,
  type WatchMemoryGauge,
  type WatchMemoryModel,
  watchMemoryGauge,
} from "./watch-memory-model.js";
export {
  BOOKMARK_MODES,
  type BookmarkMode,
  WatcherFaults,
  type WatcherInfo,
  type WatcherSelector,
} from "./watcher-faults.js";
