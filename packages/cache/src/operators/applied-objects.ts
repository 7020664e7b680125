import { Observable, type OperatorFunction } from "rxjs";
import type { WatcherEvent } from "../watcher-event.js";

/**
 * The objects that exist after each event: those of `initApply` and `apply` (kube-rs `applied_objects()`).
 * Deletes, list boundaries and bookmarks are dropped, so a relist re-emits every object.
 */
export function appliedObjects<T>(): OperatorFunction<WatcherEvent<T>, T> {
  return (source) =>
    new Observable<T>((subscriber) =>
      source.subscribe({
        next(event) {
          if (event.type === "initApply" || event.type === "apply") subscriber.next(event.object);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}
