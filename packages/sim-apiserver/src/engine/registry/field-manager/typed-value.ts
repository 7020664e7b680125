import { FieldSet } from "./field-set.js";
import {
  fieldElement,
  keyElement,
  type Path,
  type PathElement,
  pathString,
  serializePathElement,
  withSerializedKey,
} from "./path-element.js";
import { fieldType, isAtomic, resolve, type TypeDef } from "./schema.js";

/**
 * Operations on JSON values under a {@link TypeDef} (structured-merge-diff `typed.TypedValue`): the set of fields a
 * value sets, the comparison of two values, the apply merge and the removal of fields.
 */

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value that does not fit its schema (a keyed list item without its key, …); the message names the path. */
export class TypedValueError extends Error {
  override readonly name = "TypedValueError";
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export { deepEqual as valuesEqual };

/**
 * Item elements of each keyed list and set type by their key values (a string or number key alone: the value itself;
 * several: their strings joined), so that the items of every write's lists share their elements and FieldsV1 keys
 * instead of building and serializing new ones. Bounded per type: past the cap it starts over.
 */
const itemElements = new WeakMap<TypeDef, Map<unknown, PathElement>>();
const ITEM_ELEMENTS_MAX = 16_384;

/** The cache key of an item's key values, or undefined when one is not a string or a finite number. */
function itemCacheKey(values: readonly unknown[]): unknown {
  if (values.length === 1) {
    const v = values[0];
    return typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? v : undefined;
  }
  let out = "";
  for (const v of values) {
    if (typeof v === "string") out += `s${v.length}:${v}`;
    else if (typeof v === "number" && Number.isFinite(v)) out += `n${v};`;
    else return undefined;
  }
  return out;
}

function internedItem(t: TypeDef, values: readonly unknown[], make: () => PathElement): PathElement {
  const ck = itemCacheKey(values);
  if (ck === undefined) return make();
  let byKey = itemElements.get(t);
  if (byKey === undefined) {
    byKey = new Map();
    itemElements.set(t, byKey);
  }
  let pe = byKey.get(ck);
  if (pe === undefined) {
    if (byKey.size >= ITEM_ELEMENTS_MAX) byKey.clear();
    pe = withSerializedKey(make());
    byKey.set(ck, pe);
  }
  return pe;
}

/** The path element of list item `i` (`listItemToPathElement`). */
function itemElement(t: TypeDef & { type: "list" }, item: unknown, i: number, path: Path): PathElement {
  if (t.listType === "set") {
    if (isObject(item) || Array.isArray(item)) {
      throw new TypedValueError(`${pathString(path)}: element ${i}: sets may only contain scalars`);
    }
    return internedItem(t, [item], () => ({ kind: "value", value: item }));
  }
  if (t.listType === "map") {
    if (!isObject(item)) {
      throw new TypedValueError(`${pathString(path)}: element ${i}: associative list with keys may only contain maps`);
    }
    const fields: [string, unknown][] = [];
    for (const k of t.keys ?? []) {
      let v = item[k];
      if (v === undefined || v === null) v = t.keyDefaults?.[k];
      if (v === undefined || v === null) {
        throw new TypedValueError(
          `${pathString(path)}: element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
        );
      }
      fields.push([k, v]);
    }
    return internedItem(
      t,
      fields.map(([, v]) => v),
      () => keyElement(fields),
    );
  }
  return { kind: "index", index: i };
}

/** The items of a granular list by path element, in order; later duplicates are ignored, as upstream. */
function indexItems(
  t: TypeDef & { type: "list" },
  list: unknown,
  path: Path,
): { order: PathElement[]; byKey: Map<string, unknown> } {
  const order: PathElement[] = [];
  const byKey = new Map<string, unknown>();
  if (!Array.isArray(list)) return { order, byKey };
  list.forEach((item, i) => {
    const pe = itemElement(t, item, i, path);
    const k = serializePathElement(pe);
    if (byKey.has(k)) return;
    byKey.set(k, item);
    order.push(pe);
  });
  return { order, byKey };
}

/**
 * `TypedValue.ToFieldSet`: every leaf the value sets, every list item, and every map entry that is not a declared
 * struct field (map data, schemaless objects) or is null or an empty object. Throws {@link TypedValueError} when the
 * value does not fit the schema.
 */
export function toFieldSet(value: unknown, t: TypeDef): FieldSet {
  const set = new FieldSet();
  const walk = (v: unknown, tt: TypeDef, path: PathElement[]) => {
    const r = resolve(tt, v);
    if (isAtomic(r)) {
      set.insert(path);
      return;
    }
    if (r.type === "list") {
      if (!Array.isArray(v)) {
        if (v !== null && v !== undefined) set.insert(path);
        return;
      }
      const seen = new Set<string>();
      v.forEach((item, i) => {
        const pe = itemElement(r, item, i, path);
        const k = serializePathElement(pe);
        if (seen.has(k))
          throw new TypedValueError(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
        seen.add(k);
        const p = [...path, pe];
        walk(item, r.element, p);
        set.insert(p);
      });
      return;
    }
    if (!isObject(v)) {
      if (v !== null && v !== undefined) set.insert(path);
      return;
    }
    for (const [k, cv] of Object.entries(v)) {
      const f = fieldType(r, k);
      const p = [...path, fieldElement(k)];
      walk(cv, f.t, p);
      if (cv === null || (isObject(cv) && Object.keys(cv).length === 0) || !f.declared) set.insert(p);
    }
  };
  walk(value, t, []);
  return set;
}

/**
 * Values already found to fit a type ({@link checkShape}): frozen values, and the new side of a {@link compare} below
 * the top level and `metadata` — the object a write stores, which the storage freezes as it is (the field manager
 * writes only the top level and `metadata` of its result). Either cannot stop fitting.
 */
const fitting = new WeakMap<object, TypeDef>();

/**
 * Throws the {@link TypedValueError} {@link compare}'s walk of `v` against itself would throw (a set item that is not
 * a scalar, a keyed list item that is not an object or lacks its key), in the walk's order; remembered per frozen
 * value.
 */
function checkShape(v: unknown, t: TypeDef, path: PathElement[]): void {
  if (typeof v !== "object" || v === null) return;
  if (fitting.get(v) === t) return;
  const r = resolve(t, v);
  if (isAtomic(r)) return;
  if (r.type === "list") {
    const items = indexItems(r, v, path);
    for (const pe of items.order) {
      path.push(pe);
      checkShape(items.byKey.get(serializePathElement(pe)), r.element, path);
      path.pop();
    }
  } else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      const cv = v[k];
      if (typeof cv !== "object" || cv === null) continue;
      const pe = fieldElement(k);
      path.push(pe);
      checkShape(cv, fieldType(r, k).t, path);
      path.pop();
    }
  }
  if (Object.isFrozen(v)) fitting.set(v, t);
}

/** What changed between two values (`typed.Comparison`). */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

function emptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

/**
 * `TypedValue.Compare`: leaves (scalars, atomic values, and maps or lists empty on both sides) that were added,
 * removed or changed, plus every granular map, list or item that appeared or disappeared as a whole.
 */
export function compare(lhs: unknown, rhs: unknown, t: TypeDef): Comparison {
  // The sets are built bottom-up, one level at a time (`Delta`: added, modified, removed below a node, made when
  // first written), rather than by inserting every path from the root.
  type Delta = [FieldSet | undefined, FieldSet | undefined, FieldSet | undefined];
  const ADDED = 0;
  const MODIFIED = 1;
  const REMOVED = 2;
  const node = (d: Delta, which: number): FieldSet => {
    let s = d[which];
    if (s === undefined) {
      s = new FieldSet();
      d[which] = s;
    }
    return s;
  };
  const mark = (d: Delta, which: number, pe: PathElement | undefined) => {
    if (pe !== undefined) node(d, which).addMember(pe);
  };
  // One path stack for the whole walk (it only names a value that does not fit in an error): pushed and popped
  // around each child instead of a new array per node.
  const path: PathElement[] = [];
  const walk = (l: unknown, r: unknown, tt: TypeDef, into: Delta, pe: PathElement | undefined) => {
    // The same value on both sides (an update sharing what it did not change with the stored object): nothing below
    // was added, changed or removed; only whether it fits the schema is left to check, as the walk would.
    if (l === r && typeof l === "object" && l !== null) {
      checkShape(l, tt, path);
      return;
    }
    if (l === undefined && pe !== undefined) {
      addAll(r, tt, node(into, ADDED), pe);
      return;
    }
    const lt = resolve(tt, l);
    const rt = resolve(tt, r);
    const ty = r === undefined ? lt : rt;
    const shapeMismatch = l !== undefined && r !== undefined && lt !== rt && tt.type !== "struct";
    const leaf =
      shapeMismatch ||
      isAtomic(ty) ||
      ((ty.type === "map" || ty.type === "struct" || ty.type === "list") && emptyish(l) && emptyish(r));
    if (leaf) {
      if (l === undefined) mark(into, ADDED, pe);
      else if (r === undefined) mark(into, REMOVED, pe);
      else if (!deepEqual(l, r)) mark(into, MODIFIED, pe);
      return;
    }
    const below: Delta = pe === undefined ? into : [undefined, undefined, undefined];
    if (ty.type === "list") {
      const li = indexItems(ty, l, path);
      const ri = indexItems(ty, r, path);
      for (const ipe of li.order) {
        const k = serializePathElement(ipe);
        path.push(ipe);
        walk(li.byKey.get(k), ri.byKey.get(k), ty.element, below, ipe);
        path.pop();
      }
      for (const ipe of ri.order) {
        const k = serializePathElement(ipe);
        if (li.byKey.has(k)) continue;
        path.push(ipe);
        walk(undefined, ri.byKey.get(k), ty.element, below, ipe);
        path.pop();
      }
    } else {
      const lo = isObject(l) ? l : {};
      const ro = isObject(r) ? r : {};
      for (const k of Object.keys(lo)) {
        const fpe = fieldElement(k);
        path.push(fpe);
        walk(lo[k], Object.hasOwn(ro, k) ? ro[k] : undefined, fieldType(ty, k).t, below, fpe);
        path.pop();
      }
      for (const k of Object.keys(ro)) {
        if (Object.hasOwn(lo, k)) continue;
        const fpe = fieldElement(k);
        path.push(fpe);
        walk(undefined, ro[k], fieldType(ty, k).t, below, fpe);
        path.pop();
      }
    }
    if (path.length >= 2 && typeof r === "object" && r !== null) fitting.set(r, tt);
    if (pe === undefined) return;
    for (let i = 0; i < 3; i++) {
      const sub = below[i];
      if (sub !== undefined && !sub.isEmpty()) node(into, i).setChild(pe, sub);
    }
    if (l === undefined) mark(into, ADDED, pe);
    else if (r === undefined) mark(into, REMOVED, pe);
  };
  // The walk of a value only the new side has (all of a create): every node and leaf below is added.
  const addAll = (r: unknown, tt: TypeDef, into: FieldSet, pe: PathElement) => {
    const ty = resolve(tt, r);
    if (isAtomic(ty) || emptyish(r)) {
      into.addMember(pe);
      return;
    }
    const below = new FieldSet();
    if (ty.type === "list") {
      const ri = indexItems(ty, r, path);
      for (const ipe of ri.order) {
        path.push(ipe);
        addAll(ri.byKey.get(serializePathElement(ipe)), ty.element, below, ipe);
        path.pop();
      }
    } else if (isObject(r)) {
      for (const k of Object.keys(r)) {
        const fpe = fieldElement(k);
        path.push(fpe);
        addAll(r[k], fieldType(ty, k).t, below, fpe);
        path.pop();
      }
    }
    if (path.length >= 2 && typeof r === "object" && r !== null) fitting.set(r, tt);
    if (!below.isEmpty()) into.setChild(pe, below);
    into.addMember(pe);
  };
  const root: Delta = [new FieldSet(), new FieldSet(), new FieldSet()];
  walk(lhs, rhs, t, root, undefined);
  return { added: root[ADDED]!, modified: root[MODIFIED]!, removed: root[REMOVED]! };
}

/**
 * `TypedValue.Merge` as apply uses it: `rhs` (the applied configuration) wins at every leaf, granular maps merge key
 * by key (live keys first, in their order), granular lists merge item by item with the ordering of
 * structured-merge-diff (items of `rhs` keep their relative order; live-only items stay near their neighbours).
 * Inputs are not modified.
 */
export function merge(lhs: unknown, rhs: unknown, t: TypeDef): unknown {
  const go = (l: unknown, r: unknown, tt: TypeDef, path: PathElement[]): unknown => {
    if (r === undefined) return structuredClone(l);
    if (l === undefined) return structuredClone(r);
    const lt = resolve(tt, l);
    const rt = resolve(tt, r);
    if ((lt !== rt && tt.type !== "struct") || isAtomic(rt)) return structuredClone(r);
    if ((rt.type === "map" || rt.type === "struct") && isObject(l) && isObject(r)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(l)) {
        out[k] = Object.hasOwn(r, k) ? go(v, r[k], fieldType(rt, k).t, [...path, fieldElement(k)]) : structuredClone(v);
      }
      for (const [k, v] of Object.entries(r)) if (!Object.hasOwn(l, k)) out[k] = structuredClone(v);
      return out;
    }
    if (rt.type === "list" && Array.isArray(l) && Array.isArray(r)) return mergeList(l, r, rt, path, go);
    return structuredClone(r);
  };
  return go(lhs, rhs, t, []);
}

function mergeList(
  l: unknown[],
  r: unknown[],
  t: TypeDef & { type: "list" },
  path: PathElement[],
  go: (l: unknown, r: unknown, t: TypeDef, path: PathElement[]) => unknown,
): unknown[] {
  const li = indexItems(t, l, path);
  const ri = indexItems(t, r, path);
  const key = (pe: PathElement) => serializePathElement(pe);
  const shared = ri.order.filter((pe) => li.byKey.has(key(pe))).map(key);
  let sharedPos = 0;
  let nextShared: string | undefined = shared[sharedPos++];
  const out: unknown[] = [];
  const emitted = new Set<string>();
  const emit = (k: string, pe: PathElement, lv: unknown, rv: unknown) => {
    emitted.add(k);
    out.push(go(lv, rv, t.element, [...path, pe]));
  };
  let a = 0;
  let b = 0;
  while (a < li.order.length || b < ri.order.length) {
    if (a < li.order.length && b < ri.order.length) {
      const pe = li.order[a]!;
      const k = key(pe);
      if (k === key(ri.order[b]!)) {
        emit(k, pe, li.byKey.get(k), ri.byKey.get(k));
        a++;
        b++;
        nextShared = shared[sharedPos++];
        continue;
      }
      if (ri.byKey.has(k) && nextShared !== undefined && nextShared !== k) {
        a++; // a shared item, merged when the applied list reaches it
        continue;
      }
    }
    if (a < li.order.length) {
      const pe = li.order[a]!;
      const k = key(pe);
      if (!ri.byKey.has(k)) {
        emit(k, pe, li.byKey.get(k), undefined);
        a++;
        continue;
      }
      if (emitted.has(k) || b >= ri.order.length) {
        a++;
        continue;
      }
    }
    if (b < ri.order.length) {
      const pe = ri.order[b]!;
      const k = key(pe);
      emit(k, pe, li.byKey.get(k), ri.byKey.get(k));
      b++;
      if (nextShared === k) nextShared = shared[sharedPos++];
    }
  }
  return out;
}

/**
 * `TypedValue.RemoveItems`: a copy of `value` without the member paths of `set` (a removed path takes everything
 * below it with it). Atomic values are kept whole.
 */
export function removeItems(value: unknown, set: FieldSet, t: TypeDef): unknown {
  const go = (v: unknown, s: FieldSet, tt: TypeDef, path: PathElement[]): unknown => {
    const r = resolve(tt, v);
    if (isAtomic(r)) return v;
    if (r.type === "list") {
      if (!Array.isArray(v)) return v;
      const out: unknown[] = [];
      v.forEach((item, i) => {
        const pe = itemElement(r, item, i, path);
        if (s.hasMember(pe)) return;
        const sub = s.withPrefix(pe);
        out.push(sub === undefined ? item : go(item, sub, r.element, [...path, pe]));
      });
      return out;
    }
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, cv] of Object.entries(v)) {
      const pe = fieldElement(k);
      if (s.hasMember(pe)) continue;
      const sub = s.withPrefix(pe);
      out[k] = sub === undefined ? cv : go(cv, sub, fieldType(r, k).t, [...path, pe]);
    }
    return out;
  };
  return go(value, set, t, []);
}

/**
 * `Set.EnsureNamedFieldsAreMembers`: a copy of `set` in which every declared struct field that has paths below it
 * is a member too (used when pruning, so that removing the last owned leaf of a struct removes the struct).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeDef): FieldSet {
  const go = (s: FieldSet, tt: TypeDef): FieldSet => {
    const out = new FieldSet();
    // Without a value, `untyped`/`open` resolve by what the set addresses: fields → a map or struct.
    const r = tt.type === "untyped" ? resolve(tt, {}) : tt.type === "open" ? resolve(tt, {}) : tt;
    s.forEachElement((pe, child, member) => {
      let ct: TypeDef = r;
      let declared = false;
      if (pe.kind === "field") {
        const f = fieldType(r, pe.name);
        ct = f.t;
        declared = f.declared && r.type === "struct";
      } else if (r.type === "list") ct = r.element;
      if (member || (declared && child !== undefined && !child.isEmpty())) out.addMember(pe);
      if (child !== undefined) out.setChild(pe, go(child, ct));
    });
    return out;
  };
  return go(set, t);
}
