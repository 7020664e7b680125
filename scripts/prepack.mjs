// `prepack` of every library package (run by `pnpm pack` / `npm pack` / publish in the package's directory):
// 1. builds the package and what it references (`tsc -b`, incremental) — a failed build fails the pack;
// 2. removes outputs in dist/ whose source is gone (a renamed file must not ship its old build);
// 3. fails unless every file the package.json `exports`/`types`/`bin` points at exists;
// 4. requires a README.md and copies the repository's LICENSE into the package (git ignores the copy).
// So packing can never silently ship a package without its build, README or LICENSE. It also refuses to run under
// npm (`npm pack`/`npm publish`), which would ship `workspace:^` ranges unrewritten: use `pnpm pack`/`pnpm publish`.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkgDir = process.cwd();
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const fail = (msg) => {
  console.error(`prepack ${pkg.name}: ${msg}`);
  process.exit(1);
};

const agent = process.env.npm_config_user_agent ?? "";
if (agent.startsWith("npm/")) {
  fail("pack with pnpm (`pnpm pack`): npm would leave the workspace:^ dependency ranges unrewritten");
}

// 1. Build.
const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
const build = spawnSync(process.execPath, [tsc, "-b", "tsconfig.json"], { cwd: pkgDir, stdio: "inherit" });
if (build.status !== 0) fail(`tsc -b failed (exit ${build.status ?? build.signal}); nothing packed`);

// 2. Orphaned outputs: dist/x.js, .js.map, .d.ts, .d.ts.map without src/x.ts.
const dist = join(pkgDir, "dist");
const src = join(pkgDir, "src");
function prune(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    const stem = relative(dist, path).replace(/(\.d\.ts|\.js)(\.map)?$/, "");
    if (stem === relative(dist, path)) continue; // not a compiler output
    if (!existsSync(join(src, `${stem}.ts`))) rmSync(path);
  }
}
if (!existsSync(dist)) fail("no dist/ after the build");
prune(dist);

// 3. Every entry point exists.
const targets = [];
const collect = (v) => {
  if (typeof v === "string") targets.push(v);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x);
};
collect(pkg.exports);
collect(pkg.types);
collect(pkg.main);
collect(pkg.bin);
for (const t of targets) {
  if (t.includes("*")) continue;
  if (!existsSync(join(pkgDir, t))) fail(`${t} (named in package.json) does not exist after the build`);
}

// 4. README and LICENSE.
if (!existsSync(join(pkgDir, "README.md"))) fail("README.md is missing (what it is, install, an example, docs link)");
copyFileSync(join(root, "LICENSE"), join(pkgDir, "LICENSE"));
