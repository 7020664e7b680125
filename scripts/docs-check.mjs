// Type-checks every TypeScript block of the docs against the packages' public exports.
//
// Blocks are the fenced ```ts / ```typescript blocks of docs/*.md, the root README.md, packages/*/README.md and
// examples/*/README.md.
// Each block becomes one ES module (so top-level await works and blocks do not see each other's names) and all of
// them are checked in one `tsc` run with the repository's strict settings; `@informer-ts/<pkg>` resolves to
// `packages/<pkg>/src/index.ts`, i.e. exactly what the package exports; the packages' own dependencies (rxjs,
// undici, prom-client …) resolve as a user who installed the packages would see them, and other imports (node:*,
// @kubernetes/client-node …) from the workspace's node_modules.
//
// Plain-JavaScript blocks (```js / ```javascript / ```mjs) are *run*: each as its own ES module with Node, against
// the built packages (`packages/<pkg>/dist`, through their `exports`: what `npm install` gives a user; run `pnpm run
// build` first), from a directory whose node_modules links every workspace package. A block that exits non-zero, or
// runs over 60 s, is an error at its doc line with its stderr.
//
// A block that cannot compile (or, in JavaScript, run) on its own (a signature, a piece of a longer listing) opts out with a first line
//   // fragment: <why it is not a complete program>
// The reason is mandatory: a bare `// fragment` is an error, so every exemption says why.
//
// `node scripts/docs-check.mjs [file.md…]` (default: all of the above) prints `file:line` diagnostics and exits 1
// on any error; `--list` prints the blocks it found. test/docs/docs-compile.test.ts runs it.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cacheDir = join(root, "node_modules", ".cache");
const FRAGMENT = /^\s*\/\/\s*fragment\b\s*:?\s*(.*)$/i;
const TS_INFO = /^(ts|typescript|mts|cts)$/i;
const JS_INFO = /^(js|javascript|mjs)$/i;

/** Markdown files whose TypeScript blocks are checked. */
export function docFiles() {
  const files = [];
  const docs = join(root, "docs");
  for (const f of readdirSync(docs).sort()) if (f.endsWith(".md")) files.push(join(docs, f));
  if (existsSync(join(root, "README.md"))) files.push(join(root, "README.md"));
  for (const group of ["packages", "examples"]) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const p of readdirSync(dir).sort()) {
      const readme = join(dir, p, "README.md");
      if (existsSync(readme)) files.push(readme);
    }
  }
  return files;
}

/**
 * The fenced TypeScript blocks of one markdown text: `{ line, code, fragment }` where `line` is the 1-based line of
 * the block's first code line and `fragment` is the reason given on its `// fragment:` line (or undefined).
 */
export function extractBlocks(text, langs = TS_INFO) {
  const blocks = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let j = i + 1;
    const body = [];
    while (j < lines.length && !(lines[j].trim().startsWith(fence) && lines[j].trim().replace(/[`~]/g, "") === "")) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      j++;
    }
    if (langs.test(lang)) {
      const m = body.length > 0 ? FRAGMENT.exec(body[0]) : null;
      blocks.push({ line: i + 2, code: body.join("\n"), fragment: m ? m[1].trim() : undefined });
    }
    i = j;
  }
  return blocks;
}

function tscBin() {
  const require = createRequire(join(root, "package.json"));
  return require.resolve("typescript/bin/tsc");
}

/** Writes one module per checked block and runs tsc; returns `{ blocks, fragments, errors: string[] }`. */
export function checkDocs({ files = docFiles() } = {}) {
  // Under the workspace's node_modules (so imports resolve from it, and Biome ignores it); one directory per run.
  mkdirSync(cacheDir, { recursive: true });
  const outDir = mkdtempSync(join(cacheDir, "docs-check-"));
  try {
    const ts = checkIn(outDir, files);
    const js = runJsBlocks(outDir, files);
    return { ...ts, jsBlocks: js.blocks, fragments: ts.fragments + js.fragments, errors: [...ts.errors, ...js.errors] };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * Links every third-party dependency of a workspace package into `dir/node_modules`, so blocks can import what a
 * user of the packages has installed alongside them (rxjs for the streams, …).
 */
function linkPackageDependencies(dir) {
  const packages = join(root, "packages");
  for (const p of readdirSync(packages)) {
    const manifest = join(packages, p, "package.json");
    if (!existsSync(manifest)) continue;
    const deps = Object.keys(JSON.parse(readFileSync(manifest, "utf8")).dependencies ?? {});
    for (const dep of deps) {
      if (dep.startsWith("@informer-ts/")) continue;
      const from = join(packages, p, "node_modules", ...dep.split("/"));
      const to = join(dir, "node_modules", ...dep.split("/"));
      if (!existsSync(from) || existsSync(to)) continue;
      mkdirSync(dirname(to), { recursive: true });
      symlinkSync(realpathSync(from), to, "dir");
    }
  }
}

/**
 * Runs every plain-JavaScript block with Node from `outDir/js`, whose node_modules links each workspace package
 * (`@informer-ts/<pkg>` → `packages/<pkg>`, resolved through its `exports` to `dist`) and their third-party
 * dependencies. Returns `{ blocks, fragments, errors }`.
 */
function runJsBlocks(outDir, files) {
  const dir = join(outDir, "js");
  mkdirSync(dir, { recursive: true });
  linkPackageDependencies(dir);
  const packages = join(root, "packages");
  const missingDist = [];
  for (const p of readdirSync(packages)) {
    const manifest = join(packages, p, "package.json");
    if (!existsSync(manifest)) continue;
    const name = JSON.parse(readFileSync(manifest, "utf8")).name;
    if (typeof name !== "string" || !name.startsWith("@informer-ts/")) continue;
    const to = join(dir, "node_modules", ...name.split("/"));
    mkdirSync(dirname(to), { recursive: true });
    if (!existsSync(to)) symlinkSync(join(packages, p), to, "dir");
    if (!existsSync(join(packages, p, "dist"))) missingDist.push(name);
  }
  const errors = [];
  let blocks = 0;
  let fragments = 0;
  for (const file of files) {
    const doc = relative(root, file);
    for (const block of extractBlocks(readFileSync(file, "utf8"), JS_INFO)) {
      if (block.fragment !== undefined) {
        if (block.fragment === "")
          errors.push(`${doc}:${block.line}: a fragment must say why it is not a complete program ("// fragment: …")`);
        fragments++;
        continue;
      }
      blocks++;
      const imports = [...block.code.matchAll(/from\s+["'](@informer-ts\/[^/"']+)/g)].map((m) => m[1]);
      const unbuilt = imports.filter((i) => missingDist.includes(i));
      if (unbuilt.length > 0) {
        errors.push(`${doc}:${block.line}: ${unbuilt.join(", ")} not built (no dist): run \`pnpm run build\` first`);
        continue;
      }
      const name = join(dir, `${doc.replace(/[/\\.]/g, "_")}_L${block.line}.mjs`);
      writeFileSync(name, `${block.code}\n`);
      const run = spawnSync(process.execPath, [name], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      if (run.status !== 0) {
        const why = run.error ? run.error.message : `exit ${run.status ?? run.signal}`;
        const err = (run.stderr ?? "").trim().split("\n").slice(0, 12).join("\n  ");
        errors.push(`${doc}:${block.line}: the JavaScript block failed (${why})${err === "" ? "" : `:\n  ${err}`}`);
      }
    }
  }
  return { blocks, fragments, errors };
}

/** tsconfig `paths` for each package's `exports` subpath `./<name>`: its source `src/<name>/index.ts`. */
function subpathPaths(outDir) {
  const paths = {};
  const packages = join(root, "packages");
  for (const p of readdirSync(packages)) {
    const manifest = join(packages, p, "package.json");
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, "utf8"));
    for (const sub of Object.keys(json.exports ?? {})) {
      if (sub === "." || sub === "./package.json") continue;
      paths[`${json.name}${sub.slice(1)}`] = [`${relative(outDir, root)}/packages/${p}/src/${sub.slice(2)}/index.ts`];
    }
  }
  return paths;
}

function checkIn(outDir, files) {
  linkPackageDependencies(outDir);
  const errors = [];
  const sources = new Map(); // generated file name -> { doc, line }
  let fragments = 0;
  for (const file of files) {
    const doc = relative(root, file);
    for (const block of extractBlocks(readFileSync(file, "utf8"))) {
      if (block.fragment !== undefined) {
        if (block.fragment === "") {
          errors.push(`${doc}:${block.line}: a fragment must say why it is not a complete program ("// fragment: …")`);
        }
        fragments++;
        continue;
      }
      const name = `${doc.replace(/[/\\.]/g, "_")}_L${block.line}.ts`;
      // `export {}` makes every block a module even when it imports nothing (its own scope, top-level await).
      writeFileSync(join(outDir, name), `${block.code}\nexport {};\n`);
      sources.set(name, { doc, line: block.line });
    }
  }
  writeFileSync(
    join(outDir, "tsconfig.json"),
    JSON.stringify(
      {
        extends: join(root, "tsconfig.base.json"),
        compilerOptions: {
          noEmit: true,
          // The packages' sources are most of what tsc checks here and change rarely between runs (the suite runs
          // this on Node 20 and again on the LTS): keep tsc's per-file results beside the run directories.
          incremental: true,
          tsBuildInfoFile: join(cacheDir, "docs-check.tsbuildinfo"),
          declaration: false,
          declarationMap: false,
          sourceMap: false,
          // Blocks may declare things only to show them; unused names are not errors in docs.
          noUnusedLocals: false,
          noUnusedParameters: false,
          paths: { "@informer-ts/*": [`${relative(outDir, root)}/packages/*/src/index.ts`], ...subpathPaths(outDir) },
          typeRoots: [join(root, "node_modules", "@types")],
        },
        include: ["./*.ts"],
      },
      null,
      2,
    ),
  );
  if (sources.size > 0) {
    const run = spawnSync(process.execPath, [tscBin(), "-p", join(outDir, "tsconfig.json"), "--pretty", "false"], {
      cwd: outDir,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${run.stdout}${run.stderr}`;
    for (const raw of output.split("\n")) {
      const line = raw.trimEnd();
      if (line === "") continue;
      // tsc prints "<file>(<line>,<col>): error TSxxxx: message" (file relative to cwd) and indented continuations.
      const m = /^(.*?)\((\d+),(\d+)\): (error .*)$/.exec(line);
      if (m) {
        const source = sources.get(m[1].replace(/^.*[/\\]/, ""));
        if (source) {
          errors.push(`${source.doc}:${source.line + Number(m[2]) - 1}:${m[3]}: ${m[4]}`);
          continue;
        }
        errors.push(`${relative(root, join(outDir, m[1]))}:${m[2]}:${m[3]}: ${m[4]}`);
      } else if (/^\s/.test(raw) && errors.length > 0) {
        errors[errors.length - 1] += `\n${line}`;
      } else {
        errors.push(line);
      }
    }
    if (run.status !== 0 && errors.length === 0) errors.push(`tsc exited with ${run.status ?? run.signal}`);
  }
  return { blocks: sources.size, fragments, errors };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const usage = "usage: node scripts/docs-check.mjs [--list] [file.md…]";
  if (args.includes("-h") || args.includes("--help")) {
    console.log(
      `${usage}\nType-checks the TypeScript blocks of the docs (default: docs/*.md, README.md, packages/*/README.md,\n` +
        "examples/*/README.md) against the packages' exports and runs their JavaScript blocks with Node against the\n" +
        "built packages (pnpm run build first); --list prints the blocks found instead.",
    );
    process.exit(0);
  }
  const unknownOptions = args.filter((a) => a.startsWith("-") && a !== "--list");
  if (unknownOptions.length > 0) {
    console.error(`docs-check: unknown option ${unknownOptions.join(" ")} (${usage})`);
    process.exit(2);
  }
  const named = args.filter((a) => !a.startsWith("-"));
  const missing = named.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    console.error(`docs-check: no such file: ${missing.join(", ")}`);
    process.exit(2);
  }
  const files = named.length > 0 ? named.map((f) => resolve(f)) : docFiles();
  if (args.includes("--list")) {
    for (const file of files) {
      for (const b of extractBlocks(readFileSync(file, "utf8"))) {
        const kind = b.fragment === undefined ? "checked" : `fragment: ${b.fragment}`;
        console.log(`${relative(root, file)}:${b.line}: ${kind}`);
      }
      for (const b of extractBlocks(readFileSync(file, "utf8"), JS_INFO)) {
        const kind = b.fragment === undefined ? "run (JavaScript)" : `fragment: ${b.fragment}`;
        console.log(`${relative(root, file)}:${b.line}: ${kind}`);
      }
    }
    process.exit(0);
  }
  const started = Date.now();
  const { blocks, fragments, errors, jsBlocks } = checkDocs({ files });
  for (const e of errors) console.error(e);
  const took = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `docs-check: ${blocks} TypeScript blocks type-checked, ${fragments} fragments exempt, ${errors.length} errors (${took} s); ` +
      `${jsBlocks} JavaScript blocks run against the built packages`,
  );
  process.exit(errors.length === 0 ? 0 : 1);
}
