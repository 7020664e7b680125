import { runApiserver } from "./apiserver.js";
import { runCacheFifo } from "./cache-fifo.js";
import { runCacheStore } from "./cache-store.js";
import { runReflector } from "./reflector.js";
import { type BenchResult, writeResult } from "./report.js";
import { runWorkqueue } from "./workqueue.js";

/** Each benchmark module registers here: name → runner. */
const benches: Record<string, () => Promise<BenchResult | BenchResult[]>> = {
  workqueue: runWorkqueue,
  reflector: runReflector,
  cache: async () => [await runCacheStore(), await runCacheFifo()],
  apiserver: runApiserver,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : Object.keys(benches);
  const unknown = names.filter((n) => benches[n] === undefined);
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(", ")}; known: ${Object.keys(benches).join(", ")}\n`);
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
