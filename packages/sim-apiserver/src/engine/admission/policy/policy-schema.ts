import type { SimResource } from "../../resources.js";
import { builtinRootOf } from "../admission-chain.js";
import type { StructuralSchema } from "../custom-resource-schema.js";
import { BUILTIN_DEFINITIONS } from "../openapi/builtin-definitions.js";
import type { OpenApiDefinitions, OpenApiSchema } from "../openapi/openapi-schema.js";

/** How deep `$ref`s are followed: deeper nodes (recursive types such as `JSONSchemaProps`) are left untyped (`dyn`). */
const MAX_REF_DEPTH = 12;

function structural(defs: OpenApiDefinitions, s: OpenApiSchema, depth: number): StructuralSchema | undefined {
  let cur = s;
  let refs = 0;
  while (cur.$ref !== undefined) {
    if (++refs > 8 || depth + refs > MAX_REF_DEPTH) return undefined;
    cur = defs[cur.$ref] ?? {};
  }
  const d = depth + refs;
  if (cur.x === "int-or-string" || cur.x === "quantity") return { "x-kubernetes-int-or-string": true };
  if (cur.x === "any") return undefined;
  const out: {
    type?: string;
    format?: string;
    properties?: Record<string, StructuralSchema>;
    items?: StructuralSchema;
    additionalProperties?: StructuralSchema;
    "x-kubernetes-preserve-unknown-fields"?: boolean;
  } = {};
  if (cur.type !== undefined) out.type = cur.type;
  if (cur.format !== undefined) out.format = cur.format;
  if (cur.properties !== undefined) {
    out.type ??= "object";
    const props: Record<string, StructuralSchema> = {};
    for (const [k, p] of Object.entries(cur.properties)) {
      const ps = structural(defs, p, d);
      // An untyped field stays declared (as `dyn`), so a reference to it is no `undefined field` error.
      props[k] = ps ?? { "x-kubernetes-preserve-unknown-fields": true };
    }
    out.properties = props;
  }
  if (cur.items !== undefined) {
    const items = structural(defs, cur.items, d);
    if (items === undefined) return undefined;
    out.items = items;
  }
  if (cur.additionalProperties !== undefined) {
    const ap = structural(defs, cur.additionalProperties, d);
    if (ap === undefined) return undefined;
    out.additionalProperties = ap;
  }
  return out;
}

const BUILTIN = new Map<string, StructuralSchema | undefined>();

/**
 * The schema the type checker declares `object`/`oldObject` (or `params`) of a resource with: a custom resource's
 * served `openAPIV3Schema`, or a built-in kind's OpenAPI definition (`openapi/`, `$ref`s resolved into one
 * structural tree, as apiserver's `resolver.SchemaResolver` + `common.SchemaDeclType` do). `undefined` where the
 * simulator has no schema for the kind (upstream's `ErrSchemaNotFound`: the kind is not type-checked).
 */
export function schemaOfResource(r: SimResource): StructuralSchema | undefined {
  if (r.custom === true) return r.openAPIV3Schema as StructuralSchema | undefined;
  const root = builtinRootOf(r);
  if (root === undefined) return undefined;
  if (!BUILTIN.has(root)) BUILTIN.set(root, structural(BUILTIN_DEFINITIONS, { $ref: root }, 0));
  return BUILTIN.get(root);
}
