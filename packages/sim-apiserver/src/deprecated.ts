// The deprecated names of @informer-ts/sim-apiserver, in one place: each is an alias of the name that replaced it
// and is listed in docs/api-surface.md.
import type { InProcessListWatchScope } from "./engine/listwatch.js";
import type { PatchContentType } from "./engine/registry/index.js";
import type { WatchStreamEndReason, WatchStreamSource } from "./http/watch-server.js";

/**
 * Scope of an in-process `SimApiServer.listerWatcher`.
 *
 * @deprecated Renamed {@link InProcessListWatchScope} (apimachinery's `ListWatchScope` plus the user agent):
 * `ListerWatcherScope` meant something else in `@informer-ts/cache`.
 */
export type ListerWatcherScope = InProcessListWatchScope;

/**
 * The patch content types the engine decodes.
 *
 * @deprecated Renamed {@link PatchContentType}: `PatchType` in `@informer-ts/client` names the short patch kinds
 * (`merge`, `json`, …), not content types.
 */
export type PatchType = PatchContentType;

/**
 * What the HTTP face streams a watch response from.
 *
 * @deprecated Renamed {@link WatchStreamSource}: `WatchSource` in `@informer-ts/controller` is a controller's source
 * of events.
 */
export type WatchSource = WatchStreamSource;

/**
 * Why a watch response of the HTTP face ended.
 *
 * @deprecated Renamed {@link WatchStreamEndReason}: `WatchEndReason` in `@informer-ts/cache` is why a reflector's
 * watch ended.
 */
export type WatchEndReason = WatchStreamEndReason;
