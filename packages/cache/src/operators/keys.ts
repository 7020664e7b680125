import { Observable, type OperatorFunction } from "rxjs";
import { deletionHandlingMetaNamespaceKeyFunc } from "../keys.js";
import { consoleLogger, type ReflectorLogger, safeLog } from "../reflector/logger.js";
import type { DeletedFinalStateUnknownLike } from "../store.js";

/** Options of {@link keys}. */
export interface KeysOptions {
  /** Where an object without a key is reported (default: warnings to the console); it is skipped. */
  readonly logger?: ReflectorLogger;
}

/**
 * The `namespace/name` key of each object (`name` for cluster-scoped ones), as a workqueue wants it
 * (`DeletionHandlingMetaNamespaceKeyFunc`): a `DeletedFinalStateUnknown` tombstone gives the key it carries. An
 * object without a name (or without metadata) is reported and skipped.
 */
export function keys<T>(options: KeysOptions = {}): OperatorFunction<T | DeletedFinalStateUnknownLike<T>, string> {
  const logger = options.logger ?? consoleLogger;
  return (source) =>
    new Observable<string>((subscriber) =>
      source.subscribe({
        next(obj) {
          let key: string;
          try {
            key = deletionHandlingMetaNamespaceKeyFunc(obj);
          } catch (err) {
            safeLog(logger, "warn", "keys: object has no key; skipped", { err });
            return;
          }
          if (key === "") {
            safeLog(logger, "warn", "keys: object has no key; skipped", { err: "no metadata.name" });
            return;
          }
          subscriber.next(key);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}
