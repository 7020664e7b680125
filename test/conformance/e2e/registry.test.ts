// The list of upstream e2e tests (upstream-tests.ts) checked against the suite: every implemented entry has an
// `it("<upstream text>"` in the file it names, every `it(...)` of the suite files is listed, and every pending entry
// is printed with its reason (one visible line each), never skipped silently; the Python re-implementations (python/) are
// checked the same way against their scripts.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { UPSTREAM_TESTS } from "./upstream-tests.js";

const here = dirname(fileURLToPath(import.meta.url));
// python-client.test.ts runs the Python scripts, which the Python check below holds to the list.
const suiteFiles = readdirSync(here).filter(
  (f) => f.endsWith(".test.ts") && f !== "registry.test.ts" && f !== "python-client.test.ts",
);

/** The `it("...")` names of a suite file (string literals, as written). */
function itNames(file: string): string[] {
  const src = readFileSync(join(here, file), "utf8");
  return [...src.matchAll(/\bit\(\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
}

describe("the re-implemented Kubernetes e2e tests (test/conformance/e2e)", () => {
  it("every implemented upstream test is an it(...) of the file the list names, and every it(...) is listed", () => {
    const listed = new Set<string>();
    for (const t of UPSTREAM_TESTS) {
      if (typeof t.here !== "string") continue;
      expect(suiteFiles, `${t.file}: ${t.it}`).toContain(t.here);
      expect(itNames(t.here), `${t.file}: ${t.it}`).toContain(t.it);
      listed.add(`${t.here}\u0000${t.it}`);
    }
    for (const f of suiteFiles) {
      for (const name of itNames(f)) expect(listed.has(`${f}\u0000${name}`), `${f}: ${name} is not listed`).toBe(true);
    }
  });

  it("every Python re-implementation is an @upstream(...) of the script the list names, and only listed ones", () => {
    const pyDir = join(here, "python");
    const scripts = readdirSync(pyDir).filter((f) => f.endsWith(".py") && f !== "harness.py");
    const named = (f: string) =>
      [...readFileSync(join(pyDir, f), "utf8").matchAll(/@upstream\("((?:[^"\\]|\\.)*)"\)/g)].map((m) => m[1]);
    const listed = new Set<string>();
    for (const t of UPSTREAM_TESTS) {
      if (t.python === undefined) continue;
      expect(scripts, `${t.file}: ${t.it}`).toContain(t.python);
      expect(named(t.python), `${t.file}: ${t.it}`).toContain(t.it);
      listed.add(`${t.python}\u0000${t.it}`);
    }
    for (const f of scripts) for (const n of named(f)) expect(listed.has(`${f}\u0000${n}`), `${f}: ${n}`).toBe(true);
  });

  it("no pending upstream test has a re-implementation, and no upstream test is listed twice", () => {
    const all = new Set(suiteFiles.flatMap(itNames));
    const keys = UPSTREAM_TESTS.map((t) => `${t.file}\u0000${t.it}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const t of UPSTREAM_TESTS) if (typeof t.here !== "string") expect(all.has(t.it), t.it).toBe(false);
  });

  it("prints every pending upstream test with its reason, and the pass/pending counts per upstream file", () => {
    const byFile = new Map<string, { implemented: number; pending: number; python: number }>();
    const lines: string[] = [];
    for (const t of UPSTREAM_TESTS) {
      const row = byFile.get(t.file) ?? { implemented: 0, pending: 0, python: 0 };
      if (t.python !== undefined) row.python++;
      if (typeof t.here === "string") row.implemented++;
      else {
        row.pending++;
        lines.push(`PENDING e2e ${t.file} "${t.it}": ${t.here.pending}`);
      }
      byFile.set(t.file, row);
    }
    for (const [file, n] of byFile) {
      const py = n.python > 0 ? ` (${n.python} also with the Python client)` : "";
      lines.push(`e2e ${file}: ${n.implemented} re-implemented, ${n.pending} pending${py}`);
    }
    console.log(lines.join("\n"));
    const pending = UPSTREAM_TESTS.filter((t) => typeof t.here !== "string").length;
    expect(lines.filter((l) => l.startsWith("PENDING"))).toHaveLength(pending);
  });
});
