import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { didYouMean, levenshteinDistance, suggestionsFor } from "./suggestions.js";

describe("levenshteinDistance", () => {
  it("counts insertions, deletions and substitutions", () => {
    expect(levenshteinDistance("", "")).toBe(0);
    expect(levenshteinDistance("abc", "")).toBe(3);
    expect(levenshteinDistance("", "ab")).toBe(2);
    expect(levenshteinDistance("kitten", "sitting")).toBe(3);
    expect(levenshteinDistance("workqeue", "workqueue")).toBe(1);
    expect(levenshteinDistance("flaw", "lawn")).toBe(2);
    expect(levenshteinDistance("Demo", "demo")).toBe(1);
  });

  test.prop([fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })])(
    "is a metric: zero only for equal strings, symmetric, triangle inequality, bounded by the longer length",
    (a, b, c) => {
      const ab = levenshteinDistance(a, b);
      expect(ab === 0).toBe(a === b);
      expect(levenshteinDistance(b, a)).toBe(ab);
      expect(ab).toBeLessThanOrEqual(levenshteinDistance(a, c) + levenshteinDistance(c, b));
      expect(ab).toBeLessThanOrEqual(Math.max(a.length, b.length));
      expect(ab).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
    },
  );
});

describe("suggestionsFor", () => {
  const flags = ["--port", "--host", "--seed", "--tls", "--token", "--kubeconfig-out", "--rand-seed", "--help"];

  it("suggests a flag the typed one is a prefix of", () => {
    expect(suggestionsFor("--kubeconfig", flags)).toEqual(["--kubeconfig-out"]);
  });

  it("suggests close spellings, best first, case-insensitively", () => {
    expect(suggestionsFor("--prot", flags)).toEqual(["--port"]);
    expect(suggestionsFor("--TOKEN", flags)).toEqual(["--token"]);
    expect(suggestionsFor("--sed", flags)).toEqual(["--seed"]);
    expect(suggestionsFor("--tokn", flags)).toEqual(["--token"]);
    expect(suggestionsFor("--pot", ["--host", "--sort", "--port"])).toEqual(["--port", "--host", "--sort"]);
  });

  it("suggests nothing when nothing is close, and never the typed text itself", () => {
    expect(suggestionsFor("--frobnicate", flags)).toEqual([]);
    expect(suggestionsFor("--port", ["--port"])).toEqual([]);
    expect(suggestionsFor("x", [])).toEqual([]);
  });

  it("honours maxDistance", () => {
    expect(suggestionsFor("workq", ["workqueue"], { maxDistance: 1 })).toEqual(["workqueue"]); // a prefix
    expect(suggestionsFor("wrkqeue", ["workqueue"], { maxDistance: 1 })).toEqual([]);
    expect(suggestionsFor("wrkqeue", ["workqueue"], { maxDistance: 2 })).toEqual(["workqueue"]);
  });
});

describe("didYouMean", () => {
  it("formats the best match, both when two are equally close, nothing when none is", () => {
    expect(didYouMean("--kubeconfig", ["--kubeconfig-out", "--port"])).toBe("; did you mean --kubeconfig-out?");
    expect(didYouMean("dem", ["demo", "help"])).toBe("; did you mean demo?");
    expect(didYouMean("cache1", ["cache2", "cache3"])).toBe("; did you mean cache2 or cache3?");
    expect(didYouMean("zzz", ["demo"])).toBe("");
  });
});
