import { describe, expect, it } from "vitest";
import { FieldSet } from "./field-set.js";
import { fieldElement as f, keyElement, pathString } from "./path-element.js";
import { listMap, SCALAR, SET, struct, UNTYPED } from "./schema.js";
import { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet } from "./typed-value.js";

const KEYED = struct({ items: listMap(struct({ name: SCALAR, v: SCALAR }), ["name"]), tags: SET });
const names = (v: unknown) => (v as { items: Array<{ name: string }> }).items.map((i) => i.name);
const items = (...n: string[]) => ({ items: n.map((name) => ({ name })) });

describe("typed values", () => {
  it("merge keeps the applied order of keyed items and live-only items near their neighbours", () => {
    expect(names(merge(items("a", "b", "c"), items("c", "a"), KEYED))).toEqual(["b", "c", "a"]);
    expect(names(merge(items("a", "x", "b"), items("b", "a"), KEYED))).toEqual(["x", "b", "a"]);
    expect(names(merge(items("a", "b"), items("b", "d"), KEYED))).toEqual(["a", "b", "d"]);
    const m = merge({ items: [{ name: "a", v: 1 }] }, { items: [{ name: "a", v: 2 }] }, KEYED);
    expect(m).toEqual({ items: [{ name: "a", v: 2 }] });
  });

  it("sets are addressed by value; atomic untyped lists are replaced", () => {
    expect(
      toFieldSet({ tags: ["x", "y"] }, KEYED)
        .paths()
        .map(pathString),
    ).toEqual(['.tags[="x"]', '.tags[="y"]']);
    expect(merge({ l: [1, 2] }, { l: [3] }, UNTYPED)).toEqual({ l: [3] });
    expect(
      toFieldSet({ l: [1, 2] }, UNTYPED)
        .paths()
        .map(pathString),
    ).toEqual([".l"]);
  });

  it("compare reports added maps as a whole and leaves by kind of change", () => {
    const c = compare({ a: 1, m: { x: 1 } }, { a: 2, m: {}, n: { y: 1 } }, UNTYPED);
    expect(c.added.paths().map(pathString)).toEqual([".n", ".n.y"]);
    expect(c.modified.paths().map(pathString)).toEqual([".a"]);
    expect(c.removed.paths().map(pathString)).toEqual([".m.x"]);
  });

  it("removeItems removes subtrees; ensureNamedFieldsAreMembers marks declared struct fields", () => {
    const v = { items: [{ name: "a", v: 1 }, { name: "b" }], tags: ["x"] };
    const gone = removeItems(v, FieldSet.of([f("items"), keyElement([["name", "a"]])], [f("tags")]), KEYED);
    expect(gone).toEqual({ items: [{ name: "b" }] });
    const s = ensureNamedFieldsAreMembers(FieldSet.of([f("items"), keyElement([["name", "a"]]), f("v")]), KEYED);
    expect(s.paths().map(pathString)).toEqual([".items", '.items[name="a"].v']);
  });
});
