import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { compareStrings, goQuote, parseInt64, sortedStrings, utf8Length } from "./go-strings.js";

describe("goQuote (strconv.Quote)", () => {
  it("escapes like Go", () => {
    expect(goQuote("abc")).toBe('"abc"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("\n\t\r\u0007\u0000\u007f")).toBe('"\\n\\t\\r\\a\\x00\\x7f"');
    expect(goQuote("함")).toBe('"함"');
    expect(goQuote("\u0085")).toBe('"\\u0085"');
  });
});

describe("utf8Length (Go len)", () => {
  test.prop([fc.string({ unit: "grapheme", maxLength: 20 })])("equals Buffer.byteLength", (s) => {
    expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"));
  });
});

describe("compareStrings (Go byte order)", () => {
  it("orders astral characters after U+FFFF like UTF-8 bytes do", () => {
    expect(compareStrings("\uffff", "😀")).toBe(-1);
    expect("\uffff" < "😀").toBe(false); // JavaScript's own order differs
    expect(compareStrings("a", "ab")).toBe(-1);
    expect(compareStrings("b", "ab")).toBe(1);
    expect(compareStrings("x", "x")).toBe(0);
  });
  test.prop([fc.string({ unit: "grapheme", maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 8 })])(
    "agrees with comparing UTF-8 bytes",
    (a, b) => {
      expect(Math.sign(compareStrings(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    },
  );
  it("sortedStrings returns the input when sorted, a sorted copy otherwise", () => {
    const sorted = ["a", "b"];
    expect(sortedStrings(sorted)).toBe(sorted);
    const unsorted = ["b", "a"];
    expect(sortedStrings(unsorted)).toEqual(["a", "b"]);
    expect(unsorted).toEqual(["b", "a"]);
  });
});

describe("parseInt64 (strconv.ParseInt base 10)", () => {
  it("accepts signs and the int64 range only", () => {
    expect(parseInt64("+5")).toBe(5n);
    expect(parseInt64("-9223372036854775808")).toBe(-9223372036854775808n);
    expect(parseInt64("9223372036854775808")).toBeUndefined();
    expect(parseInt64("1.0")).toBeUndefined();
    expect(parseInt64("")).toBeUndefined();
  });
});
