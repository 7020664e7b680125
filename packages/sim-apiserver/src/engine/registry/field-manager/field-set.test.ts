import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FieldSet } from "./field-set.js";
import { fieldElement as f, keyElement, pathString } from "./path-element.js";

describe("FieldSet FieldsV1", () => {
  it("encodes members, children and '.' as upstream writes them, in PathElement order", () => {
    const s = FieldSet.of(
      [f("data"), f("b")],
      [f("data"), f("a")],
      [f("metadata"), f("labels")],
      [f("metadata"), f("labels"), f("app")],
      [f("spec"), f("containers"), keyElement([["name", "app"]])],
      [f("spec"), f("containers"), keyElement([["name", "app"]]), f("image")],
      [f("spec"), f("finalizers"), { kind: "value", value: "x" }],
    );
    expect(JSON.stringify(s.toFieldsV1())).toBe(
      '{"f:data":{"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}},' +
        '"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{}}},"f:finalizers":{"v:\\"x\\"":{}}}}',
    );
  });

  it("writes the self marker '.' before the children (structured-merge-diff fieldpath/serialize.go emitContentsV1)", () => {
    const s = FieldSet.of(
      [f("spec"), f("containers"), keyElement([["name", "app"]])],
      [f("spec"), f("containers"), keyElement([["name", "app"]]), f("name")],
      [f("spec"), f("containers"), keyElement([["name", "app"]]), f("image")],
    );
    expect(JSON.stringify(s.toFieldsV1())).toBe(
      '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{},"f:name":{}}}}}',
    );
  });

  it("round-trips FieldsV1 and keeps membership", () => {
    const json = {
      "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
      "f:spec": { "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:name": {} } } },
    };
    const s = FieldSet.fromFieldsV1(json);
    expect(s.has([f("metadata"), f("labels")])).toBe(true);
    expect(s.has([f("metadata")])).toBe(false);
    expect(s.paths().map(pathString)).toEqual([
      ".metadata.labels",
      ".metadata.labels.app",
      '.spec.ports[containerPort=80,protocol="TCP"]',
      '.spec.ports[containerPort=80,protocol="TCP"].name',
    ]);
    expect(FieldSet.fromFieldsV1(s.toFieldsV1()).equals(s)).toBe(true);
  });

  it("drops unknown prefixes and rejects malformed keys with a 400", () => {
    expect(FieldSet.fromFieldsV1({ "x:future": {}, "f:a": {} }).paths().map(pathString)).toEqual([".a"]);
    expect(() => FieldSet.fromFieldsV1({ "k:{not json": {} })).toThrow(/error decoding managed fields/);
    expect(() => FieldSet.fromFieldsV1([])).toThrow(/expected a JSON object/);
  });

  it("set algebra: union, intersection, difference, recursiveDifference", () => {
    const a = FieldSet.of([f("x")], [f("x"), f("y")], [f("z")]);
    const b = FieldSet.of([f("x")], [f("w")]);
    expect(a.union(b).paths().map(pathString)).toEqual([".w", ".x", ".x.y", ".z"]);
    expect(a.intersection(b).paths().map(pathString)).toEqual([".x"]);
    expect(a.difference(b).paths().map(pathString)).toEqual([".x.y", ".z"]);
    expect(a.recursiveDifference(b).paths().map(pathString)).toEqual([".z"]);
    expect(new FieldSet().isEmpty()).toBe(true);
    expect(a.size()).toBe(3);
  });
});

describe("FieldSet.sameAs", () => {
  it("is true for the same member paths however the sets were built, false when one path differs", () => {
    const a = FieldSet.of([f("spec"), f("replicas")], [f("metadata"), f("labels"), f("app")]);
    const b = FieldSet.of([f("metadata"), f("labels"), f("app")], [f("spec"), f("replicas")]);
    expect(a.sameAs(b)).toBe(true);
    expect(a.union(FieldSet.of([f("spec"), f("paused")])).sameAs(a)).toBe(false);
    expect(a.sameAs(FieldSet.of([f("spec"), f("replicas")]))).toBe(false);
    // A member and a child of the same element are different paths.
    expect(FieldSet.of([f("spec")]).sameAs(FieldSet.of([f("spec"), f("x")]))).toBe(false);
    expect(
      a.sameAs(a.difference(FieldSet.of([f("spec"), f("replicas")])).union(FieldSet.of([f("spec"), f("replicas")]))),
    ).toBe(true);
  });
});

describe("FieldSet difference (smaller side walked, copy on first removal)", () => {
  // Paths over a small alphabet so that the two sets share members, children and prefixes often.
  const path = fc.array(fc.constantFrom("a", "b", "c", "d").map(f), { minLength: 1, maxLength: 3 });
  const paths = fc.array(path, { maxLength: 12 });
  const names = (s: FieldSet) => s.paths().map(pathString);

  it("gives the paths a path-by-path difference gives, and the input itself when nothing goes", () => {
    fc.assert(
      fc.property(paths, paths, (xs, ys) => {
        const a = FieldSet.of(...xs);
        const b = FieldSet.of(...ys);
        const inB = new Set(names(b));
        const plain = names(a).filter((p) => !inB.has(p));
        // A member of b also removes every path below it.
        const recursive = a
          .paths()
          .filter((p) => !p.some((_, i) => inB.has(pathString(p.slice(0, i + 1)))))
          .map(pathString);
        const before = JSON.stringify(a.toFieldsV1());
        expect(names(a.difference(b))).toEqual(plain);
        expect(names(a.recursiveDifference(b))).toEqual(recursive);
        expect(names(a.difference(a))).toEqual([]);
        if (plain.length === names(a).length) expect(a.difference(b)).toBe(a);
        // The operands are not changed.
        expect(JSON.stringify(a.toFieldsV1())).toBe(before);
        expect(names(b)).toEqual([...inB]);
      }),
    );
  });
});
