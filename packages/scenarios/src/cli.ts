#!/usr/bin/env node
import { parseArgs } from "node:util";
import { runDemo } from "./demo.js";

const usage = `usage: informer <command> [options]

commands:
  demo [--objects N] [--seconds S] [--rate R] [--seed K] [--sync-timeout S]
       run a SharedIndexInformer through churn and faults and check it converges.
       The demo runs on the real clock over real sockets: --seed fixes the sequence of writes, not the
       timing, so the counts it prints (relists, requests, handler calls) can differ between runs.
       --sync-timeout: seconds to wait for the informer's initial sync before failing (default 60).
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "demo") {
    const { values } = parseArgs({
      args: rest,
      options: {
        objects: { type: "string", default: "2000" },
        seconds: { type: "string", default: "6" },
        rate: { type: "string", default: "400" },
        seed: { type: "string", default: "1" },
        "sync-timeout": { type: "string", default: "60" },
      },
    });
    const num = (name: keyof typeof values, min: number): number => {
      const v = Number(values[name]);
      if (!Number.isFinite(v) || v < min) throw new Error(`--${name} must be a number ≥ ${min}, got "${values[name]}"`);
      return v;
    };
    const result = await runDemo({
      objects: num("objects", 0),
      seconds: num("seconds", 1),
      rate: num("rate", 1),
      seed: num("seed", 0),
      syncTimeoutMs: num("sync-timeout", 0) * 1000,
    });
    return result.converged ? 0 : 1;
  }
  process.stderr.write(command === undefined || command === "help" ? usage : `unknown command "${command}"\n${usage}`);
  return command === undefined || command === "help" ? 0 : 2;
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
