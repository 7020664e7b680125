// The cacher's dispatch time budget: reference/apiserver.md §5.4 (100 ms max, +50 ms per second, shared by every
// blocked dispatch: take all, return what was not used), with the semantics of kube-apiserver v1.34's
// `timeBudgetImpl`: empty at start, credited pro rata for the time since the previous take, capped.
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { BUDGET_REFRESH_MS_PER_SECOND, MAX_DISPATCH_BUDGET_MS, TimeBudget } from "./time-budget.js";

function setup() {
  const clock = new FakeClock();
  return { clock, budget: new TimeBudget(clock) };
}

/** A clock that can be set back, which FakeClock cannot. */
class SkewedClock extends FakeClock {
  skew = 0;
  override now(): number {
    return super.now() + this.skew;
  }
}

describe("TimeBudget", () => {
  it("kube-apiserver's constants: 100 ms at most, refilled at 50 ms per second", () => {
    expect([MAX_DISPATCH_BUDGET_MS, BUDGET_REFRESH_MS_PER_SECOND]).toEqual([100, 50]);
  });

  it("starts empty: a dispatch blocked right when the cacher is created gets 0 ms", async () => {
    const { clock, budget } = setup();
    expect(budget.available()).toBe(0);
    expect(budget.takeAvailable()).toBe(0);
    await clock.step(1);
    expect(budget.takeAvailable()).toBe(0.05);
  });

  it("is full 2 s after creation (the steady state of a running apiserver)", async () => {
    const { clock, budget } = setup();
    await clock.step(1999);
    expect(budget.available()).toBeLessThan(100);
    await clock.step(1);
    expect(budget.takeAvailable()).toBe(100);
  });

  it("takeAvailable hands out everything; nothing is left for the next blocked dispatch", async () => {
    const { clock, budget } = setup();
    await clock.step(2000);
    expect(budget.takeAvailable()).toBe(100);
    expect(budget.takeAvailable()).toBe(0);
    expect(budget.available()).toBe(0);
  });

  it("refills pro rata at 50 ms per second of clock time, fractions of a second included", async () => {
    const { clock, budget } = setup();
    await clock.step(500);
    expect(budget.takeAvailable()).toBe(25);
    await clock.step(300);
    expect(budget.takeAvailable()).toBe(15);
    // Many short gaps add up to what one long gap gives: nothing is lost between takes.
    let sum = 0;
    for (let i = 0; i < 10; i++) {
      await clock.step(100);
      sum += budget.takeAvailable();
    }
    expect(sum).toBeCloseTo(50, 10);
  });

  it("the refill is capped at 100 ms however long the budget sat unused", async () => {
    const { clock, budget } = setup();
    await clock.step(3_600_000);
    expect(budget.available()).toBe(100);
    expect(budget.takeAvailable()).toBe(100);
  });

  it("available() only looks: it neither takes nor moves the refill's reference point", async () => {
    const { clock, budget } = setup();
    await clock.step(400);
    expect(budget.available()).toBe(20);
    await clock.step(400);
    expect(budget.available()).toBe(40);
    expect(budget.takeAvailable()).toBe(40);
  });

  it("returnUnused gives back what a dispatch did not spend, capped at the maximum; negative is ignored", async () => {
    const { clock, budget } = setup();
    await clock.step(2000);
    const t = budget.takeAvailable();
    budget.returnUnused(t - 30);
    expect(budget.available()).toBe(70);
    budget.returnUnused(-5);
    expect(budget.available()).toBe(70);
    budget.returnUnused(Number.NaN);
    expect(budget.available()).toBe(70);
    await clock.step(400); // +20 credited by the next take
    expect(budget.available()).toBe(90);
    budget.returnUnused(50);
    expect(budget.takeAvailable()).toBe(100);
  });

  it("a return is capped on its own, and time since the last take is still credited on top (up to the cap)", async () => {
    const { clock, budget } = setup();
    budget.returnUnused(500);
    expect(budget.available()).toBe(100);
    expect(budget.takeAvailable()).toBe(100);
    budget.returnUnused(10);
    await clock.step(200); // +10
    expect(budget.takeAvailable()).toBe(20);
  });

  it("is shared: one dispatcher's spending is the next one's shortage", async () => {
    const { clock, budget } = setup();
    await clock.step(2000);
    // Dispatch 1 blocks on a slow watcher and spends 80 ms of its 100.
    const first = budget.takeAvailable();
    await clock.step(80);
    budget.returnUnused(first - 80);
    // 120 ms later dispatch 2 gets the 20 ms left plus 200 ms · 50 ms/s = 10 ms of refill.
    await clock.step(120);
    expect(budget.takeAvailable()).toBe(30);
  });

  it("a clock that goes back credits nothing, and the next refill counts from the earlier time", async () => {
    const clock = new SkewedClock();
    const budget = new TimeBudget(clock);
    await clock.step(1000);
    budget.returnUnused(10);
    clock.skew = -60_000;
    expect(budget.takeAvailable()).toBe(10);
    await clock.step(1000);
    expect(budget.takeAvailable()).toBe(50);
  });

  it("custom maximum and refill rate", async () => {
    const clock = new FakeClock();
    const budget = new TimeBudget(clock, 10, 100);
    expect(budget.available()).toBe(0);
    await clock.step(50);
    expect(budget.available()).toBe(5);
    await clock.step(1000);
    expect(budget.takeAvailable()).toBe(10);
  });
});
