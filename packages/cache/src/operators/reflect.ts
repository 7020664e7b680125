import { type MonoTypeOperatorFunction, Observable } from "rxjs";
import { consoleLogger, type ReflectorLogger, safeLog } from "../reflector/logger.js";
import type { ReflectorStore } from "../store.js";
import type { WatcherEvent } from "../watcher-event.js";

/** The store {@link reflect} writes into: any reflector store (its optional `bookmark` is used when present). */
export type ReflectTarget<T> = ReflectorStore<T>;

/** Options of {@link reflect}. */
export interface ReflectOptions {
  /** Where a store that throws is reported (default: warnings to the console). The stream goes on. */
  readonly logger?: ReflectorLogger;
}

/**
 * Writes a {@link watcher} stream into `store` and passes every event on unchanged (kube-rs `reflect(writer)`).
 *
 * `init` … `initApply` … `initDone(rv)` become **one** `store.replace(objects, rv)`: the objects are buffered until
 * `initDone`, so readers never see a half-listed cache (RealFIFO's atomic mode does the same). `apply` becomes
 * `store.update` — an upsert, as kube-rs's writer does: a Store or Indexer stores the object either way, and a
 * FIFO records an `Updated` delta that an informer delivers as an add when the object is new; `delete` becomes
 * `delete`; `bookmark` is handed to `store.bookmark` when the store has it. The store is written before the event
 * is passed downstream, so a subscriber reading the store sees the event's effect.
 *
 * A store that throws is logged and the stream goes on (client-go's reflector does the same).
 */
export function reflect<T>(
  store: ReflectTarget<T>,
  options: ReflectOptions = {},
): MonoTypeOperatorFunction<WatcherEvent<T>> {
  const logger = options.logger ?? consoleLogger;
  const hasBookmark = typeof store.bookmark === "function";
  return (source) =>
    new Observable<WatcherEvent<T>>((subscriber) => {
      let buffer: T[] | undefined;
      return source.subscribe({
        next(event) {
          // One try around the store call, no closure per event (this is every watch event's path).
          let what = "";
          try {
            switch (event.type) {
              case "init":
                buffer = [];
                break;
              case "initApply":
                if (buffer === undefined) buffer = [event.object];
                else buffer.push(event.object);
                break;
              case "initDone": {
                const items = buffer ?? [];
                buffer = undefined;
                what = "replace";
                store.replace(items, event.resourceVersion);
                break;
              }
              case "apply":
                what = "update";
                store.update(event.object);
                break;
              case "delete":
                what = "delete";
                store.delete(event.object);
                break;
              case "bookmark":
                what = "bookmark";
                if (hasBookmark) store.bookmark!(event.resourceVersion);
                break;
            }
          } catch (err) {
            safeLog(logger, "warn", `reflect: store ${what} failed`, { err });
          }
          subscriber.next(event);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
