import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { goDurationSeconds, listOptionsQuery } from "./list-options-query.js";

describe("listOptionsQuery (ListOptions through the parameter codec)", () => {
  it("a watch sends watch=true, the bookmarks flag, RV, and timeoutSeconds twice (timeout as a Go duration)", () => {
    const q = listOptionsQuery(
      { resourceVersion: "12345", allowWatchBookmarks: true, timeoutSeconds: 572, labelSelector: "app=x" },
      true,
    );
    expect(q.toString()).toBe(
      "allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=12345&timeout=9m32s&timeoutSeconds=572&watch=true",
    );
  });

  it("omits empty fields like Go's omitempty, but sends an explicit sendInitialEvents=false", () => {
    expect(listOptionsQuery({ resourceVersion: "", limit: 0, allowWatchBookmarks: false }, false).toString()).toBe("");
    expect(listOptionsQuery({ sendInitialEvents: false }, true).toString()).toBe("sendInitialEvents=false&watch=true");
    expect(
      listOptionsQuery(
        { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", resourceVersion: "", continue: "tok" },
        false,
      ).toString(),
    ).toBe("continue=tok&resourceVersionMatch=NotOlderThan&sendInitialEvents=true");
    expect(listOptionsQuery({ timeoutSeconds: 0 }, false).toString()).toBe("timeoutSeconds=0");
  });

  it.each([
    [1, "1s"],
    [59, "59s"],
    [60, "1m0s"],
    [300, "5m0s"],
    [599, "9m59s"],
    [3600, "1h0m0s"],
    [3725, "1h2m5s"],
    [0, "0s"],
  ])("goDurationSeconds(%d) = %s", (s, want) => {
    expect(goDurationSeconds(s)).toBe(want);
  });

  test.prop([fc.integer({ min: 0, max: 10_000_000 })])("a Go duration parses back to the seconds", (s) => {
    const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+)s$/.exec(goDurationSeconds(s));
    expect(m).not.toBeNull();
    const [, h = "0", mi = "0", sec = "0"] = m!;
    expect(Number(h) * 3600 + Number(mi) * 60 + Number(sec)).toBe(s);
  });
});
