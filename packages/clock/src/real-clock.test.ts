// RealClock on vitest's mocked timers (Date.now and setTimeout/setInterval move only when the test says): the wall
// clock as is, and at a rate.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RealClock } from "./real-clock.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("RealClock", () => {
  it("reads the wall clock and fires timers after their delay", () => {
    const clock = new RealClock();
    const fired: number[] = [];
    clock.afterFunc(500, () => fired.push(clock.now()));
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([1_000_500]);
    expect(clock.since(1_000_000)).toBe(500);
  });

  it("at rate 60 a minute passes in a wall second: now(), timers, resets and tickers", () => {
    const clock = new RealClock({ rate: 60 });
    expect(clock.now()).toBe(1_000_000);
    const fired: string[] = [];
    const t = clock.afterFunc(60_000, () => fired.push(`timer at ${clock.now()}`));
    const ticks: number[] = [];
    const ticker = clock.newTicker(30_000, () => ticks.push(clock.now()));
    vi.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["timer at 1060000"]);
    expect(ticks).toEqual([1_030_000, 1_060_000]);
    ticker.stop();
    // A reset is in the clock's milliseconds too: 6 s of clock time is 100 ms of wall time.
    t.reset(6_000);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(["timer at 1060000", "timer at 1066000"]);
  });

  it("names a rate that is not a finite number > 0", () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new RealClock({ rate })).toThrow(/rate must be a finite number > 0/);
    }
  });
});
