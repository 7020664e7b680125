import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { awaitOnClock } from "./on-virtual-clock.js";

describe("awaitOnClock", () => {
  it("advances the clock until work that sleeps on it is done", async () => {
    const clock = new FakeClock(0);
    const work = (async () => {
      await clock.sleep(250);
      await clock.sleep(750);
      return "done";
    })();
    await expect(awaitOnClock(clock, work, "two sleeps")).resolves.toBe("done");
    expect(clock.now()).toBe(1000);
  });

  it("passes a rejection through, and names work that waits on nothing the clock can fire", async () => {
    const clock = new FakeClock(0);
    const failing = (async () => {
      await clock.sleep(10);
      throw new Error("boom");
    })();
    await expect(awaitOnClock(clock, failing, "x")).rejects.toThrow("boom");
    await expect(awaitOnClock(clock, new Promise(() => {}), "seeding the cluster")).rejects.toThrow(
      "seeding the cluster: still pending with nothing left on the virtual clock",
    );
  });
});
