import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { jitter, mathRand, type Rand, seededRand } from "./rand.js";

const draw = (r: Rand, n: number) => Array.from({ length: n }, () => r.float());

describe("seededRand", () => {
  it("the same seed always yields the same sequence; different seeds differ", () => {
    expect(draw(seededRand(42), 20)).toEqual(draw(seededRand(42), 20));
    expect(draw(seededRand(42), 20)).not.toEqual(draw(seededRand(43), 20));
    expect(draw(seededRand(0), 5)).not.toEqual(draw(seededRand(1), 5));
  });

  it("seeds are truncated to 32-bit integers", () => {
    expect(draw(seededRand(7.9), 5)).toEqual(draw(seededRand(7), 5));
    expect(draw(seededRand(2 ** 32 + 5), 5)).toEqual(draw(seededRand(5), 5));
  });

  test.prop([fc.integer()], { numRuns: 100 })("every value lies in [0, 1)", (seed) => {
    for (const v of draw(seededRand(seed), 200)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });

  it("is roughly uniform (10 buckets over 100 000 draws)", () => {
    const r = seededRand(2026);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(r.float() * 10)]!++;
    for (const b of buckets) expect(Math.abs(b - 10_000)).toBeLessThan(500);
  });

  it("mathRand draws from [0, 1)", () => {
    for (const v of draw(mathRand, 100)) expect(v >= 0 && v < 1).toBe(true);
  });
});

describe("jitter (wait.Jitter)", () => {
  const fixed = (v: number): Rand => ({ float: () => v });

  it("returns d + rand·maxFactor·d", () => {
    expect(jitter(1000, 0.5, fixed(0))).toBe(1000);
    expect(jitter(1000, 0.5, fixed(0.5))).toBe(1250);
    expect(jitter(800, 1, fixed(0.25))).toBe(1000);
  });

  it("a maxFactor ≤ 0 means 1.0, as in Go", () => {
    expect(jitter(1000, 0, fixed(0.5))).toBe(1500);
    expect(jitter(1000, -3, fixed(0.5))).toBe(1500);
  });

  test.prop([fc.integer({ min: 0, max: 1e9 }), fc.double({ min: 0.01, max: 4, noNaN: true }), fc.integer()], {
    numRuns: 200,
  })("stays in [d, d + maxFactor·d) and is reproducible for a seed", (d, factor, seed) => {
    const a = jitter(d, factor, seededRand(seed));
    expect(a).toBeGreaterThanOrEqual(d);
    if (d > 0) expect(a).toBeLessThan(d + factor * d);
    expect(jitter(d, factor, seededRand(seed))).toBe(a);
  });
});
