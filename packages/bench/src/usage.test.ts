// `pnpm bench --help` documents every suite main.ts runs and every BENCH_* variable the benchmarks read.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BENCH_SUITES, benchUsage, helpFor } from "./usage.js";

const here = dirname(fileURLToPath(import.meta.url));
const sources = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "usage.ts")
  .map((f) => readFileSync(join(here, f), "utf8"));

describe("bench usage", () => {
  it("lists every BENCH_* variable the benchmarks read, under the suite that reads it", () => {
    const read = new Set(
      sources
        .flatMap((src) => [...src.matchAll(/\bBENCH_[A-Z0-9_]+\b/g)].map((m) => m[0]))
        .filter((n) => n !== "BENCH_SUITES"),
    );
    expect(read.size).toBeGreaterThan(10);
    const documented = BENCH_SUITES.flatMap((s) => s.env.map((v) => v.name));
    expect([...read].sort()).toEqual([...documented].sort());
    const usage = benchUsage();
    for (const name of read) expect(usage).toContain(name);
  });

  it("describes exactly the suites main.ts runs, in its order", () => {
    const main = sources.find((src) => src.includes("const benches:")) ?? "";
    const registry = /const benches[^{]*\{([^}]*)\}/s.exec(main)?.[1] ?? "";
    const keys = [...registry.matchAll(/^\s*([a-z-]+):/gm)].map((m) => m[1]);
    expect(keys).toEqual(BENCH_SUITES.map((s) => s.name));
  });

  it("says a bare `pnpm bench` runs all suites and where results go; a suite's help lists its variables", () => {
    const all = benchUsage();
    expect(all).toMatch(/^Usage: pnpm bench \[suite…\]/);
    expect(all).toContain("or all of them (in this order) when none is named");
    expect(all).toContain("bench-results/<name>.json and .md");
    const reflector = benchUsage("reflector");
    expect(reflector).toMatch(/^Usage: pnpm bench reflector\n/);
    expect(reflector).toContain("bench-results/reflector-initial-sync-http.json");
    expect(reflector).toMatch(/^ {2}BENCH_REFLECTOR_N +ConfigMaps synced in-process \(default 100000\)$/m);
    expect(reflector).not.toContain("BENCH_APISERVER");
    expect(benchUsage("workqueue")).toContain("Environment: none read.");
  });

  it("helpFor answers -h, --help and `help`, for a suite named beside them, and nothing else", () => {
    expect(helpFor(["--help"])).toBe(benchUsage());
    expect(helpFor(["help"])).toBe(benchUsage());
    expect(helpFor(["workqueue", "-h"])).toBe(benchUsage("workqueue"));
    expect(helpFor(["--help", "apiserver"])).toBe(benchUsage("apiserver"));
    expect(helpFor(["workqueue"])).toBeUndefined();
    expect(helpFor([])).toBeUndefined();
  });
});
