import type { Clock, Rand } from "@informer-ts/clock";

/**
 * Parameters of an exponential backoff (`wait.Backoff`, apimachinery `pkg/util/wait/backoff.go`). Durations are
 * milliseconds.
 *
 * Each step waits `duration` plus a uniformly random extra in `[0, jitter·duration)` (when `jitter > 0`), then
 * multiplies `duration` by `factor` for the next step while `steps` remain. When the product would exceed `cap`
 * (if `cap > 0`) the duration becomes `cap` and no further growth happens. Once `steps` is used up the duration
 * stays where it is (still jittered).
 */
export interface Backoff {
  /** The initial duration (ms). */
  readonly duration: number;
  /** Multiplier applied after each step; 0 means "do not grow". Must not be negative. */
  readonly factor: number;
  /** Extra random fraction of the duration added to each step (0 = none). */
  readonly jitter: number;
  /** Number of steps during which the duration may still grow. */
  readonly steps: number;
  /** Upper bound of the (un-jittered) duration; 0 means none. */
  readonly cap: number;
}

/** Returns the next delay to wait, in milliseconds (`wait.DelayFunc`). */
export type DelayFunc = () => number;

/** The reflector's default initial backoff: 800 ms. */
export const DEFAULT_BACKOFF_INIT_MS = 800;
/** The reflector's default backoff cap: 30 s. */
export const DEFAULT_BACKOFF_MAX_MS = 30_000;
/** The reflector's backoff reset interval: 2 min. */
export const DEFAULT_BACKOFF_RESET_MS = 120_000;

/**
 * The reflector's default backoff: 800 ms doubling to a 30 s cap with jitter 1.0 and
 * `steps = ceil(30 s / 0.8 s) = 38`. Delays fall in [0.8,1.6) s, [1.6,3.2) s, … [25.6,51.2) s, then [30,60) s.
 */
export const defaultReflectorBackoff: Backoff = Object.freeze({
  duration: DEFAULT_BACKOFF_INIT_MS,
  factor: 2.0,
  jitter: 1.0,
  steps: Math.ceil(DEFAULT_BACKOFF_MAX_MS / DEFAULT_BACKOFF_INIT_MS),
  cap: DEFAULT_BACKOFF_MAX_MS,
});

interface StepState {
  duration: number;
  steps: number;
}

function checkBackoff(b: Backoff): void {
  for (const field of ["duration", "factor", "jitter", "steps", "cap"] as const) {
    const v = b[field];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new RangeError(`Backoff.${field} must be a finite number ≥ 0, got ${String(v)}`);
    }
  }
}

/**
 * One step of the core delay algorithm: returns the (jittered) delay for this step and advances `state`.
 * Mirrors apimachinery's `delay(steps, duration, cap, factor, jitter)`.
 */
function step(state: StepState, b: Backoff, rand: Rand): number {
  const jittered = (d: number): number => (b.jitter > 0 ? d + rand.float() * b.jitter * d : d);
  if (state.steps < 1) return jittered(state.duration);
  state.steps--;
  const current = state.duration;
  let next = current;
  if (b.factor !== 0) {
    next = current * b.factor;
    if (b.cap > 0 && next > b.cap) {
      next = b.cap;
      state.steps = 0;
    }
  }
  state.duration = next;
  return jittered(current);
}

/**
 * A {@link DelayFunc} that walks `b` from its initial state and never resets (`Backoff.DelayFunc`).
 *
 * @throws RangeError when a field of `b` is negative or not finite.
 */
export function delayFunc(b: Backoff, rand: Rand): DelayFunc {
  checkBackoff(b);
  const state: StepState = { duration: b.duration, steps: b.steps };
  return () => step(state, b, rand);
}

/**
 * client-go v0.36+ reset semantic (`Backoff.DelayWithReset`): the backoff returns to its initial state
 * whenever more than `resetIntervalMs` has passed since the **last reset** (initially: creation). The reset is
 * therefore periodic — every `resetIntervalMs` regardless of how often the function was called — so a long
 * outage sees a burst of short retries every 2 minutes.
 *
 * A `factor` ≤ 0 gives a plain {@link delayFunc}; a `resetIntervalMs` ≤ 0 gives a constant (jittered) delay of
 * `duration`, as in apimachinery.
 */
export function delayWithReset(b: Backoff, clock: Clock, resetIntervalMs: number, rand: Rand): DelayFunc {
  checkBackoff(b);
  if (b.factor <= 0) return delayFunc(b, rand);
  if (!(resetIntervalMs > 0)) return delayFunc({ ...b, steps: 0, factor: 0 }, rand);
  let state: StepState = { duration: b.duration, steps: b.steps };
  let lastReset = clock.now();
  return () => {
    const now = clock.now();
    if (now - lastReset > resetIntervalMs) {
      state = { duration: b.duration, steps: b.steps };
      lastReset = now;
    }
    return step(state, b, rand);
  };
}

/**
 * client-go ≤ v0.35 reset semantic (`wait.NewExponentialBackoffManager`): the backoff returns to its initial
 * state when more than `resetIntervalMs` has passed since the **previous call** (a gap without backoffs). During
 * a long outage the delay therefore stays at the cap. Growth is unbounded in steps and limited only by `cap`.
 */
export function gapResetDelayFunc(b: Backoff, clock: Clock, resetIntervalMs: number, rand: Rand): DelayFunc {
  checkBackoff(b);
  const fresh = (): StepState => ({ duration: b.duration, steps: Number.MAX_SAFE_INTEGER });
  let state = fresh();
  let lastCall = clock.now();
  return () => {
    const now = clock.now();
    if (now - lastCall > resetIntervalMs) state = fresh();
    lastCall = now;
    return step(state, b, rand);
  };
}

/** How the reflector's backoff returns to its initial delay. */
export type BackoffResetMode = "periodic" | "gap";
