#!/usr/bin/env node
// The `informer` CLI (`pnpm informer`, `pnpm demo`). Exit statuses: 0 success, 1 a check failed or the command
// failed, 2 bad command line, 130 interrupted by Ctrl-C.
import { didYouMean, parseCommandLine, UsageError } from "@informer-ts/apimachinery";
import { helpFor, INFORMER_COMMANDS, INFORMER_USAGE, SCENARIO_NAMES } from "./cli-usage.js";

/** Exit status after Ctrl-C (128 + SIGINT), as shells report it. */
const INTERRUPTED = 130;

async function demo(args: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args,
    options: {
      objects: { type: "string", default: "2000" },
      seconds: { type: "string", default: "6" },
      rate: { type: "string", default: "400" },
      seed: { type: "string", default: "1" },
      "sync-timeout": { type: "string", default: "60" },
      downtime: { type: "string", default: "1" },
    },
  });
  const num = (name: keyof typeof values, min: number): number => {
    const v = Number(values[name]);
    if (!Number.isFinite(v) || v < min)
      throw new UsageError(`--${name} must be a number ≥ ${min}, got "${values[name]}"`);
    return v;
  };
  const options = {
    objects: num("objects", 0),
    seconds: num("seconds", 1),
    rate: num("rate", 1),
    seed: num("seed", 0),
    syncTimeoutMs: num("sync-timeout", 0) * 1000,
    downtimeMs: num("downtime", 0) * 1000,
  };
  // Ctrl-C: say so, stop the informer and the apiserver (runDemo closes everything), exit 130. A second Ctrl-C
  // while that runs exits at once.
  const ac = new AbortController();
  const onSigint = () => {
    if (ac.signal.aborted) process.exit(INTERRUPTED);
    process.stderr.write("\ninformer: interrupted (Ctrl-C); stopping the informer and the apiserver…\n");
    ac.abort();
  };
  process.on("SIGINT", onSigint);
  // Loaded here, not at the top: the help and usage errors answer without loading the informer stack.
  const { DemoInterruptedError, runDemo } = await import("./demo.js");
  try {
    const result = await runDemo({ ...options, signal: ac.signal });
    return result.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof DemoInterruptedError) {
      process.stderr.write("informer: stopped cleanly after Ctrl-C\n");
      return INTERRUPTED;
    }
    throw err;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

async function main(argv: string[]): Promise<number> {
  const help = helpFor(argv);
  if (help !== undefined) {
    process.stdout.write(help);
    return 0;
  }
  const [command, ...rest] = argv;
  try {
    if (command === "demo") return await demo(rest);
    if (command === "scenario") {
      // Loaded here: help and usage errors answer without loading the informer stack.
      const { scenarioCommand } = await import("./study-command.js");
      return await scenarioCommand(rest, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
    }
    if (command === "analyze-logs") {
      // Loaded here: help and usage errors answer without loading the analyzer.
      const { analyzeLogsCommand } = await import("./analyze-logs/analyze-logs-command.js");
      return await analyzeLogsCommand(rest, {
        out: (t) => process.stdout.write(t),
        err: (t) => process.stderr.write(t),
      });
    }
    if (command === undefined) {
      process.stdout.write(INFORMER_USAGE);
      return 0;
    }
    // `help <name>` with a name that is no command (helpFor answered every known one).
    const unknown = command === "help" && rest[0] !== undefined ? rest[0] : command;
    const what = unknown.startsWith("-") ? `unknown option ${unknown}` : `unknown command "${unknown}"`;
    const candidates = unknown.startsWith("-") ? ["--help", "-h"] : INFORMER_COMMANDS;
    throw new UsageError(`${what}${didYouMean(unknown, candidates)}`);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const study = command === "scenario" && rest[0] !== undefined && SCENARIO_NAMES.includes(rest[0]);
    const usage =
      command === "demo"
        ? "informer demo --help lists its flags"
        : command === "analyze-logs"
          ? "informer analyze-logs --help lists its flags"
          : command === "scenario"
            ? study
              ? `informer scenario ${rest[0]} --help lists its flags`
              : "informer scenario --help lists the studies"
            : "informer --help lists the commands and flags";
    process.stderr.write(`informer: ${err.message}\n(${usage})\n`);
    return 2;
  }
}

// A reader that goes away (`informer demo | head`) is not an error of the demo: stop quietly.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`informer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
