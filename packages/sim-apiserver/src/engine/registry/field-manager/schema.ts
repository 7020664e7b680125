/**
 * The slice of a structured-merge-diff schema (`schema.Schema` atoms) the field manager needs: how a value's children
 * are addressed and whether they are owned one by one (granular) or as a whole (atomic).
 *
 * - `scalar`: a leaf.
 * - `struct`: an object with declared fields (a Go struct). Undeclared keys are handled as `untyped` map entries.
 * - `map`: an object whose keys are data (`map[string]T`, labels, ConfigMap `data`).
 * - `list`: `atomic` (owned whole), `set` (items are scalars, addressed by value `v:`), `map` (items are objects
 *   addressed by their key fields `k:`; `keyDefaults` fill a missing key field, like `protocol: TCP` of ports).
 * - `untyped`: the deduced type of schemaless data (`x-kubernetes-preserve-unknown-fields`): objects are granular
 *   maps of untyped values, arrays are atomic, everything else scalar.
 * - `open`: typed built-in data this simulator does not spell out: objects are structs whose every key is a declared
 *   field (of type `open`), arrays are atomic, everything else scalar — how most Go API structs behave.
 */
export type TypeDef =
  | { readonly type: "scalar" }
  | {
      readonly type: "struct";
      readonly fields: Readonly<Record<string, TypeDef>>;
      readonly atomic?: boolean;
      /** Undeclared keys are declared fields of type `open` (built-in structs) instead of untyped map entries. */
      readonly open?: boolean;
    }
  | { readonly type: "map"; readonly element: TypeDef; readonly atomic?: boolean }
  | {
      readonly type: "list";
      readonly listType: "atomic" | "set" | "map";
      readonly element: TypeDef;
      readonly keys?: readonly string[];
      readonly keyDefaults?: Readonly<Record<string, unknown>>;
    }
  | { readonly type: "untyped" }
  | { readonly type: "open" };

/** A scalar. */
export const SCALAR: TypeDef = Object.freeze({ type: "scalar" });
/** Schemaless data. */
export const UNTYPED: TypeDef = Object.freeze({ type: "untyped" });
/** `map[string]string` (labels, annotations, ConfigMap data). */
export const STRING_MAP: TypeDef = Object.freeze({ type: "map", element: SCALAR });
/** Built-in data without a spelled-out schema (see {@link TypeDef}). */
export const OPEN: TypeDef = Object.freeze({ type: "open" });
/** An atomic list of scalars. */
export const ATOMIC_LIST: TypeDef = Object.freeze({ type: "list", listType: "atomic", element: SCALAR });

/** A built-in struct with the given fields (other keys are `open` fields). */
export function struct(fields: Record<string, TypeDef>, atomic = false): TypeDef {
  return atomic ? { type: "struct", fields, atomic, open: true } : { type: "struct", fields, open: true };
}

/** An associative list keyed by `keys`. */
export function listMap(element: TypeDef, keys: string[], keyDefaults?: Record<string, unknown>): TypeDef {
  return { type: "list", listType: "map", element, keys, ...(keyDefaults !== undefined && { keyDefaults }) };
}

/** A set of scalars. */
export const SET: TypeDef = Object.freeze({ type: "list", listType: "set", element: SCALAR });

/** An atomic list of `element`. */
export function atomicList(element: TypeDef): TypeDef {
  return { type: "list", listType: "atomic", element };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const UNTYPED_MAP: TypeDef = Object.freeze({ type: "map", element: UNTYPED });
const UNTYPED_LIST: TypeDef = Object.freeze({ type: "list", listType: "atomic", element: UNTYPED });
const OPEN_STRUCT: TypeDef = Object.freeze({ type: "struct", fields: {}, open: true });
const OPEN_LIST: TypeDef = Object.freeze({ type: "list", listType: "atomic", element: OPEN });

/** The concrete type of `value` under `t` (`untyped` and `open` resolve by the value's JSON shape). */
export function resolve(t: TypeDef, value: unknown): TypeDef {
  if (t.type === "untyped") {
    if (isObject(value)) return UNTYPED_MAP;
    if (Array.isArray(value)) return UNTYPED_LIST;
    return SCALAR;
  }
  if (t.type === "open") {
    if (isObject(value)) return OPEN_STRUCT;
    if (Array.isArray(value)) return OPEN_LIST;
    return SCALAR;
  }
  return t;
}

/** The type of a map or struct entry, and whether it is a declared struct field (`Map.FindField`). */
export function fieldType(t: TypeDef, name: string): { readonly t: TypeDef; readonly declared: boolean } {
  if (t.type === "struct") {
    const f = Object.hasOwn(t.fields, name) ? t.fields[name] : undefined;
    if (f !== undefined) return { t: f, declared: true };
    return t.open === true ? { t: OPEN, declared: true } : { t: UNTYPED, declared: false };
  }
  if (t.type === "map") return { t: t.element, declared: false };
  return { t: UNTYPED, declared: false };
}

/** Whether a resolved type is owned as a whole. */
export function isAtomic(t: TypeDef): boolean {
  switch (t.type) {
    case "scalar":
    case "untyped":
    case "open":
      return true;
    case "struct":
    case "map":
      return t.atomic === true;
    case "list":
      return t.listType === "atomic";
  }
}
