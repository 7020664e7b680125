// The cacher's dispatch time budget: reference/apiserver.md §5.1/§5.4 (100 ms max, +50 ms per second, shared by
// every blocked dispatch: take all, return what was not used).
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { BUDGET_REFRESH_MS_PER_SECOND, MAX_DISPATCH_BUDGET_MS, TimeBudget } from "./time-budget.js";

function setup() {
  const clock = new FakeClock();
  return { clock, budget: new TimeBudget(clock) };
}

describe("TimeBudget", () => {
  it("kube-apiserver's constants: 100 ms at most, refilled at 50 ms per second", () => {
    expect([MAX_DISPATCH_BUDGET_MS, BUDGET_REFRESH_MS_PER_SECOND]).toEqual([100, 50]);
  });

  it("takeAvailable hands out everything; nothing is left for the next blocked dispatch", () => {
    const { budget } = setup();
    expect(budget.takeAvailable()).toBe(100);
    expect(budget.takeAvailable()).toBe(0);
    expect(budget.available()).toBe(0);
  });

  it("refills at 50 ms per second of clock time, capped at 100 ms", async () => {
    const { clock, budget } = setup();
    budget.takeAvailable();
    await clock.step(500);
    expect(budget.available()).toBe(25);
    await clock.step(1000);
    expect(budget.available()).toBe(75);
    await clock.step(10_000);
    expect(budget.takeAvailable()).toBe(100);
  });

  it("returnUnused gives back what a dispatch did not spend, capped at the maximum; negative is ignored", async () => {
    const { clock, budget } = setup();
    const t = budget.takeAvailable();
    budget.returnUnused(t - 30);
    expect(budget.available()).toBe(70);
    budget.returnUnused(-5);
    expect(budget.available()).toBe(70);
    await clock.step(400); // +20
    budget.returnUnused(50);
    expect(budget.available()).toBe(100);
  });

  it("is shared: one dispatcher's spending is the next one's shortage", async () => {
    const { clock, budget } = setup();
    // Dispatch 1 blocks on a slow watcher and spends 80 ms of its 100.
    const first = budget.takeAvailable();
    budget.returnUnused(first - 80);
    // 200 ms later dispatch 2 gets the 20 ms left plus 10 ms refill.
    await clock.step(200);
    expect(budget.takeAvailable()).toBe(30);
  });

  it("custom maximum and refill rate", async () => {
    const clock = new FakeClock();
    const budget = new TimeBudget(clock, 10, 100);
    budget.takeAvailable();
    await clock.step(50);
    expect(budget.available()).toBe(5);
  });
});
