// Every TypeScript block of docs/*.md, README.md and packages/*/README.md type-checks against the packages'
// public exports (scripts/docs-check.mjs), and every JavaScript block runs with Node against the built packages; a
// block opts out only with `// fragment: <why>`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../../scripts/docs-check.mjs", import.meta.url));

function docsCheck(...args: string[]) {
  return spawnSync(process.execPath, [script, ...args], { encoding: "utf8" });
}

describe("docs-check", () => {
  it("type-checks every TypeScript block of the docs and READMEs", () => {
    const run = docsCheck();
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/docs-check: \d+ TypeScript blocks type-checked, \d+ fragments exempt, 0 errors/);
    expect(run.status).toBe(0);
    // the type-check and the JavaScript blocks' runs: ~60–90 s on a loaded 2-core machine
  }, 240_000);

  it("reports a failing block at its doc line, and a fragment that does not say why", () => {
    const dir = mkdtempSync(join(tmpdir(), "docs-check-"));
    try {
      const md = join(dir, "bad.md");
      writeFileSync(
        md,
        [
          "# bad",
          "",
          "```ts",
          'import { FakeClock } from "@informer-ts/clock";',
          "const clock: FakeClock = new FakeClock();",
          'const n: number = "not a number";',
          "```",
          "",
          "```ts",
          "// fragment: only a signature",
          "function f(x: number): string;",
          "```",
          "",
          "```typescript",
          "// fragment",
          "undefinedName();",
          "```",
          "",
          "```js",
          'throw new Error("a JavaScript block that fails");',
          "```",
          "",
          "```js",
          'import { FakeClock } from "@informer-ts/clock";',
          "if (new FakeClock(5).now() !== 5) process.exit(3);",
          "```",
          "",
        ].join("\n"),
      );
      const run = docsCheck(md);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/bad\.md:6:7: error TS2322/);
      expect(run.stderr).toMatch(/bad\.md:15: a fragment must say why/);
      expect(run.stderr).not.toMatch(/bad\.md:1[16]:\d+: error/);
      // plain-JavaScript blocks run with Node against the built packages: the throwing one is named at its line
      expect(run.stderr).toMatch(
        /bad\.md:20: the JavaScript block failed \(exit 1\)[\s\S]*a JavaScript block that fails/,
      );
      expect(run.stderr).not.toMatch(/bad\.md:24:/);
      expect(run.stdout).toMatch(/1 TypeScript blocks type-checked, 2 fragments exempt, 3 errors/);
      expect(run.stdout).toMatch(/2 JavaScript blocks run against the built packages/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
