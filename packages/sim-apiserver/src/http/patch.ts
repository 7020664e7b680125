import { type KubeObject, newBadRequest, StatusError } from "@informer-ts/apimachinery";
import { parseAllDocuments, parse as parseYaml } from "yaml";

/** The patch content types kube-apiserver accepts (`PATCH` `Content-Type`). */
export type PatchType =
  | "application/json-patch+json"
  | "application/merge-patch+json"
  | "application/strategic-merge-patch+json"
  | "application/apply-patch+yaml";

const PATCH_TYPES: readonly PatchType[] = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];

/**
 * The patch type of a `Content-Type` header (parameters ignored), or a 415 UnsupportedMediaType StatusError listing
 * the accepted types, as upstream's patch handler answers.
 */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const t = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const found = PATCH_TYPES.find((p) => p === t);
  if (found !== undefined) return found;
  throw new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(", ")}`,
    reason: "UnsupportedMediaType",
    code: 415,
  });
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

function unescapePointer(s: string): string {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw newBadRequest(`invalid JSON pointer: ${JSON.stringify(path)}`);
  return path.slice(1).split("/").map(unescapePointer);
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, parts: string[], path: string): { parent: Container; key: string } {
  let cur: unknown = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else cur = undefined;
    if (cur === undefined) throw newBadRequest(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw newBadRequest(`doc is missing path: "${path}": missing value`);
  return { parent: cur, key: parts[parts.length - 1]! };
}

function arrayIndex(arr: unknown[], key: string, forInsert: boolean, path: string): number {
  if (forInsert && key === "-") return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw newBadRequest(`invalid array index in path: "${path}"`);
  const i = Number(key);
  if (i > arr.length || (!forInsert && i === arr.length)) throw newBadRequest(`index out of range in path: "${path}"`);
  return i;
}

function getAt(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const p of pointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = Object.hasOwn(cur, p) ? cur[p] : undefined;
    else cur = undefined;
    if (cur === undefined) throw newBadRequest(`doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function removeAt(doc: unknown, path: string): unknown {
  const parts = pointer(path);
  if (parts.length === 0) throw newBadRequest("cannot remove the whole document");
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false, path);
    return parent.splice(i, 1)[0];
  }
  if (!Object.hasOwn(parent, key)) throw newBadRequest(`doc is missing key: "${path}": missing value`);
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
    if (replace && !Object.hasOwn(parent, key)) throw newBadRequest(`doc is missing key: "${path}": missing value`);
    parent[key] = value;
  }
  return doc;
}

/**
 * RFC 6902 JSON patch (`add`, `remove`, `replace`, `move`, `copy`, `test`) applied to a deep copy of `target`.
 * Throws 400 BadRequest naming the failing path or operation; `target` is never modified.
 */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw newBadRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  let doc: unknown = structuredClone(target);
  for (const raw of ops) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
      throw newBadRequest(`invalid JSON patch operation: ${JSON.stringify(raw)}`);
    }
    const { op, path } = raw;
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
        if (typeof raw.from !== "string") throw newBadRequest(`operation "move" needs "from"`);
        const v = removeAt(doc, raw.from);
        doc = addAt(doc, path, v, false);
        break;
      }
      case "copy": {
        if (typeof raw.from !== "string") throw newBadRequest(`operation "copy" needs "from"`);
        doc = addAt(doc, path, structuredClone(getAt(doc, raw.from)), false);
        break;
      }
      case "test":
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(raw.value)) {
          throw newBadRequest(`testing value ${path} failed: test failed`);
        }
        break;
      default:
        throw newBadRequest(`Unexpected kind: ${op}`);
    }
  }
  return doc;
}

/**
 * Applies a PATCH body of type `type` to `current` (a deep-copied object) and returns the patched object.
 * Strategic-merge and apply patches are treated as JSON merge patches (enough for ConfigMaps and labels/annotations;
 * lists are replaced, not merged by key). Throws 400 for an undecodable body.
 *
 * Differences from kube-apiserver: no strategic list merging, no managed fields, no apply conflicts.
 */
export function applyPatch(type: PatchType, current: unknown, body: string): unknown {
  let patch: unknown;
  try {
    patch = type === "application/apply-patch+yaml" ? parseYaml(body) : JSON.parse(body);
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (type === "application/json-patch+json") return jsonPatch(current, patch);
  if (!isObject(patch)) throw newBadRequest("the patch body must be a JSON object");
  return mergePatch(structuredClone(current), patch);
}

/** go-yaml's wording for the parse errors an apply body most often has. */
const GO_YAML_MESSAGES: Readonly<Record<string, string>> = {
  BLOCK_AS_IMPLICIT_KEY: "mapping values are not allowed in this context",
  MULTILINE_IMPLICIT_KEY: "mapping values are not allowed in this context",
  TAB_AS_INDENT: "found character that cannot start any token",
  BAD_INDENT: "did not find expected key",
  UNEXPECTED_TOKEN: "did not find expected node content",
  MISSING_CHAR: "did not find expected node content",
  DUPLICATE_KEY: "already set in map",
};

function goTypeOf(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  return "object";
}

/**
 * Decodes a server-side apply body (`application/apply-patch+yaml`: YAML or JSON, the first document) into the
 * applied configuration, as the apply patcher's `yaml.Unmarshal` into a map does. Throws 400 BadRequest
 * `error decoding YAML: error converting YAML to JSON: yaml: line N: …` for YAML that does not parse, and
 * `… json: cannot unmarshal array into Go value of type map[string]interface {}` for a document that is not a map.
 * An empty body decodes to `{}` (the apply then fails its type check).
 *
 * Differences from kube-apiserver: the YAML parser is `yaml` (eemeli), not go-yaml; the common errors are reported
 * with go-yaml's wording and line, others with this parser's first line of text.
 */
export function decodeApplyConfiguration(body: string): KubeObject {
  const docs = parseAllDocuments(body);
  const first = Array.isArray(docs) ? docs[0] : undefined;
  if (first !== undefined && first.errors.length > 0) {
    const e = first.errors[0]!;
    const line = e.linePos?.[0]?.line ?? 1;
    const text = GO_YAML_MESSAGES[e.code] ?? e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw newBadRequest(`error decoding YAML: error converting YAML to JSON: yaml: line ${line}: ${text}`);
  }
  const value: unknown = first === undefined ? null : first.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw newBadRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`,
    );
  }
  return value as KubeObject;
}
