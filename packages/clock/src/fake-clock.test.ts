import { describe, expect, it } from "vitest";
import { FakeClock, settle } from "./fake-clock.js";

describe("FakeClock", () => {
  it("starts at the given time (default 2026-01-01T00:00:00Z) and only moves when told", async () => {
    expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
    const clock = new FakeClock(1000);
    expect(clock.now()).toBe(1000);
    await settle();
    expect(clock.now()).toBe(1000);
    await clock.step(250);
    expect(clock.now()).toBe(1250);
    expect(clock.since(1000)).toBe(250);
    await clock.advanceTo(2000);
    expect(clock.now()).toBe(2000);
    await clock.advanceTo(1500); // never backwards
    expect(clock.now()).toBe(2000);
  });

  it("runs due timers in time order, each at its own due time", async () => {
    const clock = new FakeClock(0);
    const fired: [string, number][] = [];
    clock.afterFunc(30, () => fired.push(["c", clock.now()]));
    clock.afterFunc(10, () => fired.push(["a", clock.now()]));
    clock.afterFunc(20, () => fired.push(["b", clock.now()]));
    clock.afterFunc(40, () => fired.push(["d", clock.now()]));
    await clock.step(35);
    expect(fired).toEqual([
      ["a", 10],
      ["b", 20],
      ["c", 30],
    ]);
    expect(clock.now()).toBe(35);
    expect(clock.pendingTimers()).toBe(1);
  });

  it("runs timers due at the same time in creation order, including ones created while running", async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.afterFunc(10, () => {
      fired.push("first");
      clock.afterFunc(0, () => fired.push("created-by-first"));
    });
    clock.afterFunc(10, () => fired.push("second"));
    clock.afterFunc(10, () => fired.push("third"));
    await clock.step(10);
    expect(fired).toEqual(["first", "second", "third", "created-by-first"]);
  });

  it("lets promise continuations settle between two timers", async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    let cancelSecond = () => {};
    const gate = new Promise<void>((resolve) => clock.afterFunc(10, resolve));
    void gate.then(async () => {
      await Promise.resolve();
      fired.push("continuation");
      cancelSecond();
    });
    const second = clock.afterFunc(10, () => fired.push("second"));
    cancelSecond = () => second.stop();
    await clock.step(10);
    expect(fired).toEqual(["continuation"]);
  });

  it("a delay ≤ 0 never fires synchronously, only when the clock runs timers", async () => {
    const clock = new FakeClock(0);
    let fired = 0;
    clock.afterFunc(0, () => fired++);
    clock.afterFunc(-5, () => fired++);
    expect(fired).toBe(0);
    await clock.step(0);
    expect(fired).toBe(2);
    expect(clock.now()).toBe(0);
  });

  it("stop cancels a pending timer and reports whether it was pending", async () => {
    const clock = new FakeClock(0);
    let fired = 0;
    const t = clock.afterFunc(10, () => fired++);
    expect(clock.pendingTimers()).toBe(1);
    expect(t.stop()).toBe(true);
    expect(t.stop()).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(20);
    expect(fired).toBe(0);
    const u = clock.afterFunc(5, () => fired++);
    await clock.step(5);
    expect(fired).toBe(1);
    expect(u.stop()).toBe(false); // already fired
  });

  it("reset re-arms from the current time, whether or not the timer fired", async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const t = clock.afterFunc(10, () => fired.push(clock.now()));
    await clock.step(5);
    expect(t.reset(10)).toBe(true); // now due at 15
    await clock.step(9);
    expect(fired).toEqual([]);
    await clock.step(1);
    expect(fired).toEqual([15]);
    expect(t.reset(5)).toBe(false); // had fired: re-armed anyway
    await clock.step(5);
    expect(fired).toEqual([15, 20]);
    t.reset(5);
    expect(t.stop()).toBe(true);
    await clock.step(10);
    expect(fired).toEqual([15, 20]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("tickers fire every period until stopped and count as pending while running", async () => {
    const clock = new FakeClock(0);
    const ticks: number[] = [];
    const ticker = clock.newTicker(100, () => ticks.push(clock.now()));
    expect(clock.pendingTimers()).toBe(1);
    await clock.step(350);
    expect(ticks).toEqual([100, 200, 300]);
    ticker.stop();
    ticker.stop(); // idempotent
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(1000);
    expect(ticks).toEqual([100, 200, 300]);
    expect(() => clock.newTicker(0, () => {})).toThrow(RangeError);
    expect(() => clock.newTicker(Number.NaN, () => {})).toThrow(RangeError);
  });

  it("a ticker stopped from its own callback does not fire again", async () => {
    const clock = new FakeClock(0);
    let n = 0;
    const ticker = clock.newTicker(10, () => {
      if (++n === 2) ticker.stop();
    });
    await clock.step(100);
    expect(n).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("runUntilIdle jumps from timer to timer until none is pending", async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    clock.afterFunc(1000, () => {
      fired.push(clock.now());
      clock.afterFunc(5000, () => fired.push(clock.now()));
    });
    await clock.runUntilIdle();
    expect(fired).toEqual([1000, 6000]);
    expect(clock.now()).toBe(6000);
    expect(clock.nextDue()).toBeUndefined();
  });

  it("runUntilIdle reports a livelock when a ticker never stops", async () => {
    const clock = new FakeClock(0);
    const ticker = clock.newTicker(1, () => {});
    await expect(clock.runUntilIdle(50)).rejects.toThrow(/still busy after 50 timers/);
    ticker.stop();
  });

  it("advanceTo reports a timer that keeps re-arming itself at 0 ms, naming where it was created", async () => {
    const clock = new FakeClock(0, { maxTimersPerInstant: 50 });
    let runs = 0;
    let stop = false;
    function rearmForever(): void {
      runs++;
      if (!stop) clock.afterFunc(0, rearmForever);
    }
    clock.afterFunc(0, rearmForever);
    const err = await clock.step(1_000).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err?.message).toMatch(/timer loop at one instant, 1970-01-01T00:00:00\.000Z: more than 50 timers/);
    expect(err?.message).toMatch(/callback rearmForever\) was created at:/);
    expect(err?.message).toMatch(/fake-clock\.test\.ts/);
    expect(clock.now()).toBe(0);
    // Bounded: it stopped just past the bound, not after the whole trace allowance.
    expect(runs).toBeGreaterThan(50);
    expect(runs).toBeLessThan(60);
    stop = true;
    await clock.step(1_000);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("advanceTo reports a 0 ms loop that re-arms from setImmediate and from a promise continuation", async () => {
    for (const via of ["setImmediate", "promise"] as const) {
      const clock = new FakeClock(0, { maxTimersPerInstant: 20 });
      let stop = false;
      const loop = (): void => {
        const rearm = () => {
          if (!stop) clock.afterFunc(0, loop);
        };
        if (via === "setImmediate") setImmediate(rearm);
        else void Promise.resolve().then(rearm);
      };
      clock.afterFunc(0, loop);
      await expect(clock.advanceTo(10), via).rejects.toThrow(/more than 20 timers ran without virtual time moving/);
      stop = true;
      await clock.advanceTo(10);
      expect(clock.now()).toBe(10);
    }
  });

  it("many timers at one instant within the bound run; the count restarts when time moves", async () => {
    const clock = new FakeClock(0, { maxTimersPerInstant: 10 });
    let ran = 0;
    for (let t = 0; t < 5; t++) for (let i = 0; i < 10; i++) clock.afterFunc(t, () => ran++);
    await clock.step(5);
    expect(ran).toBe(50);
    expect(() => new FakeClock(0, { maxTimersPerInstant: 0 })).toThrow(
      /maxTimersPerInstant must be a positive integer, got 0/,
    );
  });

  it("sleep resolves after the duration; an abort rejects with the reason and releases the timer", async () => {
    const clock = new FakeClock(0);
    let woke = -1;
    const s = clock.sleep(100).then(() => {
      woke = clock.now();
    });
    await clock.step(99);
    expect(woke).toBe(-1);
    await clock.step(1);
    await s;
    expect(woke).toBe(100);

    const ac = new AbortController();
    const aborted = clock.sleep(100, ac.signal);
    expect(clock.pendingTimers()).toBe(1);
    ac.abort(new Error("cancelled"));
    await expect(aborted).rejects.toThrow("cancelled");
    expect(clock.pendingTimers()).toBe(0);

    await expect(clock.sleep(10, ac.signal)).rejects.toThrow("cancelled");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a sleep that completes is not affected by a later abort", async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const s = clock.sleep(10, ac.signal);
    await clock.step(10);
    ac.abort();
    await expect(s).resolves.toBeUndefined();
  });

  it("an exception in a timer does not stop the clock; the first one is rethrown after reaching the target", async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    clock.afterFunc(10, () => {
      throw new Error("first");
    });
    clock.afterFunc(20, () => {
      throw new Error("second");
    });
    clock.afterFunc(30, () => fired.push(clock.now()));
    await expect(clock.step(50)).rejects.toThrow("first");
    expect(fired).toEqual([30]);
    expect(clock.now()).toBe(50);
  });

  it("nextDue skips stopped timers; step rejects a negative duration", async () => {
    const clock = new FakeClock(0);
    const a = clock.afterFunc(10, () => {});
    clock.afterFunc(20, () => {});
    a.stop();
    expect(clock.nextDue()).toBe(20);
    await expect(clock.step(-1)).rejects.toThrow(RangeError);
  });

  it("many timers stay ordered (heap property across random insertions)", async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    let x = 7;
    const dues: number[] = [];
    for (let i = 0; i < 500; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const due = x % 1000;
      dues.push(due);
      clock.afterFunc(due, () => fired.push(clock.now()));
    }
    await clock.runUntilIdle();
    expect(fired).toEqual([...dues].sort((a, b) => a - b));
  });

  it("cancelling most of many timers keeps the survivors' order and counts (heap compaction)", async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    let x = 11;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x;
    };
    const timers = Array.from({ length: 2000 }, (_, id) => {
      const due = next() % 5000;
      return { id, due, timer: clock.afterFunc(due, () => fired.push(id)) };
    });
    const survivors = timers.filter(() => next() % 10 < 3);
    const cancelled = timers.filter((t) => !survivors.includes(t));
    for (const t of cancelled) expect(t.timer.stop()).toBe(true);
    for (const t of cancelled.slice(0, 50)) expect(t.timer.stop()).toBe(false);
    expect(clock.pendingTimers()).toBe(survivors.length);
    // Re-arming a cancelled timer makes it pending again; reset reports it was not pending.
    const revived = cancelled[0]!;
    expect(revived.timer.reset(revived.due)).toBe(false);
    expect(clock.pendingTimers()).toBe(survivors.length + 1);
    await clock.runUntilIdle();
    // The revived timer was re-armed last, so among timers due at the same time it runs after the others.
    const order = (t: { id: number; due: number }) => [t.due, t === revived ? Number.POSITIVE_INFINITY : t.id];
    const expected = [...survivors, revived]
      .sort((a, b) => order(a)[0]! - order(b)[0]! || order(a)[1]! - order(b)[1]!)
      .map((t) => t.id);
    expect(fired).toEqual(expected);
    expect(clock.pendingTimers()).toBe(0);
    expect(survivors.every((t) => !t.timer.stop())).toBe(true);
  });
});

describe("FakeClock.goStep (Go's Step semantics)", () => {
  it("runs only timers registered before the call; a timer created by a callback waits even when due inside the step", async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.afterFunc(10, () => {
      fired.push(`a@${clock.now()}`);
      clock.afterFunc(5, () => fired.push(`b@${clock.now()}`));
    });
    await clock.goStep(100);
    expect(fired).toEqual(["a@100"]);
    expect(clock.now()).toBe(100);
    // The chained timer was created at 100 (the time is set first), so it is due at 105.
    expect(clock.nextDue()).toBe(105);
    await clock.goStep(5);
    expect(fired).toEqual(["a@100", "b@105"]);

    // step() walks the interval and also runs the chained timer.
    const walked = new FakeClock(0);
    const seen: number[] = [];
    walked.afterFunc(10, () => {
      seen.push(walked.now());
      walked.afterFunc(5, () => seen.push(walked.now()));
    });
    await walked.step(100);
    expect(seen).toEqual([10, 15]);
  });

  it("fires a ticker once per step and re-arms it past the new time; due timers run in due order", async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.newTicker(10, () => fired.push("tick"));
    clock.afterFunc(30, () => fired.push("t30"));
    clock.afterFunc(20, () => fired.push("t20"));
    clock.afterFunc(50, () => fired.push("t50"));
    await clock.goStep(35);
    expect(fired).toEqual(["tick", "t20", "t30"]);
    expect(clock.nextDue()).toBe(40);
    expect(clock.pendingTimers()).toBe(2);
  });

  it("skips a due timer cancelled by an earlier callback and re-throws the first callback error after running all", async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    const later = clock.afterFunc(20, () => fired.push("later"));
    clock.afterFunc(10, () => {
      fired.push("first");
      later.stop();
      throw new Error("boom");
    });
    clock.afterFunc(15, () => fired.push("second"));
    await expect(clock.goStep(30)).rejects.toThrow("boom");
    expect(fired).toEqual(["first", "second"]);
    expect(clock.pendingTimers()).toBe(0);
    await expect(clock.goStep(-1)).rejects.toThrow(RangeError);
  });
});
