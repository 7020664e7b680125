import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { newInvalid } from "./errors/index.js";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegmentName,
  regexError,
  validateLabels,
  validateObjectMetaName,
} from "./validation.js";

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const KEY_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("RegexError", () => {
  it("lists examples with upstream's spacing", () => {
    expect(regexError("bad", "re")).toBe("bad (regex used for validation is 're')");
    expect(regexError("bad", "re", "a")).toBe("bad (e.g. 'a', regex used for validation is 're')");
    expect(regexError("bad", "re", "a", "b")).toBe("bad (e.g. 'a',  or 'b', regex used for validation is 're')");
  });
});

describe("TestIsDNS1123Label", () => {
  const good = [
    "a",
    "ab",
    "abc",
    "a1",
    "a-1",
    "a--1--2--b",
    "0",
    "01",
    "012",
    "1a",
    "1-a",
    "1--a--b--2",
    "a".repeat(63),
  ];
  for (const v of good) it(`accepts ${v.slice(0, 12)}`, () => expect(isDNS1123Label(v)).toEqual([]));
  const bad = [
    "",
    "A",
    "ABC",
    "aBc",
    "A1",
    "A-1",
    "1-A",
    "-",
    "a-",
    "-a",
    "1-",
    "-1",
    "_",
    "a_",
    "_a",
    "a_b",
    "1_",
    "_1",
    "1_2",
    ".",
    "a.",
    ".a",
    "a.b",
    "1.",
    ".1",
    "1.2",
    " ",
    "a ",
    " a",
    "a b",
    "1 ",
    " 1",
    "1 2",
    "a".repeat(64),
  ];
  for (const v of bad)
    it(`rejects ${JSON.stringify(v.slice(0, 12))}`, () => expect(isDNS1123Label(v).length).toBeGreaterThan(0));
  it("messages", () => {
    expect(isDNS1123Label("a.b")).toEqual(["must not contain dots"]);
    expect(isDNS1123Label("A")).toEqual([LABEL_MSG]);
    expect(isDNS1123Label("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
  });
});

describe("TestIsDNS1123Subdomain", () => {
  const good = [
    "a",
    "ab",
    "abc",
    "a1",
    "a-1",
    "a--1--2--b",
    "0",
    "01",
    "012",
    "1a",
    "1-a",
    "1--a--b--2",
    "a.a",
    "ab.a",
    "abc.a",
    "a1.a",
    "a-1.a",
    "a--1--2--b.a",
    "a.1",
    "ab.1",
    "abc.1",
    "a1.1",
    "a-1.1",
    "a--1--2--b.1",
    "0.a",
    "01.a",
    "012.a",
    "1a.a",
    "1-a.a",
    "1--a--b--2",
    "0.1",
    "01.1",
    "012.1",
    "1a.1",
    "1-a.1",
    "1--a--b--2.1",
    "a.b.c.d.e",
    "aa.bb.cc.dd.ee",
    "1.2.3.4.5",
    "11.22.33.44.55",
    "a".repeat(253),
  ];
  for (const v of good) it(`accepts ${v.slice(0, 16)}`, () => expect(isDNS1123Subdomain(v)).toEqual([]));
  const bad = [
    "",
    "A",
    "ABC",
    "aBc",
    "A1",
    "A-1",
    "1-A",
    "-",
    "a-",
    "-a",
    "1-",
    "-1",
    "_",
    "a_",
    "_a",
    "a_b",
    "1_",
    "_1",
    "1_2",
    ".",
    "a.",
    ".a",
    "a..b",
    "1.",
    ".1",
    "1..2",
    " ",
    "a ",
    " a",
    "a b",
    "1 ",
    " 1",
    "1 2",
    "A.a",
    "aB.a",
    "ab.A",
    "A1.a",
    "a1.A",
    "A.1",
    "aB.1",
    "A1.1",
    "1A.1",
    "0.A",
    "01.A",
    "012.A",
    "1A.a",
    "1a.A",
    "A.B.C.D.E",
    "AA.BB.CC.DD.EE",
    "a.B.c.d.e",
    "aa.bB.cc.dd.ee",
    "a@b",
    "a,b",
    "a_b",
    "a;b",
    "a:b",
    "a%b",
    "a?b",
    "a$b",
    "a".repeat(254),
  ];
  for (const v of bad)
    it(`rejects ${JSON.stringify(v.slice(0, 16))}`, () => expect(isDNS1123Subdomain(v).length).toBeGreaterThan(0));
  it("messages", () => {
    expect(isDNS1123Subdomain("Bad_Name")).toEqual([SUBDOMAIN_MSG]);
    expect(isDNS1123Subdomain("a".repeat(254))).toEqual(["must be no more than 253 characters"]);
    expect(isDNS1123Subdomain(`${"a".repeat(254)}_`)).toEqual(["must be no more than 253 characters", SUBDOMAIN_MSG]);
  });
});

describe("TestIsQualifiedName", () => {
  const good = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes",
    "now.with.dots/simple",
    "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num",
    "1234/5678",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a".repeat(63),
    `${"a".repeat(253)}/${"b".repeat(63)}`,
  ];
  for (const v of good) it(`accepts ${v.slice(0, 20)}`, () => expect(isQualifiedName(v)).toEqual([]));
  const bad = [
    "nospecialchars%^=@",
    "cantendwithadash-",
    "-cantstartwithadash-",
    "only/one/slash",
    "Example.com/abc",
    "example_com/abc",
    "example.com/",
    "/simple",
    "a".repeat(64),
    `${"a".repeat(254)}/abc`,
  ];
  for (const v of bad) it(`rejects ${v.slice(0, 20)}`, () => expect(isQualifiedName(v).length).toBeGreaterThan(0));
  it("messages", () => {
    expect(isQualifiedName("a b")).toEqual([KEY_NAME_MSG]);
    expect(isQualifiedName("/simple")).toEqual(["prefix part must be non-empty"]);
    expect(isQualifiedName("example.com/")).toEqual(["name part must be non-empty", KEY_NAME_MSG]);
    expect(isQualifiedName("a".repeat(64))).toEqual(["name part must be no more than 63 bytes"]);
    expect(isQualifiedName(`${"a".repeat(254)}/abc`)).toEqual(["prefix part must be no more than 253 bytes"]);
    expect(isQualifiedName("Example.com/abc")).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
    expect(isQualifiedName("only/one/slash")).toEqual([
      "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe("TestIsValidLabelValue", () => {
  const good = ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", "a".repeat(63), ""];
  for (const v of good) it(`accepts ${JSON.stringify(v.slice(0, 20))}`, () => expect(isValidLabelValue(v)).toEqual([]));
  const bad = [
    "nospecialchars%^=@",
    "Tama-nui-te-rā.is.Māori.sun",
    "\\backslashes\\are\\bad",
    "-starts-with-dash",
    "ends-with-dash-",
    ".starts.with.dot",
    "ends.with.dot.",
    "a".repeat(64),
  ];
  for (const v of bad) it(`rejects ${v.slice(0, 20)}`, () => expect(isValidLabelValue(v).length).toBeGreaterThan(0));
  it("messages (and byte length, as Go's len)", () => {
    expect(isValidLabelValue("a b")).toEqual([VALUE_MSG]);
    expect(isValidLabelValue("a".repeat(64))).toEqual(["must be no more than 63 bytes"]);
    expect(isValidLabelValue("é".repeat(32))).toEqual(["must be no more than 63 bytes", VALUE_MSG]);
  });
});

describe("name functions (NameIsDNSSubdomain / NameIsDNSLabel)", () => {
  it("a generateName prefix may end with a dash", () => {
    expect(nameIsDNSSubdomain("web-", true)).toEqual([]);
    expect(nameIsDNSSubdomain("web-", false)).toEqual([SUBDOMAIN_MSG]);
    expect(nameIsDNSLabel("ns-", true)).toEqual([]);
    expect(nameIsDNSLabel("a.b", false)).toEqual(["must not contain dots"]);
  });

  it("a path segment name (RBAC's) may hold ':' and capitals, not '/', '%', '.' or '..'", () => {
    expect(nameIsPathSegmentName("system:service-account-issuer-discovery", false)).toEqual([]);
    expect(nameIsPathSegmentName("ns-system:Viewer", false)).toEqual([]);
    expect(nameIsPathSegmentName("..", false)).toEqual(["may not be '..'"]);
    expect(nameIsPathSegmentName(".", true)).toEqual([]);
    expect(nameIsPathSegmentName("a/b%c", false)).toEqual(["may not contain '/'", "may not contain '%'"]);
  });
});

describe("validateObjectMetaName (ValidateObjectMetaAccessor)", () => {
  it("accepts a valid namespaced object", () => {
    expect(
      validateObjectMetaName({ name: "a", namespace: "default", labels: { app: "x" } }, { requiresNamespace: true }),
    ).toEqual([]);
  });

  it("produces the 422 causes kube-apiserver sends for a bad name", () => {
    const errs = validateObjectMetaName({ name: "Bad_Name", namespace: "default" }, { requiresNamespace: true });
    expect(errs).toEqual([
      { type: "FieldValueInvalid", field: "metadata.name", badValue: "Bad_Name", detail: SUBDOMAIN_MSG },
    ]);
    const err = newInvalid({ group: "", kind: "ConfigMap" }, "Bad_Name", errs);
    expect(err.message).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`,
    );
  });

  it("requires a name, a namespace when namespaced, and forbids one otherwise", () => {
    expect(validateObjectMetaName({}, { requiresNamespace: true })).toEqual([
      { type: "FieldValueRequired", field: "metadata.name", detail: "name or generateName is required" },
      { type: "FieldValueRequired", field: "metadata.namespace" },
    ]);
    expect(validateObjectMetaName(undefined, { requiresNamespace: false })).toEqual([
      { type: "FieldValueRequired", field: "metadata.name", detail: "name or generateName is required" },
    ]);
    expect(validateObjectMetaName({ name: "n", namespace: "x" }, { requiresNamespace: false })).toEqual([
      { type: "FieldValueForbidden", field: "metadata.namespace", detail: "not allowed on this type" },
    ]);
    expect(validateObjectMetaName({ name: "n", namespace: "a.b" }, { requiresNamespace: true })).toEqual([
      { type: "FieldValueInvalid", field: "metadata.namespace", badValue: "a.b", detail: "must not contain dots" },
    ]);
  });

  it("checks generateName, generation and labels", () => {
    expect(
      validateObjectMetaName(
        { name: "ok", generateName: "Bad-", generation: -1, labels: { "a b": "x", ok: "-bad" } },
        { requiresNamespace: false, nameFn: nameIsDNSLabel },
      ),
    ).toEqual([
      { type: "FieldValueInvalid", field: "metadata.generateName", badValue: "Bad-", detail: LABEL_MSG },
      {
        type: "FieldValueInvalid",
        field: "metadata.generation",
        badValue: -1,
        detail: "must be greater than or equal to 0",
      },
      { type: "FieldValueInvalid", field: "metadata.labels", badValue: "a b", detail: KEY_NAME_MSG },
      { type: "FieldValueInvalid", field: "metadata.labels", badValue: "-bad", detail: VALUE_MSG },
    ]);
    expect(validateLabels(undefined, "metadata.labels")).toEqual([]);
  });
});

describe("properties", () => {
  test.prop([fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/)])(
    "generated DNS labels are labels and subdomains",
    (s) => {
      expect(isDNS1123Label(s)).toEqual([]);
      expect(isDNS1123Subdomain(s)).toEqual([]);
      expect(isQualifiedName(s)).toEqual([]);
      expect(isValidLabelValue(s)).toEqual([]);
    },
  );

  test.prop([fc.string({ maxLength: 80 })])("never throw, and a valid label is a valid subdomain", (s) => {
    const label = isDNS1123Label(s);
    const sub = isDNS1123Subdomain(s);
    if (label.length === 0) expect(sub).toEqual([]);
    isQualifiedName(s);
    isValidLabelValue(s);
  });
});
