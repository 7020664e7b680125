// Runs the property against the naive index (it prints the shrunk story of the planted bug), then against the fixed
// one. `FC_SEED=<n>` replays a printed seed; `--http` runs the cases over a loopback HTTP listener.
import { naiveNamespaceIndex, namespaceIndex } from "./namespace-index.js";
import { checkNamespaceIndex } from "./property.js";

const transport = process.argv.includes("--http") ? ("http" as const) : ("in-process" as const);

try {
  await checkNamespaceIndex(naiveNamespaceIndex, { transport });
  console.log("naive index: no counterexample found (unexpected)");
  process.exitCode = 1;
} catch (err) {
  console.log(`naive index: the kit found the bug\n${err instanceof Error ? err.message : String(err)}\n`);
}
const fixed = await checkNamespaceIndex(namespaceIndex, { transport });
console.log(`fixed index: ${fixed.numRuns} generated cases passed (seed ${fixed.seed})`);
