import { newBadRequest, StatusError } from "@informer-ts/apimachinery";
import { parseJson } from "../int64-json.js";
import { decodeApplyConfiguration } from "./apply-patch.js";
import { strategicMergePatch } from "./strategic-merge-patch.js";

/** The patch content types kube-apiserver accepts (`PATCH` `Content-Type`). */
export type PatchContentType =
  | "application/json-patch+json"
  | "application/merge-patch+json"
  | "application/strategic-merge-patch+json"
  | "application/apply-patch+yaml";

const PATCH_TYPES: readonly PatchContentType[] = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];

/** The patch types of a custom resource: no strategic merge (there is no Go struct to read merge keys from). */
const CUSTOM_PATCH_TYPES: readonly PatchContentType[] = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/apply-patch+yaml",
];

/** The 415 of the patch handler for a content type the endpoint does not accept, listing the accepted ones. */
export function unsupportedPatchType(accepted: readonly string[]): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    reason: "UnsupportedMediaType",
    code: 415,
  });
}

/**
 * The patch type of a `Content-Type` header (parameters ignored), or a 415 UnsupportedMediaType StatusError listing
 * the accepted types, as upstream's patch handler answers. `custom` (a custom resource) drops strategic merge from
 * the accepted types, as kube-apiserver does for CRD-served resources.
 */
export function patchTypeOf(contentType: string | undefined, custom = false): PatchContentType {
  const t = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const accepted = custom ? CUSTOM_PATCH_TYPES : PATCH_TYPES;
  const found = accepted.find((p) => p === t);
  if (found !== undefined) return found;
  throw unsupportedPatchType(accepted);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, everything else replaces. Pure. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** A JSON patch operation that could not be applied (evanphx/json-patch's `Apply` error). */
class ApplyError extends Error {}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new ApplyError(`invalid JSON pointer: ${JSON.stringify(path)}`);
  return path.slice(1).split("/").map(unescapePointer);
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, parts: string[], path: string): { parent: Container; key: string } {
  let cur: unknown = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else cur = undefined;
    if (cur === undefined) throw new ApplyError(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw new ApplyError(`doc is missing path: "${path}": missing value`);
  return { parent: cur, key: parts[parts.length - 1]! };
}

function arrayIndex(arr: unknown[], key: string, forInsert: boolean, path: string): number {
  if (forInsert && key === "-") return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new ApplyError(`invalid array index in path: "${path}"`);
  const i = Number(key);
  if (i > arr.length || (!forInsert && i === arr.length)) throw new ApplyError(`index out of range in path: "${path}"`);
  return i;
}

function getAt(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const p of pointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = Object.hasOwn(cur, p) ? cur[p] : undefined;
    else cur = undefined;
    if (cur === undefined) throw new ApplyError(`doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function removeAt(doc: unknown, path: string): unknown {
  const parts = pointer(path);
  if (parts.length === 0) throw new ApplyError("cannot remove the whole document");
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false, path);
    return parent.splice(i, 1)[0];
  }
  if (!Object.hasOwn(parent, key)) throw new ApplyError(`doc is missing key: "${path}": missing value`);
  const v = parent[key];
  delete parent[key];
  return v;
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const parts = pointer(path);
  if (parts.length === 0) return value;
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, !replace, path);
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else {
    if (replace && !Object.hasOwn(parent, key)) throw new ApplyError(`doc is missing key: "${path}": missing value`);
    parent[key] = value;
  }
  return doc;
}

/**
 * The 422 kube-apiserver answers when a decoded JSON patch cannot be applied (a failing `test`, a missing path, an
 * index out of range): `NewGenericServerResponse(422, …)`, whose message is the generic
 * `the server rejected our request due to an error in our request` — upstream drops json-patch's own text. The
 * json-patch message is kept as the error's `cause` for debugging.
 */
function patchApplyFailed(err: ApplyError): StatusError {
  const e = new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "the server rejected our request due to an error in our request",
    reason: "Invalid",
    details: {},
    code: 422,
  });
  (e as { cause?: unknown }).cause = err;
  return e;
}

/** kube-apiserver's limit on the operations of one JSON patch (`maxJSONPatchOperations`). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * RFC 6902 JSON patch (`add`, `remove`, `replace`, `move`, `copy`, `test`) applied to a deep copy of `target`;
 * `target` is never modified. A patch that does not decode (not an array, an operation without `op`/`path`, an
 * unknown op) is 400 BadRequest; one that decodes but cannot be applied (a failing `test`, a missing path) is the
 * 422 of kube-apiserver (`the server rejected our request due to an error in our request`); more than 10 000
 * operations is 413.
 */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw newBadRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  for (const raw of ops) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
      throw newBadRequest(`invalid JSON patch operation: ${JSON.stringify(raw)}`);
    }
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
      reason: "RequestEntityTooLarge",
      code: 413,
    });
  }
  let doc: unknown = structuredClone(target);
  try {
    for (const raw of ops as Array<Record<string, unknown>>) {
      const op = raw.op as string;
      const path = raw.path as string;
      switch (op) {
        case "add":
          doc = addAt(doc, path, structuredClone(raw.value), false);
          break;
        case "replace":
          doc = addAt(doc, path, structuredClone(raw.value), true);
          break;
        case "remove":
          removeAt(doc, path);
          break;
        case "move": {
          if (typeof raw.from !== "string") throw new ApplyError(`operation "move" needs "from"`);
          const v = removeAt(doc, raw.from);
          doc = addAt(doc, path, v, false);
          break;
        }
        case "copy": {
          if (typeof raw.from !== "string") throw new ApplyError(`operation "copy" needs "from"`);
          doc = addAt(doc, path, structuredClone(getAt(doc, raw.from)), false);
          break;
        }
        case "test":
          if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(raw.value)) {
            throw new ApplyError(`testing value ${path} failed: test failed`);
          }
          break;
        default:
          throw new ApplyError(`Unexpected kind: ${op}`);
      }
    }
  } catch (err) {
    if (err instanceof ApplyError) throw patchApplyFailed(err);
    throw err;
  }
  return doc;
}

/** What {@link applyPatch} needs to know about the patched resource. */
export interface PatchTarget {
  /** The object's kind (selects the strategic-merge schema of a built-in). */
  readonly kind: string;
  /** A custom resource: strategic merge patches are refused with 415. */
  readonly custom?: boolean;
}

/**
 * Decodes a PATCH body of type `type`: JSON for the JSON, merge and strategic patch types (400 `error decoding
 * patch: …` when undecodable), YAML or JSON for apply patches ({@link decodeApplyConfiguration}).
 */
export function decodePatch(type: PatchContentType, body: string): unknown {
  if (type === "application/apply-patch+yaml") return decodeApplyConfiguration(body);
  try {
    return parseJson(body);
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Applies a PATCH body of type `type` to `current` and returns the patched object; `current` is never modified.
 * JSON patch per RFC 6902, merge patch per RFC 7386, strategic merge patch with the list merge keys of built-in
 * kinds ({@link strategicMergePatch}). An apply patch is merged as a merge patch here: the registry hands apply
 * patches to its field manager when one is installed. Throws 400 for an undecodable body, 422 for a JSON patch that
 * cannot be applied.
 *
 * Differences from kube-apiserver: see {@link strategicMergePatch} for the strategic-merge subset.
 */
export function applyPatch(type: PatchContentType, current: unknown, body: string, target?: PatchTarget): unknown {
  const patch = decodePatch(type, body);
  if (type === "application/json-patch+json") return jsonPatch(current, patch);
  if (!isObject(patch)) throw newBadRequest("the patch body must be a JSON object");
  if (type === "application/strategic-merge-patch+json") {
    if (target?.custom === true) throw unsupportedPatchType(CUSTOM_PATCH_TYPES);
    return strategicMergePatch(current, patch, target?.kind ?? "");
  }
  return mergePatch(structuredClone(current), patch);
}
