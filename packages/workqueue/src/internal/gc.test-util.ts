// A real garbage collector for memory tests (imported only by *.test.ts files).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let cached: (() => void) | undefined;

/**
 * `global.gc` when the process runs with `--expose-gc`; otherwise the flag is switched on at run time and the
 * collector is taken from a fresh V8 context, which then exposes it. Throws if neither works, so a memory
 * test fails instead of silently passing.
 */
export function getGc(): () => void {
  if (cached !== undefined) return cached;
  const global = (globalThis as { gc?: () => void }).gc;
  if (typeof global === "function") {
    cached = global;
    return global;
  }
  setFlagsFromString("--expose-gc");
  const fromContext: unknown = runInNewContext("gc");
  if (typeof fromContext !== "function") throw new Error("could not obtain a garbage collector (--expose-gc)");
  cached = fromContext as () => void;
  return cached;
}

/** Lets pending callbacks run, then collects garbage several times. */
export async function collectGarbage(): Promise<void> {
  const gc = getGc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}
