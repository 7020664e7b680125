import { type Clock, FakeClock, type Ticker, type Timer } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { DelayingQueue, maxWait } from "./delaying-queue.js";
import { Queue } from "./queue.js";

function newQueue(clock = new FakeClock()) {
  return { clock, q: new DelayingQueue<string>({ clock }) };
}

/** Takes every queued item synchronously and marks it done. */
function drainNow(q: DelayingQueue<string>): string[] {
  const out: string[] = [];
  for (let item = q.tryGet(); item !== undefined; item = q.tryGet()) {
    out.push(item);
    q.done(item);
  }
  return out;
}

describe("DelayingQueue (delaying_queue_test.go)", () => {
  it("Q1 TestSimpleQueue: an item appears once its delay has passed, and only once", async () => {
    const { clock, q } = newQueue();
    q.addAfter("foo", 50);
    expect(q.len()).toBe(0);
    await clock.step(60);
    expect(q.len()).toBe(1);
    const [item] = await q.get();
    q.done(item!);
    // Step past the next heartbeat: nothing is added again.
    await clock.step(10_000);
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it("Q2 TestDeduping: a later addAfter does not postpone, an earlier one advances", async () => {
    const { clock, q } = newQueue();
    q.addAfter("foo", 50);
    q.addAfter("foo", 70);
    expect(q.len()).toBe(0);
    // Step past the first block: the item arrives at 50 ms, not 70 ms.
    await clock.step(60);
    expect(q.len()).toBe(1);
    const [item] = await q.get();
    q.done(item!);
    // Step past the second add: it was merged into the first, nothing more arrives.
    await clock.step(20);
    expect(q.len()).toBe(0);

    // This time the earlier add overrides.
    q.addAfter("foo", 50);
    q.addAfter("foo", 30);
    expect(q.len()).toBe(0);
    await clock.step(40);
    expect(q.len()).toBe(1);
    const [again] = await q.get();
    q.done(again!);
    await clock.step(20);
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it("Q2 TestAddTwoFireEarly: the earliest item fires first; a new item re-arms the timer", async () => {
    const { clock, q } = newQueue();
    q.addAfter("foo", 1000);
    q.addAfter("bar", 50);
    expect(q.len()).toBe(0);
    await clock.step(60);
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe("bar");
    q.addAfter("baz", 2000);
    await clock.step(1000);
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe("foo");
    await clock.step(2000);
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe("baz");
    q.shutDown();
  });

  it("Q2 TestCopyShifting: items added in reverse order come out in due order", async () => {
    const { clock, q } = newQueue();
    q.addAfter("foo", 1000);
    q.addAfter("bar", 500);
    q.addAfter("baz", 250);
    expect(q.len()).toBe(0);
    await clock.step(2000);
    expect(q.len()).toBe(3);
    expect(drainNow(q)).toEqual(["baz", "bar", "foo"]);
    q.shutDown();
  });

  it("Q2 BenchmarkDelayingQueue_AddAfter (as a test): 1000 random delays all arrive, in due order", async () => {
    const { clock, q } = newQueue();
    const due = new Map<string, number>();
    let seed = 1;
    for (let n = 0; n < 1000; n++) {
      seed = (seed * 48271) % 2147483647;
      const d = 1 + (seed % 600_000);
      due.set(String(n), d);
      q.addAfter(String(n), d);
    }
    await clock.step(11 * 60_000);
    const out = drainNow(q);
    expect(out.length).toBe(1000);
    const times = out.map((k) => due.get(k)!);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(clock.pendingTimers()).toBe(0); // nothing waits, so no timer and no heartbeat
    q.shutDown();
  });
});

describe("DelayingQueue: edge cases 39 and 41", () => {
  it("Q1 edge 39: a delay ≤ 0 adds at once", () => {
    const { clock, q } = newQueue();
    q.addAfter("zero", 0);
    q.addAfter("negative", -1);
    expect(drainNow(q)).toEqual(["zero", "negative"]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("Q2 due items go through add, so the dirty set deduplicates them", async () => {
    const { clock, q } = newQueue();
    q.add("x");
    q.addAfter("x", 10);
    await clock.step(10);
    expect(q.len()).toBe(1);
    expect(drainNow(q)).toEqual(["x"]);
  });

  it("Q2 an item never arrives before its due time", async () => {
    const { clock, q } = newQueue();
    q.addAfter("x", 100);
    await clock.step(99);
    expect(q.len()).toBe(0);
    await clock.step(1);
    expect(q.len()).toBe(1);
  });

  it("Q2 items due at the same time arrive in the order they were first delayed", async () => {
    const { clock, q } = newQueue();
    for (const k of ["c", "a", "d", "b"]) q.addAfter(k, 100);
    q.addAfter("e", 200);
    q.addAfter("e", 100); // moved earlier: joins the others, after them
    await clock.step(100);
    expect(drainNow(q)).toEqual(["c", "a", "d", "b", "e"]);
  });

  it("Q2 the heartbeat runs every 10 s only while items wait", async () => {
    const { clock, q } = newQueue();
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter("x", 25_000);
    expect(clock.pendingTimers()).toBe(2); // head timer + heartbeat
    expect(clock.nextDue()).toBe(clock.now() + maxWait);
    await clock.step(25_000);
    expect(q.len()).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("Q2 the heartbeat adds an item whose timer did not fire (a clock that lost the timer)", async () => {
    // A clock wrapper whose one-shot timers never fire: only the heartbeat can add the item.
    const fake = new FakeClock();
    const lossy: Clock = {
      now: () => fake.now(),
      since: (t) => fake.since(t),
      sleep: (ms, signal) => fake.sleep(ms, signal),
      newTicker: (ms, fn): Ticker => fake.newTicker(ms, fn),
      afterFunc: (): Timer => ({ stop: () => false, reset: () => false }),
    };
    const q = new DelayingQueue<string>({ clock: lossy });
    q.addAfter("x", 3_000);
    await fake.step(9_999);
    expect(q.len()).toBe(0);
    await fake.step(1);
    expect(q.len()).toBe(1);
    expect(fake.pendingTimers()).toBe(0);
  });

  it("Q3 edge 41: shutDown discards pending delayed items; they never appear", async () => {
    const { clock, q } = newQueue();
    q.addAfter("late", 100);
    q.addAfter("later", 50_000);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(100_000);
    expect(q.len()).toBe(0);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it("Q1 edge 41: addAfter after shutdown is a no-op", async () => {
    const { clock, q } = newQueue();
    q.shutDown();
    q.addAfter("x", 0);
    q.addAfter("y", 10);
    await clock.step(10);
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("Q3 shutDownWithDrain also discards pending items and stops the timers", async () => {
    const { clock, q } = newQueue();
    q.add("inflight");
    const [item] = await q.get();
    q.addAfter("late", 100);
    const drained = q.shutDownWithDrain();
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(200);
    expect(q.len()).toBe(0);
    q.done(item!);
    await drained;
  });

  it("Q3 shutDown after shutDownWithDrain ends the drain (the inner queue is shut down once)", async () => {
    const { q } = newQueue();
    q.add("a");
    await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    q.shutDown();
    await p;
    expect(drained).toBe(true);
  });

  it("Q3 shutDown is idempotent and shuts the custom inner queue down once", () => {
    const inner = new Queue<string>();
    let calls = 0;
    const spy = Object.assign(Object.create(inner) as Queue<string>, {
      shutDown: () => {
        calls++;
        inner.shutDown();
      },
    });
    const q = new DelayingQueue<string>({ clock: new FakeClock(), queue: spy });
    q.shutDown();
    q.shutDown();
    expect(calls).toBe(1);
    expect(q.shuttingDown()).toBe(true);
  });

  it("Q1 a NaN delay is rejected with a clear error; Infinity waits (about 292 years), never forever", async () => {
    const { clock, q } = newQueue();
    expect(() => q.addAfter("x", Number.NaN)).toThrow(/NaN/);
    q.addAfter("y", Number.POSITIVE_INFINITY);
    expect(Number.isFinite(clock.nextDue()!)).toBe(true);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("Q2 a waiting worker receives the delayed item when it becomes due", async () => {
    const { clock, q } = newQueue();
    const got = q.get();
    q.addAfter("x", 5);
    await clock.step(5);
    expect(await got).toEqual(["x", false]);
  });
});
