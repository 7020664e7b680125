// Per-item processing cost of a scenario's workers, in virtual milliseconds.
import type { Rand } from "@informer-ts/clock";

/**
 * How long a worker spends on one item, in virtual ms: a fixed number, a distribution drawn from the scenario's
 * seeded {@link Rand}, or a function of the key (and the rand). Every value must be a finite number ≥ 0.
 */
export type ProcessingCost =
  | number
  | { readonly kind: "uniform"; readonly minMs: number; readonly maxMs: number }
  | { readonly kind: "exponential"; readonly meanMs: number }
  | ((key: string, rand: Rand) => number);

/**
 * Turns a {@link ProcessingCost} into a function of the key. Throws a `RangeError` naming the bad value for a
 * negative or non-finite cost (at construction for fixed costs and distributions, at the draw for functions).
 */
export function costFunction(cost: ProcessingCost, rand: Rand): (key: string) => number {
  const checked = (v: number, what: string): number => {
    if (!Number.isFinite(v) || v < 0)
      throw new RangeError(`processing cost ${what} must be a finite number ≥ 0, got ${v}`);
    return v;
  };
  if (typeof cost === "number") {
    const v = checked(cost, "(fixed)");
    return () => v;
  }
  if (typeof cost === "function") return (key) => checked(cost(key, rand), `for key "${key}"`);
  if (cost.kind === "uniform") {
    const min = checked(cost.minMs, "minMs");
    const max = checked(cost.maxMs, "maxMs");
    if (max < min) throw new RangeError(`processing cost maxMs (${max}) must be ≥ minMs (${min})`);
    return () => min + (max - min) * rand.float();
  }
  const mean = checked(cost.meanMs, "meanMs");
  return () => -mean * Math.log(1 - rand.float());
}
