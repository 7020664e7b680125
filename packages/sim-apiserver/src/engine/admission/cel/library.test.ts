// Kubernetes' list library and cel-go's strings extension in the environment x-kubernetes-validations run in
// (apiserver/pkg/cel/library/lists.go; the cases follow its documented examples).
import { parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { VALIDATION_ENV } from "./library.js";

const run = (expr: string): unknown => (plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({});

describe("Kubernetes list library", () => {
  it.each([
    ["[1, 2, 3].isSorted()", true],
    ["['a', 'b', 'b', 'c'].isSorted()", true],
    ["[2.0, 1.0].isSorted()", false],
    ["[1, 2, 3].sum()", 6n],
    ["[1.0, 2.5].sum()", 3.5],
    ["[].sum()", 0n],
    ["[3, 1, 2].min()", 1n],
    ["['b', 'a'].max()", "b"],
    ["[1, 2, 2, 3].indexOf(2)", 1n],
    ["[1, 2, 2, 3].lastIndexOf(2)", 2n],
    ["[1, 2].indexOf(9)", -1n],
  ])("%s is %s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it("min() of an empty list is an error, not a value", () => {
    expect(run("[].min()")).toBeInstanceOf(Error);
  });
});

describe("cel-go strings extension", () => {
  it.each([
    ["'AbC'.lowerAscii()", "abc"],
    ["'a,b'.split(',').size()", 2n],
    ["['a', 'b'].join('-')", "a-b"],
    ["'aXa'.replace('X', 'b')", "aba"],
  ])("%s is %s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });
});
