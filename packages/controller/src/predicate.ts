import type { KubeObject } from "@informer-ts/apimachinery";

/**
 * Filters the notifications of one watch before they become requests (controller-runtime's `predicate.Predicate`).
 * A missing method lets that kind of notification through. `delete` receives the last known state (for a
 * `DeletedFinalStateUnknown`, its `obj`, which may be stale). Predicates must not mutate the objects (they are the
 * cache's) and should be cheap: they run on the informer's delivery path.
 *
 * Differences from controller-runtime: no `Generic` (there are no generic events here); `update` gets the two objects
 * instead of an `UpdateEvent`.
 */
export interface Predicate<T = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/** `predicate.NewPredicateFuncs`: one filter applied to the object of every create and delete, and to the new object of updates. */
export function newPredicateFuncs<T = KubeObject>(filter: (obj: T) => boolean): Predicate<T> {
  return { create: filter, update: (_old, obj) => filter(obj), delete: filter };
}

/**
 * `predicate.GenerationChangedPredicate`: passes updates whose `metadata.generation` changed, i.e. spec changes of
 * resources with a status subresource (status and metadata-only writes do not bump the generation). Creates and
 * deletes pass.
 */
export const generationChangedPredicate: Predicate<KubeObject> = {
  update: (oldObj, newObj) => oldObj.metadata?.generation !== newObj.metadata?.generation,
};

/** `predicate.LabelChangedPredicate`: passes updates whose labels changed. Creates and deletes pass. */
export const labelChangedPredicate: Predicate<KubeObject> = {
  update: (oldObj, newObj) => !sameStringMap(oldObj.metadata?.labels, newObj.metadata?.labels),
};

/** `predicate.AnnotationChangedPredicate`: passes updates whose annotations changed. Creates and deletes pass. */
export const annotationChangedPredicate: Predicate<KubeObject> = {
  update: (oldObj, newObj) => !sameStringMap(oldObj.metadata?.annotations, newObj.metadata?.annotations),
};

/**
 * `predicate.ResourceVersionChangedPredicate`: passes updates whose `resourceVersion` changed, dropping the informer's
 * resync notifications. Creates and deletes pass.
 */
export const resourceVersionChangedPredicate: Predicate<KubeObject> = {
  update: (oldObj, newObj) => oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion,
};

/** `predicate.LabelSelectorPredicate` for equality: passes objects whose labels include every pair of `labels`. */
export function hasLabelsPredicate(labels: Readonly<Record<string, string>>): Predicate<KubeObject> {
  const pairs = Object.entries(labels);
  return newPredicateFuncs((obj) => pairs.every(([k, v]) => obj.metadata?.labels?.[k] === v));
}

/** `predicate.And`: passes when every predicate passes (an empty list passes everything). */
export function and<T>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.every((p) => p.create?.(o) ?? true),
    update: (a, b) => predicates.every((p) => p.update?.(a, b) ?? true),
    delete: (o) => predicates.every((p) => p.delete?.(o) ?? true),
  };
}

/** `predicate.Or`: passes when some predicate passes (an empty list passes nothing). */
export function or<T>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.some((p) => p.create?.(o) ?? true),
    update: (a, b) => predicates.some((p) => p.update?.(a, b) ?? true),
    delete: (o) => predicates.some((p) => p.delete?.(o) ?? true),
  };
}

/** `predicate.Not`: inverts a predicate (a missing method, which passes, becomes one that passes nothing). */
export function not<T>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (o) => !(predicate.create?.(o) ?? true),
    update: (a, b) => !(predicate.update?.(a, b) ?? true),
    delete: (o) => !(predicate.delete?.(o) ?? true),
  };
}

function sameStringMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ka = a === undefined ? [] : Object.keys(a);
  const kb = b === undefined ? [] : Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (a![k] !== b?.[k]) return false;
  return true;
}
