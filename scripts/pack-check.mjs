// Proves every library package installs alone from its tarball, as a user outside this monorepo would get it.
//
// For each package under packages/ that is not `private` (found automatically, so new packages are covered):
//   1. `pnpm pack` it (its `prepack` builds it) and inspect the tarball: dist/ with every `exports`/`bin` target,
//      README.md, LICENSE, no test files, no `workspace:` ranges left, internal dependencies as semver ranges that
//      the sibling tarballs satisfy;
//   2. for npm and for pnpm: in an empty project outside the workspace, install the tarball ALONE — its
//      @informer-ts dependencies come from the sibling tarballs (npm `overrides` / `pnpm.overrides` to file:
//      tarballs, never a registry), third-party ones from the registry (preferring the local cache/store);
//   3. import each entry point (`.` and every `exports` subpath) under NodeNext ESM (`import`) and CommonJS
//      (`require`, i.e. Node's require(esm)), checking that every name its declarations export is there at run time;
//      run each `bin` with `--help`;
//   4. type-check a consumer of every entry point (`.ts` ESM and `.cts` CommonJS) with `strict` and
//      `skipLibCheck: false`;
//   5. for @informer-ts/testing: install it (and the packages docs/testing.md's first example imports) from the
//      tarballs, type-check that example and run it with node's test runner (it must pass).
//
// Steps 2–4 run for npm and pnpm at the same time (one child process per package manager, each going through the
// packages in turn), which roughly halves the wall time on two cores.
//
// Usage: node scripts/pack-check.mjs [--pm npm|pnpm] [--keep] [package-dir-name…]
// Exits 1 if any check fails; prints one line per check and the time taken. Run by .ci/run.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const keep = args.includes("--keep");
const pmArg = args.indexOf("--pm");
const managers = pmArg >= 0 ? [args[pmArg + 1]] : ["npm", "pnpm"];
// Internal: `--lane <work dir>` runs steps 2–4 for one `--pm` on tarballs already packed into <work dir>/tarballs.
const laneArg = args.indexOf("--lane");
const laneWork = laneArg >= 0 ? args[laneArg + 1] : undefined;
const only = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--pm" && args[i - 1] !== "--lane");
const started = Date.now();
const failures = [];
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

function ok(label, t0) {
  console.log(`  ok   ${label}${t0 === undefined ? "" : ` (${secs(t0)})`}`);
}
function fail(label, detail) {
  failures.push(label);
  console.log(`  FAIL ${label}`);
  if (detail) console.log(detail.replace(/^/gm, "       ").trimEnd());
}

/** Runs a command; returns { ok, out } with stdout+stderr, never throws. */
function run(cmd, argv, cwd, env = {}) {
  const r = spawnSync(cmd, argv, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 10 * 60_000,
  });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

// Discover the library packages.
const packages = readdirSync(join(root, "packages"))
  .filter((d) => existsSync(join(root, "packages", d, "package.json")))
  .map((d) => ({ dir: join(root, "packages", d), name: d, json: readPkg(join(root, "packages", d)) }))
  .filter((p) => p.json.private !== true);
// Every package is packed (the checked ones need their siblings' tarballs); the named ones (default: all) are checked.
const checked = packages.filter((p) => only.length === 0 || only.includes(p.name));
function readPkg(dir) {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
}
if (checked.length === 0) {
  console.error("pack-check: no packages to check");
  process.exit(1);
}

const work = laneWork ?? mkdtempSync(join(tmpdir(), "informer-ts-pack-check-"));
const tarballs = join(work, "tarballs");
if (laneWork === undefined) mkdirSync(tarballs);
const pnpmStore = run("pnpm", ["store", "path"], root).out.trim().split("\n").pop();

// 1. Pack.
if (laneWork === undefined) {
  console.log(`pack-check: ${checked.map((p) => p.json.name).join(", ")} with ${managers.join(" and ")} in ${work}`);
}
const tarballOf = new Map();
if (laneWork !== undefined) {
  for (const p of packages) {
    const file = join(tarballs, `${p.json.name.replace(/^@/, "").replace("/", "-")}-${p.json.version}.tgz`);
    if (existsSync(file)) tarballOf.set(p.json.name, file);
  }
}
for (const p of laneWork === undefined ? packages : []) {
  const t0 = Date.now();
  const before = new Set(readdirSync(tarballs));
  const r = run("pnpm", ["pack", "--pack-destination", tarballs], p.dir);
  const made = readdirSync(tarballs).filter((f) => !before.has(f) && f.endsWith(".tgz"));
  if (!r.ok || made.length !== 1) {
    fail(`${p.json.name}: pnpm pack`, r.out.split("\n").slice(-20).join("\n"));
    continue;
  }
  tarballOf.set(p.json.name, join(tarballs, made[0]));
  ok(`${p.json.name}: packed ${made[0]}`, t0);
}

// 1b. Inspect each tarball.
const versions = new Map(packages.map((p) => [p.json.name, p.json.version]));
for (const p of laneWork === undefined ? packages : []) {
  const tgz = tarballOf.get(p.json.name);
  if (tgz === undefined) continue;
  const files = execFileSync("tar", ["-tzf", tgz], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ""));
  const have = new Set(files);
  const manifest = JSON.parse(execFileSync("tar", ["-xzOf", tgz, "package/package.json"], { encoding: "utf8" }));
  const problems = [];
  for (const f of ["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]) {
    if (!have.has(f)) problems.push(`missing ${f}`);
  }
  const targets = [];
  const collect = (v) => {
    if (typeof v === "string") targets.push(v.replace(/^\.\//, ""));
    else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x);
  };
  collect(manifest.exports);
  collect(manifest.bin);
  for (const t of targets) if (!t.includes("*") && !have.has(t)) problems.push(`exports/bin target ${t} not packed`);
  for (const f of files) if (/\.test(-util)?\.(ts|js|d\.ts)$/.test(f)) problems.push(`test file packed: ${f}`);
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).startsWith("workspace:")) problems.push(`${field}.${dep} is still ${range}`);
      if (versions.has(dep)) {
        const v = versions.get(dep);
        if (range !== `^${v}` && range !== v) problems.push(`${field}.${dep} is ${range}, expected ^${v}`);
      } else if (/^\d/.test(String(range))) problems.push(`${field}.${dep} is pinned to ${range}: use a caret range`);
    }
  }
  for (const field of ["license", "repository", "engines", "keywords"]) {
    if (manifest[field] === undefined) problems.push(`package.json has no ${field}`);
  }
  if (manifest.sideEffects !== false) problems.push("package.json lacks sideEffects: false");
  if (problems.length > 0) fail(`${p.json.name}: tarball contents`, problems.join("\n"));
  else ok(`${p.json.name}: tarball has dist/, README.md, LICENSE, semver ranges (${files.length} files)`);
}

const ts = createRequire(join(root, "package.json"))("typescript");

/** Installs the consumer project in `dir` with `pm` (npm or pnpm, outside the workspace, from the shared store). */
function installWith(pm, dir) {
  return pm === "npm"
    ? run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], dir)
    : run(
        "pnpm",
        ["install", "--prefer-offline", "--ignore-workspace", "--reporter=append-only", "--store-dir", pnpmStore],
        dir,
      );
}

/**
 * Whether an export reaches its declaration through a type-only re-export (`export type { X }`, `export { type X }`)
 * anywhere along its alias chain: then a class or function is exported as a type only and need not exist at run time.
 */
function typeOnlyExport(checker, sym) {
  let s = sym;
  for (let i = 0; i < 32 && s !== undefined && s.flags & ts.SymbolFlags.Alias; i++) {
    for (const d of s.declarations ?? []) {
      if (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent?.parent?.isTypeOnly)) return true;
      if (ts.isImportSpecifier(d) && (d.isTypeOnly || d.parent?.parent?.isTypeOnly)) return true;
    }
    s = checker.getImmediateAliasedSymbol(s);
  }
  return false;
}

/**
 * Type-checks the consumer project in `dir` (its tsconfig.json) and returns `{ diagnostics, values }`: the
 * formatted errors, and the names the package's declarations export as values (what must exist at run time).
 */
function typeCheck(dir, specifiers) {
  const configPath = join(dir, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => "\n" };
  let diagnostics = ts.formatDiagnostics([...parsed.errors, ...ts.getPreEmitDiagnostics(program)], host);
  const checker = program.getTypeChecker();
  const values = new Map(); // specifier -> exported value names
  specifiers.forEach((specifier, i) => {
    const consumer = program.getSourceFile(join(dir, `consumer-${i}.ts`));
    const decl = consumer?.statements.find(ts.isImportDeclaration);
    const moduleSymbol = decl === undefined ? undefined : checker.getSymbolAtLocation(decl.moduleSpecifier);
    if (moduleSymbol === undefined) {
      diagnostics += `\ncannot resolve ${specifier}'s types`;
      return;
    }
    const names = [];
    for (const sym of checker.getExportsOfModule(moduleSymbol)) {
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      if (target.flags & ts.SymbolFlags.Value && !typeOnlyExport(checker, sym)) names.push(sym.getName());
    }
    values.set(specifier, names.sort());
  });
  return { diagnostics, values };
}

/** The import specifiers of a package's entry points: its name for `.`, name + subpath for each other one. */
function entrySpecifiers(json) {
  const subpaths = Object.entries(json.exports ?? {})
    .filter(([k, v]) => k !== "." && typeof v === "object" && v !== null && typeof v.types === "string")
    .map(([k]) => `${json.name}${k.slice(1)}`);
  return [json.name, ...subpaths];
}

// 2–4. Install alone, import, type-check.
const internalOverrides = Object.fromEntries([...tarballOf].map(([n, t]) => [n, `file:${t}`]));

/** Steps 2–4 for one package manager, package after package. */
function lane(pm) {
  for (const p of checked) {
    const name = p.json.name;
    const tgz = tarballOf.get(name);
    if (tgz === undefined) continue;
    const label = `${name} [${pm}]`;
    const consumer = join(work, `${pm}-${p.name}`);
    mkdirSync(consumer);
    const manifest = {
      name: `consumer-of-${p.name}`,
      version: "0.0.0",
      private: true,
      type: "module",
      dependencies: { [name]: `file:${tgz}` },
    };
    const others = Object.fromEntries(Object.entries(internalOverrides).filter(([n]) => n !== name));
    if (pm === "npm") manifest.overrides = others;
    else manifest.pnpm = { overrides: others };
    writeFileSync(join(consumer, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

    let t0 = Date.now();
    const install = installWith(pm, consumer);
    if (!install.ok) {
      fail(`${label}: install`, install.out.split("\n").slice(-25).join("\n"));
      continue;
    }
    ok(`${label}: installed alone`, t0);

    // Types: a strict NodeNext consumer, ESM and CommonJS, with skipLibCheck off, of every entry point.
    const specifiers = entrySpecifiers(p.json);
    const consumerFiles = [];
    specifiers.forEach((specifier, i) => {
      writeFileSync(
        join(consumer, `consumer-${i}.ts`),
        `import * as m from ${JSON.stringify(specifier)};\nexport const names: string[] = Object.keys(m);\n`,
      );
      writeFileSync(
        join(consumer, `consumer-cjs-${i}.cts`),
        `import m = require(${JSON.stringify(specifier)});\nexport const names: string[] = Object.keys(m);\n`,
      );
      consumerFiles.push(`consumer-${i}.ts`, `consumer-cjs-${i}.cts`);
    });
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          // The consumer's own @types/node: the workspace's (a user brings theirs).
          typeRoots: [join(root, "node_modules", "@types")],
          types: ["node"],
        },
        files: consumerFiles,
      }),
    );
    t0 = Date.now();
    const types = typeCheck(consumer, specifiers);
    const entries = `${specifiers.length} entry point${specifiers.length === 1 ? "" : "s"}`;
    if (types.diagnostics === "") ok(`${label}: ${entries} type-check with skipLibCheck: false (ESM and CommonJS)`, t0);
    else fail(`${label}: type-check with skipLibCheck: false`, types.diagnostics.split("\n").slice(0, 30).join("\n"));

    // Run-time: ESM import and CommonJS require() of each entry point expose every value its declarations export.
    for (const [i, specifier] of specifiers.entries()) {
      const expected = types.values.get(specifier) ?? [];
      writeFileSync(
        join(consumer, `esm-${i}.mjs`),
        `import * as m from ${JSON.stringify(specifier)};\nconst want = ${JSON.stringify(expected)};\n` +
          `const missing = want.filter((k) => m[k] === undefined);\n` +
          `if (want.length === 0 || missing.length > 0) { console.error("missing exports: " + missing.join(", ")); process.exit(1); }\n`,
      );
      writeFileSync(
        join(consumer, `cjs-${i}.cjs`),
        `const m = require(${JSON.stringify(specifier)});\nconst want = ${JSON.stringify(expected)};\n` +
          `const missing = want.filter((k) => m[k] === undefined);\n` +
          `if (want.length === 0 || missing.length > 0) { console.error("missing exports: " + missing.join(", ")); process.exit(1); }\n`,
      );
      t0 = Date.now();
      const esm = run(process.execPath, [`esm-${i}.mjs`], consumer);
      const cjs = run(process.execPath, ["--disable-warning=ExperimentalWarning", `cjs-${i}.cjs`], consumer);
      const what = `${label}${specifier === name ? "" : ` ${specifier.slice(name.length)}`}`;
      if (!esm.ok) fail(`${what}: import (ESM)`, esm.out);
      if (!cjs.ok) fail(`${what}: require (CommonJS)`, cjs.out);
      if (esm.ok && cjs.ok) ok(`${what}: import and require expose all ${expected.length} exported values`, t0);
    }

    if (p.name === "testing") docsExample(pm);

    for (const bin of Object.keys(typeof p.json.bin === "string" ? { [p.name]: p.json.bin } : (p.json.bin ?? {}))) {
      const r = run(join(consumer, "node_modules", ".bin", bin), ["--help"], consumer);
      if (r.ok) ok(`${label}: bin ${bin} --help`);
      else fail(`${label}: bin ${bin} --help`, r.out);
    }
  }
}

/**
 * 5. docs/testing.md's first example ("Property-testing your controller"), as a user outside the monorepo
 * runs it: a project that installs @informer-ts/testing and the other packages the example imports from their
 * tarballs, type-checks the block (strict, NodeNext, skipLibCheck off), compiles it to JavaScript and runs it with
 * node's test runner. The example's property must pass.
 */
function docsExample(pm) {
  const label = `docs/testing.md example [${pm}]`;
  const text = readFileSync(join(root, "docs", "testing.md"), "utf8");
  const block = /## Property-testing your controller\n+```ts\n([\s\S]*?)\n```/.exec(text)?.[1];
  if (block === undefined) {
    fail(`${label}: find the example`, 'no ts block under "## Property-testing your controller"');
    return;
  }
  const imported = [...new Set([...block.matchAll(/from "(@informer-ts\/[a-z-]+)"/g)].map((m) => m[1]))];
  const missing = imported.filter((n) => !tarballOf.has(n));
  if (missing.length > 0) {
    fail(`${label}: tarballs`, `no tarball for ${missing.join(", ")}`);
    return;
  }
  const dir = join(work, `${pm}-docs-testing-example`);
  mkdirSync(dir);
  const manifest = {
    name: "consumer-of-the-testing-docs",
    version: "0.0.0",
    private: true,
    type: "module",
    dependencies: Object.fromEntries(imported.map((n) => [n, `file:${tarballOf.get(n)}`])),
  };
  // Every @informer-ts package from its tarball, the directly imported ones included (the others need them too).
  if (pm === "npm") manifest.overrides = { ...internalOverrides };
  else manifest.pnpm = { overrides: { ...internalOverrides } };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  let t0 = Date.now();
  const install = installWith(pm, dir);
  if (!install.ok) {
    fail(`${label}: install`, install.out.split("\n").slice(-25).join("\n"));
    return;
  }
  ok(`${label}: installed ${imported.join(", ")}`, t0);
  writeFileSync(join(dir, "example.ts"), `${block}\n`);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        typeRoots: [join(root, "node_modules", "@types")],
        types: ["node"],
      },
      files: ["example.ts"],
    }),
  );
  t0 = Date.now();
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(join(dir, "tsconfig.json"), ts.sys.readFile).config,
    ts.sys,
    dir,
  );
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => "\n" };
  const diagnostics = ts.formatDiagnostics([...config.errors, ...ts.getPreEmitDiagnostics(program)], host);
  if (diagnostics !== "") {
    fail(`${label}: type-check`, diagnostics.split("\n").slice(0, 30).join("\n"));
    return;
  }
  ok(`${label}: type-checks`, t0);
  const js = ts.transpileModule(block, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  writeFileSync(join(dir, "example.mjs"), js);
  t0 = Date.now();
  const r = run(process.execPath, ["--test", "example.mjs"], dir);
  if (r.ok) ok(`${label}: runs and passes (node --test)`, t0);
  else fail(`${label}: run`, r.out.split("\n").slice(-40).join("\n"));
}

if (laneWork !== undefined) {
  lane(managers[0]);
  process.exit(failures.length === 0 ? 0 : 1);
}
if (managers.length === 1) lane(managers[0]);
else {
  // One child per package manager, concurrently; each one's report is printed whole when it ends.
  const self = fileURLToPath(import.meta.url);
  const lanes = managers.map(
    (pm) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [self, "--pm", pm, "--lane", work, ...only], {
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (c) => {
          out += c;
        });
        child.stderr.setEncoding("utf8").on("data", (c) => {
          out += c;
        });
        child.on("error", (err) => resolve({ pm, out: `${out}${String(err)}\n`, code: 1 }));
        child.on("close", (code, signal) => resolve({ pm, out, code: code ?? signal }));
      }),
  );
  for (const { pm, out, code } of await Promise.all(lanes)) {
    process.stdout.write(out);
    const failed = out.split("\n").filter((l) => l.startsWith("  FAIL ")).length;
    if (code !== 0 && failed === 0) fail(`${pm} lane exited with ${code}`);
    for (let i = 0; i < failed; i++) failures.push(pm);
  }
}

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(
  `pack-check: ${checked.length} packages × ${managers.length} package managers, ${failures.length} failures (${secs(started)})`,
);
process.exit(failures.length === 0 ? 0 : 1);
