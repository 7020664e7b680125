import { metaOf } from "@informer-ts/apimachinery";
import { Observable } from "rxjs";
import { isDeletedFinalStateUnknown } from "../tombstone.js";

/**
 * What {@link predicateFilter} compares between two versions of an object: a string or number summarising the
 * part that matters, or `undefined` for "cannot tell" (the object is always passed on).
 */
export type ChangePredicate<T> = (obj: T) => string | number | undefined;

/**
 * Passes an object on only when `predicate(object)` differs from its value for the previous version of the same
 * object (kube-rs `predicate_filter`). The first version of each object passes; so does every object for which
 * the predicate is `undefined`. Objects are told apart by namespace, name and uid, so a deleted and re-created
 * object passes again. A `DeletedFinalStateUnknown` tombstone passes and forgets the object.
 *
 * The operator remembers one value per object seen, for as long as the subscription lasts. It is generic in the
 * stream's type, so a predicate over any object (like the ready ones below) keeps the stream's own type.
 */
export function predicateFilter<P>(
  predicate: ChangePredicate<P>,
): <T extends P>(source: Observable<T>) => Observable<T> {
  return <T extends P>(source: Observable<T>) =>
    new Observable<T>((subscriber) => {
      const seen = new Map<string, { uid: string; value: string | number }>();
      return source.subscribe({
        next(obj) {
          if (isDeletedFinalStateUnknown(obj)) {
            seen.delete(obj.key);
            subscriber.next(obj);
            return;
          }
          const meta = metaOf(obj);
          let value: string | number | undefined;
          try {
            value = predicate(obj);
          } catch (err) {
            subscriber.error(err);
            return;
          }
          if (meta === undefined || value === undefined) {
            subscriber.next(obj);
            return;
          }
          const key = meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : (meta.name ?? "");
          const uid = meta.uid ?? "";
          const prev = seen.get(key);
          if (prev !== undefined && prev.uid === uid && prev.value === value) return;
          seen.set(key, { uid, value });
          subscriber.next(obj);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}

/**
 * A {@link ChangePredicate}: `metadata.generation`, which the server bumps on spec changes only (status and metadata
 * updates pass through unnoticed). Objects without a generation always pass.
 */
export function generationChanged(obj: unknown): number | undefined {
  const g = metaOf(obj)?.generation;
  return typeof g === "number" ? g : undefined;
}

/** A {@link ChangePredicate}: the labels (order-insensitive). */
export function labelsChanged(obj: unknown): string {
  return canonicalMap(metaOf(obj)?.labels);
}

/** A {@link ChangePredicate}: the annotations (order-insensitive). */
export function annotationsChanged(obj: unknown): string {
  return canonicalMap(metaOf(obj)?.annotations);
}

/** A {@link ChangePredicate}: `metadata.resourceVersion`, i.e. any change at all (drops exact repeats, e.g. relists). */
export function resourceVersionChanged(obj: unknown): string | undefined {
  const rv = metaOf(obj)?.resourceVersion;
  return typeof rv === "string" && rv !== "" ? rv : undefined;
}

function canonicalMap(map: Readonly<Record<string, string>> | undefined): string {
  if (map === undefined) return "{}";
  const keys = Object.keys(map).sort();
  const out: Record<string, string> = {};
  for (const k of keys) out[k] = map[k] as string;
  return JSON.stringify(out);
}
