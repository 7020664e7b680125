import { FakeClock, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { DoneLatch } from "./synctrack.js";
import { syncedPollPeriod, waitFor, waitForCacheSync } from "./wait-for-cache-sync.js";

describe("I17: waitForCacheSync", () => {
  it("checks immediately, then polls every 100 ms on the clock", async () => {
    const clock = new FakeClock(0);
    let calls = 0;
    let synced = false;
    const fn = () => {
      calls++;
      return synced;
    };
    let result: boolean | undefined;
    void waitForCacheSync({ clock }, fn, () => true).then((r) => {
      result = r;
    });
    await settle();
    expect(calls).toBe(1);
    await clock.step(syncedPollPeriod - 1);
    expect(calls).toBe(1);
    await clock.step(1);
    expect(calls).toBe(2);
    synced = true;
    expect(result).toBeUndefined();
    await clock.step(syncedPollPeriod);
    expect(calls).toBe(3);
    expect(result).toBe(true);
  });

  it("resolves true at once when already synced, even with an aborted signal", async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await waitForCacheSync({ signal: ac.signal, clock: new FakeClock() }, () => true)).toBe(true);
    expect(await waitForCacheSync(undefined)).toBe(true);
  });

  it("resolves false when the signal aborts while waiting", async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const p = waitForCacheSync({ signal: ac.signal, clock }, () => false);
    await clock.step(500);
    ac.abort();
    expect(await p).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    expect(await waitForCacheSync(ac.signal, () => false)).toBe(false);
  });

  it("rejects non-function arguments with a clear error", async () => {
    await expect(waitForCacheSync(undefined, 42 as unknown as () => boolean)).rejects.toThrow(/expected functions/);
  });
});

describe("I17: waitFor (DoneChecker, no polling)", () => {
  it("resolves true once every checker is done", async () => {
    const a = new DoneLatch("a");
    const b = new DoneLatch("b");
    let result: boolean | undefined;
    void waitFor(undefined, a, b).then((r) => {
      result = r;
    });
    a.complete();
    await settle();
    expect(result).toBeUndefined();
    b.complete();
    await settle();
    expect(result).toBe(true);
  });

  it("resolves false on abort unless everything is already done", async () => {
    const a = new DoneLatch("a");
    const ac = new AbortController();
    const p = waitFor(ac.signal, a);
    ac.abort();
    expect(await p).toBe(false);
    a.complete();
    expect(await waitFor(ac.signal, a)).toBe(true);
    expect(await waitFor(ac.signal, new DoneLatch("c"))).toBe(false);
  });
});
