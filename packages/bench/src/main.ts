import { didYouMean, parseCommandLine, UsageError } from "@informer-ts/apimachinery";
import { runApiserver } from "./apiserver.js";
import { runCacheFifo } from "./cache-fifo.js";
import { runCacheStore } from "./cache-store.js";
import { runCluster } from "./cluster.js";
import { runController } from "./controller.js";
import { runInformer } from "./informer.js";
import { runInstructions } from "./instructions.js";
import { runReflector } from "./reflector.js";
import { type BenchResult, writeResult } from "./report.js";
import { runTesting } from "./testing.js";
import { BENCH_SUITES, helpFor } from "./usage.js";
import { runWorkqueue } from "./workqueue.js";

/** Each benchmark module registers here: name → runner (described, in the same order, in usage.ts). */
const benches: Record<string, () => Promise<BenchResult | BenchResult[]>> = {
  workqueue: runWorkqueue,
  reflector: runReflector,
  cache: async () => [await runCacheStore(), await runCacheFifo()],
  apiserver: runApiserver,
  informer: runInformer,
  controller: runController,
  testing: runTesting,
  cluster: runCluster,
  instructions: runInstructions,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const help = helpFor(args);
  if (help !== undefined) {
    process.stdout.write(help);
    return;
  }
  let wanted: string[];
  try {
    wanted = parseCommandLine({
      args,
      options: { help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    }).positionals;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`bench: ${err.message}\n(pnpm bench --help lists the suites and their variables)\n`);
    process.exitCode = 2;
    return;
  }
  const known = BENCH_SUITES.map((s) => s.name);
  const names = wanted.length > 0 ? wanted : known;
  const unknown = names.filter((n) => benches[n] === undefined);
  if (unknown.length > 0) {
    const hints = unknown.map((n) => `${n}${didYouMean(n, known)}`).join("; ");
    process.stderr.write(`bench: unknown suite ${hints}\n(known: ${known.join(", ")}; pnpm bench --help)\n`);
    process.exitCode = 2;
    return;
  }
  for (const name of names) {
    const out = await benches[name]!();
    for (const r of Array.isArray(out) ? out : [out]) process.stdout.write(writeResult(r) + "\n");
  }
}

await main().catch((err: unknown) => {
  // A bad size in the environment (or a benchmark that fails) is reported in one line, not as a stack trace.
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
