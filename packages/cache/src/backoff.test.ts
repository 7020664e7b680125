import { test as fcTest } from "@fast-check/vitest";
import { FakeClock, type Rand, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Backoff,
  DEFAULT_BACKOFF_RESET_MS,
  defaultReflectorBackoff,
  delayFunc,
  delayWithReset,
  gapResetDelayFunc,
} from "./backoff.js";

const fixed = (v: number): Rand => ({ float: () => v });

/** The un-jittered base of the n-th (0-based) default delay. */
function base(n: number): number {
  return Math.min(800 * 2 ** n, 30_000);
}

describe("F2: default reflector backoff", () => {
  it("F2: parameters are 800 ms, ×2, jitter 1.0, cap 30 s, 38 steps", () => {
    expect(defaultReflectorBackoff).toEqual({ duration: 800, factor: 2, jitter: 1, steps: 38, cap: 30_000 });
  });

  it("F2: with rand = 0 the delays are exactly 0.8, 1.6, 3.2, 6.4, 12.8, 25.6 s then 30 s forever", () => {
    const next = delayFunc(defaultReflectorBackoff, fixed(0));
    const got = Array.from({ length: 10 }, () => next());
    expect(got).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 30_000]);
  });

  it("F2: with rand → 1 every delay stays just under twice its base ([d, 2d) ranges)", () => {
    const r = 0.999_999;
    const next = delayFunc(defaultReflectorBackoff, fixed(r));
    for (let n = 0; n < 12; n++) {
      const d = next();
      expect(d).toBeCloseTo(base(n) * (1 + r), 6);
      expect(d).toBeLessThan(2 * base(n));
    }
  });

  fcTest.prop([fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 1, max: 60 })], { numRuns: 100 })(
    "F2 property: the n-th delay lies in [base(n), 2·base(n)) for any seed",
    (seed, count) => {
      const next = delayFunc(defaultReflectorBackoff, seededRand(seed));
      for (let n = 0; n < count; n++) {
        const d = next();
        expect(d).toBeGreaterThanOrEqual(base(n));
        expect(d).toBeLessThan(2 * base(n));
      }
    },
  );

  it("TestNewReflectorWithCustomBackoff: 10 ms ×2, no jitter, cap 100 ms gives 10+20+40+80+100 = 250 ms", () => {
    const b: Backoff = { duration: 10, factor: 2, jitter: 0, steps: 100, cap: 100 };
    const next = delayFunc(b, fixed(0.5));
    const total = Array.from({ length: 5 }, () => next()).reduce((a, c) => a + c, 0);
    expect(total).toBe(250);
  });

  it("F2: steps bound the growth (after `steps` the duration stops growing)", () => {
    const next = delayFunc({ duration: 10, factor: 2, jitter: 0, steps: 2, cap: 0 }, fixed(0));
    expect([next(), next(), next(), next()]).toEqual([10, 20, 40, 40]);
  });

  it("F2: a negative or non-finite field is a RangeError naming the field", () => {
    expect(() => delayFunc({ ...defaultReflectorBackoff, duration: -1 }, fixed(0))).toThrow(
      "Backoff.duration must be a finite number ≥ 0, got -1",
    );
    expect(() => delayFunc({ ...defaultReflectorBackoff, cap: Number.NaN }, fixed(0))).toThrow(/Backoff.cap/);
  });
});

describe("F3: backoff reset", () => {
  it("F3 (v0.36 periodic, default): reset every 2 min since the last reset, even during continuous backoff", async () => {
    const clock = new FakeClock();
    const next = delayWithReset(defaultReflectorBackoff, clock, DEFAULT_BACKOFF_RESET_MS, fixed(0));
    const seen: number[] = [];
    // A long outage: one backoff right after the previous one ends.
    for (let i = 0; i < 12; i++) {
      const d = next();
      seen.push(d);
      await clock.step(d);
    }
    // 0.8+1.6+3.2+6.4+12.8+25.6 = 50.4 s, then 30 s steps: 80.4, 110.4, 140.4 (> 120 s since creation → reset).
    expect(seen.slice(0, 10)).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 800]);
    expect(seen[10]).toBe(1600);
  });

  it("F3 (≤v0.35 gap, option): continuous backoff stays at the cap; a 2-min quiet gap resets it", async () => {
    const clock = new FakeClock();
    const next = gapResetDelayFunc(defaultReflectorBackoff, clock, DEFAULT_BACKOFF_RESET_MS, fixed(0));
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      const d = next();
      seen.push(d);
      await clock.step(d);
    }
    expect(seen).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000]);
    await clock.step(DEFAULT_BACKOFF_RESET_MS + 1);
    expect(next()).toBe(800);
  });

  it("F3 (periodic): a quiet gap does not reset by itself before 2 min since the last reset", async () => {
    const clock = new FakeClock();
    const next = delayWithReset(defaultReflectorBackoff, clock, DEFAULT_BACKOFF_RESET_MS, fixed(0));
    expect(next()).toBe(800);
    await clock.step(60_000);
    expect(next()).toBe(1600);
    await clock.step(60_001);
    expect(next()).toBe(800);
  });

  it("F3: DelayWithReset with factor 0 is a plain delay; with reset interval 0 a constant one", async () => {
    const clock = new FakeClock();
    const noFactor = delayWithReset({ duration: 5, factor: 0, jitter: 0, steps: 3, cap: 0 }, clock, 10, fixed(0));
    expect([noFactor(), noFactor()]).toEqual([5, 5]);
    const noReset = delayWithReset({ duration: 5, factor: 2, jitter: 0, steps: 3, cap: 0 }, clock, 0, fixed(0));
    expect([noReset(), noReset(), noReset()]).toEqual([5, 5, 5]);
  });
});
