// `pnpm test:explore [filter…] [--runs N]`: runs every property-test file (those calling fast-check or a runner of
// @informer-ts/testing: checkInformer, checkController, checkSubject) with a fresh
// random seed instead of the fixed one CI uses (test/setup/fast-check.ts), N times (default 1). The seed is printed
// before each run, and again with the command that reproduces it when a run fails. Arguments other than --runs
// narrow the files (substring match on the path).
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
let runs = 1;
const filters = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--help" || args[i] === "-h") {
    console.log(
      "usage: pnpm test:explore [path-filter…] [--runs N]\n\nRuns the fast-check property files with random seeds and prints the seed of any failure.",
    );
    process.exit(0);
  }
  if (args[i] === "--runs") {
    runs = Number.parseInt(args[++i] ?? "", 10);
    if (!Number.isSafeInteger(runs) || runs < 1) {
      console.error(`--runs needs a positive integer, got "${args[i]}"`);
      process.exit(2);
    }
  } else filters.push(args[i]);
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (name.endsWith(".test.ts")) yield path;
  }
}

const candidates = [...walk(join(root, "packages")), ...walk(join(root, "test"))];
const files = candidates
  .filter((f) =>
    /\bfc\.(assert|asyncProperty|property)\b|@fast-check\/vitest|\bcheck(Informer|Controller|Subject)(<[^>(]*>)?\(/.test(
      readFileSync(f, "utf8"),
    ),
  )
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no property-test file matches ${filters.join(", ")}`);
  process.exit(2);
}

const vitest = join(root, "node_modules", ".bin", process.platform === "win32" ? "vitest.cmd" : "vitest");
for (let run = 1; run <= runs; run++) {
  const seed = randomInt(1, 2 ** 31 - 1);
  console.log(`test:explore run ${run}/${runs}: FC_SEED=${seed} over ${files.length} property file(s)`);
  const result = spawnSync(vitest, ["run", ...files], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, FC_SEED: String(seed) },
  });
  if (result.status !== 0) {
    console.error(`\ntest:explore: a property failed with FC_SEED=${seed}. Reproduce with:`);
    console.error(`  FC_SEED=${seed} pnpm exec vitest run ${files.join(" ")}`);
    process.exit(result.status ?? 1);
  }
}
console.log(`test:explore: ${runs} run(s) passed`);
