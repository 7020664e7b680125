import { FakeClock } from "@informer-ts/clock";
import {
  type Gauge,
  InMemoryMetrics,
  type MetricOpts,
  type MetricsProvider,
  noopMetrics,
  PromMetrics,
} from "@informer-ts/instrumentation";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ItemExponentialFailureRateLimiter } from "./default-rate-limiters.js";
import { DelayingQueue } from "./delaying-queue.js";
import { workqueueMetrics } from "./metrics.js";
import { Queue } from "./queue.js";
import { RateLimitingQueue } from "./rate-limiting-queue.js";

/** InMemoryMetrics that also counts every gauge `set` per metric name (to see the ticker run). */
class CountingMetrics extends InMemoryMetrics {
  readonly sets = new Map<string, number>();
  override gauge(opts: MetricOpts): Gauge {
    const g = super.gauge(opts);
    return {
      ...g,
      set: (value, labels) => {
        this.sets.set(opts.name, (this.sets.get(opts.name) ?? 0) + 1);
        g.set(value, labels);
      },
    };
  }
}

const name = { name: "test" };

describe("workqueue metrics (metrics_test.go)", () => {
  it("W9 TestMetricShutdown: the unfinished-work ticker stops on shutdown", async () => {
    const clock = new FakeClock(0);
    const mp = new CountingMetrics();
    const q = new Queue<string>({ name: "test", clock, metricsProvider: mp, unfinishedWorkUpdatePeriod: 1 });
    expect(clock.pendingTimers()).toBe(1);
    await clock.step(1);
    expect(mp.sets.get(workqueueMetrics.unfinishedWork.name)).toBe(1);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(3_600_000);
    expect(mp.sets.get(workqueueMetrics.unfinishedWork.name)).toBe(1);
  });

  it("§2a TestMetrics: adds, depth, queue latency, work duration, unfinished work", async () => {
    const mp = new InMemoryMetrics();
    const clock = new FakeClock(0);
    const q = new Queue<string>({ name: "test", clock, metricsProvider: mp, unfinishedWorkUpdatePeriod: 1 });
    const value = (metric: { name: string }) => mp.value(metric.name, name);
    const hist = (metric: { name: string }) => mp.histogramValue(metric.name, name);

    q.add("foo");
    expect(value(workqueueMetrics.adds)).toBe(1);
    expect(value(workqueueMetrics.depth)).toBe(1);

    await clock.step(0.05); // 50 µs
    let [i] = await q.get();
    const firstGet = clock.now();
    expect(i).toBe("foo");
    expect(hist(workqueueMetrics.latency).values).toEqual([firstGet / 1000]);

    // Add it back while processing; multiple adds of the same item are de-duplicated.
    for (let n = 0; n < 5; n++) q.add(i!);
    expect(value(workqueueMetrics.adds)).toBe(2);
    expect(value(workqueueMetrics.depth)).toBe(1); // one thing remains in the queue

    await clock.step(0.025);
    q.done(i!);
    const firstDone = clock.now();
    expect(hist(workqueueMetrics.workDuration).values).toEqual([(firstDone - firstGet) / 1000]);
    expect(value(workqueueMetrics.depth)).toBe(1);

    [i] = await q.get();
    expect(i).toBe("foo");
    // Queue latency of the re-add counts from the first non-deduplicated add, made while foo was in flight.
    expect(hist(workqueueMetrics.latency).values).toEqual([firstGet / 1000, (firstDone - firstGet) / 1000]);
    expect(value(workqueueMetrics.depth)).toBe(0);

    // The ticker (period 1 ms, started at t = 0) fires at t = 1 ms (FakeClock runs each timer at its due
    // time, where client-go's fake clock fires it at the end of the step): foo is in flight since the second get.
    await clock.step(1);
    const tickAt = 1;
    const age = (tickAt - firstDone) / 1000;
    expect(value(workqueueMetrics.unfinishedWork)).toBe(age);
    expect(value(workqueueMetrics.longestRunningProcessor)).toBe(age);

    q.done(i!);
    expect(hist(workqueueMetrics.workDuration).count).toBe(2);
    expect(hist(workqueueMetrics.workDuration).values[1]).toBe((clock.now() - firstDone) / 1000);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("W9 unfinished work sums the ages of every in-flight item; longest is the oldest", async () => {
    const mp = new InMemoryMetrics();
    const clock = new FakeClock(0);
    const q = new Queue<string>({ name: "test", clock, metricsProvider: mp });
    q.add("a");
    q.add("b");
    await q.get(); // a at t = 0
    await clock.step(200);
    await q.get(); // b at t = 200
    await clock.step(300); // first tick at t = 500
    expect(mp.value(workqueueMetrics.unfinishedWork.name, name)).toBe(0.5 + 0.3);
    expect(mp.value(workqueueMetrics.longestRunningProcessor.name, name)).toBe(0.5);
    q.done("a");
    q.done("b");
    await clock.step(500);
    expect(mp.value(workqueueMetrics.unfinishedWork.name, name)).toBe(0);
    expect(mp.value(workqueueMetrics.longestRunningProcessor.name, name)).toBe(0);
    q.shutDown();
  });

  it("W9 the ticker runs only for a named queue with a real provider", () => {
    const clock = new FakeClock(0);
    new Queue<string>({ clock, metricsProvider: new InMemoryMetrics() });
    new Queue<string>({ name: "noop", clock, metricsProvider: noopMetrics });
    new Queue<string>({ name: "default", clock }); // no setProvider in this file: no-op
    expect(clock.pendingTimers()).toBe(0);
    const q = new Queue<string>({ name: "named", clock, metricsProvider: new InMemoryMetrics() });
    expect(clock.pendingTimers()).toBe(1);
    void q.shutDownWithDrain();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("W9 an unnamed queue records nothing", async () => {
    const mp = new InMemoryMetrics();
    const q = new Queue<string>({ clock: new FakeClock(0), metricsProvider: mp });
    q.add("a");
    await q.get();
    q.done("a");
    expect(mp.names()).toEqual([]);
  });

  it("Q1 retries_total counts every addAfter call before shutdown, including d ≤ 0", () => {
    const mp = new InMemoryMetrics();
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ name: "test", clock, metricsProvider: mp });
    q.addAfter("a", 0);
    q.addAfter("a", -5);
    q.addAfter("b", 100);
    q.addAfter("b", 50);
    expect(mp.value(workqueueMetrics.retries.name, name)).toBe(4);
    expect(mp.value(workqueueMetrics.adds.name, name)).toBe(1);
    q.shutDown();
    q.addAfter("c", 10);
    expect(mp.value(workqueueMetrics.retries.name, name)).toBe(4);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("L1 addRateLimited counts a retry on the named queue", () => {
    const mp = new InMemoryMetrics();
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(1, 1000), {
      name: "rl",
      clock,
      metricsProvider: mp,
    });
    q.addRateLimited("a");
    q.addRateLimited("a");
    expect(mp.value(workqueueMetrics.retries.name, { name: "rl" })).toBe(2);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("§2a the seven metrics have client-go's names, help texts, label and buckets", () => {
    const mp = new InMemoryMetrics();
    const q = new DelayingQueue<string>({ name: "test", clock: new FakeClock(0), metricsProvider: mp });
    q.addAfter("x", 0);
    expect(mp.names()).toEqual([
      "workqueue_adds_total",
      "workqueue_depth",
      "workqueue_longest_running_processor_seconds",
      "workqueue_queue_duration_seconds",
      "workqueue_retries_total",
      "workqueue_unfinished_work_seconds",
      "workqueue_work_duration_seconds",
    ]);
    for (const n of mp.names()) {
      expect(mp.describe(n)?.labelNames).toEqual(["name"]);
      expect(mp.describe(n)?.help.startsWith("[BETA] ")).toBe(true);
    }
    expect(mp.describe("workqueue_depth")?.help).toBe("[BETA] Current depth of workqueue");
    const expectedBuckets: number[] = [];
    for (let b = 10e-9, k = 0; k < 10; k++, b *= 10) expectedBuckets.push(b);
    for (const h of ["workqueue_queue_duration_seconds", "workqueue_work_duration_seconds"]) {
      const opts = mp.describe(h) as { buckets: readonly number[] };
      expect(opts.buckets).toEqual(expectedBuckets);
      expect(opts.buckets[0]).toBe(1e-8);
      expect(opts.buckets[9]).toBeCloseTo(10, 12);
    }
    q.shutDown();
  });

  it("§2a PromMetrics renders the workqueue series with the name label", async () => {
    const prom = new PromMetrics();
    const clock = new FakeClock(0);
    const q = new Queue<string>({ name: "pods", clock, metricsProvider: prom });
    q.add("a");
    q.add("b");
    await q.get();
    const text = await prom.render();
    expect(text).toContain('workqueue_adds_total{name="pods"} 2');
    expect(text).toContain('workqueue_depth{name="pods"} 1');
    expect(text).toContain("# HELP workqueue_depth [BETA] Current depth of workqueue");
    expect(text).toContain('workqueue_queue_duration_seconds_bucket{le="1e-8",name="pods"} 1');
    q.shutDown();
  });

  it("§2a two queues share the families and differ by the name label", async () => {
    const mp: MetricsProvider = new InMemoryMetrics();
    const clock = new FakeClock(0);
    const a = new Queue<string>({ name: "a", clock, metricsProvider: mp });
    const b = new Queue<string>({ name: "b", clock, metricsProvider: mp });
    a.add("x");
    b.add("x");
    b.add("y");
    const m = mp as InMemoryMetrics;
    expect(m.value("workqueue_adds_total", { name: "a" })).toBe(1);
    expect(m.value("workqueue_adds_total", { name: "b" })).toBe(2);
    a.shutDown();
    b.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });
});

/**
 * client-go's queue with `defaultQueueMetrics`, timestamps in two maps keyed by item (the reference for the queue,
 * which keeps them in its item records). Records into `m` like the real queue.
 */
class ReferenceQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addTimes = new Map<string, number>();
  private readonly startTimes = new Map<string, number>();
  constructor(
    private readonly m: InMemoryMetrics,
    private readonly clock: FakeClock,
  ) {}
  add(item: string): void {
    if (this.dirty.has(item)) return;
    this.m.counter(workqueueMetrics.adds).inc(name);
    this.m.gauge(workqueueMetrics.depth).inc(name);
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
    this.dirty.add(item);
    if (!this.processing.has(item)) this.queue.push(item);
  }
  get(): string | undefined {
    const item = this.queue.shift();
    if (item === undefined) return undefined;
    this.m.gauge(workqueueMetrics.depth).dec(name);
    this.startTimes.set(item, this.clock.now());
    const added = this.addTimes.get(item);
    if (added !== undefined) {
      this.m.histogram(workqueueMetrics.latency).observe((this.clock.now() - added) / 1000, name);
      this.addTimes.delete(item);
    }
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }
  done(item: string): void {
    const started = this.startTimes.get(item);
    if (started !== undefined) {
      this.m.histogram(workqueueMetrics.workDuration).observe(this.clock.since(started) / 1000, name);
      this.startTimes.delete(item);
    }
    this.processing.delete(item);
    if (this.dirty.has(item)) this.queue.push(item);
  }
  unfinished(): [number, number] {
    let total = 0;
    let oldest = 0;
    for (const s of this.startTimes.values()) {
      const age = this.clock.since(s) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    return [total, oldest];
  }
}

describe("workqueue metrics against client-go's map-based bookkeeping", () => {
  type Op = { op: "add"; item: string } | { op: "done"; item: string } | { op: "get" } | { op: "tick"; ms: number };
  const item = fc.constantFrom("a", "b");
  const op: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: fc.record({ op: fc.constant("add" as const), item }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant("done" as const), item }), weight: 3 },
    { arbitrary: fc.constant({ op: "get" as const }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant("tick" as const), ms: fc.integer({ min: 1, max: 700 }) }), weight: 1 },
  );

  it("every series equals the reference's, spurious and repeated done() calls included (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const clock = new FakeClock(0);
        const real = new InMemoryMetrics();
        const ref = new InMemoryMetrics();
        const q = new Queue<string>({ name: "test", clock, metricsProvider: real });
        const r = new ReferenceQueue(ref, clock);
        // The reference's unfinished-work figures, read on a ticker of the same period as the queue's.
        let expected: [number, number] = [0, 0];
        const ticker = clock.newTicker(500, () => {
          expected = r.unfinished();
        });
        for (const o of ops) {
          if (o.op === "add") {
            q.add(o.item);
            r.add(o.item);
          } else if (o.op === "done") {
            q.done(o.item);
            r.done(o.item);
          } else if (o.op === "get") {
            expect(q.tryGet()).toBe(r.get());
          } else {
            await clock.step(o.ms);
          }
        }
        for (const metric of [workqueueMetrics.adds, workqueueMetrics.depth]) {
          expect(real.value(metric.name, name)).toBe(ref.value(metric.name, name));
        }
        for (const metric of [workqueueMetrics.latency, workqueueMetrics.workDuration]) {
          expect(real.histogramValue(metric.name, name).values).toEqual(ref.histogramValue(metric.name, name).values);
        }
        await clock.step(500); // at least one unfinished-work tick at the end
        const [total, oldest] = expected;
        expect(real.value(workqueueMetrics.unfinishedWork.name, name)).toBeCloseTo(total, 9);
        expect(real.value(workqueueMetrics.longestRunningProcessor.name, name)).toBeCloseTo(oldest, 9);
        q.shutDown();
        ticker.stop();
      }),
      { numRuns: 300 },
    );
  });
});
