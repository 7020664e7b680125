import type { ListOptions } from "@informer-ts/apimachinery";
import { isBuiltinGroup, RequestConstructionError, type ResourceDescriptor } from "./resources.js";

/** Options of a list or watch: `metav1.ListOptions` plus the namespace (unset = all namespaces). */
export interface ListCallOptions extends ListOptions {
  readonly namespace?: string;
}

/** Namespace of a single-object request (required for namespaced resources). */
export interface ObjectCallOptions {
  readonly namespace?: string;
}

/** Options of a read (`metav1.GetOptions`) and the subresource to read. */
export interface GetCallOptions extends ObjectCallOptions {
  /** `GetOptions.resourceVersion`: `"0"` lets the server answer from its watch cache. */
  readonly resourceVersion?: string;
  /** A subresource (`status`, `scale`…); checked against the descriptor's `subresources` when it lists them. */
  readonly subresource?: string;
}

/** `fieldValidation` values of `metav1.CreateOptions`/`UpdateOptions`/`PatchOptions`. */
export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** Options of create/update/patch (`metav1.CreateOptions` / `UpdateOptions` / `PatchOptions`). */
export interface WriteOptions extends ObjectCallOptions {
  /** Who makes the change (recorded in `managedFields`); at most 128 printable characters. */
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
  /** `dryRun=All`: the server validates and answers, but persists nothing. */
  readonly dryRun?: boolean;
  /** Write a subresource (`status`, `scale`…) instead of the main resource (update and patch only). */
  readonly subresource?: string;
}

/** Patch content types (`types.PatchType`). */
export type PatchType = "merge" | "strategic-merge" | "json" | "apply";

/** The `Content-Type` of each patch type. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: "application/merge-patch+json",
  "strategic-merge": "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
};

/** Options of patch. */
export interface PatchOptions extends WriteOptions {
  /** Default `merge` (JSON merge patch, RFC 7386). */
  readonly patchType?: PatchType;
  /** Server-side apply only: take ownership of conflicting fields. */
  readonly force?: boolean;
}

/** Options of server-side apply: `fieldManager` is required (the server refuses an apply without one). */
export interface ApplyOptions extends Omit<WriteOptions, "fieldManager"> {
  readonly fieldManager: string;
  /** Take ownership of fields another manager owns instead of failing with a 409 conflict. */
  readonly force?: boolean;
}

/** `metav1.DeletionPropagation`. */
export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

/** `metav1.Preconditions`: the delete fails with a 409 Conflict unless the object still has this uid/resourceVersion. */
export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** `metav1.DeleteOptions` (sent as the request body) plus the namespace. */
export interface DeleteCallOptions extends ObjectCallOptions {
  /** Seconds before the object is deleted (Pods); 0 = immediately. A non-negative integer. */
  readonly gracePeriodSeconds?: number;
  /** What happens to dependents (objects whose `ownerReferences` name this one). */
  readonly propagationPolicy?: PropagationPolicy;
  readonly preconditions?: Preconditions;
  readonly dryRun?: boolean;
}

/** Options of deleteCollection: which objects (list options) and how (delete options). */
export interface DeleteCollectionOptions
  extends DeleteCallOptions,
    Pick<
      ListOptions,
      | "labelSelector"
      | "fieldSelector"
      | "limit"
      | "continue"
      | "resourceVersion"
      | "resourceVersionMatch"
      | "timeoutSeconds"
    > {}

const PATCH_TYPES = new Set<string>(Object.keys(PATCH_CONTENT_TYPES));
const FIELD_VALIDATIONS = new Set<string>(["Strict", "Warn", "Ignore"]);
const PROPAGATION_POLICIES = new Set<string>(["Orphan", "Background", "Foreground"]);
const JSON_PATCH_OPS = new Set<string>(["add", "remove", "replace", "move", "copy", "test"]);

/** kube-apiserver's limit on `fieldManager` (`ValidateFieldManager`). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

function fail(message: string): never {
  throw new RequestConstructionError(message);
}

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || typeof v !== "object") return String(v);
  return Array.isArray(v) ? "an array" : "an object";
}

/** Validates the options every write accepts; throws {@link RequestConstructionError} naming the bad field. */
export function validateWriteOptions(o: WriteOptions & { force?: boolean; patchType?: PatchType }): void {
  if (o.fieldManager !== undefined) {
    if (typeof o.fieldManager !== "string") fail(`fieldManager must be a string, got ${describe(o.fieldManager)}`);
    if (o.fieldManager.length > FIELD_MANAGER_MAX_LENGTH) {
      fail(`fieldManager: must have at most ${FIELD_MANAGER_MAX_LENGTH} characters, got ${o.fieldManager.length}`);
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find control characters
    if (/[\u0000-\u001f\u007f-\u009f]/.test(o.fieldManager)) {
      fail(`fieldManager: must only contain printable characters, got ${JSON.stringify(o.fieldManager)}`);
    }
  }
  if (o.fieldValidation !== undefined && !FIELD_VALIDATIONS.has(o.fieldValidation)) {
    fail(`fieldValidation must be one of Strict, Warn, Ignore; got ${describe(o.fieldValidation)}`);
  }
  if (o.dryRun !== undefined && typeof o.dryRun !== "boolean") {
    fail(`dryRun must be a boolean, got ${describe(o.dryRun)}`);
  }
  if (o.force !== undefined && typeof o.force !== "boolean") fail(`force must be a boolean, got ${describe(o.force)}`);
}

/** Query parameters of a write (`dryRun=All`, `fieldManager`, `fieldValidation`, `force`), sorted. */
export function writeQuery(o: WriteOptions & { force?: boolean }): URLSearchParams {
  const q = new URLSearchParams();
  if (o.dryRun === true) q.set("dryRun", "All");
  if (o.fieldManager !== undefined && o.fieldManager !== "") q.set("fieldManager", o.fieldManager);
  if (o.fieldValidation !== undefined) q.set("fieldValidation", o.fieldValidation);
  if (o.force === true) q.set("force", "true");
  q.sort();
  return q;
}

/**
 * Checks a patch before it is sent and returns its body text: the patch type is known; `force` is only given with
 * `apply` and `apply` has a `fieldManager` (the server's own rules); strategic merge patch targets a built-in
 * resource (custom resources answer 415); a JSON patch is an array of operations with a known `op` and a string
 * `path`; merge and strategic merge patches are JSON objects. A string patch is sent as is, after checking that it
 * parses as JSON (any string is accepted for `apply`, whose body is YAML).
 */
export function patchBody(resource: ResourceDescriptor<unknown>, patch: unknown, o: PatchOptions): string {
  const patchType = o.patchType ?? "merge";
  if (!PATCH_TYPES.has(patchType)) {
    fail(`patchType must be one of ${[...PATCH_TYPES].join(", ")}; got ${describe(patchType)}`);
  }
  validateWriteOptions(o);
  if (o.force === true && patchType !== "apply") {
    fail("force: may not be specified for non-apply patch (only server-side apply takes ownership)");
  }
  if (patchType === "apply" && (o.fieldManager === undefined || o.fieldManager === "")) {
    fail("fieldManager: required for apply patch (server-side apply records ownership per manager)");
  }
  if (patchType === "strategic-merge" && !isBuiltinGroup(resource.group)) {
    fail(
      `patchType strategic-merge is not supported for ${resource.resource}.${resource.group} (custom resources take merge, json or apply patches)`,
    );
  }
  if (patch === undefined) fail("patch: a patch body is required");
  let value: unknown = patch;
  if (typeof patch === "string") {
    if (patchType === "apply") return patch;
    try {
      value = JSON.parse(patch);
    } catch (err) {
      fail(`patch: not valid JSON for a ${patchType} patch: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (patchType === "json") {
    if (!Array.isArray(value)) fail(`patch: a json patch must be an array of operations, got ${describe(value)}`);
    value.forEach((op: unknown, i: number) => {
      if (typeof op !== "object" || op === null || Array.isArray(op)) fail(`patch[${i}]: not an operation object`);
      const { op: name, path } = op as { op?: unknown; path?: unknown };
      if (typeof name !== "string" || !JSON_PATCH_OPS.has(name)) {
        fail(`patch[${i}].op must be one of ${[...JSON_PATCH_OPS].join(", ")}; got ${describe(name)}`);
      }
      if (typeof path !== "string") fail(`patch[${i}].path must be a string (a JSON pointer), got ${describe(path)}`);
    });
  } else if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(`patch: a ${patchType} patch must be a JSON object, got ${describe(value)}`);
  }
  return typeof patch === "string" ? patch : JSON.stringify(patch);
}

/** Checks delete options and returns the `DeleteOptions` body, or undefined when no option is set. */
export function deleteOptionsBody(o: DeleteCallOptions): string | undefined {
  const body: Record<string, unknown> = {};
  if (o.gracePeriodSeconds !== undefined) {
    if (!Number.isSafeInteger(o.gracePeriodSeconds) || o.gracePeriodSeconds < 0) {
      fail(`gracePeriodSeconds must be a non-negative integer, got ${describe(o.gracePeriodSeconds)}`);
    }
    body.gracePeriodSeconds = o.gracePeriodSeconds;
  }
  if (o.propagationPolicy !== undefined) {
    if (!PROPAGATION_POLICIES.has(o.propagationPolicy)) {
      fail(`propagationPolicy must be one of Orphan, Background, Foreground; got ${describe(o.propagationPolicy)}`);
    }
    body.propagationPolicy = o.propagationPolicy;
  }
  if (o.preconditions !== undefined) {
    const p = o.preconditions;
    if (typeof p !== "object" || p === null) fail(`preconditions must be an object, got ${describe(p)}`);
    const pre: Record<string, string> = {};
    for (const field of ["uid", "resourceVersion"] as const) {
      const v = p[field];
      if (v === undefined) continue;
      if (typeof v !== "string" || v === "")
        fail(`preconditions.${field} must be a non-empty string, got ${describe(v)}`);
      pre[field] = v;
    }
    for (const k of Object.keys(p)) {
      if (k !== "uid" && k !== "resourceVersion") fail(`preconditions.${k}: unknown field (uid, resourceVersion)`);
    }
    body.preconditions = pre;
  }
  if (o.dryRun !== undefined) {
    if (typeof o.dryRun !== "boolean") fail(`dryRun must be a boolean, got ${describe(o.dryRun)}`);
    if (o.dryRun) body.dryRun = ["All"];
  }
  if (Object.keys(body).length === 0) return undefined;
  return JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", ...body });
}

/** Checks a subresource name against the descriptor's known subresources (when it lists any). */
export function checkSubresource(resource: ResourceDescriptor<unknown>, subresource: string | undefined): void {
  if (subresource === undefined) return;
  if (typeof subresource !== "string" || subresource === "") fail("subresource may not be empty");
  const known = resource.subresources;
  if (known !== undefined && known.length > 0 && !known.includes(subresource)) {
    fail(
      `subresource ${JSON.stringify(subresource)} is not served for ${resource.resource}${resource.group === "" ? "" : `.${resource.group}`} (served: ${known.join(", ")})`,
    );
  }
  if (known !== undefined && known.length === 0) {
    fail(
      `${resource.resource}${resource.group === "" ? "" : `.${resource.group}`} has no subresources (asked for ${JSON.stringify(subresource)})`,
    );
  }
}
