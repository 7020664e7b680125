import { fc, test } from "@fast-check/vitest";
import { fieldErrorString, isBadRequest, StatusError } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { type DecodedListOptions, setListOptionsDefaults, validateListOptions } from "../engine/list-options.js";
import {
  decodeListOptions,
  listOptionsFromQuery,
  parseQueryBool,
  parseQueryInt64,
  writeOptionsFromQuery,
} from "./query.js";

const base = (o: Partial<DecodedListOptions>): DecodedListOptions => ({
  watch: false,
  labelSelector: "",
  fieldSelector: "",
  resourceVersion: "",
  resourceVersionMatch: "",
  limit: 0,
  continue: "",
  timeoutSeconds: undefined,
  allowWatchBookmarks: false,
  sendInitialEvents: undefined,
  ...o,
});

function thrown(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a StatusError");
}

describe("parseQueryBool (runtime.Convert_Slice_string_To_bool)", () => {
  it("ParseBool true forms are true: 1 t T TRUE true True", () => {
    for (const v of ["1", "t", "T", "TRUE", "true", "True"]) expect(parseQueryBool(v), v).toBe(true);
  });
  it("0 and any case of false are false; absent is false", () => {
    for (const v of ["0", "false", "FALSE", "False", "fAlSe"]) expect(parseQueryBool(v), v).toBe(false);
    expect(parseQueryBool(null)).toBe(false);
  });
  it("every other value, including empty and the ParseBool false forms f/F, is true (the server never 400s)", () => {
    for (const v of ["", "f", "F", "no", "yes", "2", "watch"]) expect(parseQueryBool(v), v).toBe(true);
  });
  test.prop([fc.string()])("is false exactly for 0 and case-insensitive false", (s) => {
    expect(parseQueryBool(s)).toBe(!(s === "0" || s.toLowerCase() === "false"));
  });
});

describe("parseQueryInt64 (strconv.ParseInt base 10)", () => {
  it("accepts signed decimal integers", () => {
    expect(parseQueryInt64("500")).toBe(500);
    expect(parseQueryInt64("+7")).toBe(7);
    expect(parseQueryInt64("-3")).toBe(-3);
    expect(parseQueryInt64("0009")).toBe(9);
  });
  it("rejects non-numbers with Go's invalid syntax message (400)", () => {
    for (const v of ["abc", "", "1.5", " 1", "0x10", "1_000"]) {
      const err = thrown(() => parseQueryInt64(v));
      expect(err.code).toBe(400);
      expect(err.message).toBe(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    }
  });
  it("rejects values outside int64 with Go's out of range message (400)", () => {
    const v = "9223372036854775808";
    const err = thrown(() => parseQueryInt64(v));
    expect(err.message).toBe(`strconv.ParseInt: parsing "${v}": value out of range`);
    expect(parseQueryInt64("-9223372036854775808")).toBe(Number(-(2n ** 63n)));
  });
});

describe("decodeListOptions", () => {
  it("reads the first value of each parameter and ignores unknown ones", () => {
    const d = decodeListOptions(
      new URLSearchParams(
        "limit=500&limit=7&resourceVersion=10&watch=True&allowWatchBookmarks=1&timeoutSeconds=5&pretty=true&foo=bar",
      ),
    );
    expect(d).toEqual(
      base({ limit: 500, resourceVersion: "10", watch: true, allowWatchBookmarks: true, timeoutSeconds: 5 }),
    );
  });
  it("keeps sendInitialEvents absent (undefined) vs false vs true", () => {
    expect(decodeListOptions(new URLSearchParams("")).sendInitialEvents).toBeUndefined();
    expect(decodeListOptions(new URLSearchParams("sendInitialEvents=false")).sendInitialEvents).toBe(false);
    expect(decodeListOptions(new URLSearchParams("sendInitialEvents=true")).sendInitialEvents).toBe(true);
  });
  it("rejects an unparsable label selector with 400 and the parser's message", () => {
    const err = thrown(() => decodeListOptions(new URLSearchParams({ labelSelector: "x nott in (y)" })));
    expect(isBadRequest(err)).toBe(true);
    expect(err.message).toContain("unable to parse requirement");
  });
  it("rejects an unparsable field selector with 400 and the parser's message", () => {
    const err = thrown(() => decodeListOptions(new URLSearchParams({ fieldSelector: "metadata.name" })));
    expect(isBadRequest(err)).toBe(true);
    expect(err.message).toBe("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  });
  it("rejects bad limit/timeoutSeconds with 400", () => {
    expect(thrown(() => decodeListOptions(new URLSearchParams("limit=ten"))).message).toBe(
      'strconv.ParseInt: parsing "ten": invalid syntax',
    );
    expect(thrown(() => decodeListOptions(new URLSearchParams("timeoutSeconds=1s"))).code).toBe(400);
  });
});

// Ported from apimachinery pkg/apis/meta/internalversion/defaults_test.go TestSetListOptionsDefaults.
describe("TestSetListOptionsDefaults", () => {
  const cases: Array<[string, boolean, Partial<DecodedListOptions>, Partial<DecodedListOptions>]> = [
    ["no-op, RV doesn't match", true, { watch: true, resourceVersion: "1" }, { watch: true, resourceVersion: "1" }],
    [
      "no-op, SendInitialEvents set",
      true,
      { watch: true, sendInitialEvents: true },
      { watch: true, sendInitialEvents: true },
    ],
    [
      "no-op, ResourceVersionMatch set",
      true,
      { watch: true, resourceVersionMatch: "m" },
      { watch: true, resourceVersionMatch: "m" },
    ],
    ["no-op, Watch=false", true, {}, {}],
    [
      "defaults applied, match on empty RV",
      true,
      { watch: true },
      { watch: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" },
    ],
    [
      "defaults applied, match on RV=0",
      true,
      { watch: true, resourceVersion: "0" },
      { watch: true, resourceVersion: "0", sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" },
    ],
    ["no-op, match on empty RV but watch-list fg is off", false, { watch: true }, { watch: true }],
    [
      "no-op, match on empty RV but SendInitialEvents is off",
      true,
      { watch: true, sendInitialEvents: false },
      { watch: true, sendInitialEvents: false },
    ],
  ];
  for (const [name, gate, input, want] of cases) {
    it(name, () => {
      const o = base(input);
      setListOptionsDefaults(o, gate);
      expect(o).toEqual(base(want));
    });
  }
});

// Ported from apimachinery pkg/apis/meta/internalversion/validation/validation_test.go TestValidateListOptions.
describe("TestValidateListOptions", () => {
  const cases: Array<[string, Partial<DecodedListOptions>, boolean, string[]]> = [
    ["valid-default", {}, false, []],
    ["valid-resourceversionmatch-exact", { resourceVersion: "1", resourceVersionMatch: "Exact" }, false, []],
    [
      "invalid-resourceversionmatch-exact",
      { resourceVersion: "0", resourceVersionMatch: "Exact" },
      false,
      ['resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ],
    [
      "valid-resourceversionmatch-notolderthan",
      { resourceVersion: "0", resourceVersionMatch: "NotOlderThan" },
      false,
      [],
    ],
    [
      "invalid-resourceversionmatch",
      { resourceVersion: "0", resourceVersionMatch: "foo" },
      false,
      ['resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""'],
    ],
    [
      "list-sendInitialEvents-forbidden",
      { sendInitialEvents: true },
      false,
      ["sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"],
    ],
    ["valid-watch-default", { watch: true }, false, []],
    [
      "valid-watch-sendInitialEvents-on",
      { watch: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true },
      true,
      [],
    ],
    [
      "valid-watch-sendInitialEvents-off",
      { watch: true, sendInitialEvents: false, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true },
      true,
      [],
    ],
    [
      "watch-resourceversionmatch-without-sendInitialEvents-forbidden",
      { watch: true, resourceVersionMatch: "NotOlderThan" },
      false,
      [
        "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      ],
    ],
    [
      "watch-sendInitialEvents-without-resourceversionmatch-forbidden",
      { watch: true, sendInitialEvents: true },
      false,
      [
        "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      ],
    ],
    [
      "watch-sendInitialEvents-with-exact-resourceversionmatch-forbidden",
      { watch: true, sendInitialEvents: true, resourceVersionMatch: "Exact", allowWatchBookmarks: true },
      true,
      [
        "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
      ],
    ],
    [
      "watch-sendInitialEvents-no-watchlist-fg-disabled",
      { watch: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true },
      false,
      [
        "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      ],
    ],
    [
      "watch-sendInitialEvents-with-continue",
      {
        watch: true,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
        continue: "123",
      },
      true,
      ["resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"],
    ],
    [
      "list-resourceversionmatch-without-rv",
      { resourceVersionMatch: "NotOlderThan" },
      false,
      ["resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"],
    ],
    [
      "list-resourceversionmatch-with-continue",
      { resourceVersion: "5", resourceVersionMatch: "Exact", continue: "x" },
      false,
      ["resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"],
    ],
  ];
  for (const [name, input, gate, want] of cases) {
    it(name, () => {
      expect(validateListOptions(base(input), gate).map(fieldErrorString)).toEqual(want);
    });
  }
});

describe("listOptionsFromQuery", () => {
  it("maps a reflector watch to typed ListOptions", () => {
    const q = listOptionsFromQuery(
      new URLSearchParams("watch=true&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=300"),
    );
    expect(q).toEqual({
      watch: true,
      options: { resourceVersion: "12", allowWatchBookmarks: true, timeoutSeconds: 300 },
    });
  });
  it("only decodes: a legacy RV=0 watch is not defaulted and no timeout is picked here (the engine does both)", () => {
    expect(listOptionsFromQuery(new URLSearchParams("watch=1&resourceVersion=0"))).toEqual({
      watch: true,
      options: { resourceVersion: "0" },
    });
  });
  it("leaves the 422 matrix to the engine: invalid combinations come back as decoded", () => {
    expect(
      listOptionsFromQuery(new URLSearchParams("sendInitialEvents=true&resourceVersionMatch=Bogus&continue=tok"))
        .options,
    ).toEqual({ sendInitialEvents: true, resourceVersionMatch: "Bogus", continue: "tok" });
  });
  it("rejects a malformed field selector while decoding (400), before any validation", () => {
    const err = thrown(() => listOptionsFromQuery(new URLSearchParams("fieldSelector=metadata.name")));
    expect([err.code, err.reason]).toEqual([400, "BadRequest"]);
  });
  it("folds the URL name into the field selector; a conflicting selector is a 400", () => {
    expect(listOptionsFromQuery(new URLSearchParams("watch=1&resourceVersion=5"), { name: "a,b" }).options).toEqual({
      resourceVersion: "5",
      fieldSelector: "metadata.name=a\\,b",
    });
    expect(
      listOptionsFromQuery(new URLSearchParams("fieldSelector=metadata.name%3Dx"), { name: "x" }).options.fieldSelector,
    ).toBe("metadata.name=x");
    for (const fs of ["metadata.name=other", "metadata.namespace=default"]) {
      const err = thrown(() => listOptionsFromQuery(new URLSearchParams({ fieldSelector: fs }), { name: "x" }));
      expect(err.status.message).toBe("fieldSelector metadata.name doesn't match requested name");
      expect(err.code).toBe(400);
    }
  });
  test.prop([
    fc.record({
      rv: fc.constantFrom("", "0", "7"),
      rvm: fc.constantFrom(undefined, "", "Exact", "NotOlderThan", "Bogus"),
      sie: fc.constantFrom(undefined, "true", "false"),
      watch: fc.constantFrom(undefined, "true", "0"),
      cont: fc.constantFrom(undefined, "tok"),
    }),
  ])("never validates: returns exactly the decoded list/watch parameters", (p) => {
    const q = new URLSearchParams();
    if (p.rv !== "") q.set("resourceVersion", p.rv);
    if (p.rvm !== undefined) q.set("resourceVersionMatch", p.rvm);
    if (p.sie !== undefined) q.set("sendInitialEvents", p.sie);
    if (p.watch !== undefined) q.set("watch", p.watch);
    if (p.cont !== undefined) q.set("continue", p.cont);
    const { watch, options } = listOptionsFromQuery(q);
    expect(watch).toBe(p.watch === "true");
    expect(options).toEqual({
      ...(p.rv !== "" && { resourceVersion: p.rv }),
      ...(p.rvm !== undefined && p.rvm !== "" && { resourceVersionMatch: p.rvm }),
      ...(p.sie !== undefined && { sendInitialEvents: p.sie === "true" }),
      ...(p.cont !== undefined && { continue: p.cont }),
    });
  });
});

describe("writeOptionsFromQuery", () => {
  it("accepts fieldManager, fieldValidation and dryRun", () => {
    expect(writeOptionsFromQuery(new URLSearchParams("fieldManager=kubectl-create&fieldValidation=Strict"))).toEqual({
      fieldManager: "kubectl-create",
      fieldValidation: "Strict",
      dryRun: false,
    });
    expect(writeOptionsFromQuery(new URLSearchParams("dryRun=All")).dryRun).toBe(true);
  });
});
