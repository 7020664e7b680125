import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { WatchDeadlines } from "./watch-deadlines.js";

interface W {
  readonly id: number;
  deadline: number;
  deadlineSlot: number;
}

function setup() {
  const clock = new FakeClock();
  const expired: number[] = [];
  const deadlines = new WatchDeadlines<W>(clock, (w) => expired.push(w.id));
  let nextId = 0;
  const add = (afterMs: number): W => {
    const w: W = { id: nextId++, deadline: clock.now() + afterMs, deadlineSlot: -1 };
    deadlines.add(w);
    return w;
  };
  return { clock, deadlines, expired, add };
}

describe("WatchDeadlines", () => {
  it("expires each watcher at its deadline, in deadline order, ties in registration order", async () => {
    const { clock, expired, add, deadlines } = setup();
    for (const ms of [300, 100, 200, 100, 50]) add(ms);
    await clock.step(49);
    expect(expired).toEqual([]);
    await clock.step(1);
    expect(expired).toEqual([4]);
    await clock.step(50);
    expect(expired).toEqual([4, 1, 3]);
    await clock.step(200);
    expect(expired).toEqual([4, 1, 3, 2, 0]);
    expect(deadlines.size).toBe(0);
  });

  it("a removed watcher never expires and leaves no slot; removing twice or an unknown one is a no-op", async () => {
    const { clock, expired, add, deadlines } = setup();
    const ws = Array.from({ length: 20 }, (_, i) => add(((i * 7) % 20) * 10 + 10));
    for (const w of ws.filter((_, i) => i % 3 === 0)) deadlines.remove(w);
    deadlines.remove(ws[0]!);
    deadlines.remove({ id: 99, deadline: 0, deadlineSlot: -1 });
    expect(ws.filter((w) => w.deadlineSlot >= 0)).toHaveLength(13);
    await clock.step(1000);
    const kept = ws.filter((_, i) => i % 3 !== 0);
    expect(expired).toEqual([...kept].sort((a, b) => a.deadline - b.deadline || a.id - b.id).map((w) => w.id));
    expect(deadlines.size).toBe(0);
  });

  it("re-arms for an earlier deadline added later, and stops with the cacher", async () => {
    const { clock, expired, add, deadlines } = setup();
    add(1000);
    add(10);
    await clock.step(10);
    expect(expired).toEqual([1]);
    deadlines.stop();
    await clock.step(2000);
    expect(expired).toEqual([1]);
  });
});
