import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { StatusError } from "./errors/index.js";
import { parseResourceVersion, resourceVersionMetricValue } from "./resource-version.js";

function failure(rv: string): StatusError {
  try {
    parseResourceVersion(rv);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error(`expected ${rv} to be rejected`);
}

describe("APIObjectVersioner.ParseResourceVersion", () => {
  it('"", "0" and undefined are 0', () => {
    expect(parseResourceVersion(undefined)).toBe(0n);
    expect(parseResourceVersion("")).toBe(0n);
    expect(parseResourceVersion("0")).toBe(0n);
  });

  it("parses uint64 decimals, leading zeros included", () => {
    expect(parseResourceVersion("12345")).toBe(12345n);
    expect(parseResourceVersion("007")).toBe(7n);
    expect(parseResourceVersion("18446744073709551615")).toBe(18446744073709551615n);
  });

  it("rejects anything else with the storage layer's 400 message", () => {
    const err = failure("abc");
    expect(err.code).toBe(400);
    expect(err.reason).toBe("BadRequest");
    expect(err.message).toBe(
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
    for (const bad of ["-1", "+1", " 1", "1.0", "0x10", "1_000"])
      expect(failure(bad).message).toContain("invalid syntax");
    expect(failure("18446744073709551616").message).toBe(
      'invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
  });

  test.prop([fc.bigInt({ min: 0n, max: 18446744073709551615n })])("round-trips every uint64", (n) => {
    expect(parseResourceVersion(n.toString())).toBe(n);
  });
});

describe("resourceVersionMetricValue (client-go parseRVForMetricsWithTruncation)", () => {
  it('"" is 0, short RVs parse whole', () => {
    expect(resourceVersionMetricValue("")).toBe(0);
    expect(resourceVersionMetricValue(undefined)).toBe(0);
    expect(resourceVersionMetricValue("12345")).toBe(12345);
    expect(resourceVersionMetricValue("-5")).toBe(-5);
  });

  it("keeps the last 15 digits of long RVs", () => {
    expect(resourceVersionMetricValue("1234567890123456789")).toBe(567890123456789);
    expect(resourceVersionMetricValue("99999999999999999999")).toBe(999999999999999);
  });

  it("returns undefined when the tail is not an integer", () => {
    expect(resourceVersionMetricValue("abc")).toBeUndefined();
    expect(resourceVersionMetricValue("12a")).toBeUndefined();
    expect(resourceVersionMetricValue("x123456789012345")).toBe(123456789012345);
  });

  test.prop([fc.stringMatching(/^[0-9]{1,40}$/)])("always a safe integer equal to the last 15 digits", (rv) => {
    const v = resourceVersionMetricValue(rv)!;
    expect(Number.isSafeInteger(v)).toBe(true);
    expect(BigInt(v)).toBe(BigInt(rv.slice(-15)));
  });
});
