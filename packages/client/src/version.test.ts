import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultUserAgent, VERSION } from "./version.js";

describe("version", () => {
  it("VERSION matches package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it("the default User-Agent is informer-ts/<version> (<os>/<arch>)", () => {
    expect(defaultUserAgent()).toBe(`informer-ts/${VERSION} (${process.platform}/${process.arch})`);
    expect(defaultUserAgent()).toMatch(/^informer-ts\/\d+\.\d+\.\d+ \([a-z0-9]+\/[a-z0-9]+\)$/);
  });
});
