import { isConflict, isNotFound, isQualifiedName, type KubeObject } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import { type Clock, realClock } from "@informer-ts/clock";
import type { ObjectClient } from "./object-client.js";

/** A finalizer name that is not a qualified name (`prefix/name`, as label keys). */
export class InvalidFinalizerError extends TypeError {
  override readonly name = "InvalidFinalizerError";
}

/**
 * Checks a finalizer name: it must be a qualified name (an optional DNS-1123 subdomain prefix and `/`, then at most 63
 * characters of `[-A-Za-z0-9_.]` starting and ending alphanumeric), which is what kube-apiserver accepts. Throws an
 * {@link InvalidFinalizerError} naming the value and the rule it breaks.
 */
export function validateFinalizerName(finalizer: unknown): asserts finalizer is string {
  if (typeof finalizer !== "string") {
    throw new InvalidFinalizerError(`finalizer name must be a string, got ${typeof finalizer}`);
  }
  const errs = isQualifiedName(finalizer);
  if (errs.length > 0)
    throw new InvalidFinalizerError(`invalid finalizer name ${JSON.stringify(finalizer)}: ${errs.join("; ")}`);
}

/** Whether `object` lists `finalizer` (controllerutil's `ContainsFinalizer`). */
export function containsFinalizer(object: KubeObject, finalizer: string): boolean {
  const f = object.metadata?.finalizers;
  return Array.isArray(f) && f.includes(finalizer);
}

/** Adds `finalizer` to `object` in place (controllerutil's `AddFinalizer`); true if it was added. Validates the name. */
export function addFinalizer(object: KubeObject, finalizer: string): boolean {
  validateFinalizerName(finalizer);
  if (containsFinalizer(object, finalizer)) return false;
  object.metadata ??= {};
  object.metadata.finalizers = [...(object.metadata.finalizers ?? []), finalizer];
  return true;
}

/** Removes `finalizer` from `object` in place (controllerutil's `RemoveFinalizer`); true if it was present. */
export function removeFinalizer(object: KubeObject, finalizer: string): boolean {
  if (!containsFinalizer(object, finalizer)) return false;
  object.metadata!.finalizers = object.metadata!.finalizers!.filter((f) => f !== finalizer);
  return true;
}

/** Options of {@link patchAddFinalizer} / {@link patchRemoveFinalizer}. */
export interface FinalizerPatchOptions {
  readonly signal?: AbortSignal;
  /** Paces the conflict retries. Default `realClock`. */
  readonly clock?: Clock;
  /** Conflict retries (client-go's `retry.DefaultRetry`: 5 steps, 10 ms apart). */
  readonly steps?: number;
  readonly retryDelayMs?: number;
}

/**
 * Adds `finalizer` to the object on the server: a JSON merge patch of `metadata.finalizers` guarded by the object's
 * `resourceVersion`, so a concurrent change is a 409 Conflict; on a conflict the object is read again and the patch
 * recomputed (`retry.RetryOnConflict` with `DefaultRetry`). Resolves with the object as written, or as read when the
 * finalizer was already there. Other errors (404…) reject unchanged.
 */
export function patchAddFinalizer(
  client: ObjectClient,
  resource: ResourceDescriptor,
  object: KubeObject,
  finalizer: string,
  options: FinalizerPatchOptions = {},
): Promise<KubeObject> {
  validateFinalizerName(finalizer);
  return patchFinalizers(client, resource, object, options, (fs) =>
    fs.includes(finalizer) ? undefined : [...fs, finalizer],
  );
}

/**
 * Removes `finalizer` from the object on the server, like {@link patchAddFinalizer}. An object already gone (404)
 * resolves with `undefined`: there is nothing left to finalize.
 */
export async function patchRemoveFinalizer(
  client: ObjectClient,
  resource: ResourceDescriptor,
  object: KubeObject,
  finalizer: string,
  options: FinalizerPatchOptions = {},
): Promise<KubeObject | undefined> {
  try {
    return await patchFinalizers(client, resource, object, options, (fs) =>
      fs.includes(finalizer) ? fs.filter((f) => f !== finalizer) : undefined,
    );
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function patchFinalizers(
  client: ObjectClient,
  resource: ResourceDescriptor,
  object: KubeObject,
  options: FinalizerPatchOptions,
  edit: (current: readonly string[]) => string[] | undefined,
): Promise<KubeObject> {
  const clock = options.clock ?? realClock;
  const steps = options.steps ?? 5;
  const delay = options.retryDelayMs ?? 10;
  const name = object.metadata?.name;
  if (typeof name !== "string" || name === "") throw new TypeError("finalizer patch: object has no metadata.name");
  const namespace = object.metadata?.namespace;
  const callOpts = namespace !== undefined && namespace !== "" ? { namespace } : {};
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const next = edit(current.metadata?.finalizers ?? []);
    if (next === undefined) return current;
    const patch = {
      metadata: {
        finalizers: next,
        ...(current.metadata?.resourceVersion && { resourceVersion: current.metadata.resourceVersion }),
      },
    };
    try {
      return await client.patch(resource, name, patch, { ...callOpts, patchType: "merge" }, options.signal);
    } catch (err) {
      if (!isConflict(err) || attempt >= steps) throw err;
    }
    await clock.sleep(delay, options.signal);
    current = await client.get(resource, name, callOpts, options.signal);
  }
}
