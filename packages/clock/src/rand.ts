/**
 * A source of uniformly distributed numbers in [0, 1). Every jittered duration in informer-ts draws from an
 * injected `Rand`, so a seeded run is reproducible.
 */
export interface Rand {
  /** A number in [0, 1). */
  float(): number;
}

/**
 * A small, fast, seeded generator (mulberry32 over a splitmix32-scrambled seed). Not cryptographic.
 * The same seed always yields the same sequence.
 */
export function seededRand(seed: number): Rand {
  let s = Math.trunc(seed) >>> 0;
  // splitmix32 scrambles small or similar seeds into well-spread states.
  s = (s + 0x9e3779b9) >>> 0;
  s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
  s = (s ^ (s >>> 16)) >>> 0;
  return {
    float(): number {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** `Math.random` as a {@link Rand}: the default outside tests. */
export const mathRand: Rand = { float: () => Math.random() };

/**
 * `wait.Jitter(d, maxFactor)`: a duration in [d, d + maxFactor·d). A `maxFactor` ≤ 0 means 1.0, as in Go.
 */
export function jitter(durationMs: number, maxFactor: number, rand: Rand): number {
  const factor = maxFactor <= 0 ? 1.0 : maxFactor;
  return durationMs + rand.float() * factor * durationMs;
}
