import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { narrowInt64, parseYamlDocumentsInt64, parseYamlInt64 } from "./int64-yaml.js";

describe("parseYamlInt64 / parseYamlDocumentsInt64 (int64 as go-yaml keeps it)", () => {
  it("keeps int64 extremes exact as bigint; safe integers, floats and strings as they were", () => {
    const v = parseYamlInt64(
      "a: 9223372036854775807\nb: -9223372036854775808\nc: 42\nd: 1.5\ne: '9223372036854775807'\n",
    );
    expect(v).toEqual({ a: 2n ** 63n - 1n, b: -(2n ** 63n), c: 42, d: 1.5, e: "9223372036854775807" });
  });
  it("an integer beyond int64 is a double, as go-yaml falls back to float64", () => {
    expect(parseYamlInt64("a: 92233720368547758070")).toEqual({ a: Number("92233720368547758070") });
  });
  it("bodies without a long digit run take the ordinary path (numbers only)", () => {
    expect(parseYamlInt64("a: [1, 2, {b: 3}]")).toEqual({ a: [1, 2, { b: 3 }] });
  });
  it("documents: the first one's value narrowed", () => {
    const docs = parseYamlDocumentsInt64("x: 9007199254740993\ny: 7\n---\nz: 1\n");
    const first = (Array.isArray(docs) ? docs[0] : undefined)!;
    expect(narrowInt64(first.toJS())).toEqual({ x: 9007199254740993n, y: 7 });
  });
  it("property: every int64 round-trips exactly through YAML text", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        const v = parseYamlInt64(stringify({ n })) as { n: unknown };
        const safe = n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER);
        expect(v.n).toEqual(safe ? Number(n) : n);
      }),
    );
  });
});
