// Runs the property against the naive index (it prints the shrunk story of the planted bug), then against the fixed
// one. `FC_SEED=<n>` replays a printed seed; `--http` runs the cases over a loopback HTTP listener.
import { naiveNamespaceIndex, namespaceIndex } from "./namespace-index.js";
import { checkNamespaceIndex } from "./property.js";

const args = process.argv.slice(2);
if (args.includes("-h") || args.includes("--help")) {
  process.stdout.write(
    "Usage: node dist/main.js [--http]\n" +
      "  Runs the property against the naive namespace index (prints the shrunk story), then the fixed one.\n" +
      "  --http      run the cases over a loopback HTTP listener instead of in-process\n" +
      '  FC_SEED=<n> replays a printed seed ("random" draws one)\n',
  );
  process.exit(0);
}
const unknown = args.filter((a) => a !== "--http");
if (unknown.length > 0) {
  process.stderr.write(`namespace-index: unknown argument ${unknown.map((a) => `"${a}"`).join(", ")} (--help)\n`);
  process.exit(2);
}
const transport = args.includes("--http") ? ("http" as const) : ("in-process" as const);

try {
  try {
    await checkNamespaceIndex(naiveNamespaceIndex, { transport });
    console.log("naive index: no counterexample found (unexpected)");
    process.exitCode = 1;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Only a broken invariant is the bug; anything else (a bad FC_SEED, …) is the run failing.
    if (!message.startsWith("checkInformer: a generated case broke")) throw err;
    console.log(`naive index: the kit found the bug\n${message}\n`);
  }
  const fixed = await checkNamespaceIndex(namespaceIndex, { transport });
  console.log(`fixed index: ${fixed.numRuns} generated cases passed (seed ${fixed.seed})`);
} catch (err) {
  process.stderr.write(`namespace-index: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
