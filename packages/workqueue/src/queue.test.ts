import { FakeClock, settle } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { Deque } from "./internal/deque.js";
import { collectGarbage } from "./internal/gc.test-util.js";
import { type DrainSemantics, defaultQueue, Queue, type QueueStorage, type TypedInterface } from "./queue.js";

/** client-go's `traceQueue`: the default storage, recording which items were touched. */
class TraceStorage<T> implements QueueStorage<T> {
  private readonly inner = defaultQueue<T>();
  readonly touched = new Set<T>();
  touch(item: T): void {
    this.inner.touch(item);
    this.touched.add(item);
  }
  push(item: T): void {
    this.inner.push(item);
  }
  len(): number {
    return this.inner.len();
  }
  pop(): T {
    return this.inner.pop();
  }
}

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(p: Promise<T>): { readonly settled: boolean; readonly value: T | undefined } {
  const state = { settled: false, value: undefined as T | undefined };
  p.then((v) => {
    state.settled = true;
    state.value = v;
  });
  return state;
}

type ShutDownKind = "shutDown" | "shutDownWithDrain";
const shutDownKinds: ShutDownKind[] = ["shutDown", "shutDownWithDrain"];

function shutDownBy(q: TypedInterface<unknown>, kind: ShutDownKind): Promise<void> {
  if (kind === "shutDown") {
    q.shutDown();
    return Promise.resolve();
  }
  return q.shutDownWithDrain();
}

describe("Queue (queue_test.go)", () => {
  it.each(shutDownKinds)("W8 TestBasic: 50 producers, 10 consumers, then %s", async (kind) => {
    const clock = new FakeClock();
    const q = new Queue<unknown>({ clock });
    const producers = Array.from({ length: 50 }, async (_, i) => {
      for (let j = 0; j < 50; j++) {
        q.add(i);
        await clock.sleep(1);
      }
    });
    const inFlight = new Set<unknown>();
    const processed: unknown[] = [];
    const consumers = Array.from({ length: 10 }, async () => {
      for (;;) {
        const [item, quit] = await q.get();
        expect(item).not.toBe("added after shutdown!");
        if (quit) return;
        expect(inFlight.has(item)).toBe(false); // W8: never processed by two workers at once
        inFlight.add(item);
        await clock.sleep(3);
        inFlight.delete(item);
        processed.push(item);
        q.done(item);
      }
    });
    await clock.runUntilIdle();
    await Promise.all(producers);
    const drained = shutDownBy(q, kind);
    q.add("added after shutdown!");
    await clock.runUntilIdle();
    await Promise.all(consumers);
    await drained;
    expect(q.len()).toBe(0);
    expect(new Set(processed)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i)));
  });

  it.each(shutDownKinds)("W8 TestAddWhileProcessing: re-adding while in flight, then %s", async (kind) => {
    const q = new Queue<number>();
    for (let i = 0; i < 50; i++) q.add(i);
    const gets = new Map<number, number>();
    let inFlight = 0;
    const consumers = Array.from({ length: 10 }, async () => {
      // Every worker re-adds every item it sees for the first time: the dirty-while-processing case.
      const counters = new Map<number, number>();
      for (;;) {
        const [item, quit] = await q.get();
        if (quit) return;
        inFlight++;
        gets.set(item, (gets.get(item) ?? 0) + 1);
        const n = (counters.get(item) ?? 0) + 1;
        counters.set(item, n);
        if (n < 2) q.add(item);
        await settle();
        inFlight--;
        q.done(item);
      }
    });
    // Let the workers reach quiescence (every re-add processed), then shut down.
    while (q.len() > 0 || inFlight > 0) await settle();
    const drained = shutDownBy(q as TypedInterface<unknown>, kind);
    await Promise.all(consumers);
    await drained;
    expect(q.len()).toBe(0);
    for (let i = 0; i < 50; i++) expect(gets.get(i)).toBeGreaterThanOrEqual(2);
  });

  it("W7 TestLen: len counts queued items once", () => {
    const q = new Queue<string>();
    q.add("foo");
    expect(q.len()).toBe(1);
    q.add("bar");
    expect(q.len()).toBe(2);
    q.add("foo"); // should not increase the queue length
    expect(q.len()).toBe(2);
  });

  it("W7 len excludes in-flight and dirty-while-processing items", async () => {
    const q = new Queue<string>();
    q.add("foo");
    const [item] = await q.get();
    expect(q.len()).toBe(0);
    q.add("foo");
    expect(q.len()).toBe(0);
    q.done(item!);
    expect(q.len()).toBe(1);
  });

  it("W4 TestReinsert: an item added while in flight comes back after done", async () => {
    const q = new Queue<string>();
    q.add("foo");
    let [i] = await q.get();
    expect(i).toBe("foo");
    q.add(i!);
    q.done(i!);
    [i] = await q.get();
    expect(i).toBe("foo");
    q.done(i!);
    expect(q.len()).toBe(0);
  });

  it("W2 TestCollapse: a dirty queued item is touched, not queued twice", async () => {
    const tq = new TraceStorage<string>();
    const q = new Queue<string>({ queue: tq });
    q.add("bar");
    q.add("bar");
    const [i] = await q.get();
    expect(i).toBe("bar");
    q.done(i!);
    expect(q.len()).toBe(0);
    expect(tq.touched.has("bar")).toBe(true);
  });

  it("W2 TestCollapseWhileProcessing: a dirty in-flight item is not touched", async () => {
    const tq = new TraceStorage<string>();
    const q = new Queue<string>({ queue: tq });
    q.add("foo");
    const [i] = await q.get();
    expect(i).toBe("foo");
    q.add("foo");
    q.add("foo");
    // Another worker waits; it must stay blocked until the first one is done.
    const other = track(
      (async () => {
        const [j] = await q.get();
        expect(j).toBe("foo");
        q.done(j!);
      })(),
    );
    await settle();
    expect(other.settled).toBe(false);
    q.done("foo");
    await settle();
    expect(other.settled).toBe(true);
    expect(q.len()).toBe(0);
    expect(tq.touched.has("foo")).toBe(false);
  });

  it("W2 add after shutdown is ignored and records no metrics", () => {
    const metrics = new InMemoryMetrics();
    const q = new Queue<string>({ name: "q", metricsProvider: metrics, clock: new FakeClock() });
    q.shutDown();
    q.add("x");
    expect(q.len()).toBe(0);
    expect(metrics.value("workqueue_adds_total", { name: "q" })).toBe(0);
  });

  it("W6 TestQueueDrainageUsingShutDownWithDrain: waits for in-flight items", async () => {
    const q = new Queue<string>();
    q.add("foo");
    q.add("bar");
    const [first] = await q.get();
    const [second] = await q.get();
    const drained = track(q.shutDownWithDrain());
    let shuttingDown = false;
    while (!shuttingDown) [, shuttingDown] = await q.get();
    await settle();
    expect(drained.settled).toBe(false);
    q.done(first!);
    await settle();
    expect(drained.settled).toBe(false);
    q.done(second!);
    await settle();
    expect(drained.settled).toBe(true);
  });

  it("W5 TestNoQueueDrainageUsingShutDown: shutDown does not wait for in-flight items", async () => {
    const q = new Queue<string>();
    q.add("foo");
    q.add("bar");
    await q.get();
    await q.get();
    q.shutDown(); // returns although neither item is done
    expect(q.shuttingDown()).toBe(true);
  });

  it("W6 TestForceQueueShutdownUsingShutDown: shutDown ends a pending drain", async () => {
    const q = new Queue<string>();
    q.add("foo");
    q.add("bar");
    await q.get();
    await q.get();
    const drained = track(q.shutDownWithDrain());
    let shuttingDown = false;
    while (!shuttingDown) [, shuttingDown] = await q.get();
    await settle();
    expect(drained.settled).toBe(false);
    q.shutDown();
    await settle();
    expect(drained.settled).toBe(true);
  });

  it("W6 TestQueueDrainageUsingShutDownWithDrainWithDirtyItem", async () => {
    const q = new Queue<string>();
    q.add("foo");
    const [gotten] = await q.get();
    q.add("foo");
    const drained = track(q.shutDownWithDrain());
    let shuttingDown = false;
    while (!shuttingDown) [, shuttingDown] = await q.get();
    q.done(gotten!);
    // done re-queued the dirty item, so get hands it out although the queue is shutting down.
    const [again, stillRunning] = await q.get();
    expect(stillRunning).toBe(false);
    expect(again).toBe("foo");
    q.done(again!);
    [, shuttingDown] = await q.get();
    expect(shuttingDown).toBe(true);
    await settle();
    expect(drained.settled).toBe(true);
  });

  it("W1 TestGarbageCollection: an item added, got and done can be collected", async () => {
    const q = new Queue<object>();
    let ref: WeakRef<object> | undefined;
    await (async () => {
      const big = { data: "hello".repeat(1000) };
      ref = new WeakRef(big);
      q.add(big);
      const [o] = await q.get();
      q.done(o!);
    })();
    await collectGarbage();
    expect(ref!.deref()).toBeUndefined();
    expect(q.len()).toBe(0); // keeps q alive until after the collection
  });
});

describe("Queue: get, tryGet and waiting workers", () => {
  it("W3 waiting workers are served in FIFO order, one item each", async () => {
    const q = new Queue<string>();
    const order: string[] = [];
    const workers = [0, 1, 2].map(async (w) => {
      const [item] = await q.get();
      order.push(`${w}:${item}`);
    });
    await settle();
    q.add("a");
    q.add("b");
    q.add("c");
    await Promise.all(workers);
    expect(order).toEqual(["0:a", "1:b", "2:c"]);
  });

  it("W3 after shutDown the remaining items are still handed out, then [undefined, true]", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.shutDown();
    expect(await q.get()).toEqual(["a", false]);
    expect(await q.get()).toEqual(["b", false]);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it("W5 shutDown releases every waiting worker with shutdown = true", async () => {
    const q = new Queue<string>();
    const waits = [q.get(), q.get(), q.get()];
    q.shutDown();
    expect(await Promise.all(waits)).toEqual([
      [undefined, true],
      [undefined, true],
      [undefined, true],
    ]);
  });

  it("W3 get resolves at once when an item is queued; tryGet takes it synchronously", async () => {
    const q = new Queue<string>();
    expect(q.tryGet()).toBeUndefined();
    q.add("a");
    q.add("b");
    expect(q.tryGet()).toBe("a");
    q.add("a"); // in flight: dirty, not queued
    expect(q.len()).toBe(1);
    const got = track(q.get());
    await Promise.resolve();
    expect(got.value).toEqual(["b", false]);
    q.done("a");
    expect(q.tryGet()).toBe("a");
    q.shutDown();
    expect(q.tryGet()).toBeUndefined();
  });

  it("W3 an aborted get withdraws without consuming an item", async () => {
    const q = new Queue<string>();
    const ac = new AbortController();
    const first = q.get(ac.signal);
    const second = q.get();
    ac.abort(new Error("stop waiting"));
    await expect(first).rejects.toThrow("stop waiting");
    q.add("x");
    expect(await second).toEqual(["x", false]);
    await expect(q.get(ac.signal)).rejects.toThrow("stop waiting");
    expect(q.len()).toBe(0);
  });

  it("W3 many aborted waiters do not accumulate", async () => {
    const q = new Queue<number>();
    for (let i = 0; i < 1000; i++) {
      const ac = new AbortController();
      const p = q.get(ac.signal);
      ac.abort();
      await p.catch(() => undefined);
    }
    const waiters = (q as unknown as { waiters: Deque<unknown> }).waiters;
    expect(waiters.length).toBeLessThanOrEqual(2);
    const live = q.get();
    q.add(7);
    expect(await live).toEqual([7, false]);
  });

  it("W1 items are compared with SameValueZero (NaN equals NaN, +0 equals -0, objects by reference)", () => {
    const q = new Queue<unknown>();
    q.add(Number.NaN);
    q.add(Number.NaN);
    q.add(0);
    q.add(-0);
    q.add({ k: 1 });
    q.add({ k: 1 });
    expect(q.len()).toBe(4);
  });

  it("W1 popped slots are released and the ring shrinks after a burst", async () => {
    const q = new Queue<object>();
    const refs: WeakRef<object>[] = [];
    (() => {
      for (let i = 0; i < 10_000; i++) {
        const o = { i };
        refs.push(new WeakRef(o));
        q.add(o);
      }
    })();
    for (let o = q.tryGet(); o !== undefined; o = q.tryGet()) q.done(o);
    const deque = (q as unknown as { fifo: Deque<object> }).fifo;
    expect(deque.capacity).toBeLessThanOrEqual(2048); // shrunk from 16384 (it keeps up to ~1024 slots)
    await collectGarbage();
    expect(refs.filter((r) => r.deref() !== undefined).length).toBe(0);
  });
});

describe("Queue: drain semantics (W6, edge case 38)", () => {
  it("W6 client-go: shutDownWithDrain resolves when nothing is in flight, even with items still queued", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.add("c");
    const [a] = await q.get();
    const drained = track(q.shutDownWithDrain());
    await settle();
    expect(drained.settled).toBe(false);
    q.done(a!);
    await settle();
    expect(drained.settled).toBe(true);
    expect(q.len()).toBe(2); // b and c are still queued and still handed out
    expect(await q.get()).toEqual(["b", false]);
  });

  it("W6 pr141079: shutDownWithDrain waits for queued and in-flight items", async () => {
    const q = new Queue<string>({ drainSemantics: "pr141079" });
    q.add("a");
    q.add("b");
    const [a] = await q.get();
    const drained = track(q.shutDownWithDrain());
    q.done(a!);
    await settle();
    expect(drained.settled).toBe(false);
    const [b] = await q.get();
    await settle();
    expect(drained.settled).toBe(false);
    q.done(b!);
    await settle();
    expect(drained.settled).toBe(true);
  });

  it("W6 shutDownWithDrain on an idle queue resolves at once, in both modes", async () => {
    for (const drainSemantics of ["client-go", "pr141079"] as DrainSemantics[]) {
      const q = new Queue<string>({ drainSemantics });
      await q.shutDownWithDrain();
      expect(q.shuttingDown()).toBe(true);
    }
  });

  it("W6 every concurrent shutDownWithDrain caller is released", async () => {
    const q = new Queue<string>();
    q.add("a");
    const [a] = await q.get();
    const d1 = track(q.shutDownWithDrain());
    const d2 = track(q.shutDownWithDrain());
    q.done(a!);
    await settle();
    expect([d1.settled, d2.settled]).toEqual([true, true]);
  });

  it("W6 a drain whose worker never calls done stays pending", async () => {
    const q = new Queue<string>();
    q.add("a");
    await q.get();
    const drained = track(q.shutDownWithDrain());
    for (let i = 0; i < 5; i++) await settle();
    expect(drained.settled).toBe(false);
    q.shutDown();
    await settle();
    expect(drained.settled).toBe(true);
  });

  it("W4 edge 38 client-go: done for a queued, not in-flight item duplicates its queue entry", async () => {
    const q = new Queue<string>();
    q.add("x");
    q.done("x"); // spurious: x is dirty and queued, not in flight
    expect(q.len()).toBe(2);
    // The quirk: both entries are handed out, so two workers hold x at once.
    expect(await q.get()).toEqual(["x", false]);
    expect(await q.get()).toEqual(["x", false]);
    // client-go's processing set holds x once: the first done empties it, so a drain resolves at once.
    q.done("x");
    await q.shutDownWithDrain();
    q.done("x"); // the second worker's done is a no-op
    expect(q.len()).toBe(0);
  });

  it("W4 edge 38 pr141079: done for an item that is not in flight is ignored", async () => {
    const q = new Queue<string>({ drainSemantics: "pr141079" });
    q.add("x");
    q.done("x");
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(["x", false]);
    expect(q.tryGet()).toBeUndefined();
  });

  it("W6 rejects an unknown drainSemantics", () => {
    expect(() => new Queue({ drainSemantics: "eventually" as DrainSemantics })).toThrow(/drainSemantics/);
  });
});

describe("Deque", () => {
  it("W1 keeps FIFO order across growth, wrap-around and shrinking", () => {
    const d = new Deque<number>();
    const model: number[] = [];
    let next = 0;
    for (let round = 0; round < 20; round++) {
      const pushes = (round * 37) % 100;
      const pops = (round * 53) % 90;
      for (let i = 0; i < pushes; i++) {
        d.push(next);
        model.push(next++);
      }
      for (let i = 0; i < pops; i++) expect(d.shift()).toBe(model.shift());
      expect(d.length).toBe(model.length);
      expect(d.toArray()).toEqual(model);
      expect(d.peek()).toBe(model[0]);
    }
    d.clear();
    expect(d.length).toBe(0);
    expect(d.shift()).toBeUndefined();
  });

  it("W1 grows for a burst and shrinks back once drained (never below 1024 slots after growing)", () => {
    const d = new Deque<number>();
    expect(d.capacity).toBe(16);
    for (let i = 0; i < 100_000; i++) d.push(i);
    expect(d.capacity).toBe(131_072);
    for (let i = 0; i < 100_000; i++) expect(d.shift()).toBe(i);
    expect(d.capacity).toBeLessThanOrEqual(2048);
    expect(d.capacity).toBeGreaterThanOrEqual(1024);
  });
});
