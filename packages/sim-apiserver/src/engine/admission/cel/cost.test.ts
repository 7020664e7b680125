// The cost estimator against apiextensions-apiserver's own numbers: a subset of TestCostEstimation
// (pkg/apiserver/schema/cel/compilation_test.go) — every case whose schema is a list, map or string of one scalar type
// (genArrayWithRule, genArrayOfArraysWithRule, genMapWithRule, genStringWithRule) and whose functions the estimator
// models; left out are the object generators, date/duration formats and the extension-library cases
// (find/join/isSorted/replace/split), whose library costs library-cost.test.ts checks against upstream's
// cost_test.go instead. Each row: the rule's cost with no
// bounds (sized from the 3 MiB request limit), and with maxItems/maxProperties/maxLength set to `max`.
import { parse } from "@marcbachmann/cel-js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StructuralSchema } from "../custom-resource-schema.js";
import {
  CEL_COST_LIMITS,
  costErrorMessage,
  estimateCost,
  maxCardinality,
  shapeOfSchema,
  shapeOfValue,
} from "./cost.js";

type Gen = (max: number | undefined) => StructuralSchema;
const bound = <K extends string>(key: K, max: number | undefined) =>
  (max === undefined ? {} : { [key]: max }) as Partial<Record<K, number>>;
const scalar = (type: string): StructuralSchema =>
  type === "int-or-string" ? { "x-kubernetes-int-or-string": true } : { type };
const genArray: (type: string) => Gen = (type) => (max) => ({
  type: "array",
  items: scalar(type),
  ...bound("maxItems", max),
});
const genArrayOfArrays: (type: string) => Gen = (type) => (max) => ({
  type: "array",
  items: { type: "array", items: scalar(type) },
  ...bound("maxItems", max),
});
const genMap: (type: string) => Gen = (type) => (max) => ({
  type: "object",
  additionalProperties: scalar(type),
  ...bound("maxProperties", max),
});
const genString: Gen = (max) => ({ type: "string", ...bound("maxLength", max) });

const cost = (rule: string, s: StructuralSchema) => {
  const shape = shapeOfSchema(s);
  return estimateCost(parse(rule).ast, { self: shape, oldSelf: shape });
};

describe("TestCostEstimation (subset)", () => {
  const cases: Array<[name: string, gen: Gen, rule: string, calc: number | "exceeds", max: number, set: number]> = [
    ["number array with all", genArray("number"), "self.all(x, true)", 4718591, 10, 32],
    ["string array with all", genArray("string"), "self.all(x, true)", 3145727, 20, 62],
    ["boolean array with all", genArray("boolean"), "self.all(x, true)", 1887437, 5, 17],
    ["array of number arrays with all", genArrayOfArrays("number"), "self.all(x, true)", 3145727, 100, 302],
    ["map of numbers with all", genMap("number"), "self.all(x, true)", 1348169, 10, 32],
    ["map of numbers with has", genMap("number"), "has(self.x)", 0, 100, 0],
    ["map of strings with all", genMap("string"), "self.all(x, true)", 1179647, 3, 11],
    ["map of strings with has", genMap("string"), "has(self.x)", 0, 550, 0],
    ["map of booleans with all", genMap("boolean"), "self.all(x, true)", 943718, 100, 302],
    ["string with contains", genString, "self.contains('test')", 314574, 10, 5],
    ["string with startsWith", genString, "self.startsWith('test')", 2, 15, 2],
    ["string with endsWith", genString, "self.endsWith('test')", 2, 30, 2],
    ["concat string", genString, 'size(self + "hello") > size("hello")', 314578, 4, 7],
    ["index of array with numbers", genArray("number"), "self[1] == 0.0", 2, 5000, 2],
    ["index of array with strings", genArray("string"), "self[1] == self[1]", 314577, 8, 314577],
    ["O(n^2) loop with numbers", genArray("number"), "self.all(x, self.all(y, true))", "exceeds", 10, 352],
    [
      "O(n^3) loop with numbers",
      genArray("number"),
      "self.all(x, self.all(y, self.all(z, true)))",
      "exceeds",
      10,
      3552,
    ],
    ["regex matches simple", genString, 'self.matches("x")', 314574, 50, 22],
    ["regex matches empty string", genString, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
    ["regex matches empty regex", genString, 'self.matches("")', 1, 100, 1],
    ["set array maxLength to zero", genArray("number"), "self[3] == 0.0", 2, 0, 2],
    ["set map maxLength to zero", genMap("number"), 'self["x"] == 0.0', 2, 0, 2],
    ["set string maxLength to zero", genString, 'self == "x"', 2, 0, 1],
    [
      "set maxLength greater than estimated maxLength",
      genArray("number"),
      "self.all(x, x == 0.0)",
      6291454,
      3 * 1024 * 2048,
      25165826,
    ],
    ["int-or-string array with all", genArray("int-or-string"), "self.all(x, true)", 4718591, 10, 32],
    ["index of array with int-or-strings", genArray("int-or-string"), "self[0] == 5", 3, 10, 3],
    ["index of array with booleans", genArray("boolean"), "self[0] == false", 2, 25, 2],
    ["index of array of array of numnbers", genArrayOfArrays("number"), "self[0][0] == -1.0", 3, 51, 3],
    ["map of int-or-strings with all", genMap("int-or-string"), "self.all(x, true)", 1348169, 15, 47],
    ["map of int-or-strings with has", genMap("int-or-string"), "has(self.x)", 0, 5000, 0],
    ["extended library lowerAscii", genString, "self.lowerAscii() == 'lower!'", 314575, 10, 6],
    ["check cost of size call", genMap("integer"), "oldSelf.size() == self.size()", 5, 10, 5],
  ];
  for (const [name, gen, rule, calc, max, set] of cases) {
    it(name, () => {
      if (calc === "exceeds")
        expect(cost(rule, gen(undefined))).toBeGreaterThan(CEL_COST_LIMITS.staticEstimatedCRDCostLimit);
      else expect(cost(rule, gen(undefined))).toBe(calc);
      expect(cost(rule, gen(max))).toBe(set);
    });
  }
});

describe("the docs' rule self.all(x, x.contains('gpu')) at the per-expression limit", () => {
  // The largest maxItems kube-apiserver accepts for each maxLength of the items (measured against
  // ValidateCustomResourceDefinition): one more item and the rule exceeds StaticEstimatedCostLimit.
  const rows: Array<[maxLength: number, largestMaxItems: number]> = [
    [16, 909_090],
    [63, 333_333],
    [253, 94_339],
    [1024, 24_154],
  ];
  for (const [maxLength, maxItems] of rows) {
    it(`maxLength ${maxLength}: maxItems ${maxItems} fits, ${maxItems + 1} does not`, () => {
      const gen = (n: number): StructuralSchema => ({
        type: "array",
        maxItems: n,
        items: { type: "string", maxLength },
      });
      const rule = "self.all(x, x.contains('gpu'))";
      expect(cost(rule, gen(maxItems))).toBeLessThanOrEqual(CEL_COST_LIMITS.staticEstimatedCostLimit);
      expect(cost(rule, gen(maxItems + 1))).toBeGreaterThan(CEL_COST_LIMITS.staticEstimatedCostLimit);
    });
  }
});

describe("maxCardinality (CELSchemaContext.MaxCardinality)", () => {
  it("is the product of the bounds above, or what fits in a request when one is unbounded", () => {
    expect(maxCardinality([], { type: "string" })).toBe(1);
    expect(maxCardinality([10, 5], { type: "string" })).toBe(50);
    expect(maxCardinality([10, undefined], { type: "string" })).toBe(Math.floor((3 * 1024 * 1024 - 2) / 3));
  });
});

describe("getCostErrorMessage", () => {
  it("prints the factor as Go does: %fx below 1.5, %.1fx up to 100, more than 100x beyond", () => {
    expect(costErrorMessage("estimated rule cost", 11_000_000, 10_000_000)).toBe(
      "estimated rule cost exceeds budget by factor of 1.100000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    );
    expect(costErrorMessage("x", 32_000_000, 10_000_000)).toContain("by factor of 3.2x (");
    expect(costErrorMessage("x", 2_000_000_000, 10_000_000)).toContain("by factor of more than 100x (");
  });
});

describe("properties", () => {
  const strings = fc.array(fc.string({ maxLength: 20 }), { maxLength: 20 });
  it("a value that fits its schema's bounds never costs more than the schema's estimate", () => {
    const schema: StructuralSchema = { type: "array", maxItems: 20, items: { type: "string", maxLength: 20 } };
    const rules = [
      "self.all(x, x.contains('a'))",
      "self.exists(x, x.startsWith('b'))",
      "self.map(x, x + 'c').size() > 0",
      "self.filter(x, x == 'd').size() < 3",
      "'e' in self",
    ];
    fc.assert(
      fc.property(strings, fc.constantFrom(...rules), (value, rule) => {
        const ast = parse(rule).ast;
        const runtime = estimateCost(ast, { self: shapeOfValue(value) });
        expect(runtime).toBeLessThanOrEqual(estimateCost(ast, { self: shapeOfSchema(schema) }));
      }),
    );
  });
  it("cost grows with the size of the list a macro ranges over", () => {
    const ast = parse("self.all(x, x.contains('a'))").ast;
    fc.assert(
      fc.property(strings, fc.string({ maxLength: 20 }), (value, extra) => {
        expect(estimateCost(ast, { self: shapeOfValue([...value, extra]) })).toBeGreaterThan(
          estimateCost(ast, { self: shapeOfValue(value) }),
        );
      }),
    );
  });
});
