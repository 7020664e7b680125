import type { JsonSchema } from "./kubernetes-definitions.js";

const V2_PREFIX = "#/definitions/";
const V3_PREFIX = "#/components/schemas/";

/**
 * One OpenAPI v2 schema as OpenAPI v3 writes it (kube-openapi's v2 → v3 form): references point into
 * `#/components/schemas/`, and a `$ref` with siblings (`description`, the `x-kubernetes-patch-*` extensions) becomes
 * `allOf: [{$ref}]` beside them, since v3.0 ignores a `$ref`'s siblings. Everything else is kept. Returns a new
 * object.
 */
export function toV3Schema(s: unknown): unknown {
  if (s === null || typeof s !== "object" || Array.isArray(s)) return s;
  const src = s as JsonSchema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === "$ref") continue;
    if (SCHEMA_MAPS.has(k) && v !== null && typeof v === "object") {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, toV3Schema(sub)]));
    } else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) {
      out[k] = v.map(toV3Schema);
    } else if (SCHEMA_VALUES.has(k)) {
      out[k] = Array.isArray(v) ? v.map(toV3Schema) : toV3Schema(v);
    } else {
      out[k] = v;
    }
  }
  const ref = src.$ref;
  if (typeof ref !== "string") return out;
  const v3ref = ref.startsWith(V2_PREFIX) ? V3_PREFIX + ref.slice(V2_PREFIX.length) : ref;
  if (Object.keys(out).length === 0) return { $ref: v3ref };
  return { allOf: [{ $ref: v3ref }], ...out };
}

/** Keywords whose value maps names to schemas, lists schemas, or is a schema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf"]);
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "not"]);

/** The definition names a schema references (`$ref`s, without the prefix), directly. */
export function referencedDefinitions(s: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(s)) {
    for (const x of s) referencedDefinitions(x, into);
  } else if (s !== null && typeof s === "object") {
    for (const [k, v] of Object.entries(s)) {
      if (k === "$ref" && typeof v === "string") into.add(v.slice(v.lastIndexOf("/") + 1));
      else if (!k.startsWith("x-")) referencedDefinitions(v, into);
    }
  }
  return into;
}
