import { fc, test } from "@fast-check/vitest";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { newTokenBucketRateLimiter, TokenBucketRateLimiter } from "./throttle.js";

describe("TokenBucketRateLimiter (flowcontrol throttle)", () => {
  it("TestBasicThrottle: burst tokens are available at once, then none", () => {
    const clock = new FakeClock();
    const r = new TokenBucketRateLimiter(1, 3, clock);
    expect([r.tryAccept(), r.tryAccept(), r.tryAccept()]).toEqual([true, true, true]);
    expect(r.tryAccept()).toBe(false);
  });

  it("TestIncrementThrottle: one token comes back after 1/qps", async () => {
    const clock = new FakeClock();
    const r = new TokenBucketRateLimiter(1, 1, clock);
    expect(r.tryAccept()).toBe(true);
    expect(r.tryAccept()).toBe(false);
    await clock.step(999);
    expect(r.tryAccept()).toBe(false);
    await clock.step(1);
    expect(r.tryAccept()).toBe(true);
  });

  it("client-go defaults (5 QPS, burst 10): 10 immediate, then one every 200 ms, in arrival order", async () => {
    const clock = new FakeClock();
    const r = newTokenBucketRateLimiter(5, 10, clock);
    const granted: number[] = [];
    const start = clock.now();
    const waits = Array.from({ length: 15 }, (_, i) => r.wait().then(() => granted.push(i)));
    await clock.step(0);
    expect(granted).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const times: number[] = [];
    for (let i = 10; i < 15; i++) {
      await clock.step(200);
      times.push(clock.since(start));
      expect(granted).toHaveLength(i + 1);
    }
    await Promise.all(waits);
    expect(granted).toEqual([...Array(15).keys()]);
    expect(times).toEqual([200, 400, 600, 800, 1000]);
  });

  it("an aborted wait rejects with the reason and gives its token back", async () => {
    const clock = new FakeClock();
    const r = new TokenBucketRateLimiter(1, 1, clock);
    await r.wait();
    const ac = new AbortController();
    const waiting = r.wait(ac.signal);
    const reason = new Error("stop");
    ac.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await clock.step(1000);
    // The token the aborted waiter reserved is available again: exactly one now.
    expect(r.tryAccept()).toBe(true);
    expect(r.tryAccept()).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("rejects a non-positive rate or burst", () => {
    expect(() => new TokenBucketRateLimiter(0, 1)).toThrow(RangeError);
    expect(() => new TokenBucketRateLimiter(1, 0)).toThrow(RangeError);
    expect(new TokenBucketRateLimiter(2.5, 1).qps()).toBe(2.5);
  });

  test.prop(
    [
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 1, max: 10 }),
      fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 40 }),
    ],
    { numRuns: 150 },
  )("never grants more than burst + qps·t by time t, and grants every waiter", async (qps, burst, gaps) => {
    const clock = new FakeClock();
    const start = clock.now();
    const r = new TokenBucketRateLimiter(qps, burst, clock);
    const grantTimes: number[] = [];
    const waits: Promise<void>[] = [];
    for (const gap of gaps) {
      await clock.step(gap);
      waits.push(r.wait().then(() => void grantTimes.push(clock.since(start))));
    }
    await clock.runUntilIdle();
    await Promise.all(waits);
    expect(grantTimes).toHaveLength(gaps.length);
    grantTimes.forEach((t, i) => {
      // The (i+1)-th grant at time t needs i+1 ≤ burst + qps·t/1000 (with float slack).
      expect(i + 1).toBeLessThanOrEqual(burst + (qps * t) / 1000 + 1e-6);
    });
  });
});
