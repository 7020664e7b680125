import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { scan, type Token } from "./internal/label-lexer.js";
import {
  everything,
  type LabelSelector,
  type Labels,
  labelSelectorAsSelector,
  matchesNothing,
  newRequirement,
  nothing,
  type Operator,
  parseLabelSelector,
  type Requirement,
  requirementMatches,
  requirementString,
  selectorFromSet,
} from "./labels.js";
import { SelectorParseError } from "./selector-parse-error.js";

function parseError(s: string): SelectorParseError {
  try {
    parseLabelSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorParseError);
    return e as SelectorParseError;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

function req(key: string, op: Operator, values: string[] = []): Requirement {
  return newRequirement(key, op, values);
}

describe("TestSelectorParse", () => {
  const good = ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"];
  for (const s of good) {
    it(`parses ${JSON.stringify(s)} and restrings it without spaces`, () => {
      expect(parseLabelSelector(s).toString()).toBe(s.replaceAll(" ", ""));
    });
  }
  for (const s of ["x=a||y=b", "x==a==b", "!x=a", "x<a"]) {
    it(`rejects ${JSON.stringify(s)}`, () => {
      expect(() => parseLabelSelector(s)).toThrow(SelectorParseError);
    });
  }
});

describe("TestDeterministicParse", () => {
  it("sorts requirements by key", () => {
    expect(parseLabelSelector("x=a,a=x").toString()).toBe(parseLabelSelector("a=x,x=a").toString());
    expect(parseLabelSelector("x=a,a=x").toString()).toBe("a=x,x=a");
  });
});

describe("TestEverything / TestNilMapIsValid / TestSetIsEmpty", () => {
  it("everything matches and is empty", () => {
    expect(everything().matches({ x: "y" })).toBe(true);
    expect(everything().empty()).toBe(true);
    expect(selectorFromSet(undefined).empty()).toBe(true);
    expect(selectorFromSet({}).empty()).toBe(true);
    expect(parseLabelSelector("").empty()).toBe(true);
  });
});

describe("TestSelectorMatches", () => {
  const cases: Array<[string, Labels, boolean]> = [
    ["", { x: "y" }, true],
    ["x=y", { x: "y" }, true],
    ["x=y,z=w", { x: "y", z: "w" }, true],
    ["x!=y,z!=w", { x: "z", z: "a" }, true],
    ["notin=in", { notin: "in" }, true],
    ["x", { x: "z" }, true],
    ["!x", { y: "z" }, true],
    ["x>1", { x: "2" }, true],
    ["x<1", { x: "0" }, true],
    ["x=z", {}, false],
    ["x=y", { x: "z" }, false],
    ["x=y,z=w", { x: "w", z: "w" }, false],
    ["x!=y,z!=w", { x: "z", z: "w" }, false],
    ["x", { y: "z" }, false],
    ["!x", { x: "z" }, false],
    ["x>1", { x: "0" }, false],
    ["x<1", { x: "2" }, false],
    ["foo=bar", { foo: "bar", baz: "blah" }, true],
    ["baz=blah", { foo: "bar", baz: "blah" }, true],
    ["foo=bar,baz=blah", { foo: "bar", baz: "blah" }, true],
    ["foo=blah", { foo: "bar", baz: "blah" }, false],
    ["baz=bar", { foo: "bar", baz: "blah" }, false],
    ["foo=bar,foobar=bar,baz=blah", { foo: "bar", baz: "blah" }, false],
  ];
  for (const [sel, labels, want] of cases) {
    it(`${JSON.stringify(sel)} ${want ? "matches" : "does not match"} ${JSON.stringify(labels)}`, () => {
      expect(parseLabelSelector(sel).matches(labels)).toBe(want);
    });
  }

  it("undefined labels behave as an empty set", () => {
    expect(parseLabelSelector("!x").matches(undefined)).toBe(true);
    expect(parseLabelSelector("x notin (a)").matches(undefined)).toBe(true);
    expect(parseLabelSelector("x").matches(undefined)).toBe(false);
  });

  it("does not see inherited properties as labels", () => {
    expect(parseLabelSelector("constructor").matches({})).toBe(false);
    expect(parseLabelSelector("!toString").matches({})).toBe(true);
    expect(parseLabelSelector("hasOwnProperty=x").matches({ hasOwnProperty: "x" })).toBe(true);
  });
});

describe("TestSetMatches", () => {
  const labelset = { foo: "bar", baz: "blah" };
  it("selectorFromSet matches supersets", () => {
    expect(selectorFromSet({}).matches(labelset)).toBe(true);
    expect(selectorFromSet({ foo: "bar" }).matches(labelset)).toBe(true);
    expect(selectorFromSet({ baz: "blah" }).matches(labelset)).toBe(true);
    expect(selectorFromSet({ foo: "bar", baz: "blah" }).matches(labelset)).toBe(true);
    expect(selectorFromSet({ foo: "bar", baz: "x" }).matches(labelset)).toBe(false);
  });

  it("TestSetSelectorString: sorted key=value pairs", () => {
    expect(selectorFromSet({}).toString()).toBe("");
    expect(selectorFromSet({ app: "foo" }).toString()).toBe("app=foo");
    expect(selectorFromSet({ app: "foo", a: "b" }).toString()).toBe("a=b,app=foo");
  });
});

describe("TestLexer", () => {
  const cases: Array<[string, Token]> = [
    ["", "EndOfString"],
    [",", "Comma"],
    ["notin", "NotIn"],
    ["in", "In"],
    ["=", "Equals"],
    ["==", "DoubleEquals"],
    [">", "GreaterThan"],
    ["<", "LessThan"],
    ["!", "DoesNotExist"], // the lexer returns the longest valid token
    ["!=", "NotEquals"],
    ["(", "OpenPar"],
    [")", "ClosedPar"],
    ["~", "Identifier"], // non-special characters belong to identifiers
    ["||", "Identifier"],
  ];
  for (const [s, tok] of cases) {
    it(`${JSON.stringify(s)} → ${tok}`, () => {
      const [first] = scan(s);
      expect(first!.tok).toBe(tok);
      expect(first!.literal).toBe(s);
    });
  }
});

describe("TestLexerSequence / TestParserLookahead", () => {
  const cases: Array<[string, Token[]]> = [
    ["key in ( value )", ["Identifier", "In", "OpenPar", "Identifier", "ClosedPar"]],
    ["key notin ( value )", ["Identifier", "NotIn", "OpenPar", "Identifier", "ClosedPar"]],
    ["key in ( value1, value2 )", ["Identifier", "In", "OpenPar", "Identifier", "Comma", "Identifier", "ClosedPar"]],
    ["key", ["Identifier"]],
    ["!key", ["DoesNotExist", "Identifier"]],
    ["()", ["OpenPar", "ClosedPar"]],
    ["", []],
    ["x in (),y", ["Identifier", "In", "OpenPar", "ClosedPar", "Comma", "Identifier"]],
    ["== != (), = notin", ["DoubleEquals", "NotEquals", "OpenPar", "ClosedPar", "Comma", "Equals", "NotIn"]],
    ["key>2", ["Identifier", "GreaterThan", "Identifier"]],
    ["key<1", ["Identifier", "LessThan", "Identifier"]],
  ];
  for (const [s, toks] of cases) {
    it(JSON.stringify(s), () => {
      expect(scan(s).map((i) => i.tok)).toEqual([...toks, "EndOfString"]);
    });
  }

  it("records where each token starts", () => {
    expect(scan("  ab !=(c)").map((i) => [i.literal, i.pos])).toEqual([
      ["ab", 2],
      ["!=", 5],
      ["(", 7],
      ["c", 8],
      [")", 9],
      ["", 10],
    ]);
  });

  it("reads === as == then =, and a NUL as the end of a token", () => {
    expect(scan("===").map((i) => i.tok)).toEqual(["DoubleEquals", "Equals", "EndOfString"]);
    expect(scan("a\u0000b").map((i) => i.literal)).toEqual(["a", "b", ""]);
    expect(scan("\u0000b").map((i) => i.tok)).toEqual(["EndOfString"]);
  });
});

describe("TestParseOperator", () => {
  const binary = "in, notin, =, ==, !=, gt, lt";
  for (const op of ["in", "=", "==", ">", "<", "notin", "!="]) {
    it(`${op} is a binary operator`, () => {
      expect(() => parseLabelSelector(`x ${op} ${op === "in" || op === "notin" ? "(a)" : "1"}`)).not.toThrow();
    });
  }
  for (const [tok, lit] of [
    ["!", "!"],
    ["exists", "exists"],
    ["(", "("],
  ]) {
    it(`${tok} is not`, () => {
      expect(parseError(`x ${tok} y`).detail).toBe(`unable to parse requirement: found '${lit}', expected: ${binary}`);
    });
  }
});

describe("TestRequirementConstructor", () => {
  const ok: Array<[string, Operator, string[]]> = [
    ["x3", "in", ["foo"]],
    ["x4", "notin", ["foo"]],
    ["x6", "exists", []],
    ["x7", "!", []],
    ["1foo", "in", ["bar"]],
    ["1234", "in", ["bar"]],
    ["x11", "gt", ["1"]],
    ["x12", "lt", ["6"]],
  ];
  for (const [key, op, values] of ok) {
    it(`accepts ${key} ${op} ${JSON.stringify(values)}`, () => {
      expect(newRequirement(key, op, values)).toEqual({ key, operator: op, values });
    });
  }
  const labelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const bad: Array<[string, string, string[], string]> = [
    ["x1", "in", [], `values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`],
    ["x2", "notin", [], `values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`],
    [
      "x5",
      "=",
      ["bar", "foo"],
      `values: Invalid value: ["bar","foo"]: exact-match compatibility requires one single value`,
    ],
    ["x8", "exists", ["foo"], `values: Invalid value: ["foo"]: values set must be empty for exists and does not exist`],
    ["x13", "gt", [], `values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one value is required`],
    ["x14", "gt", ["bar"], `values[0]: Invalid value: "bar": for 'Gt', 'Lt' operators, the value must be an integer`],
    ["x15", "lt", ["bar"], `values[0]: Invalid value: "bar": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      "a".repeat(254),
      "exists",
      [],
      `key: Invalid value: "${"a".repeat(254)}": name part must be no more than 63 bytes`,
    ],
    [
      "x16",
      "=",
      ["a".repeat(254)],
      `values[0][x16]: Invalid value: "${"a".repeat(254)}": must be no more than 63 bytes`,
    ],
    ["x17", "=", ["a b"], `values[0][x17]: Invalid value: "a b": ${labelValueMsg}`],
    [
      "x18",
      "unsupportedOp",
      [],
      `operator: Unsupported value: "unsupportedOp": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"`,
    ],
  ];
  for (const [key, op, values, message] of bad) {
    it(`rejects ${key.slice(0, 8)} ${op} ${JSON.stringify(values).slice(0, 20)}`, () => {
      let err: unknown;
      try {
        newRequirement(key, op as Operator, values);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SelectorParseError);
      // Upstream compares field errors ignoring Detail; we pin the whole text where it is stable and short.
      expect((err as SelectorParseError).detail.startsWith(message)).toBe(true);
    });
  }

  it("aggregates several problems in brackets", () => {
    expect(() => newRequirement("a b", "gt", ["x$"])).toThrow(
      /^\[key: Invalid value: "a b": .*, values\[0\]: Invalid value: "x\$": for 'Gt', 'Lt' operators, the value must be an integer, values\[0\]\[a b\]: Invalid value: "x\$": a valid label .*\]$/,
    );
  });
});

describe("TestToString", () => {
  it("prints each operator like upstream", () => {
    const sel = (...rs: Requirement[]) =>
      everything()
        .add(...rs)
        .toString();
    expect(sel(req("x", "in", ["abc", "def"]), req("y", "notin", ["jkl"]), req("z", "exists"))).toBe(
      "x in (abc,def),y notin (jkl),z",
    );
    expect(sel(req("x", "notin", ["abc", "def"]), req("y", "!=", ["jkl"]), req("z", "!"))).toBe(
      "x notin (abc,def),y!=jkl,!z",
    );
    expect(sel(req("x", "notin", ["abc"]), req("y", "in", ["jkl", "mno"]), req("z", "notin", [""]))).toBe(
      "x notin (abc),y in (jkl,mno),z notin ()",
    );
    expect(sel(req("x", "=", ["abc"]), req("y", "==", ["jkl"]), req("z", "!=", ["a"]), req("z", "exists"))).toBe(
      "x=abc,y==jkl,z!=a,z",
    );
    expect(sel(req("x", "gt", ["2"]), req("y", "lt", ["8"]), req("z", "exists"))).toBe("x>2,y<8,z");
  });

  it("TestSafeSort: prints values sorted without reordering the requirement", () => {
    const r = req("x", "in", ["foo", "bar", "foo", "bar"]);
    expect(requirementString(r)).toBe("x in (bar,bar,foo,foo)");
    expect(r.values).toEqual(["foo", "bar", "foo", "bar"]);
  });
});

describe("TestRequirementSelectorMatching", () => {
  const cases: Array<[Labels, Requirement[], boolean]> = [
    [{ x: "foo", y: "baz" }, [req("x", "in", ["foo"]), req("y", "notin", ["alpha"])], true],
    [{ x: "foo", y: "baz" }, [req("x", "in", ["foo"]), req("y", "in", ["alpha"])], false],
    [{ y: "" }, [req("x", "notin", [""]), req("y", "exists")], true],
    [{ y: "" }, [req("x", "!"), req("y", "exists")], true],
    [{ y: "" }, [req("x", "notin", [""]), req("y", "!")], false],
    [{ y: "baz" }, [req("x", "in", [""])], false],
    [{ z: "2" }, [req("z", "gt", ["1"])], true],
    [{ z: "v2" }, [req("z", "gt", ["1"])], false],
  ];
  cases.forEach(([labels, reqs, want], i) => {
    it(`case ${i}`, () => {
      expect(
        everything()
          .add(...reqs)
          .matches(labels),
      ).toBe(want);
    });
  });

  it("a requirement with an unknown operator matches nothing", () => {
    const bogus = { key: "x", operator: "bogus", values: [] } as unknown as Requirement;
    expect(requirementMatches(bogus, { x: "1" })).toBe(false);
  });

  it("gt/lt compare as int64, and a non-integer label never matches", () => {
    expect(parseLabelSelector("x>9").matches({ x: "10" })).toBe(true);
    expect(parseLabelSelector("x<10").matches({ x: "-3" })).toBe(true);
    expect(parseLabelSelector("x>1").matches({ x: "9223372036854775808" })).toBe(false);
    expect(parseLabelSelector("x>1").matches({ x: "1.5" })).toBe(false);
  });
});

describe("TestSetSelectorParser", () => {
  const r = (key: string, op: Operator, values: string[] = []) => ({ key, operator: op, values });
  const valid: Array<[string, ReturnType<typeof r>[] | undefined]> = [
    ["", []],
    ["\rx", [r("x", "exists")]],
    ["this-is-a-dns.domain.com/key-with-dash", [r("this-is-a-dns.domain.com/key-with-dash", "exists")]],
    [
      "this-is-another-dns.domain.com/key-with-dash in (so,what)",
      [r("this-is-another-dns.domain.com/key-with-dash", "in", ["so", "what"])],
    ],
    [
      "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
      [r("0.1.2.domain/99", "notin", ["10.10.100.1", "tick.tack.clock"])],
    ],
    ["foo  in\t (abc)", [r("foo", "in", ["abc"])]],
    ["x notin\n (abc)", [r("x", "notin", ["abc"])]],
    ["x  notin\t\t\t(abc,def)", [r("x", "notin", ["abc", "def"])]],
    ["x in (abc,def)", [r("x", "in", ["abc", "def"])]],
    ["x in (abc,)", [r("x", "in", ["", "abc"])]],
    ["x in (abc,abc)", [r("x", "in", ["abc"])]],
    ["x in ()", [r("x", "in", [""])]],
    ["x in (a,,)", [r("x", "in", ["", "a"])]],
    ["x in (a,,,)", [r("x", "in", ["", "a"])]],
    ["x in (a,,,,,,)", [r("x", "in", ["", "a"])]],
    ["x in (a,,a,,a,,a,,)", [r("x", "in", ["", "a"])]],
    [
      "x notin (abc,,def),bar,z in (),w",
      [r("bar", "exists"), r("w", "exists"), r("x", "notin", ["", "abc", "def"]), r("z", "in", [""])],
    ],
    ["x,y in (a)", [r("x", "exists"), r("y", "in", ["a"])]],
    ["x=a", [r("x", "=", ["a"])]],
    ["x>1", [r("x", "gt", ["1"])]],
    ["x<7", [r("x", "lt", ["7"])]],
    ["x=a,y!=b", [r("x", "=", ["a"]), r("y", "!=", ["b"])]],
    ["x=a,y!=b,z in (h,i,j)", [r("x", "=", ["a"]), r("y", "!=", ["b"]), r("z", "in", ["h", "i", "j"])]],
    ["x notin ( )", [r("x", "notin", [""])]],
    ["x notin (, a)", [r("x", "notin", ["", "a"])]],
    ["a ", [r("a", "exists")]],
    ["a in (x,y,notin, z,in)", [r("a", "in", ["in", "notin", "x", "y", "z"])]],
  ];
  for (const [input, out] of valid) {
    it(`parses ${JSON.stringify(input)}`, () => {
      expect(parseLabelSelector(input).requirements()).toEqual(out);
    });
  }
  for (const input of [
    "x=a||y=b",
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)",
    "a notin(",
    "a (",
    "(",
  ]) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      expect(() => parseLabelSelector(input)).toThrow(SelectorParseError);
    });
  }
});

describe("parse error messages (upstream wording, with position)", () => {
  const keyMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const cases: Array<[string, string, number]> = [
    ["x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt", 2],
    ["x,,y", "found ',', expected: identifier after ','", 2],
    [",x,y", "found ',', expected: !, identifier, or 'end of string'", 0],
    ["a in (xyz),", "found '', expected: identifier after ','", 11],
    ["a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'", 10],
    ["a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'", 10],
    ["a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier", 8],
    ["a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt", 2],
    ["(", "found '(', expected: !, identifier, or 'end of string'", 0],
    ["!x=a", "found '=', expected: ',' or 'end of string'", 2],
    ["x==a==b", "found '==', expected: ',' or 'end of string'", 4],
    ["x in a", "unable to parse requirement: found 'a' expected: '('", 5],
    ["x in (a,(", "unable to parse requirement: found '(', expected: ',', or identifier", 8],
    ["x=(", "unable to parse requirement: found '(', expected: identifier", 2],
    ["!", "unable to parse requirement: found '', expected: identifier", 1],
    ["a$b", `unable to parse requirement: <nil>: Invalid value: "a$b": ${keyMsg}`, 0],
    ["/a", `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`, 0],
    [
      "x<a",
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
      0,
    ],
  ];
  for (const [input, detail, position] of cases) {
    it(JSON.stringify(input), () => {
      const err = parseError(input);
      expect(err.detail).toBe(detail);
      expect(err.position).toBe(position);
      expect(err.input).toBe(input);
      expect(err.kind).toBe("label");
      expect(err.message).toBe(`${detail} (label selector ${JSON.stringify(input)}, position ${position})`);
    });
  }

  it("value errors use the values[i][key] path, sorted values and the aggregate form", () => {
    expect(parseError("x in (b$,a$)").detail).toMatch(
      /^unable to parse requirement: \[values\[0\]\[x\]: Invalid value: "a\$": a valid label .*, values\[1\]\[x\]: Invalid value: "b\$": /,
    );
    expect(parseError(`x=${"v".repeat(64)}`).detail).toMatch(
      /^unable to parse requirement: values\[0\]\[x\]: Invalid value: "v+": must be no more than 63 bytes$/,
    );
  });

  it("a non-string input is a SelectorParseError too", () => {
    expect(() => parseLabelSelector(42 as unknown as string)).toThrow(SelectorParseError);
  });
});

describe("TestAdd", () => {
  it("adds and keeps requirements sorted by key", () => {
    const s1 = everything().add(req("key", "in", ["value"]));
    expect(s1.requirements()).toEqual([{ key: "key", operator: "in", values: ["value"] }]);
    const s2 = s1.add(req("key2", "=", ["value2"]));
    expect(s2.requirements()).toEqual([
      { key: "key", operator: "in", values: ["value"] },
      { key: "key2", operator: "=", values: ["value2"] },
    ]);
    expect(s1.requirements()).toHaveLength(1); // add copies
    expect(everything().add(req("b", "exists"), req("a", "exists")).toString()).toBe("a,b");
    expect(nothing().add(req("a", "exists"))).toBe(nothing());
  });
});

describe("TestRequiresExactMatch", () => {
  const cases: Array<[string, LabelSelector, string, string | undefined]> = [
    ["keyInOperatorExactMatch", everything().add(req("key", "in", ["value"])), "key", "value"],
    ["keyInOperatorNotExactMatch", everything().add(req("key", "in", ["value", "value2"])), "key", undefined],
    [
      "keyInOperatorNotExactMatch (second key)",
      everything().add(req("key", "in", ["value", "value1"]), req("key2", "in", ["value2"])),
      "key2",
      "value2",
    ],
    ["keyEqualOperatorExactMatch", everything().add(req("key", "=", ["value"])), "key", "value"],
    ["keyDoubleEqualOperatorExactMatch", everything().add(req("key", "==", ["value"])), "key", "value"],
    ["keyNotEqualOperatorExactMatch", everything().add(req("key", "!=", ["value"])), "key", undefined],
    [
      "keyEqualOperatorExactMatchFirst",
      everything().add(req("key", "in", ["value"]), req("key2", "in", ["value2"])),
      "key",
      "value",
    ],
    ["nothing", nothing(), "key", undefined],
  ];
  for (const [name, sel, label, want] of cases) {
    it(name, () => {
      expect(sel.requiresExactMatch(label)).toBe(want);
    });
  }
});

describe("TestMatchesNothing", () => {
  it("only nothing() matches nothing", () => {
    expect(matchesNothing(nothing())).toBe(true);
    expect(nothing().matchesNothing()).toBe(true);
    expect(nothing().matches({})).toBe(false);
    expect(nothing().empty()).toBe(false);
    expect(nothing().toString()).toBe("");
    expect(nothing().requirements()).toEqual([]);
    expect(matchesNothing(everything())).toBe(false);
    expect(matchesNothing(selectorFromSet({}))).toBe(false);
    expect(matchesNothing(selectorFromSet({ key: "value" }))).toBe(false);
    for (const s of [
      "",
      "a",
      "!a",
      "a=b",
      "a!=b",
      "a in (b)",
      "a notin (b)",
      "a,!a",
      "a=b,a!=b",
      "a in (b),a notin (b)",
    ]) {
      expect(matchesNothing(parseLabelSelector(s))).toBe(false);
    }
  });
});

describe("LabelSelectorAsSelector", () => {
  it("null selects nothing, empty selects everything", () => {
    expect(labelSelectorAsSelector(null)).toBe(nothing());
    expect(labelSelectorAsSelector(undefined)).toBe(nothing());
    expect(labelSelectorAsSelector({})).toBe(everything());
    expect(labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [] }).empty()).toBe(true);
  });

  it("converts matchLabels and matchExpressions", () => {
    const sel = labelSelectorAsSelector({
      matchLabels: { app: "web", tier: "fe" },
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod", "dev"] },
        { key: "canary", operator: "DoesNotExist" },
        { key: "zone", operator: "NotIn", values: ["a"] },
        { key: "owner", operator: "Exists" },
      ],
    });
    expect(sel.toString()).toBe("app=web,!canary,env in (dev,prod),owner,tier=fe,zone notin (a)");
    expect(sel.matches({ app: "web", tier: "fe", env: "prod", owner: "me" })).toBe(true);
    expect(sel.matches({ app: "web", tier: "fe", env: "prod", owner: "me", canary: "1" })).toBe(false);
  });

  it("rejects unknown operators and invalid requirements", () => {
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] })).toThrow(
      '"Gt" is not a valid label selector operator',
    );
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] })).toThrow(
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(() => labelSelectorAsSelector({ matchLabels: { "a b": "x" } })).toThrow(
      /^key: Invalid value: "a b": name part/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties.

const keyName = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?$/);
const labelKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("a", "b", "app", "in", "notin", "x.y/z") },
  { weight: 1, arbitrary: keyName },
);
const labelValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("", "1", "2", "10", "v", "w", "in") },
  { weight: 1, arbitrary: fc.stringMatching(/^([A-Za-z0-9]([A-Za-z0-9._-]{0,4}[A-Za-z0-9])?)?$/) },
);
const ws = fc.constantFrom("", " ", "  ", "\t", "\n");
const intValue = fc.integer({ min: -5, max: 20 }).map((n) => (n < 0 ? "1" : String(n)));

// A random requirement as text plus its meaning for the reference evaluator.
const requirementText: fc.Arbitrary<{ text: string; model: { key: string; op: string; values: string[] } }> = fc.oneof(
  fc
    .record({ k: labelKey, w: ws })
    .map(({ k, w }) => ({ text: `${w}${k}${w}`, model: { key: k, op: "exists", values: [] } })),
  fc
    .record({ k: labelKey, w: ws })
    .map(({ k, w }) => ({ text: `${w}!${w}${k}`, model: { key: k, op: "!", values: [] } })),
  fc
    .record({ k: labelKey, op: fc.constantFrom("=", "==", "!="), v: labelValue, w: ws })
    .map(({ k, op, v, w }) => ({ text: `${k}${w}${op}${w}${v}`, model: { key: k, op, values: [v] } })),
  fc
    .record({ k: labelKey, op: fc.constantFrom(">", "<"), v: intValue, w: ws })
    .map(({ k, op, v, w }) => ({ text: `${k}${w}${op}${v}`, model: { key: k, op, values: [v] } })),
  fc
    .record({
      k: labelKey,
      op: fc.constantFrom("in", "notin"),
      vs: fc.array(labelValue, { minLength: 1, maxLength: 4 }),
      w: ws,
    })
    .map(({ k, op, vs, w }) => ({
      text: `${k} ${op}${w}(${vs.join(`${w},${w}`)})`,
      model: { key: k, op, values: vs },
    })),
);

const selectorText = fc.array(requirementText, { maxLength: 5 }).map((rs) => ({
  text: rs.map((r) => r.text).join(","),
  models: rs.map((r) => r.model),
}));

const labelMap = fc.dictionary(fc.constantFrom("a", "b", "app", "in", "notin", "x.y/z", "k0"), labelValue, {
  maxKeys: 5,
});

// A tiny independent evaluator of the label-selector semantics.
function referenceMatches(models: Array<{ key: string; op: string; values: string[] }>, labels: Labels): boolean {
  return models.every(({ key, op, values }) => {
    const has = Object.hasOwn(labels, key);
    const v = labels[key];
    switch (op) {
      case "exists":
        return has;
      case "!":
        return !has;
      case "=":
      case "==":
      case "in":
        return has && values.includes(v!);
      case "!=":
      case "notin":
        return !has || !values.includes(v!);
      case ">":
      case "<": {
        if (!has || !/^-?\d+$/.test(v!)) return false;
        return op === ">" ? Number(v) > Number(values[0]) : Number(v) < Number(values[0]);
      }
      default:
        throw new Error(op);
    }
  });
}

describe("properties", () => {
  test.prop([selectorText], { numRuns: 300 })("parse(toString(sel)) round-trips", ({ text }) => {
    const sel = parseLabelSelector(text);
    const again = parseLabelSelector(sel.toString());
    expect(again.requirements()).toEqual(sel.requirements());
    expect(again.toString()).toBe(sel.toString());
  });

  test.prop([selectorText, fc.array(labelMap, { minLength: 1, maxLength: 8 })], { numRuns: 300 })(
    "matches agrees with a reference evaluator",
    ({ text, models }, maps) => {
      const sel = parseLabelSelector(text);
      for (const labels of maps) expect(sel.matches(labels)).toBe(referenceMatches(models, labels));
    },
  );

  const garbage = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc
      .array(
        fc.constantFrom(
          "a",
          "b",
          "=",
          "==",
          "!",
          "!=",
          "(",
          ")",
          ",",
          " ",
          "in",
          "notin",
          ">",
          "<",
          "1",
          "$",
          "/",
          "\u0000",
        ),
        {
          maxLength: 14,
        },
      )
      .map((xs) => xs.join("")),
    fc.string({ unit: "binary", maxLength: 20 }),
  );
  test.prop([garbage], { numRuns: 1000 })("garbage either parses or throws SelectorParseError", (s) => {
    try {
      const sel = parseLabelSelector(s);
      // Whatever parsed must print to something that parses to the same selector.
      expect(parseLabelSelector(sel.toString()).toString()).toBe(sel.toString());
    } catch (e) {
      expect(e).toBeInstanceOf(SelectorParseError);
      const err = e as SelectorParseError;
      expect(err.position).toBeGreaterThanOrEqual(0);
      expect(err.position).toBeLessThanOrEqual(s.length);
    }
  });
});
