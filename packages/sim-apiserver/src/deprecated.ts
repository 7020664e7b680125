// The deprecated names of @informer-ts/sim-apiserver, in one place: each is an alias of the name that replaced it
// and is listed in docs/api-surface.md.
import type { InProcessListWatchScope } from "./engine/listwatch.js";

/**
 * Scope of an in-process `SimApiServer.listerWatcher`.
 *
 * @deprecated Renamed {@link InProcessListWatchScope} (apimachinery's `ListWatchScope` plus the user agent):
 * `ListerWatcherScope` meant something else in `@informer-ts/cache`.
 */
export type ListerWatcherScope = InProcessListWatchScope;
