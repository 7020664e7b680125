import { describeValue } from "./meta-accessor.js";

/** Throws a RangeError naming `what` unless `ms` is a finite number of milliseconds ≥ 0. */
export function checkPeriod(what: string, ms: unknown): asserts ms is number {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`${what} must be a finite number of milliseconds ≥ 0, got ${describeValue(ms)}`);
  }
}
