import { BUILTIN_DEFINITIONS } from "./openapi/builtin-definitions.js";
import type { OpenApiDefinitions, OpenApiSchema } from "./openapi/openapi-schema.js";

/** What decoding a built-in object against its Go types found. */
export interface BuiltinDecodeResult {
  /** Paths of fields the types do not have, in document order (`spec.foo`, `spec.containers[0].bar`). */
  readonly unknownFields: readonly string[];
  /**
   * The first value of the wrong JSON type, worded as Go's `json.UnmarshalTypeError` (`json: cannot unmarshal string
   * into Go struct field DeploymentSpec.spec.replicas of type int32`); undefined when every value fits.
   */
  readonly typeError?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function resolve(defs: OpenApiDefinitions, s: OpenApiSchema): OpenApiSchema {
  let cur = s;
  for (let i = 0; cur.$ref !== undefined && i < 8; i++) cur = defs[cur.$ref] ?? {};
  return cur;
}

/** The Go type name a schema decodes into, as `UnmarshalTypeError` prints it (`int32`, `v1.PodSpec`, `[]v1.Container`). */
function goTypeName(defs: OpenApiDefinitions, s: OpenApiSchema): string {
  if (s.$ref !== undefined) {
    const parts = s.$ref.split(".");
    const target = defs[s.$ref];
    if (target?.x === "int-or-string") return "intstr.IntOrString";
    if (target?.x === "quantity") return "resource.Quantity";
    if (target?.type === "string" && target.format === "date-time") return "v1.Time";
    return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
  }
  switch (s.type) {
    case "integer":
      return s.format === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "string":
      return s.format === "byte" ? "[]uint8" : "string";
    case "array":
      return `[]${s.items === undefined ? "interface {}" : goTypeName(defs, s.items)}`;
    case "object":
      return `map[string]${s.additionalProperties === undefined ? "interface {}" : goTypeName(defs, s.additionalProperties)}`;
    default:
      return "interface {}";
  }
}

/** How Go's decoder names a JSON value in `cannot unmarshal <value>` (`number 1.5` for a fraction into an integer). */
function jsonValueName(v: unknown, intoInteger: boolean): string {
  if (typeof v === "number") return intoInteger && !Number.isInteger(v) ? `number ${v}` : "number";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "array";
  return "object";
}

/**
 * Decodes a built-in object the way kube-apiserver's JSON serializer does with strict checks on (sigs.k8s.io/json
 * into the Go types of the kind): walks `obj` along the OpenAPI definition `root` (a key of the trimmed v1.34
 * document, e.g. `api.apps.v1.Deployment`), collects the paths of unknown fields and **removes them from `obj`** (a
 * Go struct has nowhere to keep them), and stops type checking at the first value of the wrong JSON type. `null` is
 * accepted everywhere (Go leaves the zero value). `pathPrefix` names where `obj` sits when it is embedded (a custom
 * resource's `spec.template.metadata`). Throws a RangeError for a root that is not a definition.
 */
export function decodeBuiltin(
  root: string,
  obj: Record<string, unknown>,
  defs: OpenApiDefinitions = BUILTIN_DEFINITIONS,
  pathPrefix = "",
): BuiltinDecodeResult {
  const rootSchema = defs[root];
  if (rootSchema === undefined) throw new RangeError(`no OpenAPI definition ${JSON.stringify(root)}`);
  const unknownFields: string[] = [];
  let typeError: string | undefined;
  const rootStruct = root.slice(root.lastIndexOf(".") + 1);

  const walk = (value: unknown, schema: OpenApiSchema, path: string, struct: string, field: string): void => {
    if (value === null) return;
    const s = resolve(defs, schema);
    const mismatch = (intoInteger = false) => {
      typeError ??= `json: cannot unmarshal ${jsonValueName(value, intoInteger)} into Go struct field ${struct}.${field} of type ${goTypeName(defs, schema)}`;
    };
    if (s.x === "any") return;
    if (s.x === "int-or-string") {
      if (typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value))) mismatch();
      return;
    }
    if (s.x === "quantity") {
      if (typeof value !== "string" && typeof value !== "number") mismatch();
      return;
    }
    switch (s.type) {
      case "string":
        if (typeof value !== "string") mismatch();
        return;
      case "integer":
        if (typeof value !== "number" || !Number.isInteger(value)) mismatch(true);
        return;
      case "number":
        if (typeof value !== "number") mismatch();
        return;
      case "boolean":
        if (typeof value !== "boolean") mismatch();
        return;
      case "array": {
        if (!Array.isArray(value)) {
          mismatch();
          return;
        }
        const items = s.items;
        if (items === undefined) return;
        for (let i = 0; i < value.length; i++) walk(value[i], items, `${path}[${i}]`, struct, field);
        return;
      }
      default: {
        if (!isObject(value)) {
          mismatch();
          return;
        }
        if (s.properties === undefined) {
          const ap = s.additionalProperties;
          if (ap === undefined) return;
          for (const k of Object.keys(value)) walk(value[k], ap, `${path}[${k}]`, struct, field);
          return;
        }
        const target = schema.$ref ?? "";
        const structName = target === "" ? struct : target.slice(target.lastIndexOf(".") + 1);
        for (const k of Object.keys(value)) {
          const ps = s.properties[k];
          const p = path === "" ? k : `${path}.${k}`;
          if (ps === undefined) {
            unknownFields.push(p);
            delete value[k];
            continue;
          }
          walk(value[k], ps, p, structName, p);
        }
      }
    }
  };
  walk(obj, { $ref: root }, pathPrefix, rootStruct, pathPrefix);
  return typeError === undefined ? { unknownFields } : { unknownFields, typeError };
}
