/**
 * What a {@link watcher} stream emits (kube-rs `watcher::Event`). One (re)list is framed by `init` … `initDone`:
 *
 * - `init`: a list or watch-list is about to replace everything known;
 * - `initApply(object)`: one object of that list, one event per object (a 100k list is never one giant array in
 *   the stream);
 * - `initDone(resourceVersion)`: the list is complete; everything not re-applied since `init` is gone;
 * - `apply(object)`: a watch ADDED or MODIFIED event;
 * - `delete(object)`: a watch DELETED event (the object's last state as the server sent it);
 * - `bookmark(resourceVersion)`: a watch BOOKMARK (the stream is current up to that resource version).
 *
 * A consumer that keeps a cache replaces its contents on `initDone` with the objects received since `init`
 * ({@link reflect} does exactly that).
 */
export type WatcherEvent<T> =
  | { readonly type: "init" }
  | { readonly type: "initApply"; readonly object: T }
  | { readonly type: "initDone"; readonly resourceVersion: string }
  | { readonly type: "apply"; readonly object: T }
  | { readonly type: "delete"; readonly object: T }
  | { readonly type: "bookmark"; readonly resourceVersion: string };

/** The `type` of a {@link WatcherEvent}. */
export type WatcherEventType = WatcherEvent<unknown>["type"];

/** The events of a {@link WatcherEvent} union that carry an object. */
export type WatcherObjectEvent<T> = Extract<WatcherEvent<T>, { readonly object: T }>;

/** True for the events that carry an object (`initApply`, `apply`, `delete`). */
export function isWatcherObjectEvent<T>(event: WatcherEvent<T>): event is WatcherObjectEvent<T> {
  return event.type === "initApply" || event.type === "apply" || event.type === "delete";
}
