import { fc, test } from "@fast-check/vitest";
import { isBadRequest, StatusError } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { applyPatch, jsonPatch, mergePatch, patchTypeOf } from "./patch.js";

describe("patchTypeOf", () => {
  it("accepts the four patch types, ignoring parameters", () => {
    expect(patchTypeOf("application/merge-patch+json; charset=utf-8")).toBe("application/merge-patch+json");
    expect(patchTypeOf("application/strategic-merge-patch+json")).toBe("application/strategic-merge-patch+json");
    expect(patchTypeOf("application/json-patch+json")).toBe("application/json-patch+json");
    expect(patchTypeOf("application/apply-patch+yaml")).toBe("application/apply-patch+yaml");
  });
  it("anything else is 415 UnsupportedMediaType", () => {
    try {
      patchTypeOf("application/json");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).status).toMatchObject({ code: 415, reason: "UnsupportedMediaType" });
    }
  });
});

// RFC 7386 appendix A examples.
describe("mergePatch (RFC 7386)", () => {
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  cases.forEach(([t, p, want], i) => {
    it(`example ${i + 1}`, () => expect(mergePatch(t, p)).toEqual(want));
  });
  test.prop([fc.jsonValue(), fc.jsonValue()])("never mutates its inputs", (t, p) => {
    const t0 = JSON.stringify(t);
    const p0 = JSON.stringify(p);
    mergePatch(t, p);
    expect(JSON.stringify(t)).toBe(t0);
    expect(JSON.stringify(p)).toBe(p0);
  });
});

describe("jsonPatch (RFC 6902)", () => {
  const doc = { metadata: { name: "a", labels: { x: "1" } }, list: [1, 2, 3] };
  it("add/replace/remove/move/copy/test", () => {
    const out = jsonPatch(doc, [
      { op: "add", path: "/metadata/labels/y", value: "2" },
      { op: "replace", path: "/metadata/labels/x", value: "9" },
      { op: "remove", path: "/list/0" },
      { op: "add", path: "/list/-", value: 4 },
      { op: "copy", from: "/metadata/name", path: "/copied" },
      { op: "move", from: "/copied", path: "/moved" },
      { op: "test", path: "/moved", value: "a" },
    ]);
    expect(out).toEqual({ metadata: { name: "a", labels: { x: "9", y: "2" } }, list: [2, 3, 4], moved: "a" });
    expect(doc.list).toEqual([1, 2, 3]);
  });
  it("escaped pointers ~0 ~1", () => {
    expect(
      jsonPatch({ "a/b": 1, "c~d": 2 }, [
        { op: "remove", path: "/a~1b" },
        { op: "replace", path: "/c~0d", value: 3 },
      ]),
    ).toEqual({ "c~d": 3 });
  });
  it("failures are 400", () => {
    for (const ops of [
      [{ op: "remove", path: "/nope" }],
      [{ op: "replace", path: "/nope", value: 1 }],
      [{ op: "test", path: "/metadata/name", value: "b" }],
      [{ op: "bogus", path: "/x" }],
      [{ op: "add", path: "/list/9", value: 1 }],
      { op: "add" },
    ]) {
      expect(() => jsonPatch(doc, ops), JSON.stringify(ops)).toThrow(StatusError);
    }
  });
});

describe("applyPatch", () => {
  it("merge, strategic (as merge) and apply (YAML) patches", () => {
    const cur = { metadata: { name: "a" }, data: { k: "v", gone: "x" } };
    expect(applyPatch("application/merge-patch+json", cur, '{"data":{"gone":null,"n":"1"}}')).toEqual({
      metadata: { name: "a" },
      data: { k: "v", n: "1" },
    });
    expect(applyPatch("application/strategic-merge-patch+json", cur, '{"data":{"k":"w"}}')).toMatchObject({
      data: { k: "w", gone: "x" },
    });
    expect(applyPatch("application/apply-patch+yaml", cur, "data:\n  k: y\n")).toMatchObject({ data: { k: "y" } });
  });
  it("undecodable bodies are 400", () => {
    try {
      applyPatch("application/merge-patch+json", {}, "{nope");
      expect.unreachable();
    } catch (err) {
      expect(isBadRequest(err)).toBe(true);
    }
  });
});
