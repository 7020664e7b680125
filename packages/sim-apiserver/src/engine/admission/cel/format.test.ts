// Kubernetes' format library tests (apiserver/pkg/cel/library/format_test.go, TestFormat) on @bufbuild/cel: the
// validation rows with upstream's error texts (`none` is optional.none(), a list the errors optional.of carries),
// and the lookups and comparisons of every named format.
import { isCelList, parse, plan } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { NAMED_FORMATS } from "./format.js";
import { VALIDATION_ENV } from "./library.js";

const run = (expr: string): unknown => (plan(VALIDATION_ENV, parse(expr)) as (ctx: object) => unknown)({});

/** `none`, or the list a `validate` result holds. */
function validated(expr: string): "none" | string[] {
  if (run(`${expr}.hasValue()`) === false) return "none";
  const v = run(`${expr}.value()`);
  if (!isCelList(v)) throw new Error(`not a list: ${String(v)}`);
  return [...v] as string[];
}

const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe("TestFormat (format_test.go)", () => {
  it.each([
    ['format.dns1123LabelPrefix().validate("my-label-prefix-")', "none"],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', "none"],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-")', "none"],
    ['format.uri().validate("http://example.com")', "none"],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', "none"],
    ['format.byte().validate("aGVsbG8=")', "none"],
    ['format.date().validate("2021-01-01")', "none"],
    ['format.datetime().validate("2021-01-01T00:00:00Z")', "none"],
    ['format.dns1123Label().validate("contains a space")', [LABEL]],
    ['format.dns1123Subdomain().validate("contains a space")', [SUBDOMAIN]],
    ['format.dns1035Label().validate("contains a space")', [DNS1035]],
    [
      'format.qualifiedName().validate("contains a space")',
      [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    ['format.dns1123LabelPrefix().validate("contains a space-")', [LABEL]],
    ['format.dns1123SubdomainPrefix().validate("contains a space-")', [SUBDOMAIN]],
    ['format.dns1035LabelPrefix().validate("contains a space-")', [DNS1035]],
    ['format.dns1123Label().validate("my-label-name")', "none"],
    ['format.dns1123Subdomain().validate("example.com")', "none"],
    ['format.dns1035Label().validate("my-label-name")', "none"],
    ['format.qualifiedName().validate("my.name")', "none"],
    ['format.byte().validate("aGVsbG8")', ["invalid base64"]],
    ['format.date().validate("2020-01-01")', "none"],
    ['format.date().validate("2020-01-32")', ["invalid date"]],
    ['format.datetime().validate("2020-01-01T00:00:00Z")', "none"],
    ['format.datetime().validate("2020-01-32T00:00:00Z")', ["invalid datetime"]],
    ['format.labelValue().validate("my-cool-label-Value")', "none"],
    [
      'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
  ])("%s is %j", (expr, want) => {
    expect(validated(expr)).toEqual(want);
  });

  it('format.named("unknown").hasValue() is false', () => {
    expect(run('format.named("unknown").hasValue()')).toBe(false);
  });

  const names = Object.keys(NAMED_FORMATS);
  it.each(names)("%s: found by name, equal to its constant, unequal to every other format", (name) => {
    expect(run(`format.named("${name}").hasValue()`)).toBe(true);
    expect(run(`format.named("${name}").value() == format.${name}()`)).toBe(true);
    for (const other of names) if (other !== name) expect(run(`format.${name}() == format.${other}()`)).toBe(false);
  });
});
