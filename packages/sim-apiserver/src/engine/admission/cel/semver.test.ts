// Kubernetes' semver library tests (apiserver/pkg/cel/library/semver_test.go, TestSemver) on @bufbuild/cel, with
// upstream's runtime error texts; `isSemver([1, 2, 3])` is a checker error (validation.test.ts).
import { parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { VALIDATION_ENV } from "./library.js";
import { compareSemver, parseSemver, type Semver } from "./semver.js";

const run = (expr: string): unknown => (plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({});

describe("TestSemver (semver_test.go)", () => {
  it.each([
    ['semver("1.2.3") == semver("1.2.3")', true],
    ['isSemver("1.2.3-beta.1+build.1")', true],
    ['isSemver("")', false],
    ['isSemver("v1.0.0")', false],
    ['isSemver(" 1.0.0")', false],
    ['isSemver("1. 0.0")', false],
    ['isSemver("1.0.0 ")', false],
    ['isSemver("01.01.01")', false],
    ['isSemver("1")', false],
    ['isSemver("1.1")', false],
    ['isSemver("", true)', false],
    ['isSemver(" 1.0.0", true)', false],
    ['isSemver("1. 0.0", true)', false],
    ['isSemver("1.0.0 ", true)', false],
    ['isSemver("v1.0.0", true)', true],
    ['isSemver("01.01.01", true)', true],
    ['isSemver("1", true)', true],
    ['isSemver("1.1", true)', true],
    ['semver("v01.01", true) == semver("1.1.0")', true],
    ['semver("1.2.3") == semver("1.0.0")', false],
    ['semver("1.0.0").isLessThan(semver("1.2.3"))', true],
    ['semver("1.0.0").isLessThan(semver("1.0.0"))', false],
    ['semver("1.2.3").isGreaterThan(semver("1.0.0"))', true],
    ['semver("1.0.0").isGreaterThan(semver("1.0.0"))', false],
    ['semver("1.2.3").compareTo(semver("1.2.3"))', 0n],
    ['semver("1.0.0").compareTo(semver("1.2.3"))', -1n],
    ['semver("1.2.3").compareTo(semver("1.0.0"))', 1n],
    ['semver("1.2.3").major()', 1n],
    ['semver("1.2.3").minor()', 2n],
    ['semver("1.2.3").patch()', 3n],
    // Beyond upstream's table: quantities still compare through the shared comparison overloads.
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
  ])("%s is %s", (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it.each([
    ['semver("v1.0")', /^No Major\.Minor\.Patch elements found$/],
    ['semver("1.0", true).compareTo(quantity("1"))', /no such overload: compareTo/],
    ['semver("1.0+x", true)', /^short version cannot contain PreRelease\/Build meta data$/],
  ])("%s is a runtime error matching %s", (expr, pattern) => {
    const r = run(expr);
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toMatch(pattern);
  });
});

describe("parseSemver (blang/semver's Parse)", () => {
  const v = (s: string) => parseSemver(s) as Semver;
  it("orders pre-releases as semver.org §11 does, ignoring build metadata", () => {
    const order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11"];
    for (let i = 1; i < order.length; i++)
      expect(compareSemver(v(order[i - 1] as string), v(order[i] as string))).toBe(-1);
    expect(compareSemver(v("1.0.0-rc.1"), v("1.0.0"))).toBe(-1);
    expect(compareSemver(v("1.0.0+a"), v("1.0.0+b"))).toBe(0);
  });
  it.each([
    ["1.2.x", 'Invalid character(s) found in patch number "x"'],
    ["01.2.3", 'Major number must not contain leading zeroes "01"'],
    ["1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ["1.2.3-", "Prerelease is empty"],
    ["1.2.3+", "Build meta data is empty"],
    ["1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'],
  ])("%s is the error %s", (s, msg) => {
    expect((parseSemver(s) as Error).message).toBe(msg);
  });
});
