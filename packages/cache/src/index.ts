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
