import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "@informer-ts/apimachinery";
import { afterAll, describe, expect, it } from "vitest";
import { listFlag, numberFlag, outputFileFlag } from "./cli-flags.js";

const dir = mkdtempSync(join(tmpdir(), "scenario-flags-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scenario flags", () => {
  it("numberFlag names the flag and the value", () => {
    expect(numberFlag({ n: "12" }, "n", 0, true)).toBe(12);
    expect(() => numberFlag({ n: "1.5" }, "n", 0, true)).toThrow('--n must be an integer ≥ 0, got "1.5"');
    expect(() => numberFlag({ n: "-1" }, "n", 0)).toThrow(UsageError);
  });

  it("listFlag names the unknown value, suggests the closest and lists the known ones", () => {
    expect(listFlag({ v: "a,b" }, "v", ["a", "b", "watch"])).toEqual(["a", "b"]);
    expect(() => listFlag({ v: "a,wtach" }, "v", ["a", "b", "watch"])).toThrow(
      '--v: unknown value "wtach"; did you mean watch? (known: a, b, watch)',
    );
  });

  it("outputFileFlag checks the path before a run: its directory exists and is writable, it is no directory", () => {
    expect(outputFileFlag({}, "json")).toBeUndefined();
    expect(outputFileFlag({ json: join(dir, "out.json") }, "json")).toBe(join(dir, "out.json"));
    expect(() => outputFileFlag({ report: join(dir, "missing", "r.html") }, "report")).toThrow(
      `--report: cannot write ${join(dir, "missing", "r.html")}: no directory ${join(dir, "missing")}`,
    );
    expect(() => outputFileFlag({ report: dir }, "report")).toThrow(`--report: ${dir} is a directory, not a file`);
    expect(() => outputFileFlag({ log: "" }, "log")).toThrow('--log needs a file name, got ""');
  });

  it("outputFileFlag refuses a directory it may not write", () => {
    const ro = mkdtempSync(join(dir, "ro-"));
    chmodSync(ro, 0o500);
    try {
      const check = () => outputFileFlag({ json: join(ro, "x.json") }, "json");
      if (process.getuid?.() === 0)
        expect(check()).toBe(join(ro, "x.json")); // root writes anywhere
      else expect(check).toThrow(`--json: cannot write ${join(ro, "x.json")}: directory ${ro} is not writable`);
    } finally {
      chmodSync(ro, 0o700);
    }
  });
});
