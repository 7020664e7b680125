// Kubernetes' IP library tests (apiserver/pkg/cel/library/ip_test.go, TestIP) on @bufbuild/cel: every row, with
// upstream's runtime error texts; the compile-error row (`isIP(cidr(…))`) is the checker's, in
// validation.test.ts. `type(ip(…)) == net.IP` is left out: IPs are CEL maps at evaluation (opaque.ts).
import { parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { VALIDATION_ENV } from "./library.js";

const run = (expr: string): unknown => (plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({});

describe("TestIP (ip_test.go)", () => {
  it.each([
    ['ip("192.168.0.1") == ip("192.168.0.1")', true],
    ['isIP("192.168.0.1")', true],
    ['isIP("192.168.0.1.0")', false],
    ['ip.isCanonical("127.0.0.1")', true],
    ['ip("192.168.0.1").family()', 4n],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("1.2.3.4").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['string(ip("2001:db8::68"))', "2001:db8::68"],
    ['isIP("2001:db8::68")', true],
    ['isIP("2001:db8:::68")', false],
    ['ip.isCanonical("2001:db8::68")', true],
    ['ip.isCanonical("2001:DB8::68")', false],
    ['ip("2001:db8::68").family()', 6n],
    ['ip("::").isUnspecified()', true],
    ['ip("::1").isUnspecified()', false],
    ['ip("::1").isLoopback()', true],
    ['ip("2001:db8::abcd").isLoopback()', false],
    ['ip("ff02::1").isLinkLocalMulticast()', true],
    ['ip("fd00::1").isLinkLocalMulticast()', false],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("fd80::1").isLinkLocalUnicast()', false],
    ['ip("2001:db8::abcd").isGlobalUnicast()', true],
    ['ip("ff00::1").isGlobalUnicast()', false],
    ['string(ip("192.168.0.1"))', "192.168.0.1"],
  ])("%s is %s", (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it.each([
    [
      'ip("192.168.0.1.0")',
      'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long',
    ],
    [
      'ip.isCanonical("127.0.0.1.0")',
      'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long',
    ],
    [
      'ip("2001:db8:::68")',
      'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ],
    [
      'ip.isCanonical("2001:db8:::68")',
      'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ],
  ])("%s is the runtime error upstream's is", (expr, message) => {
    const r = run(expr);
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toBe(message);
  });
});
