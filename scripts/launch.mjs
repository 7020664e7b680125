#!/usr/bin/env node
// The root package.json's commands (`pnpm demo`, `pnpm informer`, `pnpm bench`, `pnpm apiserver`) go through here:
//
//   node scripts/launch.mjs <demo|informer|bench|apiserver> [args…]
//
// A command line that asks for help (-h, --help, `help`) is answered at once, without building: the command's usage
// module (a TypeScript file that imports nothing) is compiled on the fly with the TypeScript compiler API. Anything
// else builds what the command needs (`tsc -b`, incremental: a fraction of a second when nothing changed), saying so
// when it compiles for the first time or takes a while, then runs the built command with the same arguments and exits
// with its status. Ctrl-C reaches the command directly (same process group); this launcher waits for it to finish.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const studies = join(root, "packages", "studies");
const bench = join(root, "packages", "bench");
const simApiserver = join(root, "packages", "sim-apiserver");

/** What each command builds and runs. */
const commands = {
  demo: {
    project: join(studies, "tsconfig.json"),
    entry: join(studies, "dist", "cli.js"),
    prefix: ["demo"],
    usage: join(studies, "src", "cli-usage.ts"),
  },
  informer: {
    project: join(studies, "tsconfig.json"),
    entry: join(studies, "dist", "cli.js"),
    prefix: [],
    usage: join(studies, "src", "cli-usage.ts"),
  },
  bench: {
    project: join(bench, "tsconfig.json"),
    entry: join(bench, "dist", "main.js"),
    prefix: [],
    nodeFlags: ["--expose-gc"],
    usage: join(bench, "src", "usage.ts"),
  },
  apiserver: {
    project: join(simApiserver, "tsconfig.json"),
    entry: join(simApiserver, "dist", "main.js"),
    prefix: [],
    usage: join(simApiserver, "src", "cli", "cli-usage.ts"),
  },
};

const say = (line) => process.stderr.write(`informer-ts: ${line}\n`);

/** Compiles one import-free TypeScript module in memory and imports it. */
async function importUsage(file) {
  const ts = createRequire(import.meta.url)("typescript");
  const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);
}

/**
 * The directory the user ran the command in. pnpm and npm run a script in the package's root whatever the directory
 * it was typed in, and put that directory in INIT_CWD: relative paths (`--report sts.html`, `--seed objs.yaml`,
 * `bench-results/`) then resolve where the user is, not in the repository's root.
 */
function userCwd() {
  const dir = process.env.INIT_CWD;
  // Only when started in the root as a package script: a launcher started elsewhere (a test's temporary directory)
  // keeps its own directory even if it inherited an INIT_CWD.
  const inRoot = resolve(process.cwd()) === resolve(root);
  return inRoot && process.env.npm_lifecycle_event !== undefined && dir !== undefined && dir !== "" && existsSync(dir)
    ? dir
    : process.cwd();
}

/** Runs `node args…`, inheriting stdio; resolves with its exit status (128 + signal number when killed). */
function run(args, cwd = process.cwd()) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit", cwd });
    // The terminal sends Ctrl-C to the whole process group: the child handles it, this process only waits for it.
    const ignore = () => {};
    process.on("SIGINT", ignore);
    const forward = () => child.kill("SIGTERM");
    process.on("SIGTERM", forward);
    child.on("error", (err) => {
      say(`cannot start node: ${err.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      process.off("SIGINT", ignore);
      process.off("SIGTERM", forward);
      resolve(code ?? 128 + (signal === "SIGINT" ? 2 : signal === "SIGKILL" ? 9 : 15));
    });
  });
}

async function build(command) {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const first = !existsSync(command.entry);
  if (first) say("first run: compiling the TypeScript packages (tsc -b; 10 to 40 s, only this once)…");
  const started = Date.now();
  // A build that takes a while after the first one is recompiling changed packages: say so instead of going silent.
  const slow = first ? undefined : setTimeout(() => say("recompiling changed packages (tsc -b)…"), 1500);
  const code = await run([tsc, "-b", command.project]);
  if (slow !== undefined) clearTimeout(slow);
  if (code === 130) return code; // Ctrl-C while compiling: nothing to add.
  if (code !== 0) {
    say(`the build failed (tsc -b ${command.project} exited ${code}); the errors are above`);
    return code;
  }
  if (first) say(`compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  const command = commands[name];
  if (command === undefined) {
    say(`usage: node scripts/launch.mjs <${Object.keys(commands).join("|")}> [args…]`);
    return 2;
  }
  const full = [...command.prefix, ...args];
  if (full.some((a) => a === "-h" || a === "--help" || a === "help")) {
    const text = (await importUsage(command.usage)).helpFor(full);
    if (text !== undefined) {
      process.stdout.write(text);
      return 0;
    }
  }
  const built = await build(command);
  if (built !== 0) return built;
  return run([...(command.nodeFlags ?? []), command.entry, ...full], userCwd());
}

process.exitCode = await main();
