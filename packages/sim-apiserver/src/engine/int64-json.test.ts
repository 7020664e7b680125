// The int64-keeping JSON decode/encode: exact integers beyond 2^53, doubles beyond int64, the native path otherwise.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "./int64-json.js";

describe("parseJson / stringifyJson (int64 as Go's unstructured decoder keeps it)", () => {
  it("keeps int64 extremes exact as bigint, safe integers and fractions as numbers", () => {
    expect(parseJson('{"a":9223372036854775807,"b":-9223372036854775808,"c":12,"d":1.25}')).toEqual({
      a: 9223372036854775807n,
      b: -9223372036854775808n,
      c: 12,
      d: 1.25,
    });
  });

  it("an integer beyond int64 is a double, as Go falls back to float64", () => {
    expect(parseJson('{"a":92233720368547758070}')).toEqual({ a: Number("92233720368547758070") });
  });

  it("duplicate keys keep the last value on both paths, as JSON.parse", () => {
    expect(parseJson('{"a":1,"a":2}')).toEqual({ a: 2 });
    expect(parseJson('{"a":9223372036854775807,"a":9223372036854775806}')).toEqual({ a: 9223372036854775806n });
  });

  it("invalid JSON is a SyntaxError on both paths", () => {
    expect(() => parseJson("{")).toThrow(SyntaxError);
    expect(() => parseJson('{"a":9223372036854775807')).toThrow(SyntaxError);
  });

  it("stringifyJson writes bigints as digits and is JSON.stringify otherwise", () => {
    expect(stringifyJson({ a: 9223372036854775807n, s: "x\u2028" })).toBe('{"a":9223372036854775807,"s":"x\u2028"}');
    expect(stringifyJson({ a: 1, b: [true, null] })).toBe(JSON.stringify({ a: 1, b: [true, null] }));
  });

  it("property: every int64 round-trips exactly through stringifyJson and parseJson", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.string(), (n, s) => {
        const back = parseJson(stringifyJson({ n, s })) as { n: bigint | number; s: string };
        expect(BigInt(back.n)).toBe(n);
        // A number only where the double is exact (the check above), a bigint where it would not be.
        expect(back.s).toBe(s);
      }),
    );
  });
});
