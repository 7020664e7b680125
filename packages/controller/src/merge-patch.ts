// JSON merge patches (RFC 7386) computed from an edited copy, controller-runtime's `client.MergeFrom`, and the typed
// patch bodies.
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "@informer-ts/apimachinery";
import type { DeepPartial } from "@informer-ts/client";

/**
 * The body of a JSON merge patch of a `T` (RFC 7386): every field optional, objects patched field by field, `null`
 * deleting a field, arrays and scalars replaced whole. `{ spec: { replicas: 3 }, metadata: { labels: { old: null } } }`
 * is a `MergePatch<Deployment>`.
 */
export type MergePatch<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: MergePatch<NonNullable<T[K]>> | null }
    : T;

/** A JSON pointer (RFC 6901) into the object: `/spec/replicas`, `/metadata/labels/app~1name`. */
export type JsonPointer = `/${string}` | "";

/** One operation of a JSON patch (RFC 6902), the body of `patchType: "json"` being an array of them. */
export type JsonPatchOp =
  | { readonly op: "add" | "replace" | "test"; readonly path: JsonPointer; readonly value: unknown }
  | { readonly op: "remove"; readonly path: JsonPointer }
  | { readonly op: "move" | "copy"; readonly from: JsonPointer; readonly path: JsonPointer };

/**
 * A patch body of a `T` as the manager's client takes it: a JSON merge (or strategic-merge) patch object typed by the
 * resource ({@link MergePatch}), a JSON patch (an array of {@link JsonPatchOp}), or text sent as it is (YAML for
 * server-side apply, a strategic-merge patch with `$patch` directives…).
 */
export type PatchBody<T> = MergePatch<T> | readonly JsonPatchOp[] | string;

/**
 * The JSON merge patch that turns `original` into `modified` (`jsonpatch.CreateMergePatch`): fields of `modified`
 * that differ (objects compared field by field, arrays as a whole), `null` for fields `modified` lacks. Both are
 * compared as JSON: `undefined` fields count as absent. A `null` in `modified` cannot be told from a deletion (RFC 7386
 * has no way to set `null`). `{}` when nothing changed.
 */
export function createMergePatch<T>(original: T, modified: T): MergePatch<T> {
  return (diff(toJson(original), toJson(modified)) ?? {}) as MergePatch<T>;
}

/** Options of {@link mergeFrom}. */
export interface MergeFromOptions {
  /**
   * `MergeFromWithOptimisticLock`: the patch carries the original's `metadata.resourceVersion`, so the server refuses
   * it with a 409 Conflict when the object changed since it was read. Throws when the original has none.
   */
  readonly optimisticLock?: boolean;
}

/** A patch computed from an edited copy (controller-runtime's `client.Patch`): its type and its body. */
export interface MergeFromPatch<T> {
  readonly patchType: "merge";
  /** The merge patch from the original to `modified` (`Patch.Data`): any edit of it, as the client's writes take. */
  data(modified: DeepPartial<T>): MergePatch<T>;
}

/**
 * controller-runtime's `client.MergeFrom(original)`: keep the object as read, edit a copy, send
 * `mergeFrom(original).data(edited)` with `patchType: "merge"` — only what the edit changed goes over the wire (an
 * update would send the whole object and fail with a 409 on any concurrent change). The original is snapshotted
 * (deep-copied) now, so editing it afterwards does not change the patch.
 *
 * ```ts
 * const patch = mergeFrom(d);
 * const edited = { ...d, spec: { ...d.spec, replicas: 3 } };
 * await client.patch(deployments, name, patch.data(edited), { namespace, patchType: patch.patchType });
 * ```
 */
export function mergeFrom<T extends KubeObject>(original: T, options: MergeFromOptions = {}): MergeFromPatch<T> {
  const from = toJson(original) as KubeObject;
  const version = from?.metadata?.resourceVersion;
  if (options.optimisticLock === true && (typeof version !== "string" || version === "")) {
    throw new TypeError(
      `cannot use OptimisticLock, object ${from?.metadata?.namespace ?? ""}/${from?.metadata?.name ?? ""} does not have any resource version we can use`,
    );
  }
  return {
    patchType: "merge",
    data(modified: DeepPartial<T>): MergePatch<T> {
      const to = toJson(modified) as KubeObject;
      if (options.optimisticLock !== true) return createMergePatch<unknown>(from, to) as MergePatch<T>;
      // As controller-runtime: diff without the resourceVersion, then always send the original's.
      const a = { ...from, metadata: { ...from.metadata, resourceVersion: undefined } };
      const b = { ...to, metadata: { ...to.metadata, resourceVersion: undefined } };
      const patch = createMergePatch<unknown>(toJson(a), toJson(b)) as Record<string, unknown>;
      const meta = (patch.metadata ?? {}) as Record<string, unknown>;
      return { ...patch, metadata: { ...meta, resourceVersion: version } } as MergePatch<T>;
    },
  };
}

function toJson(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The patch from `a` to `b`, `undefined` when they are equal. */
function diff(a: unknown, b: unknown): unknown {
  if (!isObject(a) || !isObject(b)) return isDeepStrictEqual(a, b) ? undefined : (b ?? null);
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const k of Object.keys(a)) {
    if (!(k in b) || b[k] === null) {
      if (a[k] !== null || !(k in b)) {
        out[k] = null;
        changed = true;
      }
    }
  }
  for (const [k, v] of Object.entries(b)) {
    if (v === null) continue;
    if (!(k in a)) {
      out[k] = v;
      changed = true;
      continue;
    }
    const d = diff(a[k], v);
    if (d !== undefined) {
      out[k] = d;
      changed = true;
    }
  }
  return changed ? out : undefined;
}
