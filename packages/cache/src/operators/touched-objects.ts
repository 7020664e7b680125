import { Observable, type OperatorFunction } from "rxjs";
import type { WatcherEvent } from "../watcher-event.js";

/**
 * Every object an event is about, deleted ones included: those of `initApply`, `apply` and `delete` (kube-rs
 * `touched_objects()`). List boundaries and bookmarks are dropped. Objects deleted while the watch was down are
 * not reported (a relist only tells what exists); keep a store with {@link reflect} to learn those.
 */
export function touchedObjects<T>(): OperatorFunction<WatcherEvent<T>, T> {
  return (source) =>
    new Observable<T>((subscriber) =>
      source.subscribe({
        next(event) {
          if (event.type === "initApply" || event.type === "apply" || event.type === "delete") {
            subscriber.next(event.object);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}
