import { newBadRequest } from "@informer-ts/apimachinery";
import { stringifyJson } from "../../int64-json.js";

/**
 * One step of a field path (structured-merge-diff `fieldpath.PathElement`): a field of a map or struct, the item of
 * an associative list selected by its key fields, the item of a set selected by its value, or a list index.
 */
export type PathElement =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "key"; readonly fields: readonly (readonly [string, unknown])[] }
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "index"; readonly index: number };

/** A path from the object's root: `.spec.template.spec.containers[name="app"].image` is 6 elements. */
export type Path = readonly PathElement[];

/**
 * Field elements handed out so far, by name, each with its FieldsV1 key: the walks of every write ask for the same few
 * hundred names, and an element that carries its key spares the string building and hashing of each set operation.
 * Bounded (data keys such as label names are unbounded): past the cap it starts over.
 */
const fieldElements = new Map<string, PathElement>();
const FIELD_ELEMENTS_MAX = 16_384;

/** A field path element (frozen, shared by every caller asking for the same name). */
export function fieldElement(name: string): PathElement {
  let pe = fieldElements.get(name);
  if (pe === undefined) {
    if (fieldElements.size >= FIELD_ELEMENTS_MAX) fieldElements.clear();
    const keyed: PathElement & { readonly key: string } = Object.freeze({ kind: "field", name, key: `f:${name}` });
    pe = keyed;
    fieldElements.set(name, pe);
  }
  return pe;
}

/**
 * `pe` as an element that carries its FieldsV1 key (what {@link serializePathElement} returns at once): for elements
 * kept and handed out many times ({@link fieldElement}, the item elements of lists the field manager interns).
 */
export function withSerializedKey(pe: PathElement): PathElement {
  return Object.freeze({ ...pe, key: serializePathElement(pe) });
}

/** A key path element; the fields are sorted by name, as `fieldpath.KeyByFields` does. */
export function keyElement(fields: Iterable<readonly [string, unknown]>): PathElement {
  const sorted = [...fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { kind: "key", fields: sorted };
}

function typeRank(v: unknown): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (typeof v === "object" && v !== null) return 4;
  return 5; // null
}

/** `value.Compare`: numbers < strings < booleans < lists < maps < null; within a type the natural order. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) - (b as number);
    case 1:
      return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
    case 2:
      return Number(a) - Number(b);
    case 5:
      return 0;
    default: {
      const sa = stringifyJson(a);
      const sb = stringifyJson(b);
      return sa === sb ? 0 : sa < sb ? -1 : 1;
    }
  }
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** `PathElement.Compare`: fields (by name) < keys < values < indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] - KIND_RANK[b.kind];
  switch (a.kind) {
    case "field": {
      const bn = (b as { name: string }).name;
      return a.name === bn ? 0 : a.name < bn ? -1 : 1;
    }
    case "key": {
      const bf = (b as { fields: readonly (readonly [string, unknown])[] }).fields;
      for (let i = 0; ; i++) {
        if (i >= a.fields.length && i >= bf.length) return 0;
        if (i >= a.fields.length) return -1;
        if (i >= bf.length) return 1;
        const [an, av] = a.fields[i]!;
        const [bn, bv] = bf[i]!;
        if (an !== bn) return an < bn ? -1 : 1;
        const c = compareValues(av, bv);
        if (c !== 0) return c;
      }
    }
    case "value":
      return compareValues(a.value, (b as { value: unknown }).value);
    case "index":
      return a.index - (b as { index: number }).index;
  }
}

/**
 * The FieldsV1 key of an element (`fieldpath.SerializePathElement`): `f:<name>`, `k:<JSON object of the key
 * fields>`, `v:<JSON value>`, `i:<index>`. Distinct elements have distinct keys, so the key doubles as identity.
 */
export function serializePathElement(pe: PathElement): string {
  const known = (pe as { readonly key?: string }).key;
  if (known !== undefined) return known;
  switch (pe.kind) {
    case "field":
      return `f:${pe.name}`;
    case "key":
    case "value": {
      // Elements are immutable and a path reuses its elements for every path below it: encode each JSON once.
      let k = serializedJson.get(pe);
      if (k === undefined) {
        k = pe.kind === "key" ? `k:${JSON.stringify(Object.fromEntries(pe.fields))}` : `v:${JSON.stringify(pe.value)}`;
        serializedJson.set(pe, k);
      }
      return k;
    }
    case "index":
      return `i:${pe.index}`;
  }
}

/** The FieldsV1 keys of key and value elements already serialized. */
const serializedJson = new WeakMap<PathElement, string>();

/**
 * Parses a FieldsV1 key. Returns `undefined` for an unknown prefix (upstream drops those, a newer server may know
 * them); throws 400 BadRequest for a malformed known one.
 */
export function deserializePathElement(s: string): PathElement | undefined {
  const prefix = s.slice(0, 2);
  const rest = s.slice(2);
  try {
    switch (prefix) {
      case "f:":
        return fieldElement(rest);
      case "k:": {
        const obj: unknown = JSON.parse(rest);
        if (typeof obj !== "object" || obj === null || Array.isArray(obj)) throw new Error("not a JSON object");
        return keyElement(Object.entries(obj));
      }
      case "v:":
        return { kind: "value", value: JSON.parse(rest) };
      case "i:": {
        if (!/^(0|[1-9][0-9]*)$/.test(rest)) throw new Error("not an index");
        return { kind: "index", index: Number(rest) };
      }
      default:
        return undefined;
    }
  } catch (err) {
    throw newBadRequest(
      `error decoding managed fields: parsing key as path element ${JSON.stringify(s)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** `value.ToString`: strings quoted, everything else as JSON. */
function valueString(v: unknown): string {
  return JSON.stringify(v) ?? "null";
}

/** `PathElement.String`: `.name`, `[name="app",port=80]`, `[="value"]`, `[3]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `.${pe.name}`;
    case "key":
      return `[${pe.fields.map(([n, v]) => `${n}=${valueString(v)}`).join(",")}]`;
    case "value":
      return `[=${valueString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

/** `Path.String`: the elements' strings concatenated, e.g. `.data.a` or `.spec.containers[name="app"].image`. */
export function pathString(p: Path): string {
  return p.map(pathElementString).join("");
}
