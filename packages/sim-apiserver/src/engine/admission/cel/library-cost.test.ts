// The cost estimator on Kubernetes' CEL libraries against upstream's own figures: the estimated maxima of
// apiserver/pkg/cel/library/cost_test.go (TestListsCost, TestIndexOfCost, TestURLsCost, TestIPCost,
// TestIPIsCanonicalCost, TestCIDRCost, TestStringLibrary, TestQuantityCost, TestNameFormatCost, TestSetsCost). The estimator tracks
// only the maximum, and the runtime charge is the same estimate over the values' sizes, so each row is the `Max` of
// `expectedEstimatedCost`. Left out: rows on uint, bytes, duration and timestamp lists (their casts), the authorizer
// library, and `format.named(…).value() == …` (optional values' sizes).
import { parse } from "@marcbachmann/cel-js";
import { describe, expect, it } from "vitest";
import { estimateCost, shapeOfSchema } from "./cost.js";

const cost = (expr: string): number => estimateCost(parse(expr).ast, {});

const INTS = "[1, 2, 3, 4, 5]";
const DOUBLES = "[1.0, 2.0, 3.0, 4.0, 5.0]";
const BOOLS = "[false, true, false, true, false]";
const STRS = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']";
const STR = "'01234567890123456789012345678901234567890123456789'";
const IPV4 = "ip('192.168.0.1')";
const IPV6 = "ip('2001:db8:3333:4444:5555:6666:7777:8888')";
const CIDR4 = "cidr('192.168.0.0/16')";
const CIDR6 = "cidr('2001:db8::/32')";

describe("Kubernetes CEL library costs (cost_test.go, estimated maxima)", () => {
  const rows: Array<[expr: string, max: number]> = [
    // TestListsCost
    [`${INTS}.sum()`, 15],
    [`${DOUBLES}.sum()`, 15],
    ...[".isSorted()", ".max()", ".min()"].flatMap(
      (op): Array<[string, number]> => [
        [INTS + op, 15],
        [DOUBLES + op, 15],
        [BOOLS + op, 15],
        [STRS + op, 25],
      ],
    ),
    // TestIndexOfCost
    ...[".indexOf", ".lastIndexOf"].flatMap(
      (op): Array<[string, number]> => [
        [`${INTS}${op}(3)`, 15],
        [`${DOUBLES}${op}(3.0)`, 15],
        [`${BOOLS}${op}(true)`, 15],
        [`${STRS}${op}('x')`, 25],
        [`${STR}${op}('123')`, 5],
      ],
    ),
    // TestURLsCost
    ...[".getScheme()", ".getHostname()", ".getHost()", ".getPort()", ".getEscapedPath()", ".getQuery()"].map(
      (op): [string, number] => [`url('https:://kubernetes.io/')${op}`, 4],
    ),
    ["url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", 9],
    ["url('https:://kubernetes.io/') == url('http://x.b')", 5],
    // TestIPCost
    [IPV4, 2],
    [IPV6, 4],
    ...[".family()", ".isUnspecified()", ".isLoopback()", ".isLinkLocalMulticast()", ".isLinkLocalUnicast()"].flatMap(
      (op): Array<[string, number]> => [
        [IPV4 + op, 3],
        [IPV6 + op, 5],
        [`${IPV4}.isGlobalUnicast()`, 3],
      ],
    ),
    [`${IPV4} == ip('192.168.0.1')`, 5],
    [`${IPV6} == ip('192.168.0.1')`, 7],
    // TestIPIsCanonicalCost
    ["ip.isCanonical('192.168.0.1')", 3],
    ["ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8],
    ["ip.isCanonical('2001:db8::abcd')", 3],
    // TestCIDRCost
    [CIDR4, 2],
    [CIDR6, 2],
    ...[".ip()", ".prefixLength()", ".masked()"].flatMap(
      (op): Array<[string, number]> => [
        [CIDR4 + op, 3],
        [CIDR6 + op, 3],
      ],
    ),
    [`${CIDR4} == cidr('2001:db8::/32')`, 5],
    [`${CIDR4}.containsCIDR(cidr('192.0.0.0/30'))`, 11],
    [`${CIDR4}.containsCIDR(cidr('192.168.0.0/16'))`, 11],
    [`${CIDR4}.containsCIDR('192.0.0.0/30')`, 11],
    [`${CIDR4}.containsCIDR('192.168.0.0/16')`, 11],
    [`${CIDR4}.containsIP(ip('192.0.0.1'))`, 7],
    [`${CIDR4}.containsIP(ip('192.169.0.1'))`, 8],
    [`${CIDR4}.containsIP(ip('192.169.169.250'))`, 8],
    [`${CIDR4}.containsIP('192.0.0.1')`, 7],
    [`${CIDR4}.containsIP('192.169.0.1')`, 8],
    [`${CIDR6}.containsCIDR(cidr('2001:db8::/126'))`, 11],
    [`${CIDR6}.containsCIDR(cidr('2001:db8::/32'))`, 11],
    [`${CIDR6}.containsCIDR('2001:db8::/126')`, 11],
    [`${CIDR6}.containsCIDR('2001:db8::/32')`, 11],
    [`${CIDR6}.containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))`, 10],
    [`${CIDR6}.containsIP(ip('2001:db8::1'))`, 8],
    [`${CIDR6}.containsIP('2001:db8:3333:4444:5555:6666:7777:8888')`, 10],
    [`${CIDR6}.containsIP('2001:db8::1')`, 8],
    // TestStringLibrary
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3],
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii()", 3],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 9],
    ["strings.quote('ABCDEFGHIJ abcdefghij')", 3],
    ["strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 11],
    ["'abc 123 def 123'.replace('123', '456')", 3],
    ["'abc 123 def 123'.replace('', 'x')", 3],
    ["'abc 123 def 123'.replace('123', '')", 3],
    ["'abc 123 def 123'.replace('123', '456', 1)", 3],
    ["'abc 123 def 123'.split(' ')", 3],
    ["'abc 123 def 123'.split(' ', 1)", 3],
    ["'abc 123 def 123'.substring(5)", 2],
    ["'abc 123 def 123'.substring(5, 8)", 2],
    ["'  abc 123 def 123  '.trim()", 2],
    ["'abc 123 def 123'.find('123')", 2],
    ["'abc 123 def 123'.findAll('123')", 2],
    ["'abc 123 def 123'.findAll('123', 1)", 2],
    // TestQuantityCost
    ['quantity("12Mi")', 1],
    ['isQuantity("20")', 1],
    ['isQuantity("20M")', 1],
    ['quantity("200M") == quantity("200M")', 3],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', 6],
    [
      'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
      9,
    ],
    ['quantity("50M").isLessThan(quantity("50Mi"))', 3],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', 3],
    ['quantity("200M").compareTo(quantity("0.2G")) > 0', 4],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', 5],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', 5],
    ['quantity("50k").sub(20) == quantity("49980")', 4],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', 6],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', 7],
    ['quantity("50k").asInteger() > 0', 3],
    ['quantity("50").isInteger()', 2],
    ['quantity("50.703k").asApproximateFloat() > 0.0', 3],
    // TestSetsCost
    ["sets.contains([], [])", 21],
    ["sets.contains([1], [])", 21],
    ["sets.contains([1], [1])", 22],
    ["sets.contains([1], [1, 1])", 23],
    ["sets.contains([1, 1], [1])", 23],
    ["sets.contains([1, 2, 3, 4], [2, 3])", 29],
    ["sets.contains([1], [1.0, 1])", 23],
    ["sets.contains([1, 2], [2u, 2.0])", 25],
    ["sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", 30],
    ["sets.contains([[1], [2, 3]], [[2, 3.0]])", 53],
    ["!sets.contains([1], [2])", 23],
    ["!sets.contains([1], [1, 2])", 24],
    ["sets.equivalent([], [])", 21],
    ["sets.equivalent([1], [1])", 23],
    ["sets.equivalent([1], [1, 1])", 25],
    ["sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39],
    ["sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69],
    ["!sets.equivalent([2, 1], [1])", 26],
    ["!sets.equivalent([1, 2], [2u, 2, 2.0])", 34],
    ["sets.intersects([1], [1])", 22],
    ["sets.intersects([1, 2], [2u, 2, 2.0])", 27],
    ["sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65],
    ["!sets.intersects([], [])", 22],
    ["!sets.intersects([1], [1.1, 2u])", 24],
    // TestSemverCost
    ['semver("1.0.0")', 1],
    ['semver("1234.56789012345.67890123456789")', 4],
    ['isSemver("1.0.0")', 1],
    ['isSemver("1234.56789012345.67890123456789")', 4],
    ['semver("1.2.3").major()', 2],
    ['semver("1.2.3").minor()', 2],
    ['semver("1.2.3").patch()', 2],
    ['semver("1.0.0").isLessThan(semver("1.1.0"))', 3],
    ['semver("1.1.0").isGreaterThan(semver("1.0.0"))', 3],
    ['semver("1.0.0").compareTo(semver("1.2.3"))', 3],
    // TestNameFormatCost
    ['format.named("dns1123subdomain")', 1],
    ['format.named("dns1123Subdomain").value().validate("my-name")', 34],
    ['format.named("dns1123Label").value().validate("my-name")', 34],
  ];
  it.each(rows)("%s costs at most %d", (expr, max) => {
    expect(cost(expr)).toBe(max);
  });

  it("join: upstream's rows over ten items its test estimator sizes at most 12 bytes (23 and 22, of which 10 the literal)", () => {
    // The same list as a schema gives it: maxItems 10 of maxLength 3 (4 bytes a character); `self` costs 1.
    const self = shapeOfSchema({ type: "array", maxItems: 10, items: { type: "string", maxLength: 3 } });
    expect(estimateCost(parse("self.join(' ')").ast, { self })).toBe(23 - 10 + 1);
    expect(estimateCost(parse("self.join()").ast, { self })).toBe(22 - 10 + 1);
  });
});
