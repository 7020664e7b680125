// The engine's storage layer (kube-apiserver's etcd3 store): MVCC storage with one global resourceVersion, its
// event history and compaction, continue tokens, sorted keys. These are the names the other engine folders may use.
export { decodeContinue, encodeContinue, encodeContinueFrom } from "./continue-token.js";
export {
  CacheEvent,
  EVENT_FRESH_DURATION_MS,
  EventHistory,
  HISTORY_LOWER_BOUND,
  HISTORY_UPPER_BOUND,
} from "./event-history.js";
export { SortedKeyMap } from "./sorted-keys.js";
export { keyOf, MvccStorage, paginate, prefixOf, type StorageEvent, type StoragePage } from "./storage.js";
export { StorageMaintenance } from "./storage-maintenance.js";
