import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Interval } from "./indexed-job-utils.js";
import { matchSucceededIndexesRule, matchSuccessPolicy, type SuccessPolicy } from "./success-policy.js";

// success_policy_test.go TestMatchSuccessPolicy (completions 10; the feature gate is on, GA since v1.33).
const table: [string, SuccessPolicy | undefined, Interval[], string | undefined][] = [
  ["successPolicy is null", undefined, [{ first: 0, last: 0 }], undefined],
  ["any rules are nothing", { rules: [] }, [{ first: 0, last: 0 }], undefined],
  [
    "rules.succeededIndexes is invalid format",
    { rules: [{ succeededIndexes: "invalid-form" }] },
    [{ first: 0, last: 0 }],
    undefined,
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes matched rules",
    { rules: [{ succeededIndexes: "0-2" }] },
    [
      { first: 0, last: 2 },
      { first: 4, last: 7 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules",
    { rules: [{ succeededIndexes: "3" }] },
    [{ first: 0, last: 2 }],
    undefined,
  ],
  [
    "rules.succeededCount is specified; succeededIndexes matched rules",
    { rules: [{ succeededCount: 2 }] },
    [{ first: 0, last: 2 }],
    "Matched rules at index 0",
  ],
  [
    "rules.succeededCount is specified; succeededIndexes didn't match rules",
    { rules: [{ succeededCount: 4 }] },
    [{ first: 0, last: 2 }],
    undefined,
  ],
  [
    "multiple rules; rules.succeededIndexes is specified; succeededIndexes met one of rules",
    { rules: [{ succeededIndexes: "9" }, { succeededIndexes: "4,6" }] },
    [
      { first: 0, last: 2 },
      { first: 4, last: 7 },
    ],
    "Matched rules at index 1",
  ],
  [
    "multiple rules; rules.succeededIndexes is specified; succeededIndexes met all rules",
    { rules: [{ succeededIndexes: "0,1" }, { succeededIndexes: "5" }] },
    [
      { first: 0, last: 2 },
      { first: 4, last: 7 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes met all rules",
    { rules: [{ succeededIndexes: "3-6", succeededCount: 2 }] },
    [
      { first: 0, last: 2 },
      { first: 4, last: 7 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes didn't match rules",
    { rules: [{ succeededIndexes: "3-6", succeededCount: 2 }] },
    [
      { first: 0, last: 2 },
      { first: 6, last: 7 },
    ],
    undefined,
  ],
  [
    "rules.succeededIndexes is specified; succeededIndexes are nothing",
    { rules: [{ succeededCount: 4 }] },
    [],
    undefined,
  ],
  [
    "rules is proper subset of succeededIndexes",
    { rules: [{ succeededIndexes: "2-4,6-8" }] },
    [
      { first: 1, last: 5 },
      { first: 6, last: 9 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules equals succeededIndexes",
    { rules: [{ succeededIndexes: "2-4,6-9" }] },
    [
      { first: 2, last: 4 },
      { first: 6, last: 9 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules is subset of succeededIndexes",
    { rules: [{ succeededIndexes: "2-4,8-12" }] },
    [
      { first: 2, last: 5 },
      { first: 7, last: 15 },
    ],
    "Matched rules at index 0",
  ],
  ["rules is an empty set", { rules: [{ succeededIndexes: "" }] }, [{ first: 1, last: 3 }], undefined],
  ["succeededIndexes is an empty set", { rules: [{ succeededIndexes: "" }] }, [], undefined],
  [
    "all elements of rules.succeededIndexes aren't included in succeededIndexes",
    { rules: [{ succeededIndexes: "10-12,14-16" }] },
    [
      { first: 1, last: 3 },
      { first: 5, last: 7 },
    ],
    undefined,
  ],
  [
    "rules overlaps succeededIndexes at first",
    { rules: [{ succeededIndexes: "1-3,5-7" }] },
    [
      { first: 2, last: 4 },
      { first: 6, last: 8 },
    ],
    undefined,
  ],
  [
    "with succeededCount; rules overlaps succeededIndexes at first",
    { rules: [{ succeededIndexes: "1-3,5-7", succeededCount: 4 }] },
    [
      { first: 2, last: 4 },
      { first: 6, last: 8 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules overlaps succeededIndexes at last",
    { rules: [{ succeededIndexes: "2-4,6-9" }] },
    [
      { first: 1, last: 3 },
      { first: 5, last: 7 },
    ],
    undefined,
  ],
  [
    "with succeededCount; rules overlaps succeededIndexes at last",
    { rules: [{ succeededIndexes: "2-4,6-9", succeededCount: 4 }] },
    [
      { first: 1, last: 3 },
      { first: 5, last: 7 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules completely overlaps succeededIndexes",
    { rules: [{ succeededIndexes: "0-4,6-9" }] },
    [
      { first: 1, last: 3 },
      { first: 7, last: 8 },
    ],
    undefined,
  ],
  [
    "with succeededCount; rules completely overlaps succeededIndexes",
    { rules: [{ succeededIndexes: "0-4,6-9", succeededCount: 5 }] },
    [
      { first: 1, last: 3 },
      { first: 7, last: 8 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules overlaps multiple succeededIndexes at last",
    { rules: [{ succeededIndexes: "0-6,8-9" }] },
    [
      { first: 1, last: 3 },
      { first: 5, last: 9 },
    ],
    undefined,
  ],
  [
    "with succeededCount; rules overlaps multiple succeededIndexes at last",
    { rules: [{ succeededIndexes: "0-6,8-9", succeededCount: 7 }] },
    [
      { first: 1, last: 3 },
      { first: 5, last: 9 },
    ],
    "Matched rules at index 0",
  ],
  [
    "rules overlaps succeededIndexes at first, and rules equals succeededIndexes at last",
    { rules: [{ succeededIndexes: "0-5,7-9" }] },
    [
      { first: 1, last: 5 },
      { first: 7, last: 10 },
    ],
    undefined,
  ],
  [
    "with succeededCount; rules overlaps at first, equals at last",
    { rules: [{ succeededIndexes: "0-5,7-9", succeededCount: 8 }] },
    [
      { first: 1, last: 5 },
      { first: 7, last: 10 },
    ],
    "Matched rules at index 0",
  ],
  [
    "the first rules overlaps succeededIndexes at first",
    { rules: [{ succeededIndexes: "0-3,6-9" }] },
    [{ first: 1, last: 10 }],
    undefined,
  ],
  [
    "with succeededCount; the first rules overlaps succeededIndexes at first",
    { rules: [{ succeededIndexes: "0-3,6-9", succeededCount: 7 }] },
    [{ first: 1, last: 10 }],
    "Matched rules at index 0",
  ],
];

describe("matchSuccessPolicy (success_policy.go)", () => {
  for (const [name, policy, succeeded, want] of table) {
    it(name, () => {
      expect(matchSuccessPolicy(policy, 10, succeeded)).toBe(want);
    });
  }

  it("an unparseable part of succeededIndexes is reported", () => {
    const seen: string[] = [];
    matchSuccessPolicy({ rules: [{ succeededIndexes: "x,1" }] }, 10, [{ first: 1, last: 1 }], (p) => seen.push(p));
    expect(seen).toEqual(["x"]);
  });

  it("property: a succeededIndexes rule matches exactly when the rule's indexes are a subset (or succeededCount of them)", () => {
    const toIntervals = (xs: readonly number[]): Interval[] => {
      const out: { first: number; last: number }[] = [];
      for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
        const prev = out[out.length - 1];
        if (prev !== undefined && prev.last === x - 1) prev.last = x;
        else out.push({ first: x, last: x });
      }
      return out;
    };
    const idx = fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 20 });
    fc.assert(
      fc.property(idx, idx, fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }), (rule, done, count) => {
        const r = toIntervals(rule);
        const d = new Set(done);
        const contained = [...new Set(rule)].filter((x) => d.has(x)).length;
        const want = contained === new Set(rule).size || (count !== undefined && contained >= count);
        expect(matchSucceededIndexesRule(r, toIntervals(done), count)).toBe(want);
      }),
    );
  });
});
