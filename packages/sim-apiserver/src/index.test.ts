import { describe, expect, it } from "vitest";
import * as cli from "./cli/index.js";
import * as engine from "./engine/index.js";
import * as http from "./http/index.js";
import * as pkg from "./index.js";

describe("package index", () => {
  it("re-exports a part of ./engine and ./http, each name the same value as in its entry point", () => {
    const subpaths: Record<string, unknown> = { ...engine, ...http };
    for (const [name, value] of Object.entries(pkg)) {
      expect(Object.hasOwn(subpaths, name), `${name} is in ./engine or ./http`).toBe(true);
      expect(value, name).toBe(subpaths[name]);
    }
    expect(Object.keys(pkg).length).toBeGreaterThan(0);
  });

  it("names nothing of the command's wiring (cli/ is internal)", () => {
    const names = new Set(Object.keys(pkg));
    expect(Object.keys(cli).filter((n) => names.has(n))).toEqual([]);
  });

  it("./engine and ./http name disjoint sets", () => {
    const http$ = new Set(Object.keys(http));
    expect(Object.keys(engine).filter((n) => http$.has(n))).toEqual([]);
  });
});
