import { getEventListeners } from "node:events";
import { FakeClock, settle } from "@informer-ts/clock";
import { runAsObservable } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { ItemExponentialFailureRateLimiter } from "./default-rate-limiters.js";
import { Queue } from "./queue.js";
import { RateLimitingQueue } from "./rate-limiting-queue.js";
import { runWorkers } from "./run-workers.js";

describe("runWorkers (the workqueue's run(signal) lifecycle)", () => {
  it("processes every item with N workers, never the same item twice at once; abort resolves after release", async () => {
    const clock = new FakeClock();
    const queue = new Queue<string>({ clock });
    const ac = new AbortController();
    const active = new Set<string>();
    let maxConcurrent = 0;
    const seen: string[] = [];
    const running = runWorkers(
      ac.signal,
      queue,
      async (item) => {
        expect(active.has(item)).toBe(false);
        active.add(item);
        maxConcurrent = Math.max(maxConcurrent, active.size);
        await settle();
        seen.push(item);
        active.delete(item);
      },
      { workers: 3 },
    );
    // The three waiting workers take a, b and c at once; the second "a" arrives while "a" is in flight, so it is
    // processed again after the first one is done (W4), never concurrently.
    for (const k of ["a", "b", "c", "d", "a"]) queue.add(k);
    for (let i = 0; i < 10 && seen.length < 5; i++) await settle();
    expect([...seen].sort()).toEqual(["a", "a", "b", "c", "d"]);
    expect(maxConcurrent).toBe(3);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    ac.abort();
    await running;
    expect(queue.shuttingDown()).toBe(true);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  it("a failure requeues rate-limited until maxRetries, then forgets; onError is told; nothing is unhandled", async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(10, 1000), { clock });
    const ac = new AbortController();
    const errors: Array<[string, boolean]> = [];
    let calls = 0;
    const running = runWorkers(
      ac.signal,
      queue,
      () => {
        calls++;
        throw new Error("reconcile failed");
      },
      { maxRetries: 2, onError: (_e, item, requeued) => errors.push([item, requeued]) },
    );
    queue.add("x");
    await settle();
    await clock.step(10);
    await settle();
    await clock.step(20);
    await settle();
    await clock.step(1000);
    await settle();
    expect(calls).toBe(3);
    expect(errors).toEqual([
      ["x", true],
      ["x", true],
      ["x", false],
    ]);
    expect(queue.numRequeues("x")).toBe(0);
    ac.abort();
    await running;
  });

  it("success forgets the item; a queue shut down elsewhere ends the workers; run$ is the same run", async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(10, 1000), { clock });
    queue.addRateLimited("y");
    await clock.step(10);
    const done: string[] = [];
    let completed = false;
    const sub = runAsObservable((signal) => runWorkers(signal, queue, (item) => void done.push(item))).subscribe({
      complete: () => (completed = true),
    });
    await settle();
    expect(done).toEqual(["y"]);
    expect(queue.numRequeues("y")).toBe(0);
    queue.shutDown();
    await settle();
    expect(completed).toBe(true);
    sub.unsubscribe();
  });

  it("rejects bad options by name; an aborted signal runs only what is queued", async () => {
    const queue = new Queue<string>();
    const ac = new AbortController();
    await expect(runWorkers(ac.signal, queue, () => {}, { workers: 0 })).rejects.toThrow(
      "workers must be a positive integer, got 0",
    );
    queue.add("left");
    ac.abort();
    const seen: string[] = [];
    await runWorkers(ac.signal, queue, (item, signal) => {
      expect(signal.aborted).toBe(true);
      seen.push(item);
    });
    expect(seen).toEqual(["left"]);
  });
});
