// The list/watch contract moved down to @informer-ts/apimachinery (so that @informer-ts/client does not import
// the cache); the cache re-exports it under the same names for compatibility.
export type { ListerWatcher, ListerWatcherTarget, Watch } from "@informer-ts/apimachinery";
