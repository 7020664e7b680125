// Kubernetes' CEL libraries (k8s.io/apiserver/pkg/cel/library) on @bufbuild/cel: the documented examples of
// regex.go, urls.go, quantity.go, ip.go, cidr.go and format.go (and cel-go's sets extension), each with the result
// upstream documents, plus the errors those files name (a string that does not parse, an IPv4-mapped IPv6 address, a zone).
import { isCelList, isCelMap, parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { VALIDATION_ENV } from "./library.js";

/** A CEL result as plain JS: lists as arrays, maps as objects (the opaque values' entries are not looked at here). */
function plain(v: unknown): unknown {
  if (isCelList(v)) return [...v].map(plain);
  if (isCelMap(v)) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
  return v;
}

const run = (expr: string): unknown => plain((plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({}));

const rows = (name: string, cases: Array<[string, unknown]>) =>
  describe(name, () => {
    it.each(cases)("%s is %s", (expr, want) => {
      expect(run(expr)).toEqual(want);
    });
  });

rows("regex (regex.go)", [
  ["'abc 123'.find('[0-9]+')", "123"],
  ["'abc'.find('[0-9]+')", ""],
  ["'123 abc 456'.findAll('[0-9]+')", ["123", "456"]],
  ["'123 abc 456'.findAll('[0-9]+', 1)", ["123"]],
  ["'123 abc 456'.findAll('[0-9]+', 0)", []],
  ["'abc'.findAll('[0-9]+')", []],
]);

rows("URLs (urls.go)", [
  ["url('https://example.com/path?query=val#fragment').getScheme()", "https"],
  ["url('https://example.com:80/').getHost()", "example.com:80"],
  ["url('https://example.com:80/').getHostname()", "example.com"],
  ["url('https://[::1]:80/').getHost()", "[::1]:80"],
  ["url('https://[::1]:80/').getHostname()", "::1"],
  ["url('https://example.com:80/').getPort()", "80"],
  ["url('https://example.com/').getPort()", ""],
  ["url('https://example.com/path%20with%20spaces/').getEscapedPath()", "/path%20with%20spaces/"],
  ["url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", { k1: ["a"], k2: ["b", "c"] }],
  ["url('/absolute-path').getScheme()", ""],
  ["url('https://example.com') == url('https://example.com')", true],
  ["url('https://example.com') == url('https://example.org')", false],
  ["isURL('https://user:pass@example.com:80/path?query=val#fragment')", true],
  ["isURL('/absolute-path')", true],
  ["isURL('../relative-path')", false],
  ["isURL('https://example.com/%zz')", false],
]);

rows("quantities (quantity.go)", [
  ["quantity('50M').isLessThan(quantity('50Mi'))", true],
  ["quantity('50Mi').isGreaterThan(quantity('50M'))", true],
  ["quantity('200M') == quantity('0.2G')", true],
  ["quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M')", true],
  ["quantity('200M').compareTo(quantity('0.2G'))", 0n],
  ["quantity('50M').compareTo(quantity('50Mi'))", -1n],
  ["quantity('50k').add(quantity('20')) == quantity('50.02k')", true],
  ["quantity('50k').sub(quantity('20')) == quantity('49.98k')", true],
  ["quantity('50k').sub(20) == quantity('49980')", true],
  ["quantity('50k').add(20).sub(quantity('100k')).asInteger()", -49980n],
  ["quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger()", 20n],
  ["quantity('1Mi').asInteger()", 1048576n],
  ["quantity('1.5').isInteger()", false],
  ["quantity('50').isInteger()", true],
  ["quantity('9999999999999999999').isInteger()", false],
  ["quantity('50.703k').asApproximateFloat()", 50703],
  ["quantity('-10').sign()", -1n],
  ["quantity('0').sign()", 0n],
  ["quantity('1e3') == quantity('1k')", true],
  ["quantity('500m').asApproximateFloat()", 0.5],
  ["isQuantity('20')", true],
  ["isQuantity('20M')", true],
  ["isQuantity('20Mi')", true],
  ["isQuantity('20Mx')", false],
  ["isQuantity('foo')", false],
]);

rows("IPs (ip.go)", [
  ["isIP('127.0.0.1')", true],
  ["isIP('::1')", true],
  ["isIP('127.0.0.256')", false],
  ["isIP('127.0.0.01')", false],
  ["isIP(':::1')", false],
  ["isIP('::ffff:127.0.0.1')", false],
  ["isIP('fe80::1%eth0')", false],
  ["ip('127.0.0.1').family()", 4n],
  ["ip('::1').family()", 6n],
  ["string(ip('::1'))", "::1"],
  ["string(ip('2001:DB8:0:0:0:0:0:1'))", "2001:db8::1"],
  ["ip.isCanonical('127.0.0.1')", true],
  ["ip.isCanonical('2001:db8::abcd')", true],
  ["ip.isCanonical('2001:DB8::ABCD')", false],
  ["ip.isCanonical('2001:db8:0:0:0:0:0:abcd')", false],
  ["ip('0.0.0.0').isUnspecified()", true],
  ["ip('::').isUnspecified()", true],
  ["ip('127.0.0.1').isUnspecified()", false],
  ["ip('127.0.0.1').isLoopback()", true],
  ["ip('::1').isLoopback()", true],
  ["ip('1.2.3.4').isLoopback()", false],
  ["ip('224.0.0.1').isLinkLocalMulticast()", true],
  ["ip('ff02::1').isLinkLocalMulticast()", true],
  ["ip('224.0.1.1').isLinkLocalMulticast()", false],
  ["ip('169.254.169.254').isLinkLocalUnicast()", true],
  ["ip('fe80::1').isLinkLocalUnicast()", true],
  ["ip('192.168.0.1').isLinkLocalUnicast()", false],
  ["ip('192.168.0.1').isGlobalUnicast()", true],
  ["ip('2001:db8::abcd').isGlobalUnicast()", true],
  ["ip('255.255.255.255').isGlobalUnicast()", false],
  ["ip('ff00::1').isGlobalUnicast()", false],
  ["ip('127.0.0.1') == ip('127.0.0.1')", true],
  ["ip('::1') == ip('0:0:0:0:0:0:0:1')", true],
  ["ip('127.0.0.1') == ip('127.0.0.2')", false],
]);

rows("CIDRs (cidr.go)", [
  ["isCIDR('192.168.0.0/16')", true],
  ["isCIDR('::1/128')", true],
  ["isCIDR('192.168.0.0/33')", false],
  ["isCIDR('192.168.0.0')", false],
  ["cidr('192.168.0.0/16').containsIP(ip('192.168.0.1'))", true],
  ["cidr('192.168.0.0/16').containsIP('192.168.0.1')", true],
  ["cidr('192.168.0.0/16').containsIP(ip('192.169.0.1'))", false],
  ["cidr('192.168.0.0/16').containsIP(ip('::1'))", false],
  ["cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))", true],
  ["cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25')", true],
  ["cidr('192.168.0.0/25').containsCIDR(cidr('192.168.0.0/24'))", false],
  ["cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/126'))", true],
  ["cidr('192.168.0.0/24').ip() == ip('192.168.0.0')", true],
  ["string(cidr('192.168.0.1/24').ip())", "192.168.0.1"],
  ["cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')", true],
  ["string(cidr('2001:db8::1/32').masked())", "2001:db8::/32"],
  ["cidr('192.168.0.0/16').prefixLength()", 16n],
  ["cidr('::1/128').ip().family()", 6n],
  ["string(cidr('::1/128'))", "::1/128"],
]);

rows("named formats (format.go)", [
  ["format.dns1123Label().validate('my-label-name').hasValue()", false],
  ["format.dns1123Label().validate('a.b').value()", ["must not contain dots"]],
  ["format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()", false],
  ["format.dns1035Label().validate('my-label-name').hasValue()", false],
  ["format.dns1035Label().validate('1abc').hasValue()", true],
  ["format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()", false],
  ["format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()", false],
  ["format.dns1123Label().validate('my-label-prefix-').hasValue()", true],
  ["format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()", false],
  ["format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()", false],
  ["format.labelValue().validate('my_value').hasValue()", false],
  ["format.uri().validate('http://example.com').hasValue()", false],
  ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", false],
  ["format.uuid().validate('not-a-uuid').value()", ["does not match the UUID format"]],
  ["format.byte().validate('aGVsbG8=').hasValue()", false],
  ["format.byte().validate('aGVsbG8').value()", ["invalid base64"]],
  ["format.date().validate('2021-01-01').hasValue()", false],
  ["format.date().validate('2021-02-30').value()", ["invalid date"]],
  ["format.datetime().validate('2021-01-01T00:00:00Z').hasValue()", false],
  ["format.datetime().validate('2021-01-01').value()", ["invalid datetime"]],
  ["format.named('dns1123Label').hasValue()", true],
  ["format.named('dns1123label').hasValue()", false],
  ["format.named('dns1123Label').value().validate('-x').hasValue()", true],
  ["format.named('dns1123Label').value() == format.dns1123Label()", true],
]);

rows("cel-go sets extension (in Kubernetes' base environment)", [
  ["sets.contains([1, 2, 3, 4], [2, 3])", true],
  ["sets.contains([1], [1.0, 1])", true],
  ["sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", true],
  ["sets.contains([[1], [2, 3]], [[2, 3.0]])", true],
  ["sets.contains([1], [2])", false],
  ["sets.contains([1], ['1', 1])", false],
  ["sets.equivalent([1, 2, 3], [3u, 2.0, 1])", true],
  ["sets.equivalent([1, 2], [2u, 2, 2.0])", false],
  ["sets.intersects([1, 2], [2u, 2, 2.0])", true],
  ["sets.intersects([], [])", false],
  ["sets.intersects([1], [1.1, 2u])", false],
]);

rows("optional results", [
  ["format.named('nope').orValue(format.dns1123Label()) == format.dns1123Label()", true],
  ["format.uuid().validate('x').orValue([]).size()", 1n],
  ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').orValue([]).size()", 0n],
]);

rows("cel-go strings extension (version 2)", [
  ["'abc'.charAt(1)", "b"],
  ["'hello world'.replace('o', '0')", "hell0 w0rld"],
  ["'hello world'.replace('o', '0', 1)", "hell0 world"],
  ["strings.quote('a\"b')", '"a\\"b"'],
  ["'%s-%d'.format(['a', 1])", "a-1"],
  ["'  x '.trim()", "x"],
  ["'abcd'.substring(1, 3)", "bc"],
]);

describe("errors of the libraries are errors, not values", () => {
  it.each([
    ["url('../relative-path')", /absolute path or an absolute URI/],
    ["quantity('foo')", /quantities must match the regular expression/],
    ["ip('::ffff:127.0.0.1')", /IPv4-mapped IPv6 address is not allowed/],
    ["ip('fe80::1%eth0')", /zone value is not allowed/],
    ["ip('1.2.3')", /parse error/],
    ["cidr('192.168.0.0/33')", /prefix length out of range/],
    ["quantity('1.5').asInteger()", /cannot convert value to integer/],
    ["format.named('nope').value()", /optional\.none\(\) dereference/],
  ])("%s", (expr, msg) => {
    const r = run(expr);
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toMatch(msg);
  });
});
