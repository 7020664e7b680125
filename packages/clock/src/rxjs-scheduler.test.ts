import { defer, delay, interval, map, of, retry, take, tap, throwError, timer, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { FakeClock } from "./fake-clock.js";
import { clockScheduler } from "./rxjs-scheduler.js";

describe("clockScheduler", () => {
  it("now() is the clock's time", async () => {
    const clock = new FakeClock(5000);
    const sched = clockScheduler(clock);
    expect(sched.now()).toBe(5000);
    await clock.step(10);
    expect(sched.now()).toBe(5010);
  });

  it("timer(ms, scheduler) emits when the FakeClock reaches ms, not in real time", async () => {
    const clock = new FakeClock(0);
    const seen: number[] = [];
    timer(100, clockScheduler(clock)).subscribe(() => seen.push(clock.now()));
    await clock.step(99);
    expect(seen).toEqual([]);
    await clock.step(1);
    expect(seen).toEqual([100]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("interval(ms, scheduler) ticks on virtual time", async () => {
    const clock = new FakeClock(0);
    const seen: [number, number][] = [];
    interval(50, clockScheduler(clock))
      .pipe(take(3))
      .subscribe((i) => seen.push([i, clock.now()]));
    await clock.runUntilIdle();
    expect(seen).toEqual([
      [0, 50],
      [1, 100],
      [2, 150],
    ]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("delay(ms, scheduler) shifts each value by ms of virtual time", async () => {
    const clock = new FakeClock(0);
    const seen: [string, number][] = [];
    of("a", "b")
      .pipe(delay(30, clockScheduler(clock)))
      .subscribe((v) => seen.push([v, clock.now()]));
    await clock.step(29);
    expect(seen).toEqual([]);
    await clock.step(1);
    expect(seen).toEqual([
      ["a", 30],
      ["b", 30],
    ]);
  });

  it("retry({ delay: () => timer(ms, scheduler) }) waits on the FakeClock between attempts", async () => {
    const clock = new FakeClock(0);
    const sched = clockScheduler(clock);
    const attempts: number[] = [];
    let result: number[] | undefined;
    defer(() => {
      attempts.push(clock.now());
      return attempts.length < 3 ? throwError(() => new Error("fail")) : of(attempts.length);
    })
      .pipe(retry({ count: 5, delay: (_err, n) => timer(100 * n, sched) }), toArray())
      .subscribe((v) => {
        result = v;
      });
    await clock.runUntilIdle();
    expect(attempts).toEqual([0, 100, 300]);
    expect(result).toEqual([3]);
  });

  it("unsubscribing cancels the pending timer", async () => {
    const clock = new FakeClock(0);
    let fired = false;
    const sub = timer(100, clockScheduler(clock)).subscribe(() => {
      fired = true;
    });
    expect(clock.pendingTimers()).toBe(1);
    sub.unsubscribe();
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(200);
    expect(fired).toBe(false);
  });

  it("an error thrown by scheduled work reaches the subscriber's error callback", async () => {
    const clock = new FakeClock(0);
    let error: unknown;
    timer(10, clockScheduler(clock))
      .pipe(
        map(() => {
          throw new Error("boom");
        }),
        tap({ error: () => {} }),
      )
      .subscribe({ error: (e) => (error = e) });
    await clock.step(10);
    expect((error as Error).message).toBe("boom");
  });
});
