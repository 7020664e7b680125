// The package.json rules every publishable package follows, checked in the unit suite so a new package (or a new
// dependency) hears about them at once; scripts/pack-check.mjs (CI) then proves the packed tarballs install alone.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  keywords?: string[];
  repository?: { type?: string; url?: string; directory?: string };
  engines?: { node?: string };
  sideEffects?: boolean;
  main?: string;
  types?: string;
  exports?: Record<string, unknown>;
  files?: string[];
  bin?: string | Record<string, string>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const packages = readdirSync(join(root, "packages"))
  .filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
  .map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest,
  }));
const publishable = packages.filter((p) => p.manifest.private !== true);
const internal = new Set(packages.map((p) => p.manifest.name));

/** Every rule a publishable package breaks, as readable sentences (empty when it follows them all). */
function problems(dir: string, m: Manifest): string[] {
  const out: string[] = [];
  const where = `packages/${dir}/package.json`;
  if (m.name !== `@informer-ts/${dir}`) out.push(`${where}: name should be @informer-ts/${dir}`);
  if (m.license !== "Apache-2.0") out.push(`${where}: license should be Apache-2.0`);
  if (!m.engines?.node) out.push(`${where}: engines.node is missing`);
  if (m.sideEffects !== false) out.push(`${where}: sideEffects should be false`);
  if (!m.keywords?.includes("kubernetes")) out.push(`${where}: keywords should include "kubernetes"`);
  if (m.repository?.directory !== `packages/${dir}` || !m.repository.url) {
    out.push(`${where}: repository should have url and directory "packages/${dir}"`);
  }
  const dot = m.exports?.["."] as { types?: string; default?: string } | undefined;
  if (dot?.types !== "./dist/index.d.ts" || dot.default !== "./dist/index.js") {
    out.push(`${where}: exports["."] should map types and default to ./dist/index.d.ts and ./dist/index.js`);
  }
  if (m.main !== "./dist/index.js" || m.types !== "./dist/index.d.ts") {
    out.push(
      `${where}: main and types should be ./dist/index.js and ./dist/index.d.ts (for resolvers without exports)`,
    );
  }
  for (const entry of ["dist", "!src/**/*.test.ts", "!src/**/*.test-util.ts"]) {
    if (!m.files?.includes(entry)) out.push(`${where}: files should include "${entry}"`);
  }
  const bins = typeof m.bin === "string" ? { [dir]: m.bin } : (m.bin ?? {});
  for (const [name, target] of Object.entries(bins)) {
    const t = target.replace(/^\.\//, "");
    if (t.startsWith("dist/")) {
      out.push(
        `${where}: bin ${name} points into dist/ (${target}), which a fresh install cannot link before the build: point it at a committed shim (bin/${name}.mjs) that imports the built entry`,
      );
    } else if (!existsSync(join(root, "packages", dir, t))) {
      out.push(`${where}: bin ${name} target ${target} does not exist`);
    } else if (!m.files?.some((f) => t === f || t.startsWith(`${f}/`))) {
      out.push(`${where}: bin ${name} target ${target} is not in files (it would not be packed)`);
    }
  }
  if (m.scripts?.prepack !== "node ../../scripts/prepack.mjs") {
    out.push(
      `${where}: scripts.prepack should be "node ../../scripts/prepack.mjs" (builds; refuses to pack without dist/)`,
    );
  }
  for (const [field, deps] of [
    ["dependencies", m.dependencies],
    ["peerDependencies", m.peerDependencies],
  ] as const) {
    for (const [dep, range] of Object.entries(deps ?? {})) {
      if (internal.has(dep)) {
        if (range !== "workspace:^") out.push(`${where}: ${field}.${dep} should be "workspace:^" (packed as ^version)`);
      } else if (!range.startsWith("^")) {
        out.push(
          `${where}: ${field}.${dep} is "${range}": libraries declare caret ranges (the lockfile pins the tested version)`,
        );
      }
    }
  }
  const readme = join(root, "packages", dir, "README.md");
  if (!existsSync(readme)) out.push(`packages/${dir}/README.md is missing`);
  else {
    const text = readFileSync(readme, "utf8");
    if (!text.includes(`npm install ${m.name}`)) out.push(`packages/${dir}/README.md: no "npm install ${m.name}" line`);
    if (!/```ts\n/.test(text)) out.push(`packages/${dir}/README.md: no TypeScript example`);
  }
  return out;
}

describe("package manifests", () => {
  it("there are publishable packages, and the root LICENSE prepack copies into them exists", () => {
    expect(publishable.length).toBeGreaterThan(0);
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toContain("Apache License");
  });

  it.each(publishable.map((p) => [p.manifest.name, p] as const))("%s follows the packaging rules", (_name, p) => {
    expect(problems(p.dir, p.manifest)).toEqual([]);
  });

  it("the rules catch a pinned runtime dependency, a workspace:* dependency and a missing prepack", () => {
    const [first] = publishable;
    const broken: Manifest = {
      ...first!.manifest,
      scripts: {},
      dependencies: {
        rxjs: "7.8.2",
        [first!.manifest.name === "@informer-ts/clock" ? "@informer-ts/apimachinery" : "@informer-ts/clock"]:
          "workspace:*",
      },
    };
    const found = problems(first!.dir, broken).join("\n");
    expect(found).toMatch(/dependencies\.rxjs is "7\.8\.2"/);
    expect(found).toMatch(/should be "workspace:\^"/);
    expect(found).toMatch(/scripts\.prepack/);
    const binInDist = problems(first!.dir, { ...first!.manifest, bin: { tool: "./dist/main.js" } }).join("\n");
    expect(binInDist).toMatch(/bin tool points into dist\/ \(\.\/dist\/main\.js\)/);
    const binMissing = problems(first!.dir, { ...first!.manifest, bin: "./bin/nope.mjs" }).join("\n");
    expect(binMissing).toMatch(/bin \S+ target \.\/bin\/nope\.mjs does not exist/);
  });
});
