import { test as fcTest } from "@fast-check/vitest";
import { isInternalError, newInternalError } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newRetryWithDeadline } from "./retry-with-deadline.js";

interface Step {
  clockStep: number;
  err: unknown;
  wantRetry: boolean;
}

describe("TestRetryWithDeadline (F19)", () => {
  const internalError = newInternalError("etcdserver: no leader");
  const otherError = new Error("some other error");
  const cases: {
    name: string;
    duration: number;
    reset: number;
    isRetryable: (e: unknown) => boolean;
    scenario: Step[];
  }[] = [
    {
      name: "Never retry when duration is zero",
      duration: 0,
      reset: 30_000,
      isRetryable: () => false,
      scenario: [
        { clockStep: 1000, err: undefined, wantRetry: false },
        { clockStep: 0, err: internalError, wantRetry: false },
        { clockStep: 1000, err: otherError, wantRetry: false },
      ],
    },
    {
      name: "Retry when internal error happens only within duration",
      duration: 1000,
      reset: 30_000,
      isRetryable: isInternalError,
      scenario: [
        { clockStep: 1000, err: internalError, wantRetry: true },
        { clockStep: 1000, err: internalError, wantRetry: true },
        { clockStep: 1000, err: internalError, wantRetry: false },
      ],
    },
    {
      name: "Don't retry when other error happens",
      duration: 1000,
      reset: 30_000,
      isRetryable: isInternalError,
      scenario: [{ clockStep: 1000, err: otherError, wantRetry: false }],
    },
    {
      name: "Ignore other errors for retries",
      duration: 1000,
      reset: 30_000,
      isRetryable: isInternalError,
      scenario: [
        { clockStep: 1000, err: internalError, wantRetry: true },
        { clockStep: 0, err: otherError, wantRetry: true },
        { clockStep: 1000, err: internalError, wantRetry: true },
      ],
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const clock = new FakeClock();
      const retry = newRetryWithDeadline(tc.duration, tc.reset, tc.isRetryable, clock);
      for (const [i, step] of tc.scenario.entries()) {
        await clock.step(step.clockStep);
        retry.after(step.err);
        expect(retry.shouldRetry(), `step ${i}`).toBe(step.wantRetry);
      }
    });
  }

  it("F19: the window restarts when the previous error is at least minResetPeriod old", async () => {
    const clock = new FakeClock();
    const retry = newRetryWithDeadline(5000, 60_000, isInternalError, clock);
    retry.after(internalError);
    await clock.step(4000);
    retry.after(internalError);
    expect(retry.shouldRetry()).toBe(true);
    await clock.step(2000);
    retry.after(internalError);
    expect(retry.shouldRetry()).toBe(false); // 6 s since the first error
    await clock.step(60_000);
    retry.after(internalError);
    expect(retry.shouldRetry()).toBe(true); // a minute of quiet: a new window
  });

  fcTest.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.boolean()), { maxLength: 30 })], {
    numRuns: 100,
  })("F19 property: shouldRetry ⇔ a retryable error opened a window ≤ max ago (model)", async (steps) => {
    const clock = new FakeClock();
    const max = 5000;
    const reset = 4000;
    const retry = newRetryWithDeadline(max, reset, isInternalError, clock);
    let first: number | undefined;
    let last: number | undefined;
    for (const [dt, internal] of steps) {
      await clock.step(dt);
      const now = clock.now();
      retry.after(internal ? internalError : otherError);
      if (internal) {
        if (last === undefined || now - last >= reset) first = undefined;
        first ??= now;
        last = now;
      }
      const want = first !== undefined && now - first <= max;
      if (!want) {
        first = undefined;
        last = undefined;
      }
      expect(retry.shouldRetry()).toBe(want);
    }
  });
});
