// Writes or checks the reviewed API report of every published package: one `etc/<name>[-<subpath>].api.md` per
// entry point of its `package.json` `exports` (`.` and each subpath), made by @microsoft/api-extractor from the
// built declarations (`dist/**/*.d.ts`, so run `pnpm build` first).
//
//   node scripts/api-report.mjs            check: exit 1 with a diff when a package's surface differs from its report
//   node scripts/api-report.mjs --update   rewrite the reports (review the diff and commit it with the change)
//   … [package-dir-name…]                   only those packages
//
// api-extractor 7.60 bundles TypeScript 6.0.3, the compiler this repo builds with. Declarations of the other
// @informer-ts packages are resolved through node_modules to their own dist/ and count as external packages, so
// each report lists only what its own entry point exports.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const update = args.includes("--update");
const only = args.filter((a) => !a.startsWith("--"));
const temp = mkdtempSync(join(tmpdir(), "informer-ts-api-report-"));
const started = Date.now();

/** The published packages (not `private`) and their entry points with declarations. */
function entryPoints() {
  const out = [];
  for (const dir of readdirSync(join(root, "packages")).sort()) {
    const pkgDir = join(root, "packages", dir);
    if (!existsSync(join(pkgDir, "package.json"))) continue;
    const json = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    if (json.private === true || (only.length > 0 && !only.includes(dir))) continue;
    const unscoped = json.name.replace(/^@[^/]+\//, "");
    for (const [subpath, target] of Object.entries(json.exports ?? {})) {
      if (typeof target !== "object" || target === null || typeof target.types !== "string") continue;
      const suffix = subpath === "." ? "" : `-${subpath.replace(/^\.\//, "").replaceAll("/", "-")}`;
      out.push({
        pkgDir,
        packageName: json.name,
        subpath,
        dts: join(pkgDir, target.types),
        reportFileName: `${unscoped}${suffix}.api.md`,
      });
    }
  }
  return out;
}

/** One api-extractor run for one entry point; returns whether its report matches (check) or was written (update). */
function extract(entry) {
  const t0 = Date.now();
  const label = `${entry.packageName}${entry.subpath === "." ? "" : entry.subpath.slice(1)}`;
  if (!existsSync(entry.dts)) {
    console.log(`  FAIL ${label}: ${relative(root, entry.dts)} is missing — run \`pnpm build\` first`);
    return false;
  }
  const reportFolder = join(entry.pkgDir, "etc");
  const reportTempFolder = join(temp, relative(join(root, "packages"), entry.pkgDir));
  mkdirSync(reportFolder, { recursive: true });
  mkdirSync(reportTempFolder, { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: entry.pkgDir,
      mainEntryPointFilePath: entry.dts,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            skipLibCheck: true,
            types: ["node"],
            lib: ["ES2023"],
          },
          include: [entry.dts],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.reportFileName,
        reportFolder,
        reportTempFolder,
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          default: { logLevel: "none", addToApiReportFile: false },
          // A type reachable from the surface but not exported by the entry: noted in the report for review.
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
          "ae-missing-release-tag": { logLevel: "none", addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: "none", addToApiReportFile: false } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(entry.pkgDir, "package.json"),
  });
  const messages = [];
  const result = Extractor.invoke(config, {
    localBuild: update,
    showVerboseMessages: false,
    messageCallback: (m) => {
      if (m.logLevel === "error" || m.logLevel === "warning") messages.push(m.formatMessageWithLocation(root));
      m.handled = true;
    },
  });
  const report = join(reportFolder, entry.reportFileName);
  const secs = `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  if (!result.succeeded && !result.apiReportChanged) {
    console.log(`  FAIL ${label}: api-extractor failed (${secs})`);
    for (const m of messages) console.log(`       ${m}`);
    return false;
  }
  if (result.apiReportChanged && !update) {
    console.log(`  FAIL ${label}: the surface differs from ${relative(root, report)} (${secs})`);
    const fresh = join(reportTempFolder, entry.reportFileName);
    const diff = spawnSync(
      "git",
      ["diff", "--no-index", "--no-color", "--", existsSync(report) ? report : "/dev/null", fresh],
      {
        encoding: "utf8",
      },
    );
    console.log(diff.stdout.replace(/^/gm, "       ").trimEnd());
    return false;
  }
  console.log(`  ok   ${label}${result.apiReportChanged ? ` (rewrote ${relative(root, report)})` : ""} (${secs})`);
  return true;
}

const entries = entryPoints();
if (entries.length === 0) {
  console.error("api-report: no entry points found");
  process.exit(1);
}
let failed = 0;
for (const e of entries) if (!extract(e)) failed++;
rmSync(temp, { recursive: true, force: true });
// Reports of entry points that no longer exist would go stale unnoticed: name them.
const known = new Set(entries.map((e) => join(e.pkgDir, "etc", e.reportFileName)));
for (const pkgDir of new Set(entries.map((e) => e.pkgDir))) {
  const etc = join(pkgDir, "etc");
  for (const f of existsSync(etc) ? readdirSync(etc) : []) {
    if (!f.endsWith(".api.md") || known.has(join(etc, f))) continue;
    if (update) {
      rmSync(join(etc, f));
      console.log(`  ok   removed ${relative(root, join(etc, f))} (no such entry point)`);
    } else {
      console.log(`  FAIL ${relative(root, join(etc, f))} belongs to no entry point (run pnpm api:update)`);
      failed++;
    }
  }
}
const total = `${((Date.now() - started) / 1000).toFixed(1)} s`;
if (failed > 0) {
  console.log(`api-report: ${failed} of ${entries.length} entry points differ from their reports (${total}).`);
  console.log("If the change is intended, run `pnpm api:update`, review the diff of etc/*.api.md and commit it.");
  process.exit(1);
}
console.log(`api-report: ${entries.length} entry points ${update ? "written" : "match their reports"} (${total}).`);
