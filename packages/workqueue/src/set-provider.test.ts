// setProvider is process-wide and first-call-only, so it has a test file (and a worker process) of its own.
import { FakeClock } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { DelayingQueue } from "./delaying-queue.js";
import { setProvider } from "./metrics.js";
import { Queue } from "./queue.js";

describe("setProvider (metrics.go SetProvider)", () => {
  it("M1 only the first call counts; queues without a provider use it", () => {
    const first = new InMemoryMetrics();
    const second = new InMemoryMetrics();
    setProvider(first);
    setProvider(second);
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ name: "global", clock });
    q.addAfter("a", 0);
    expect(first.value("workqueue_adds_total", { name: "global" })).toBe(1);
    expect(first.value("workqueue_retries_total", { name: "global" })).toBe(1);
    expect(second.names()).toEqual([]);
    // An explicit provider still wins.
    const own = new InMemoryMetrics();
    const p = new Queue<string>({ name: "own", clock, metricsProvider: own });
    p.add("b");
    expect(own.value("workqueue_adds_total", { name: "own" })).toBe(1);
    expect(first.value("workqueue_adds_total", { name: "own" })).toBe(0);
    q.shutDown();
    p.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });
});
