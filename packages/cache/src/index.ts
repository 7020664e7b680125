export * from "./exports-fifo.js";
export * from "./exports-informer.js";
export * from "./exports-reflector.js";
export * from "./exports-store.js";
export type { ListerWatcher, Watch } from "./listwatch.js";
export {
  type BookmarkStore,
  type DeletedFinalStateUnknownLike,
  IndexError,
  type Indexer,
  type Indexers,
  type IndexFunc,
  KeyError,
  type KeyFunc,
  type ReflectorStore,
  type ResourceVersionUpdater,
  type Store,
} from "./store.js";
