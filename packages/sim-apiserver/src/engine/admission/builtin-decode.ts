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

/** One walk's state: the path as segments (printed only when a field is reported), what it found. */
class DecodeRun {
  readonly unknownFields: string[] = [];
  typeError: string | undefined;
  readonly segments: Array<string | number> = [];
  /** The Go struct field of a type error: the innermost struct and the path up to its last field. */
  readonly structs: string[];
  readonly fieldDepth: number[] = [0];

  constructor(
    readonly defs: OpenApiDefinitions,
    readonly pathPrefix: string,
    rootStruct: string,
  ) {
    this.structs = [rootStruct];
  }

  pathString(extra: string): string {
    const out = segmentsPath(this.segments, this.pathPrefix);
    return out === "" ? extra : `${out}.${extra}`;
  }

  mismatch(value: unknown, schema: OpenApiSchema, intoInteger: boolean): void {
    if (this.typeError !== undefined) return;
    const field = segmentsPath(this.segments.slice(0, this.fieldDepth[this.fieldDepth.length - 1]), this.pathPrefix);
    this.typeError = `json: cannot unmarshal ${jsonValueName(value, intoInteger)} into Go struct field ${this.structs[this.structs.length - 1]}.${field} of type ${goTypeName(this.defs, schema)}`;
  }
}

/** The decoder of one schema node, specialised once for what the node is (its `$ref` resolved). */
type Decoder = (value: unknown, run: DecodeRun) => void;

/** Compiled decoders by definitions, then by schema node (a definition's nodes are decoded on every write). */
const DECODERS = new WeakMap<OpenApiDefinitions, WeakMap<OpenApiSchema, Decoder>>();

/** The decoder of `schema` in `defs`, compiled on first use; children are compiled when first reached. */
function decoderOf(defs: OpenApiDefinitions, schema: OpenApiSchema): Decoder {
  let byNode = DECODERS.get(defs);
  if (byNode === undefined) {
    byNode = new WeakMap();
    DECODERS.set(defs, byNode);
  }
  let d = byNode.get(schema);
  if (d === undefined) {
    d = compileDecoder(defs, schema);
    byNode.set(schema, d);
  }
  return d;
}

/** A child's decoder, compiled at its first value (recursive types are compiled as deep as values go). */
function lazyDecoder(defs: OpenApiDefinitions, schema: OpenApiSchema): Decoder {
  let d: Decoder | undefined;
  return (value, run) => {
    d ??= decoderOf(defs, schema);
    d(value, run);
  };
}

/**
 * Specialises the walk of Go's strict decoder for one node: `null` is accepted everywhere (Go leaves the zero value),
 * a value of the wrong JSON type is a mismatch, an object's unknown fields are collected and removed.
 */
function compileDecoder(defs: OpenApiDefinitions, schema: OpenApiSchema): Decoder {
  const s = resolve(defs, schema);
  if (s.x === "any") return () => {};
  if (s.x === "int-or-string")
    return (value, run) => {
      if (value !== null && typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value)))
        run.mismatch(value, schema, false);
    };
  if (s.x === "quantity")
    return (value, run) => {
      if (value !== null && typeof value !== "string" && typeof value !== "number") run.mismatch(value, schema, false);
    };
  switch (s.type) {
    case "string":
      return (value, run) => {
        if (value !== null && typeof value !== "string") run.mismatch(value, schema, false);
      };
    case "integer":
      return (value, run) => {
        if (value !== null && (typeof value !== "number" || !Number.isInteger(value)))
          run.mismatch(value, schema, true);
      };
    case "number":
      return (value, run) => {
        if (value !== null && typeof value !== "number") run.mismatch(value, schema, false);
      };
    case "boolean":
      return (value, run) => {
        if (value !== null && typeof value !== "boolean") run.mismatch(value, schema, false);
      };
    case "array": {
      const items = s.items === undefined ? undefined : lazyDecoder(defs, s.items);
      return (value, run) => {
        if (value === null) return;
        if (!Array.isArray(value)) {
          run.mismatch(value, schema, false);
          return;
        }
        if (items === undefined) return;
        const segments = run.segments;
        for (let i = 0; i < value.length; i++) {
          segments.push(i);
          items(value[i], run);
          segments.pop();
        }
      };
    }
    default: {
      const props = s.properties;
      if (props === undefined) {
        const ap = s.additionalProperties === undefined ? undefined : lazyDecoder(defs, s.additionalProperties);
        return (value, run) => {
          if (value === null) return;
          if (!isObject(value)) {
            run.mismatch(value, schema, false);
            return;
          }
          if (ap === undefined) return;
          const segments = run.segments;
          for (const k in value) {
            segments.push(k);
            ap(value[k], run);
            segments.pop();
          }
        };
      }
      const fields = new Map<string, Decoder>();
      for (const [k, ps] of Object.entries(props)) fields.set(k, lazyDecoder(defs, ps));
      const target = schema.$ref;
      const struct = target === undefined ? undefined : target.slice(target.lastIndexOf(".") + 1);
      return (value, run) => {
        if (value === null) return;
        if (!isObject(value)) {
          run.mismatch(value, schema, false);
          return;
        }
        if (struct !== undefined) run.structs.push(struct);
        const { segments, fieldDepth } = run;
        for (const k in value) {
          const field = fields.get(k);
          if (field === undefined) {
            run.unknownFields.push(run.pathString(k));
            delete value[k];
            continue;
          }
          segments.push(k);
          fieldDepth.push(segments.length);
          field(value[k], run);
          fieldDepth.pop();
          segments.pop();
        }
        if (struct !== undefined) run.structs.pop();
      };
    }
  }
}

/**
 * Decodes a built-in object the way kube-apiserver's JSON serializer does with strict checks on (sigs.k8s.io/json
 * into the Go types of the kind): walks `obj` along the OpenAPI definition `root` (a key of the trimmed v1.34
 * document, e.g. `api.apps.v1.Deployment`), collects the paths of unknown fields and **removes them from `obj`** (a
 * Go struct has nowhere to keep them), and stops type checking at the first value of the wrong JSON type. `null` is
 * accepted everywhere (Go leaves the zero value). `pathPrefix` names where `obj` sits when it is embedded (a custom
 * resource's `spec.template.metadata`). Throws a RangeError for a root that is not a definition. Each schema node is
 * compiled once into a decoder specialised for it (its `$ref` resolved, its fields in a map), not interpreted per
 * write.
 */
export function decodeBuiltin(
  root: string,
  obj: Record<string, unknown>,
  defs: OpenApiDefinitions = BUILTIN_DEFINITIONS,
  pathPrefix = "",
): BuiltinDecodeResult {
  const rootSchema = defs[root];
  if (rootSchema === undefined) throw new RangeError(`no OpenAPI definition ${JSON.stringify(root)}`);
  const run = new DecodeRun(defs, pathPrefix, root.slice(root.lastIndexOf(".") + 1));
  decoderOf(defs, rootRef(defs, root))(obj, run);
  const { unknownFields, typeError } = run;
  return typeError === undefined ? { unknownFields } : { unknownFields, typeError };
}

/** The `{ $ref: root }` node of each root (one object per root, so its compiled decoder is found again). */
const ROOT_REFS = new WeakMap<OpenApiDefinitions, Map<string, OpenApiSchema>>();

function rootRef(defs: OpenApiDefinitions, root: string): OpenApiSchema {
  let refs = ROOT_REFS.get(defs);
  if (refs === undefined) {
    refs = new Map();
    ROOT_REFS.set(defs, refs);
  }
  let ref = refs.get(root);
  if (ref === undefined) {
    ref = { $ref: root };
    refs.set(root, ref);
  }
  return ref;
}
