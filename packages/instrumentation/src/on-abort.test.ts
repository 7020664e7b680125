import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { onAbort } from "./lifecycle.js";

describe("onAbort: one listener per caller's signal", () => {
  it("shares one listener between registrations and removes it with the last one", () => {
    const ac = new AbortController();
    const offs = Array.from({ length: 50 }, () => onAbort(ac.signal, () => {}));
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    for (const off of offs.slice(1)) off();
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    offs[0]!();
    offs[0]!(); // idempotent
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    // A new registration after all left adds the listener again.
    let called = 0;
    onAbort(ac.signal, () => called++);
    ac.abort();
    expect(called).toBe(1);
  });

  it("calls every callback once, even when one throws; unregistered ones are not called", () => {
    const ac = new AbortController();
    const calls: string[] = [];
    onAbort(ac.signal, () => calls.push("a"));
    onAbort(ac.signal, () => {
      throw new Error("bad");
    });
    const off = onAbort(ac.signal, () => calls.push("gone"));
    onAbort(ac.signal, () => calls.push("c"));
    off();
    ac.abort();
    ac.abort();
    expect(calls).toEqual(["a", "c"]);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  it("an already aborted signal calls back at once and registers nothing", () => {
    const signal = AbortSignal.abort();
    let called = false;
    const off = onAbort(signal, () => {
      called = true;
    });
    expect(called).toBe(true);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    off();
  });
});
