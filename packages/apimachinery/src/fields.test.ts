import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { StatusError } from "./errors/index.js";
import {
  andSelectors,
  DEFAULT_FIELD_SELECTOR_FIELDS,
  escapeValue,
  type Fields,
  fieldSelectorFromSet,
  fieldsEverything,
  fieldsNothing,
  objectFieldSet,
  oneTermEqualSelector,
  oneTermNotEqualSelector,
  parseAndTransformFieldSelector,
  parseFieldSelector,
  splitTerm,
  splitTerms,
  unescapeValue,
  validateFieldSelectorFields,
} from "./fields.js";
import { SelectorParseError } from "./selector-parse-error.js";

function parseError(s: string): SelectorParseError {
  try {
    parseFieldSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorParseError);
    return e as SelectorParseError;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

describe("TestSplitTerms", () => {
  const cases: Array<[string, string[]]> = [
    ["a", ["a"]],
    ["a=avalue", ["a=avalue"]],
    ["a=avalue,b=bvalue", ["a=avalue", "b=bvalue"]],
    ["a=avalue,b==bvalue,c!=cvalue", ["a=avalue", "b==bvalue", "c!=cvalue"]],
    ["", []],
    ["a=a,", ["a=a", ""]],
    [",a=a", ["", "a=a"]],
    ["k=\\,,k2=v2", ["k=\\,", "k2=v2"]],
    ["k=\\\\,k2=v2", ["k=\\\\", "k2=v2"]],
    ["k=\\\\\\,,k2=v2", ["k=\\\\\\,", "k2=v2"]],
    ["k=\\a\\b\\", ["k=\\a\\b\\"]],
    ["k=\\", ["k=\\"]],
    ["함=수,목=록", ["함=수", "목=록"]],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      expect(splitTerms(input).map((t) => t.text)).toEqual(want);
    });
  }
});

describe("TestSplitTerm", () => {
  const cases: Array<[string, { lhs: string; op: string; rhs: string } | undefined]> = [
    ["a=value", { lhs: "a", op: "=", rhs: "value" }],
    ["b==value", { lhs: "b", op: "==", rhs: "value" }],
    ["c!=value", { lhs: "c", op: "!=", rhs: "value" }],
    ["", undefined],
    ["a", undefined],
    ["k=\\,", { lhs: "k", op: "=", rhs: "\\," }],
    ["k=\\=", { lhs: "k", op: "=", rhs: "\\=" }],
    ["k=\\\\\\a\\b\\=\\,\\", { lhs: "k", op: "=", rhs: "\\\\\\a\\b\\=\\,\\" }],
    ["함=수", { lhs: "함", op: "=", rhs: "수" }],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      expect(splitTerm(input)).toEqual(want);
    });
  }
});

describe("TestEscapeValue", () => {
  const cases: Array<[string, string]> = [
    ["", ""],
    ["a", "a"],
    ["=", "\\="],
    [",", "\\,"],
    ["\\", "\\\\"],
    ["\\=\\,\\", "\\\\\\=\\\\\\,\\\\"],
  ];
  for (const [raw, escaped] of cases) {
    it(JSON.stringify(raw), () => {
      expect(escapeValue(raw)).toBe(escaped);
      expect(unescapeValue(escaped)).toBe(raw);
    });
  }
  for (const bad of ["\\", "\\\\\\", "\\a"]) {
    it(`rejects ${JSON.stringify(bad)} as an invalid escape sequence`, () => {
      expect(() => unescapeValue(bad)).toThrow(/^invalid field selector: invalid escape sequence: /);
    });
  }
  it("names the bad sequence and prints an unescaped rune as its code point (Go %v of a rune)", () => {
    expect(() => unescapeValue("\\a")).toThrow("invalid field selector: invalid escape sequence: \\a");
    expect(() => unescapeValue("\\")).toThrow("invalid field selector: invalid escape sequence: \\");
    expect(() => unescapeValue("a=b")).toThrow("invalid field selector: unescaped character in value: 61");
    expect(() => unescapeValue("a,b")).toThrow("invalid field selector: unescaped character in value: 44");
  });
});

describe("TestSelectorParse", () => {
  for (const s of ["x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"]) {
    it(`parses and restrings ${JSON.stringify(s)}`, () => {
      expect(parseFieldSelector(s).toString()).toBe(s);
    });
  }
  for (const s of ["x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"]) {
    it(`rejects ${JSON.stringify(s)}`, () => {
      expect(() => parseFieldSelector(s)).toThrow(SelectorParseError);
    });
  }

  it("error messages are upstream's, with the offending offset", () => {
    let err = parseError("x=a,b");
    expect(err.detail).toBe("invalid selector: 'x=a,b'; can't understand 'b'");
    expect(err.position).toBe(4);
    expect(err.kind).toBe("field");
    expect(err.message).toBe(`invalid selector: 'x=a,b'; can't understand 'b' (field selector "x=a,b", position 4)`);
    err = parseError("x==a==b");
    expect(err.detail).toBe("invalid field selector: unescaped character in value: 61");
    expect(err.position).toBe(4);
    err = parseError("z=1,x=a\\q");
    expect(err.detail).toBe("invalid field selector: invalid escape sequence: \\q");
    expect(err.position).toBe(7);
  });

  it("TestDeterministicParse: terms are ordered by their text", () => {
    expect(parseFieldSelector("x=a,a=x").toString()).toBe("a=x,x=a");
    expect(parseFieldSelector("a=x,x=a").toString()).toBe("a=x,x=a");
  });

  it("== is reported and printed as =, empty terms are skipped, and an empty field=value term is dropped", () => {
    const sel = parseFieldSelector("b==1,,a!=2,");
    expect(sel.requirements()).toEqual([
      { field: "a", operator: "!=", value: "2" },
      { field: "b", operator: "=", value: "1" },
    ]);
    expect(sel.toString()).toBe("a!=2,b=1");
    expect(parseFieldSelector("=").empty()).toBe(true);
    expect(parseFieldSelector("=,a=b").toString()).toBe("a=b");
    expect(parseFieldSelector("=x").requirements()).toEqual([{ field: "", operator: "=", value: "x" }]);
  });
});

describe("TestEverything / TestNilMapIsValid / TestSetIsEmpty", () => {
  it("everything and empty sets", () => {
    expect(fieldsEverything().matches({ x: "y" })).toBe(true);
    expect(fieldsEverything().empty()).toBe(true);
    expect(fieldSelectorFromSet(undefined).empty()).toBe(true);
    expect(fieldSelectorFromSet({}).empty()).toBe(true);
    expect(oneTermEqualSelector("", "").empty()).toBe(false);
    expect(oneTermNotEqualSelector("", "").empty()).toBe(false);
    expect(andSelectors(andSelectors()).empty()).toBe(true);
    expect(andSelectors(oneTermEqualSelector("a", "b")).empty()).toBe(false);
  });

  it("nothing", () => {
    expect(fieldsNothing().matches({})).toBe(false);
    expect(fieldsNothing().empty()).toBe(false);
    expect(fieldsNothing().matchesNothing()).toBe(true);
    expect(fieldsNothing().toString()).toBe("");
    expect(fieldsNothing().transform(() => ["a", "b"])).toBe(fieldsNothing());
    expect(andSelectors(oneTermEqualSelector("a", "b"), fieldsNothing()).matchesNothing()).toBe(true);
  });
});

describe("TestSelectorMatches", () => {
  const fieldset: Fields = { foo: "bar", baz: "blah", complex: "=value\\,\\" };
  const cases: Array<[string, Fields, boolean]> = [
    ["", { x: "y" }, true],
    ["x=y", { x: "y" }, true],
    ["x=y,z=w", { x: "y", z: "w" }, true],
    ["x!=y,z!=w", { x: "z", z: "a" }, true],
    ["notin=in", { notin: "in" }, true],
    ["x=y", { x: "z" }, false],
    ["x=y,z=w", { x: "w", z: "w" }, false],
    ["x!=y,z!=w", { x: "z", z: "w" }, false],
    ["foo=bar", fieldset, true],
    ["baz=blah", fieldset, true],
    ["foo=bar,baz=blah", fieldset, true],
    ["foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\", fieldset, true],
    ["foo=blah", fieldset, false],
    ["baz=bar", fieldset, false],
    ["foo=bar,foobar=bar,baz=blah", fieldset, false],
    ["missing=", {}, true],
    ["missing!=x", {}, true],
  ];
  for (const [sel, fields, want] of cases) {
    it(`${JSON.stringify(sel)} ${want ? "matches" : "does not match"}`, () => {
      expect(parseFieldSelector(sel).matches(fields)).toBe(want);
    });
  }

  it("TestOneTermEqualSelector", () => {
    expect(oneTermEqualSelector("x", "y").matches({ x: "y" })).toBe(true);
    expect(oneTermEqualSelector("x", "y").matches({ x: "z" })).toBe(false);
    expect(oneTermNotEqualSelector("x", "y").matches({ x: "z" })).toBe(true);
  });

  it("TestSetMatches", () => {
    const set = { foo: "bar", baz: "blah" };
    expect(fieldSelectorFromSet({}).matches(set)).toBe(true);
    expect(fieldSelectorFromSet({ foo: "bar" }).matches(set)).toBe(true);
    expect(fieldSelectorFromSet({ baz: "blah" }).matches(set)).toBe(true);
    expect(fieldSelectorFromSet({ foo: "bar", baz: "blah" }).matches(set)).toBe(true);
    expect(fieldSelectorFromSet({ foo: "=blah" }).matches(set)).toBe(false);
    expect(fieldSelectorFromSet({ baz: "=bar" }).matches(set)).toBe(false);
    expect(fieldSelectorFromSet({ foo: "=bar", foobar: "bar", baz: "blah" }).matches(set)).toBe(false);
    expect(fieldSelectorFromSet({ b: "1", a: "x,y" }).toString()).toBe("a=x\\,y,b=1");
  });

  it("inherited properties are not fields", () => {
    expect(parseFieldSelector("constructor=").matches({})).toBe(true);
    expect(parseFieldSelector("toString!=").matches({})).toBe(false);
  });
});

describe("TestRequiresExactMatch", () => {
  const cases: Array<[string, ReturnType<typeof parseFieldSelector>, string, string | undefined]> = [
    ["empty set", fieldSelectorFromSet({}), "test", undefined],
    ["empty hasTerm", oneTermEqualSelector("", ""), "test", undefined],
    ["skipped hasTerm", oneTermEqualSelector("a", "b"), "test", undefined],
    ["valid hasTerm", oneTermEqualSelector("test", "b"), "test", "b"],
    ["valid hasTerm no value", oneTermEqualSelector("test", ""), "test", ""],
    ["valid notHasTerm", oneTermNotEqualSelector("test", "b"), "test", undefined],
    ["valid notHasTerm no value", oneTermNotEqualSelector("test", ""), "test", undefined],
    ["nested andTerm", andSelectors(andSelectors()), "test", undefined],
    ["nested andTerm matches", andSelectors(oneTermEqualSelector("test", "b")), "test", "b"],
    [
      "andTerm with non-match",
      andSelectors(oneTermEqualSelector("", ""), oneTermEqualSelector("test", "b")),
      "test",
      "b",
    ],
    ["parsed", parseFieldSelector("metadata.name=x,metadata.namespace=ns"), "metadata.name", "x"],
  ];
  for (const [name, sel, field, want] of cases) {
    it(name, () => {
      expect(sel.requiresExactMatch(field)).toBe(want);
    });
  }
});

describe("TestTransform", () => {
  const cases: Array<[string, string, (f: string, v: string) => readonly [string, string], string, boolean]> = [
    ["empty selector", "", (f, v) => [f, v], "", true],
    ["no-op transform", "a=b,c=d", (f, v) => [f, v], "a=b,c=d", false],
    ["transform one field", "a=b,c=d", (f, v) => (f === "a" ? ["e", "f"] : [f, v]), "e=f,c=d", false],
    ["remove field to make empty", "a=b", () => ["", ""], "", true],
    ["remove only one field", "a=b,c=d,e=f", (f, v) => (f === "c" ? ["", ""] : [f, v]), "a=b,e=f", false],
  ];
  for (const [name, selector, fn, result, isEmpty] of cases) {
    it(name, () => {
      const sel = parseAndTransformFieldSelector(selector, fn);
      expect(sel.empty()).toBe(isEmpty);
      expect(sel.toString()).toBe(result);
    });
  }

  it("errors thrown by the transform propagate", () => {
    expect(() =>
      parseAndTransformFieldSelector("a=b", () => {
        throw new Error("nope");
      }),
    ).toThrow("nope");
  });
});

describe("objectFieldSet", () => {
  it("produces metadata.name and metadata.namespace, and requested extra paths", () => {
    const pod = {
      metadata: { name: "p", namespace: "ns" },
      spec: { nodeName: "n1", hostNetwork: true, priority: 3 },
      status: { phase: "Running" },
    };
    expect(objectFieldSet(pod)).toEqual({ "metadata.name": "p", "metadata.namespace": "ns" });
    expect(
      objectFieldSet(pod, ["spec.nodeName", "status.phase", "spec.hostNetwork", "spec.priority", "spec.missing"]),
    ).toEqual({
      "metadata.name": "p",
      "metadata.namespace": "ns",
      "spec.nodeName": "n1",
      "status.phase": "Running",
      "spec.hostNetwork": "true",
      "spec.priority": "3",
      "spec.missing": "",
    });
  });

  it("tolerates objects without metadata", () => {
    expect(objectFieldSet(undefined)).toEqual({ "metadata.name": "", "metadata.namespace": "" });
    expect(objectFieldSet({ metadata: "x" }, ["spec.nodeName"])).toEqual({
      "metadata.name": "",
      "metadata.namespace": "",
      "spec.nodeName": "",
    });
  });

  it("drives field selectors over objects", () => {
    const sel = parseFieldSelector("metadata.namespace!=kube-system,spec.nodeName=n1");
    expect(
      sel.matches(
        objectFieldSet({ metadata: { name: "a", namespace: "default" }, spec: { nodeName: "n1" } }, ["spec.nodeName"]),
      ),
    ).toBe(true);
    expect(
      sel.matches(
        objectFieldSet({ metadata: { name: "a", namespace: "kube-system" }, spec: { nodeName: "n1" } }, [
          "spec.nodeName",
        ]),
      ),
    ).toBe(false);
  });
});

describe("validateFieldSelectorFields", () => {
  function badRequest(fn: () => void): StatusError {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(StatusError);
      return e as StatusError;
    }
    throw new Error("expected a StatusError");
  }

  it("accepts metadata.name and metadata.namespace by default", () => {
    expect(() =>
      validateFieldSelectorFields(parseFieldSelector("metadata.name=a,metadata.namespace!=b")),
    ).not.toThrow();
    expect(() => validateFieldSelectorFields(fieldsEverything())).not.toThrow();
  });

  it("rejects other fields with the DefaultMetaV1FieldSelectorConversion message (400)", () => {
    const err = badRequest(() => validateFieldSelectorFields(parseFieldSelector("spec.foo=x,metadata.name=a")));
    expect(err.code).toBe(400);
    expect(err.reason).toBe("BadRequest");
    expect(err.message).toBe('"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const same = badRequest(() =>
      validateFieldSelectorFields(parseFieldSelector("spec.foo=x"), [...DEFAULT_FIELD_SELECTOR_FIELDS].reverse()),
    );
    expect(same.message).toContain("is not a known field selector");
  });

  it("kind-specific lists use the kinds' own message", () => {
    const allowed = ["metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"];
    expect(() => validateFieldSelectorFields(parseFieldSelector("spec.nodeName=n"), allowed)).not.toThrow();
    expect(badRequest(() => validateFieldSelectorFields(parseFieldSelector("spec.bogus=n"), allowed)).message).toBe(
      "field label not supported: spec.bogus",
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties.

const fieldName = fc.constantFrom("metadata.name", "metadata.namespace", "spec.nodeName", "a", "b", "함");
const rawValue = fc.oneof(fc.constantFrom("", "x", "y", "a,b", "a=b", "\\", "=", ","), fc.string({ maxLength: 6 }));
const term = fc.record({ field: fieldName, op: fc.constantFrom("=", "==", "!="), value: rawValue });
const fieldMap = fc.dictionary(fieldName, rawValue, { maxKeys: 4 });

describe("properties", () => {
  test.prop([fc.array(term, { maxLength: 5 })], { numRuns: 300 })("parse(toString(sel)) round-trips", (terms) => {
    const text = terms.map((t) => `${t.field}${t.op}${escapeValue(t.value)}`).join(",");
    const sel = parseFieldSelector(text);
    const again = parseFieldSelector(sel.toString());
    // Terms are ordered by their raw text, and printing turns `==` into `=`, so the order may change once.
    const canon = (xs: readonly unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
    expect(canon(again.requirements())).toEqual(canon(sel.requirements()));
    expect(parseFieldSelector(again.toString()).toString()).toBe(again.toString());
  });

  test.prop([fc.array(term, { maxLength: 5 }), fc.array(fieldMap, { minLength: 1, maxLength: 6 })], { numRuns: 300 })(
    "matches agrees with a reference evaluator",
    (terms, maps) => {
      const text = terms.map((t) => `${t.field}${t.op}${escapeValue(t.value)}`).join(",");
      const sel = parseFieldSelector(text);
      for (const fields of maps) {
        const want = terms.every((t) => {
          const v = Object.hasOwn(fields, t.field) ? fields[t.field] : "";
          return t.op === "!=" ? v !== t.value : v === t.value;
        });
        expect(sel.matches(fields)).toBe(want);
      }
    },
  );

  const garbage = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc
      .array(fc.constantFrom("a", "b", "=", "==", "!", "!=", ",", "\\", " ", "x"), { maxLength: 14 })
      .map((xs) => xs.join("")),
  );
  test.prop([garbage], { numRuns: 1000 })("garbage either parses or throws SelectorParseError", (s) => {
    try {
      const sel = parseFieldSelector(s);
      expect(parseFieldSelector(sel.toString()).toString()).toBe(sel.toString());
    } catch (e) {
      expect(e).toBeInstanceOf(SelectorParseError);
      const pos = (e as SelectorParseError).position!;
      expect(pos).toBeGreaterThanOrEqual(0);
      expect(pos).toBeLessThan(s.length);
    }
  });
});
