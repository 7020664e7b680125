// Kubernetes' CIDR library tests (apiserver/pkg/cel/library/cidr_test.go, TestCIDR) on @bufbuild/cel: every row
// with upstream's runtime error texts; `cidr(192168)` is the checker's (validation.test.ts), and
// `type(cidr(…)) == net.CIDR` is left out: CIDRs are CEL maps at evaluation (opaque.ts).
import { parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { VALIDATION_ENV } from "./library.js";

const run = (expr: string): unknown => (plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({});

describe("TestCIDR (cidr_test.go)", () => {
  it.each([
    ['cidr(dyn("192.168.0.0/24")) == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("192.168.0.0/24").containsIP("192.168.1.1")', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', true],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', false],
    ['cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', true],
    ['cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24").prefixLength()', 24n],
    ['cidr("2001:db8::/32") == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', true],
    ['cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', false],
    ['cidr("2001:db8::/32").containsIP("2001:db8::1")', true],
    ['cidr("2001:db8::/32").containsIP("2001:dc8::1")', false],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', true],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', false],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', true],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', false],
    ['cidr("2001:db8::/32").ip() == ip("2001:db8::")', true],
    ['cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8::/32").prefixLength()', 32n],
    ['string(cidr("192.168.0.0/24"))', "192.168.0.0/24"],
  ])("%s is %s", (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it.each([
    [
      'cidr("192.168.0.0/")',
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ],
    [
      'cidr("2001:db8::/")',
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    ],
  ])("%s is the runtime error upstream's is", (expr, message) => {
    const r = run(expr);
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toBe(message);
  });
});
