import { fc, test } from "@fast-check/vitest";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  type TypedRateLimiter,
  WithMaxWaitRateLimiter,
} from "./default-rate-limiters.js";
import { every, Inf, InfDuration, Limiter } from "./rate.js";

const ms = 1;
const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

function whens<T>(limiter: TypedRateLimiter<T>, item: T, n: number): number[] {
  return Array.from({ length: n }, () => limiter.when(item));
}

describe("rate limiters (default_rate_limiters_test.go)", () => {
  it("L2 TestItemExponentialFailureRateLimiter", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, 1 * second);
    expect(whens(limiter, "one", 5)).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues("one")).toBe(5);
    expect(whens(limiter, "two", 2)).toEqual([1, 2]);
    expect(limiter.numRequeues("two")).toBe(2);
    limiter.forget("one");
    expect(limiter.numRequeues("one")).toBe(0);
    expect(limiter.when("one")).toBe(1);
  });

  it("L2 TestItemExponentialFailureRateLimiterOverFlow", () => {
    let limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, 1000 * second);
    whens(limiter, "one", 5);
    expect(limiter.when("one")).toBe(32);
    whens(limiter, "overflow1", 1000);
    expect(limiter.when("overflow1")).toBe(1000 * second);

    limiter = new ItemExponentialFailureRateLimiter<string>(1 * minute, 1000 * hour);
    whens(limiter, "two", 2);
    expect(limiter.when("two")).toBe(4 * minute);
    whens(limiter, "overflow2", 1000);
    expect(limiter.when("overflow2")).toBe(1000 * hour);
  });

  it("L2 the cap applies before overflow: a huge maxDelay still returns maxDelay once 2^n overflows int64 ns", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, Number.MAX_VALUE);
    const seq = whens(limiter, "x", 45);
    // 1 ms · 2^43 ≈ 8.8e18 ns still fits in an int64; 2^44 ms overflows and gives maxDelay.
    expect(seq[43]).toBe(2 ** 43);
    expect(seq[44]).toBe(Number.MAX_VALUE);
  });

  it("L7 TestItemFastSlowRateLimiter", () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5 * ms, 10 * second, 3);
    expect(whens(limiter, "one", 5)).toEqual([5, 5, 5, 10 * second, 10 * second]);
    expect(limiter.numRequeues("one")).toBe(5);
    expect(whens(limiter, "two", 2)).toEqual([5, 5]);
    expect(limiter.numRequeues("two")).toBe(2);
    limiter.forget("one");
    expect(limiter.numRequeues("one")).toBe(0);
    expect(limiter.when("one")).toBe(5);
  });

  it("L6 TestMaxOfRateLimiter", () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter(5 * ms, 3 * second, 3),
      new ItemExponentialFailureRateLimiter(1 * ms, 1 * second),
    );
    expect(whens(limiter, "one", 5)).toEqual([5, 5, 5, 3 * second, 3 * second]);
    expect(limiter.numRequeues("one")).toBe(5);
    expect(whens(limiter, "two", 2)).toEqual([5, 5]);
    expect(limiter.numRequeues("two")).toBe(2);
    limiter.forget("one");
    expect(limiter.numRequeues("one")).toBe(0);
    expect(limiter.when("one")).toBe(5);
  });

  it("L8 TestWithMaxWaitRateLimiter", () => {
    // client-go's StepRateLimiter: baseDelay for the first `threshold` calls, then maxDelay.
    let count = 0;
    const step: TypedRateLimiter<number> = {
      when: () => (++count <= 100 ? 5 * ms : 1000 * second),
      numRequeues: () => 0,
      forget: () => {},
    };
    const limiter = new WithMaxWaitRateLimiter(step, 500 * second);
    for (let i = 0; i < 100; i++) expect(limiter.when(i)).toBe(5 * ms);
    for (let i = 100; i < 200; i++) expect(limiter.when(i)).toBe(500 * second);
  });

  it("L8 WithMaxWaitRateLimiter passes forget and numRequeues through", () => {
    const inner = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const limiter = new WithMaxWaitRateLimiter(inner, 3);
    expect(whens(limiter, "a", 4)).toEqual([1, 2, 3, 3]);
    expect(limiter.numRequeues("a")).toBe(4);
    limiter.forget("a");
    expect(inner.numRequeues("a")).toBe(0);
  });

  it("L5 BucketRateLimiter: burst 100 at 10/s; the 101st immediate call waits 100 ms, the 102nd 200 ms", () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(new Limiter(10, 100, clock));
    const seq = Array.from({ length: 103 }, (_, i) => limiter.when(`item-${i}`));
    expect(seq.slice(0, 100)).toEqual(Array(100).fill(0));
    expect(seq.slice(100)).toEqual([100, 200, 300]);
    expect(limiter.numRequeues("item-0")).toBe(0);
    limiter.forget("item-0");
    expect(limiter.when("item-0")).toBe(400);
  });

  it("L5 the bucket refills at r/s, capped at the burst", async () => {
    const clock = new FakeClock();
    const limiter = new Limiter(10, 3, clock);
    const b = new BucketRateLimiter<string>(limiter);
    expect([b.when("a"), b.when("a"), b.when("a"), b.when("a")]).toEqual([0, 0, 0, 100]);
    expect(limiter.tokens()).toBe(-1);
    await clock.step(250); // +2.5 tokens → 1.5
    expect(limiter.tokens()).toBeCloseTo(1.5, 12);
    expect(b.when("a")).toBe(0);
    expect(b.when("a")).toBeCloseTo(50, 9);
    await clock.step(3_600_000);
    expect(limiter.tokens()).toBe(3); // capped at the burst
  });

  it("L3 defaultControllerRateLimiter: 5 ms·2^n per item, 655.36 s on the 18th call, 1000 s from the 19th", () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    // One item, 25 failures: 25 bucket tokens, well within the burst, so the exponential part decides.
    const seq = whens(limiter, "x", 25);
    const expected = Array.from({ length: 25 }, (_, n) => Math.min(5 * 2 ** n, 1000 * second));
    expect(seq).toEqual(expected);
    expect(seq[17]).toBe(655_360);
    expect(seq[18]).toBe(1_000_000);
    expect(limiter.numRequeues("x")).toBe(25);
    limiter.forget("x");
    expect(limiter.numRequeues("x")).toBe(0);
    expect(limiter.when("x")).toBe(5);
  });

  it("L3 L5 L6 the bucket takes a token on every call, even when the exponential delay dominates", () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    whens(limiter, "hot", 30); // 30 tokens gone although the exponential delay won each time
    const fresh = Array.from({ length: 71 }, (_, i) => limiter.when(`fresh-${i}`));
    expect(fresh.slice(0, 70)).toEqual(Array(70).fill(5)); // first failure of each item: 5 ms, bucket free
    expect(fresh[70]).toBe(100); // the 101st token overall waits 100 ms
  });

  it("L4 defaultItemBasedRateLimiter: 1 ms·2^n up to 1000 s", () => {
    const limiter = defaultItemBasedRateLimiter<string>();
    const seq = whens(limiter, "x", 22);
    expect(seq).toEqual(Array.from({ length: 22 }, (_, n) => Math.min(2 ** n, 1000 * second)));
  });

  test.prop([fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000_000 }), fc.nat({ max: 80 })], {
    numRuns: 200,
  })("L2 the n-th delay is min(base·2^n, max) for any base and max", (base, max, n) => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(base, max);
    const seq = whens(limiter, "x", n + 1);
    seq.forEach((d, i) => {
      expect(d).toBe(Math.min(base * 2 ** i, max));
    });
    expect(limiter.numRequeues("x")).toBe(n + 1);
  });
});

describe("Limiter (golang.org/x/time/rate)", () => {
  it("L5 starts full, reservations drive tokens negative and delay = -tokens / r", () => {
    const clock = new FakeClock();
    const l = new Limiter(4, 2, clock);
    expect(l.tokens()).toBe(2);
    const delays = Array.from({ length: 5 }, () => l.reserve().delay());
    expect(delays).toEqual([0, 0, 250, 500, 750]);
    expect(l.tokens()).toBe(-3);
  });

  it("L5 a reservation's delay shrinks as time passes", async () => {
    const clock = new FakeClock();
    const l = new Limiter(10, 1, clock);
    l.reserve();
    const r = l.reserve();
    expect(r.delay()).toBe(100);
    await clock.step(40);
    expect(r.delay()).toBe(60);
    await clock.step(100);
    expect(r.delay()).toBe(0);
  });

  it("L5 Inf allows everything; burst 0 with a finite rate never grants (InfDuration); rate 0 grants only the burst", () => {
    const clock = new FakeClock();
    const inf = new Limiter(Inf, 0, clock);
    expect(Array.from({ length: 3 }, () => inf.reserve().delay())).toEqual([0, 0, 0]);
    const none = new Limiter(10, 0, clock);
    const r = none.reserve();
    expect(r.ok()).toBe(false);
    expect(r.delay()).toBe(InfDuration);
    const zero = new Limiter(0, 2, clock);
    expect([zero.allow(), zero.allow(), zero.allow()]).toEqual([true, true, false]);
    expect(zero.reserve().delay()).toBe(InfDuration);
  });

  it("L5 allowN does not take tokens when it refuses; every() converts an interval to a rate", () => {
    const clock = new FakeClock();
    const l = new Limiter(every(100), 2, clock);
    expect(l.limit()).toBe(10);
    expect(l.burst()).toBe(2);
    expect(l.allowN(clock.now(), 3)).toBe(false);
    expect(l.tokens()).toBe(2);
    expect(l.allowN(clock.now(), 2)).toBe(true);
    expect(l.allow()).toBe(false);
    expect(l.tokens()).toBe(0);
    expect(every(0)).toBe(Inf);
  });

  it("L5 time going backwards adds no tokens", () => {
    const clock = new FakeClock();
    const l = new Limiter(10, 5, clock);
    l.reserveN(clock.now(), 5);
    expect(l.tokensAt(clock.now() - 1000)).toBe(0);
    expect(l.tokensAt(clock.now() + 200)).toBe(2);
  });

  it("L5 rejects a negative rate or a fractional burst", () => {
    expect(() => new Limiter(-1, 1)).toThrow(/limit/);
    expect(() => new Limiter(1, 1.5)).toThrow(/burst/);
  });

  test.prop(
    [fc.array(fc.record({ wait: fc.nat({ max: 50 }), calls: fc.integer({ min: 1, max: 4 }) }), { maxLength: 40 })],
    {
      numRuns: 100,
    },
  )("L5 the bucket's delays match a token-count model on a 10/s, burst-5 bucket", async (steps) => {
    // Waits are multiples of 100 ms = one token each, so the model stays in whole tokens.
    const clock = new FakeClock();
    const b = new BucketRateLimiter<string>(new Limiter(10, 5, clock));
    let tokens = 5;
    for (const { wait, calls } of steps) {
      await clock.step(wait * 100);
      tokens = Math.min(5, tokens + wait);
      for (let c = 0; c < calls; c++) {
        tokens -= 1;
        expect(b.when("x")).toBe(tokens < 0 ? -tokens * 100 : 0);
      }
    }
  });
});
