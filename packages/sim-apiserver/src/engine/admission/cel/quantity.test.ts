// Kubernetes' quantity library tests (apiserver/pkg/cel/library/quantity_test.go, TestQuantity) on @bufbuild/cel:
// the rows of the functions Kubernetes 1.34 has (not the later `mul`, `div`, `divInt`), with upstream's runtime
// error patterns; `isQuantity([1, 2, 3])` is a checker error (validation.test.ts).
import { parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { VALIDATION_ENV } from "./library.js";
import { isBinaryQuantityText, parseQuantity, type Quantity, quantityString } from "./quantity.js";

const run = (expr: string): unknown => (plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({});

describe("TestQuantity (quantity_test.go)", () => {
  it.each([
    ['quantity("12Mi") == quantity("12582912")', true],
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("20Mo")', false],
    ['isQuantity("10Mm")', false],
    ['quantity("200M") == quantity("200M")', true],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    [
      'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
      true,
    ],
    ['quantity("200M") == quantity("0.3G")', false],
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50M").compareTo(quantity("50Mi"))', -1n],
    ['quantity("50Mi").compareTo(quantity("50M"))', 1n],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['quantity("50k").sub(20) == quantity("49980")', true],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20n],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50").isInteger()', true],
    ['quantity("50.703k").asApproximateFloat()', 50703],
  ])("%s is %s", (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it.each([
    ['quantity("10Mo")', /quantities must match the regular expression.*/],
    ['quantity("10Mm")', /unable to parse quantity's suffix/],
    ['quantity("9999999999999999999999999999999999999G").asInteger()', /cannot convert value to integer/],
  ])("%s is a runtime error matching %s", (expr, pattern) => {
    const r = run(expr);
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toMatch(pattern);
  });
});

describe("Quantity.String() (apimachinery's TestQuantityString, the canonical forms)", () => {
  it.each([
    ["500m", "500m"],
    ["0.5", "500m"],
    ["1000m", "1"],
    ["2000", "2k"],
    ["1500", "1500"],
    ["1.5", "1500m"],
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1536Mi", "1536Mi"],
    ["100Mi", "100Mi"],
    ["512", "512"],
    ["0", "0"],
  ])("%s prints as %s", (text, want) => {
    expect(quantityString(parseQuantity(text) as Quantity, isBinaryQuantityText(text))).toBe(want);
  });
});
