import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { defaultControllerRateLimiter, ItemExponentialFailureRateLimiter } from "./default-rate-limiters.js";
import { DelayingQueue, type TypedDelayingInterface } from "./delaying-queue.js";
import { RateLimitingQueue } from "./rate-limiting-queue.js";

/** A delaying queue that records every addAfter call (the test reads client-go's `waitingForAddCh`). */
function spyDelayingQueue(clock: FakeClock) {
  const inner = new DelayingQueue<string>({ clock });
  const calls: { item: string; readyAt: number }[] = [];
  const spy: TypedDelayingInterface<string> = {
    addAfter: (item, d) => {
      calls.push({ item, readyAt: clock.now() + d });
      inner.addAfter(item, d);
    },
    add: (item) => inner.add(item),
    len: () => inner.len(),
    get: (signal) => inner.get(signal),
    tryGet: () => inner.tryGet(),
    done: (item) => inner.done(item),
    shutDown: () => inner.shutDown(),
    shutDownWithDrain: () => inner.shutDownWithDrain(),
    shuttingDown: () => inner.shuttingDown(),
  };
  return { spy, calls };
}

describe("RateLimitingQueue (rate_limiting_queue_test.go)", () => {
  it("L1 TestRateLimitingQueue: addRateLimited uses when(); forget resets; numRequeues counts", () => {
    const clock = new FakeClock();
    const { spy, calls } = spyDelayingQueue(clock);
    const queue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(1, 1000), {
      delayingQueue: spy,
    });
    const lastDelay = () => calls[calls.length - 1]!.readyAt - clock.now();

    queue.addRateLimited("one");
    expect(lastDelay()).toBe(1);
    queue.addRateLimited("one");
    expect(lastDelay()).toBe(2);
    expect(queue.numRequeues("one")).toBe(2);

    queue.addRateLimited("two");
    expect(lastDelay()).toBe(1);
    queue.addRateLimited("two");
    expect(lastDelay()).toBe(2);

    queue.forget("one");
    expect(queue.numRequeues("one")).toBe(0);
    queue.addRateLimited("one");
    expect(lastDelay()).toBe(1);
    queue.shutDown();
  });

  it("L1 when() is evaluated (and counts a failure) even while shutting down", () => {
    const clock = new FakeClock();
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const queue = new RateLimitingQueue<string>(limiter, { clock });
    queue.shutDown();
    queue.addRateLimited("x");
    queue.addRateLimited("x");
    expect(queue.numRequeues("x")).toBe(2);
    expect(queue.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("L1 a worker loop retries a failing key with growing delays, then forgets it on success", async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(clock), { clock });
    const attempts: number[] = [];
    const worker = (async () => {
      for (;;) {
        const [key, shutdown] = await queue.get();
        if (shutdown) return;
        attempts.push(clock.now());
        if (attempts.length < 5) queue.addRateLimited(key);
        else queue.forget(key);
        queue.done(key);
      }
    })();
    queue.add("ns/pod");
    await clock.runUntilIdle();
    queue.shutDown();
    await worker;
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(gaps).toEqual([5, 10, 20, 40]);
    expect(queue.numRequeues("ns/pod")).toBe(0);
  });

  it("L1 the default queue passes its options through (name → metrics, clock → timers)", async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(10, 1000), { clock });
    queue.addRateLimited("a");
    expect(queue.len()).toBe(0);
    await clock.step(10);
    expect(queue.len()).toBe(1);
    expect(queue.tryGet()).toBe("a");
    queue.done("a");
    queue.addAfter("b", 0);
    expect((await queue.get())[0]).toBe("b");
    const drained = queue.shutDownWithDrain();
    queue.done("b");
    await drained;
    expect(queue.shuttingDown()).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });
});
