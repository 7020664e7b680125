import type { OpenApiDefinitions } from "@informer-ts/sim-apiserver/engine";
import fc from "fast-check";

/**
 * The part of an OpenAPI schema {@link schemaArb} reads: a CRD version's `openAPIV3Schema` (a structural schema,
 * JSON Schema as apiextensions-apiserver accepts it) or a definition of the simulator's trimmed built-in OpenAPI v2
 * document (with `$ref` and its `x` markers). Other keywords are ignored.
 */
export interface GeneratedSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, GeneratedSchema>>;
  readonly required?: readonly string[];
  readonly items?: GeneratedSchema;
  readonly additionalProperties?: GeneratedSchema | boolean;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean | number;
  readonly exclusiveMaximum?: boolean | number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly nullable?: boolean;
  readonly $ref?: string;
  /** The built-in document's marker of `IntOrString`, `Quantity` and free-form values. */
  readonly x?: "int-or-string" | "quantity" | "any";
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
}

/** Options of {@link schemaArb}. */
export interface SchemaArbOptions {
  /** Definitions a `$ref` names (the built-in document's keys, without `io.k8s.`). */
  readonly definitions?: OpenApiDefinitions;
  /** Below this depth only required properties are generated (default 4): keeps built-in kinds' trees small. */
  readonly maxDepth?: number;
  /** Most items of a generated array or map (default 2), within the schema's own bounds. */
  readonly maxItems?: number;
}

/** Lowercase words: valid names, label values and DNS labels, so that generated strings pass most validations. */
function wordArb(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const min = Math.max(minLength, 1);
  const max = Math.max(min, Math.min(maxLength, 8));
  return fc
    .tuple(
      fc.constantFrom(..."abcxyz"),
      fc.string({ unit: fc.constantFrom(..."abc0123"), minLength: min - 1, maxLength: max - 1 }),
    )
    .map(([head, tail]) => head + tail);
}

function stringArb(s: GeneratedSchema): fc.Arbitrary<string> {
  switch (s.format) {
    case "date-time":
      return fc.constantFrom("2026-01-01T00:00:00Z", "2026-06-30T12:00:00Z");
    case "date":
      return fc.constantFrom("2026-01-01", "2026-06-30");
    case "byte":
      return fc.constantFrom("", "YQ==", "eHl6");
    case "int-or-string":
      return fc.constantFrom("1", "50%");
  }
  if (s.pattern !== undefined) {
    // fast-check derives strings matching the pattern; bounds the pattern does not imply are filtered.
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Number.POSITIVE_INFINITY;
    return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= max);
  }
  if ((s.maxLength ?? 1) === 0) return fc.constant("");
  return wordArb(s.minLength ?? 1, s.maxLength ?? 8);
}

function numberArb(s: GeneratedSchema, integer: boolean): fc.Arbitrary<number> {
  const exclusive = (v: boolean | number | undefined, bound: number | undefined) =>
    typeof v === "number" ? v : v === true ? bound : undefined;
  const exMin = exclusive(s.exclusiveMinimum, s.minimum);
  const exMax = exclusive(s.exclusiveMaximum, s.maximum);
  // Unbounded: small non-negative numbers (counts, sizes, seconds), which shrink to the lower bound.
  let min = s.minimum ?? 0;
  let max = s.maximum ?? Math.max(min, 0) + 9;
  if (exMin !== undefined) min = integer ? Math.floor(exMin) + 1 : exMin + 0.5;
  if (exMax !== undefined) max = integer ? Math.ceil(exMax) - 1 : exMax - 0.5;
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) });
  return fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true });
}

/**
 * An arbitrary of the values a schema admits: objects with their required properties (and the optional ones, down to
 * `maxDepth`), arrays and maps within their bounds (two items at most by default), enums, bounded numbers (small
 * non-negative ones when unbounded), strings matching `pattern` (else short lowercase words, valid names and label
 * values), `date-time`/`byte` formats, int-or-string and quantities. Everything shrinks towards the smallest value
 * (optional properties absent, empty arrays, the lower bound). What a schema cannot say — CEL rules
 * (`x-kubernetes-validations`), a built-in kind's hand-written validation — is not known here: give such fields
 * with your own arbitrary. A `$ref` to a definition not in `definitions` is a `RangeError` naming it.
 */
export function schemaArb(schema: GeneratedSchema, options: SchemaArbOptions = {}): fc.Arbitrary<unknown> {
  const maxDepth = options.maxDepth ?? 4;
  const maxItems = options.maxItems ?? 2;
  const memo = new Map<string, fc.Arbitrary<unknown>>();
  const go = (s: GeneratedSchema, depth: number): fc.Arbitrary<unknown> => {
    if (s.$ref !== undefined) {
      const key = `${s.$ref}@${Math.min(depth, maxDepth + 1)}`;
      const known = memo.get(key);
      if (known !== undefined) return known;
      const def = options.definitions?.[s.$ref];
      if (def === undefined) throw new RangeError(`schemaArb: $ref ${JSON.stringify(s.$ref)} names no definition`);
      // A recursive definition (JSONSchemaProps) ends at maxDepth: only required properties below it, none here.
      const arb = depth > maxDepth + 1 ? fc.constant({}) : go(def, depth);
      memo.set(key, arb);
      return arb;
    }
    if (s.enum !== undefined && s.enum.length > 0) return fc.constantFrom(...s.enum);
    if (s.x === "int-or-string" || s["x-kubernetes-int-or-string"] === true) {
      return fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom("1", "50%"));
    }
    if (s.x === "quantity") return fc.constantFrom("1", "100m", "64Mi");
    if (s.x === "any") return fc.constant({});
    const value = typed(s, depth);
    return s.nullable === true ? fc.option(value, { nil: null, freq: 8 }) : value;
  };
  const typed = (s: GeneratedSchema, depth: number): fc.Arbitrary<unknown> => {
    switch (s.type) {
      case "string":
        return stringArb(s);
      case "integer":
        return numberArb(s, true);
      case "number":
        return numberArb(s, false);
      case "boolean":
        return fc.boolean();
      case "array": {
        if (s.items === undefined) return fc.constant([]);
        const minLength = s.minItems ?? 0;
        const maxLength = Math.max(minLength, Math.min(s.maxItems ?? maxItems, maxItems));
        const item = go(s.items, depth + 1);
        return depth > maxDepth && minLength === 0 ? fc.constant([]) : fc.array(item, { minLength, maxLength });
      }
      default:
        return objectArb(s, depth);
    }
  };
  const objectArb = (s: GeneratedSchema, depth: number): fc.Arbitrary<unknown> => {
    const required = new Set(s.required ?? []);
    if (s.properties !== undefined && Object.keys(s.properties).length > 0) {
      const shown = Object.entries(s.properties).filter(([k]) => depth <= maxDepth || required.has(k));
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, p] of shown) model[k] = go(p, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    }
    const extra = s.additionalProperties;
    if (typeof extra === "object" && depth <= maxDepth) {
      const minKeys = s.minProperties ?? 0;
      const maxKeys = Math.max(minKeys, Math.min(s.maxProperties ?? maxItems, maxItems));
      return fc.dictionary(wordArb(1, 6), go(extra, depth + 1), { minKeys, maxKeys });
    }
    // preserve-unknown-fields or a free-form object: nothing the schema describes.
    return fc.constant({});
  };
  return go(schema, 0);
}
