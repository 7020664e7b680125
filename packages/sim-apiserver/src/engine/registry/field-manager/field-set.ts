import { newBadRequest } from "@informer-ts/apimachinery";
import {
  comparePathElements,
  deserializePathElement,
  type Path,
  type PathElement,
  serializePathElement,
} from "./path-element.js";

/** The FieldsV1 of a leaf (and of the `"."` self marker): frozen, so one object serves every leaf. */
const EMPTY: Record<string, unknown> = Object.freeze({});

/**
 * The members and the children of every node that has none: one shared map, never written to (a node gets its own
 * map with its first entry, {@link FieldSet.putMember}/{@link FieldSet.putChild}). Most nodes have one kind only (a
 * leaf level has members, an inner one children), and a node is two maps and the node itself: this halves the maps
 * of a decoded set and what the field manager allocates per write.
 */
const NO_MEMBERS: ReadonlyMap<string, PathElement> = new Map();
const NO_CHILDREN: ReadonlyMap<string, Child> = new Map();

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths, stored as a tree (structured-merge-diff `fieldpath.Set`): at each level the `members` are the
 * path elements that end a path here, the `children` the elements that longer paths continue through. A path can be
 * both (a map that is owned as a whole and whose keys are owned too: FieldsV1 `{".":{},"f:a":{}}`). Immutable by
 * convention once built: the set operations return new sets that share unchanged subtrees with their inputs (or an
 * input itself when nothing changes), and each node caches its FieldsV1, so `insert`/`addMember`/`setChild` are for
 * sets being built, never for results of set operations.
 */
export class FieldSet {
  private members = NO_MEMBERS as Map<string, PathElement>;
  private children = NO_CHILDREN as Map<string, Child>;
  /** The frozen FieldsV1 of this node without and with the `"."` self marker, built on first use. */
  private emitted: [Record<string, unknown> | undefined, Record<string, unknown> | undefined] | undefined;

  /** A set of the given paths. */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (the empty path is ignored: the root is never a member). */
  insert(path: Path): this {
    if (path.length === 0) return this;
    let cur: FieldSet = this;
    this.emitted = undefined;
    for (let i = 0; i < path.length - 1; i++) {
      cur = cur.descend(path[i]!);
      cur.emitted = undefined;
    }
    const last = path[path.length - 1]!;
    cur.putMember(serializePathElement(last), last);
    return this;
  }

  /** The child set at `pe`, created when missing (for building). */
  private descend(pe: PathElement): FieldSet {
    const k = serializePathElement(pe);
    let c = this.children.get(k);
    if (c === undefined) {
      c = { pe, set: new FieldSet() };
      this.putChild(k, c);
    }
    return c.set;
  }

  /** Adds a member at this level, giving the node its own map first. */
  private putMember(k: string, pe: PathElement): void {
    if (this.members === NO_MEMBERS) this.members = new Map();
    this.members.set(k, pe);
  }

  /** Adds (or replaces) a child at this level, giving the node its own map first. */
  private putChild(k: string, c: Child): void {
    if (this.children === NO_CHILDREN) this.children = new Map();
    this.children.set(k, c);
  }

  /** Whether `path` is a member. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    let cur: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && cur !== undefined; i++)
      cur = cur.children.get(serializePathElement(path[i]!))?.set;
    return cur?.members.has(serializePathElement(path[path.length - 1]!)) ?? false;
  }

  /** Whether `pe` is a member at this level. */
  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  /** The paths below `pe` (`Set.WithPrefix`), or undefined when there are none. */
  withPrefix(pe: PathElement): FieldSet | undefined {
    return this.children.get(serializePathElement(pe))?.set;
  }

  /** No paths at all. */
  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.set.isEmpty()) return false;
    return true;
  }

  /** Number of member paths. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }

  /** Members at this level and child sets, each in `PathElement` order. */
  private sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  private sortedChildren(): Child[] {
    return [...this.children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** Every member path, in `PathElement` order (depth first, a member before the paths below it). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]) => {
      const ms = s.sortedMembers();
      const cs = s.sortedChildren();
      let mi = 0;
      let ci = 0;
      while (mi < ms.length || ci < cs.length) {
        const m = ms[mi];
        const c = cs[ci];
        const cmp = m === undefined ? 1 : c === undefined ? -1 : comparePathElements(m, c.pe);
        if (cmp <= 0) {
          out.push([...prefix, m!]);
          mi++;
          if (cmp === 0) {
            walk(c!.set, [...prefix, c!.pe]);
            ci++;
          }
        } else {
          walk(c!.set, [...prefix, c!.pe]);
          ci++;
        }
      }
    };
    walk(this, []);
    return out;
  }

  /**
   * `Set.Union`. Persistent: subtrees only one side has are shared with it, and `this` itself comes back when `o`
   * adds nothing, so that an unchanged set keeps its identity (and its cached FieldsV1) from write to write.
   */
  union(o: FieldSet): FieldSet {
    if (o === this) return this;
    // Nothing on this side (a create's modified fields, a manager's first entry): the union is `o` itself.
    if (this.members.size === 0 && this.children.size === 0) return o;
    let out: FieldSet | undefined;
    const target = (): FieldSet => {
      out ??= this.shallowCopy();
      return out;
    };
    for (const [k, pe] of o.members) if (!this.members.has(k)) target().putMember(k, pe);
    for (const [k, c] of o.children) {
      const mine = this.children.get(k);
      if (mine === undefined) {
        if (!c.set.isEmpty()) target().putChild(k, c);
        continue;
      }
      const u = mine.set.union(c.set);
      if (u !== mine.set) target().putChild(k, { pe: mine.pe, set: u });
    }
    return out ?? this;
  }

  /** A new node with this level's members and children (the child sets themselves shared). */
  private shallowCopy(): FieldSet {
    const out = new FieldSet();
    if (this.members.size > 0) out.members = new Map(this.members);
    if (this.children.size > 0) out.children = new Map(this.children);
    return out;
  }

  /** A deep copy. */
  clone(): FieldSet {
    const out = new FieldSet();
    if (this.members.size > 0) out.members = new Map(this.members);
    for (const [k, c] of this.children) out.putChild(k, { pe: c.pe, set: c.set.clone() });
    return out;
  }

  /** `Set.Intersection`: the paths in both. */
  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.putMember(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (oc === undefined) continue;
      const i = c.set.intersection(oc.set);
      if (!i.isEmpty()) out.putChild(k, { pe: c.pe, set: i });
    }
    return out;
  }

  /**
   * `Set.Difference`: the paths of this set that `o` does not have (a member of `o` removes only that path).
   * Persistent like {@link union}: `this` when `o` removes nothing, untouched subtrees shared.
   */
  difference(o: FieldSet): FieldSet {
    return this.minus(o, false);
  }

  /** `Set.RecursiveDifference`: like {@link difference}, but a member of `o` also removes every path below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    return this.minus(o, true);
  }

  /**
   * The difference walks the elements of the smaller side at each level and copies a node only when something under
   * it goes (the removals are done on the copy): the usual subtrahends (a write's changed fields, the stripped or
   * ignored fields) are small next to a manager's set, so most of the set is neither visited nor copied.
   */
  private minus(o: FieldSet, recursive: boolean): FieldSet {
    if (o === this) return this.isEmpty() ? this : new FieldSet();
    let out: FieldSet | undefined;
    const target = (): FieldSet => {
      out ??= this.shallowCopy();
      return out;
    };
    const mine = this.members;
    const theirs = o.members;
    if (theirs.size > 0 && mine.size > 0) {
      if (mine.size <= theirs.size) {
        for (const k of mine.keys()) if (theirs.has(k)) target().members.delete(k);
      } else for (const k of theirs.keys()) if (mine.has(k)) target().members.delete(k);
    }
    const kids = this.children;
    if (kids.size === 0) return out ?? this;
    if (recursive && theirs.size > 0) {
      if (kids.size <= theirs.size) {
        for (const k of kids.keys()) if (theirs.has(k)) target().children.delete(k);
      } else for (const k of theirs.keys()) if (kids.has(k)) target().children.delete(k);
    }
    const other = o.children;
    const step = (k: string, c: Child, oc: Child) => {
      if (recursive && theirs.has(k)) return;
      const d = c.set.minus(oc.set, recursive);
      if (d === c.set) return;
      if (d.isEmpty()) target().children.delete(k);
      else target().children.set(k, { pe: c.pe, set: d });
    };
    if (kids.size <= other.size) {
      for (const [k, c] of kids) {
        const oc = other.get(k);
        if (oc !== undefined) step(k, c, oc);
      }
    } else {
      for (const [k, oc] of other) {
        const c = kids.get(k);
        if (c !== undefined) step(k, c, oc);
      }
    }
    return out ?? this;
  }

  /** Whether every member path of `o` is one of this set's (`o` ⊆ this): walks `o` only. */
  covers(o: FieldSet): boolean {
    if (o === this) return true;
    for (const k of o.members.keys()) if (!this.members.has(k)) return false;
    for (const [k, c] of o.children) {
      const mine = this.children.get(k);
      if (mine === undefined ? !c.set.isEmpty() : !mine.set.covers(c.set)) return false;
    }
    return true;
  }

  /** Whether the two sets share a member path: walks the smaller side at each level. */
  intersects(o: FieldSet): boolean {
    if (o === this) return !this.isEmpty();
    const [sm, lm] = this.members.size <= o.members.size ? [this.members, o.members] : [o.members, this.members];
    for (const k of sm.keys()) if (lm.has(k)) return true;
    const [sc, lc] = this.children.size <= o.children.size ? [this.children, o.children] : [o.children, this.children];
    for (const [k, c] of sc) {
      const oc = lc.get(k);
      if (oc !== undefined && c.set.intersects(oc.set)) return true;
    }
    return false;
  }

  /**
   * Same member paths, found by walking both trees (a subtree both share is equal at once): cheap for a set and its
   * successor from the same write, which share all they did not change. A write whose ownership did not change
   * keeps the previous set (and its cached FieldsV1) through this.
   */
  sameAs(o: FieldSet): boolean {
    if (o === this) return true;
    if (this.members.size !== o.members.size || this.children.size !== o.children.size) return false;
    for (const k of this.members.keys()) if (!o.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (oc === undefined || !c.set.sameAs(oc.set)) return false;
    }
    return true;
  }

  /** Same member paths. */
  equals(o: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(o.toFieldsV1());
  }

  /**
   * Visits the tree: `fn(pe, child, isMember)` for every element at this level, in order; used by schema-aware walks.
   */
  forEachElement(fn: (pe: PathElement, child: FieldSet | undefined, isMember: boolean) => void): void {
    for (const k of this.sortedKeys()) {
      fn(this.members.get(k) ?? this.children.get(k)!.pe, this.children.get(k)?.set, this.members.has(k));
    }
  }

  /**
   * The serialized elements of this level in `PathElement` order. Field elements alone (the common level) order as
   * their keys do (`f:` + the name, compared by code unit as names are), so they sort without decoding.
   */
  private sortedKeys(): string[] {
    const keys = [...this.members.keys()];
    for (const k of this.children.keys()) if (!this.members.has(k)) keys.push(k);
    if (keys.every((k) => k.startsWith("f:"))) return keys.sort();
    const pe = (k: string) => this.members.get(k) ?? this.children.get(k)!.pe;
    return keys.sort((a, b) => comparePathElements(pe(a), pe(b)));
  }

  /** Marks `pe` as a member at this level (used by schema-aware rewrites). */
  addMember(pe: PathElement): void {
    this.emitted = undefined;
    this.putMember(serializePathElement(pe), pe);
  }

  /** Attaches a (non-empty) child set at `pe`, replacing any. */
  setChild(pe: PathElement, set: FieldSet): void {
    this.emitted = undefined;
    if (set.isEmpty()) {
      if (this.children !== NO_CHILDREN) this.children.delete(serializePathElement(pe));
    } else this.putChild(serializePathElement(pe), { pe, set });
  }

  /**
   * The FieldsV1 JSON of the set (`Set.ToJSON`): an object whose keys are serialized path elements in `PathElement`
   * order; a member without children is `{}`, a member with children carries `".": {}` before its children
   * (structured-merge-diff's `fieldpath/serialize.go` `emitContentsV1` writes the self marker first).
   */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const slot = includeSelf ? 1 : 0;
    const cached = this.emitted?.[slot];
    if (cached !== undefined) return cached;
    const out: Record<string, unknown> = {};
    if (includeSelf && !this.isEmpty()) out["."] = EMPTY;
    for (const key of this.sortedKeys()) {
      const child = this.children.get(key)?.set;
      if (child === undefined || child.isEmpty()) {
        if (this.members.has(key)) out[key] = EMPTY;
      } else out[key] = child.emit(this.members.has(key));
    }
    this.emitted ??= [undefined, undefined];
    this.emitted[slot] = Object.freeze(out);
    return out;
  }

  /**
   * Parses FieldsV1 JSON (`Set.FromJSON`). Unknown element prefixes are dropped; a malformed element or a value
   * that is not an object is a 400 BadRequest.
   */
  static fromFieldsV1(json: unknown): FieldSet {
    const out = new FieldSet();
    read(json, out);
    return out;
  }
}

/** Reads the contents of a FieldsV1 object into `into`; returns whether the object marks its parent as a member. */
function read(json: unknown, into: FieldSet): boolean {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw newBadRequest(`error decoding managed fields: expected a JSON object, got ${JSON.stringify(json)}`);
  }
  let self = false;
  let any = false;
  for (const [k, v] of Object.entries(json)) {
    if (k === ".") {
      self = true;
      continue;
    }
    const pe = deserializePathElement(k);
    if (pe === undefined) continue;
    any = true;
    const child = new FieldSet();
    const member = read(v, child);
    if (member) into.addMember(pe);
    into.setChild(pe, child);
  }
  // An element with no children (`{}`) is a member of its parent.
  return self || !any;
}
