import type { FieldError } from "@informer-ts/apimachinery";
import { stringifyJson } from "../int64-json.js";
import { decodeBuiltin } from "./builtin-decode.js";

/** A structural schema node of a CustomResourceDefinition version's `openAPIV3Schema` (the parts the simulator uses). */
export interface StructuralSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, StructuralSchema>>;
  readonly items?: StructuralSchema;
  readonly additionalProperties?: StructuralSchema | boolean;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly multipleOf?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly nullable?: boolean;
  readonly default?: unknown;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
}

const OBJECT_META = "apimachinery.pkg.apis.meta.v1.ObjectMeta";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/**
 * Pruning (`structuralpruning.Prune`) of a custom resource, in place: drops every field its schema does not
 * specify — unless an object has `x-kubernetes-preserve-unknown-fields` or `additionalProperties` — and `null`s of
 * fields that are not `nullable` (so their default applies); at the root `apiVersion`, `kind` and `metadata` are
 * kept, and `metadata` (at the root and in `x-kubernetes-embedded-resource` objects) keeps only ObjectMeta's fields.
 * Returns the pruned paths in document order (what strict field validation reports as unknown fields).
 */
export function pruneCustomResource(obj: Record<string, unknown>, schema: StructuralSchema | undefined): string[] {
  const pruned: string[] = [];
  const walk = (value: unknown, s: StructuralSchema, path: string, root: boolean, embedded: boolean): void => {
    if (Array.isArray(value)) {
      const items = s.items;
      if (items !== undefined)
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (typeof item === "object" && item !== null)
            walk(item, items, `${path}[${i}]`, false, items["x-kubernetes-embedded-resource"] === true);
        }
      return;
    }
    if (!isObject(value)) return;
    const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
    const ap = s.additionalProperties;
    for (const k of Object.keys(value)) {
      if ((root || embedded) && (k === "apiVersion" || k === "kind")) continue;
      if ((root || embedded) && k === "metadata") {
        const m = value[k];
        if (isObject(m)) pruned.push(...decodeBuiltin(OBJECT_META, m, undefined, join(path, k)).unknownFields);
        continue;
      }
      const ps = s.properties?.[k] ?? (typeof ap === "object" ? ap : undefined);
      if (ps === undefined) {
        if (preserve || ap === true) continue;
        pruned.push(join(path, k));
        delete value[k];
        continue;
      }
      const child = value[k];
      if (child === null && ps.nullable !== true) {
        delete value[k];
        continue;
      }
      // Scalars have nothing to prune: only objects and lists are walked (and their paths made).
      if (typeof child === "object" && child !== null)
        walk(child, ps, join(path, k), false, ps["x-kubernetes-embedded-resource"] === true);
    }
  };
  if (schema !== undefined) walk(obj, schema, "", true, false);
  return pruned;
}

/** Whether a schema node has a `default` at or below it, by node. */
const HAS_DEFAULTS = new WeakMap<StructuralSchema, boolean>();

/** Whether a `default` is declared in `s`'s subtree: defaulting skips the parts of an object that have none. */
function hasDefaultsBelow(s: StructuralSchema): boolean {
  let has = HAS_DEFAULTS.get(s);
  if (has !== undefined) return has;
  HAS_DEFAULTS.set(s, false); // a cycle (not structural, but cheap to survive) counts as default-free
  const ap = s.additionalProperties;
  has =
    Object.values(s.properties ?? {}).some((p) => p.default !== undefined || hasDefaultsBelow(p)) ||
    (s.items !== undefined && hasDefaultsBelow(s.items)) ||
    (typeof ap === "object" && hasDefaultsBelow(ap));
  HAS_DEFAULTS.set(s, has);
  return has;
}

/**
 * Defaulting (`structuraldefaulting.Default`) of a custom resource, in place: every property with a `default` that
 * is absent gets a copy of it, objects and list items recursively (defaults inside a default apply too).
 */
export function defaultCustomResource(obj: unknown, schema: StructuralSchema | undefined): void {
  if (schema === undefined || !hasDefaultsBelow(schema)) return;
  if (Array.isArray(obj)) {
    if (schema.items !== undefined) for (const item of obj) defaultCustomResource(item, schema.items);
    return;
  }
  if (!isObject(obj)) return;
  for (const [k, ps] of Object.entries(schema.properties ?? {})) {
    if (obj[k] === undefined && ps.default !== undefined) obj[k] = structuredClone(ps.default);
    if (obj[k] !== undefined) defaultCustomResource(obj[k], ps);
  }
  const ap = schema.additionalProperties;
  if (typeof ap === "object")
    for (const k of Object.keys(obj))
      if (!(schema.properties && k in schema.properties)) defaultCustomResource(obj[k], ap);
}

/** kube-openapi's name of a JSON value's type. */
function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "bigint") return "integer";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "object") return "object";
  return typeof v;
}

function fitsType(v: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "integer":
      return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
    case "number":
      return typeof v === "number" || typeof v === "bigint";
    case "boolean":
      return typeof v === "boolean";
    default:
      return true;
  }
}

const FORMATS: Record<string, (s: string) => boolean> = {
  "date-time": (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  ipv4: (s) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s),
  hostname: (s) => s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(s),
};

/** Compiled `pattern`s (a schema's patterns are few and reused by every write). */
const PATTERNS = new Map<string, RegExp | null>();

function patternOf(source: string): RegExp | null {
  let re = PATTERNS.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(source, "u");
    } catch {
      re = null;
    }
    if (PATTERNS.size > 10_000) PATTERNS.clear();
    PATTERNS.set(source, re);
  }
  return re;
}

/** Whether `v` is one of `values` as JSON (a string is compared as itself: its JSON equals only a string's). */
function inEnum(values: readonly unknown[], v: unknown): boolean {
  if (typeof v === "string") return values.includes(v);
  const json = stringifyJson(v);
  return values.some((e) => stringifyJson(e) === json);
}

/** The length of `v` in code points (Go's `utf8.RuneCountInString` of its UTF-8). */
function codePoints(v: string): number {
  let n = 0;
  for (const _ of v) n++;
  return n;
}

function formatNumber(n: number): string {
  return String(n);
}

/**
 * The numeric checks on an integer beyond 2^53 (a `bigint`, see `int64-json.ts`), exact as Go's int64 comparisons:
 * `maximum`/`minimum` (exclusive or not), an integral `multipleOf`, and `format: int32` (which it never fits).
 */
function validateInt64(v: bigint, s: StructuralSchema, path: string, errs: FieldError[]): void {
  const invalid = (detail: string) =>
    errs.push({ type: "FieldValueInvalid", field: path, printedValue: String(v), detail });
  if (s.maximum !== undefined && (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum))
    invalid(
      `${path} in body should be less than ${s.exclusiveMaximum === true ? "" : "or equal to "}${formatNumber(s.maximum)}`,
    );
  if (s.minimum !== undefined && (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum))
    invalid(
      `${path} in body should be greater than ${s.exclusiveMinimum === true ? "" : "or equal to "}${formatNumber(s.minimum)}`,
    );
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const ok = Number.isInteger(s.multipleOf)
      ? v % BigInt(s.multipleOf) === 0n
      : Number.isInteger(Number(v) / s.multipleOf);
    if (!ok) invalid(`${path} in body should be a multiple of ${formatNumber(s.multipleOf)}`);
  }
  if (s.format === "int32")
    errs.push({
      type: "FieldValueTypeInvalid",
      field: path,
      printedValue: String(v),
      detail: `${path} in body must be of type int32: "${v}"`,
    });
}

/**
 * `ValidateCustomResource` (apiextensions-apiserver's schema validation through kube-openapi) of a pruned and
 * defaulted custom resource against its structural schema, with upstream's field errors: `spec.replicas: Invalid
 * value: "string": spec.replicas in body must be of type integer: "string"`, `spec.replicas: Invalid value: 20:
 * spec.replicas in body should be less than or equal to 10`, `spec.foo: Required value`, `spec.mode: Unsupported
 * value: "x": supported values: "a", "b"`, `… in body should match '<pattern>'`, `Too long: may not be more than N
 * bytes`, `Too many: 5: must have at most 3 items`, formats (`date-time`, `date`, `byte`, `uuid`, `ipv4`,
 * `hostname`, `int32`, `int64`), `nullable`, `x-kubernetes-int-or-string`; embedded resources need `apiVersion` and
 * `kind`. The root's `apiVersion`/`kind`/`metadata` are the registry's to check.
 */
export function validateCustomResource(obj: unknown, schema: StructuralSchema | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (schema === undefined) return errs;
  const walk = (v: unknown, s: StructuralSchema, path: string, root: boolean): void => {
    const invalid = (bad: string | number | boolean, detail: string) =>
      errs.push({ type: "FieldValueInvalid", field: path, badValue: bad, detail });
    if (v === null) {
      if (s.nullable === true) return;
      if (s.type !== undefined)
        errs.push({
          type: "FieldValueTypeInvalid",
          field: path,
          badValue: "null",
          detail: `${path} in body must be of type ${s.type}: "null"`,
        });
      return;
    }
    if (s["x-kubernetes-int-or-string"] === true) {
      if (!(typeof v === "string" || typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v)))) {
        errs.push({
          type: "FieldValueTypeInvalid",
          field: path,
          badValue: typeName(v),
          detail: `${path} in body must be of type integer,string: ${JSON.stringify(typeName(v))}`,
        });
        return;
      }
    } else if (s.type !== undefined && !fitsType(v, s.type)) {
      errs.push({
        type: "FieldValueTypeInvalid",
        field: path,
        badValue: typeName(v),
        detail: `${path} in body must be of type ${s.type}: ${JSON.stringify(typeName(v))}`,
      });
      return;
    }
    if (s.enum !== undefined && !inEnum(s.enum, v)) {
      errs.push({
        type: "FieldValueNotSupported",
        field: path,
        badValue:
          typeof v === "object"
            ? JSON.stringify(v)
            : typeof v === "bigint"
              ? String(v)
              : (v as string | number | boolean),
        detail: `supported values: ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`,
      });
    }
    if (typeof v === "bigint") validateInt64(v, s, path, errs);
    if (typeof v === "number") {
      if (s.maximum !== undefined && (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum))
        invalid(
          v,
          `${path} in body should be less than ${s.exclusiveMaximum === true ? "" : "or equal to "}${formatNumber(s.maximum)}`,
        );
      if (s.minimum !== undefined && (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum))
        invalid(
          v,
          `${path} in body should be greater than ${s.exclusiveMinimum === true ? "" : "or equal to "}${formatNumber(s.minimum)}`,
        );
      if (s.multipleOf !== undefined && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf))
        invalid(v, `${path} in body should be a multiple of ${formatNumber(s.multipleOf)}`);
      if (s.format === "int32" && Number.isInteger(v) && (v > 2147483647 || v < -2147483648))
        errs.push({
          type: "FieldValueTypeInvalid",
          field: path,
          badValue: v,
          detail: `${path} in body must be of type int32: "${v}"`,
        });
    }
    if (typeof v === "string") {
      // Lengths are in code points, never more than the UTF-16 units: counted only when the units do not decide.
      if (s.maxLength !== undefined && v.length > s.maxLength && codePoints(v) > s.maxLength)
        errs.push({ type: "FieldValueTooLong", field: path, detail: `may not be more than ${s.maxLength} bytes` });
      if (s.minLength !== undefined && (v.length < s.minLength || codePoints(v) < s.minLength))
        invalid(v, `${path} in body should be at least ${s.minLength} chars long`);
      if (s.pattern !== undefined) {
        const re = patternOf(s.pattern);
        if (re !== null && !re.test(v)) invalid(v, `${path} in body should match '${s.pattern}'`);
      }
      const check = s.format === undefined ? undefined : FORMATS[s.format];
      if (check !== undefined && !check(v))
        errs.push({
          type: "FieldValueTypeInvalid",
          field: path,
          badValue: v,
          detail: `${path} in body must be of type ${s.format}: ${JSON.stringify(v)}`,
        });
    }
    if (Array.isArray(v)) {
      if (s.maxItems !== undefined && v.length > s.maxItems)
        errs.push({
          type: "FieldValueTooMany",
          field: path,
          badValue: v.length,
          detail: `must have at most ${s.maxItems} items`,
        });
      if (s.minItems !== undefined && v.length < s.minItems)
        invalid(`${v.length}`, `${path} in body should have at least ${s.minItems} items`);
      if (s.uniqueItems === true) {
        const seen = new Set<string>();
        v.forEach((item, i) => {
          const key = JSON.stringify(item);
          if (seen.has(key))
            errs.push({
              type: "FieldValueDuplicate",
              field: `${path}[${i}]`,
              badValue: typeof item === "object" ? key : (item as string),
            });
          seen.add(key);
        });
      }
      if (s.items !== undefined) for (let i = 0; i < v.length; i++) walk(v[i], s.items, `${path}[${i}]`, false);
      return;
    }
    if (isObject(v)) {
      const n = Object.keys(v).length;
      if (s.maxProperties !== undefined && n > s.maxProperties)
        invalid(n, `${path} in body should have at most ${s.maxProperties} properties`);
      if (s.minProperties !== undefined && n < s.minProperties)
        invalid(n, `${path} in body should have at least ${s.minProperties} properties`);
      for (const req of s.required ?? [])
        if (v[req] === undefined) errs.push({ type: "FieldValueRequired", field: join(path, req) });
      if (s["x-kubernetes-embedded-resource"] === true) {
        for (const f of ["apiVersion", "kind"]) {
          if (typeof v[f] !== "string" || v[f] === "")
            errs.push({ type: "FieldValueRequired", field: join(path, f), detail: "must not be empty" });
        }
      }
      const ap = s.additionalProperties;
      for (const k of Object.keys(v)) {
        if (root && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
        const ps = s.properties?.[k] ?? (typeof ap === "object" ? ap : undefined);
        if (ps !== undefined) walk(v[k], ps, join(path, k), false);
      }
    }
  };
  walk(obj, schema, "", true);
  return errs;
}
