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

/** Dotted path of segments (`spec.containers[0].name`) after `prefix`. */
function segmentsPath(segments: ReadonlyArray<string | number>, prefix: string): string {
  let out = prefix;
  for (const seg of segments) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out = out === "" ? seg : `${out}.${seg}`;
  }
  return out;
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
  // The path is kept as segments and printed only when a field is reported: most writes report nothing, and a
  // string per visited field would be most of the decode's cost.
  const segments: Array<string | number> = [];
  const pathString = (extra: string): string => {
    const out = segmentsPath(segments, pathPrefix);
    return out === "" ? extra : `${out}.${extra}`;
  };
  // The Go struct field of a type error: the innermost struct and the path up to its last field.
  const structs: string[] = [rootStruct];
  const fieldDepth: number[] = [0];
  const mismatch = (value: unknown, schema: OpenApiSchema, intoInteger: boolean): void => {
    if (typeError !== undefined) return;
    const field = segmentsPath(segments.slice(0, fieldDepth[fieldDepth.length - 1]), pathPrefix);
    typeError = `json: cannot unmarshal ${jsonValueName(value, intoInteger)} into Go struct field ${structs[structs.length - 1]}.${field} of type ${goTypeName(defs, schema)}`;
  };

  const walk = (value: unknown, schema: OpenApiSchema): void => {
    if (value === null) return;
    const s = resolve(defs, schema);
    if (s.x === "any") return;
    if (s.x === "int-or-string") {
      if (typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value)))
        mismatch(value, schema, false);
      return;
    }
    if (s.x === "quantity") {
      if (typeof value !== "string" && typeof value !== "number") mismatch(value, schema, false);
      return;
    }
    switch (s.type) {
      case "string":
        if (typeof value !== "string") mismatch(value, schema, false);
        return;
      case "integer":
        if (typeof value !== "number" || !Number.isInteger(value)) mismatch(value, schema, true);
        return;
      case "number":
        if (typeof value !== "number") mismatch(value, schema, false);
        return;
      case "boolean":
        if (typeof value !== "boolean") mismatch(value, schema, false);
        return;
      case "array": {
        if (!Array.isArray(value)) {
          mismatch(value, schema, false);
          return;
        }
        const items = s.items;
        if (items === undefined) return;
        for (let i = 0; i < value.length; i++) {
          segments.push(i);
          walk(value[i], items);
          segments.pop();
        }
        return;
      }
      default: {
        if (!isObject(value)) {
          mismatch(value, schema, false);
          return;
        }
        const props = s.properties;
        if (props === undefined) {
          const ap = s.additionalProperties;
          if (ap === undefined) return;
          for (const k in value) {
            segments.push(k);
            walk(value[k], ap);
            segments.pop();
          }
          return;
        }
        const target = schema.$ref;
        if (target !== undefined) structs.push(target.slice(target.lastIndexOf(".") + 1));
        for (const k in value) {
          const ps = props[k];
          if (ps === undefined) {
            unknownFields.push(pathString(k));
            delete value[k];
            continue;
          }
          segments.push(k);
          fieldDepth.push(segments.length);
          walk(value[k], ps);
          fieldDepth.pop();
          segments.pop();
        }
        if (target !== undefined) structs.pop();
      }
    }
  };
  walk(obj, { $ref: root });
  return typeError === undefined ? { unknownFields } : { unknownFields, typeError };
}
