import { FakeClock, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { type ListenerHandler, type Notification, ProcessorListener } from "./processor-listener.js";
import { determineResyncPeriod, minimumResyncPeriod, SharedProcessor } from "./shared-processor.js";

type Obj = { metadata: { name: string; resourceVersion: string } };
const obj = (name: string, rv = "1"): Obj => ({ metadata: { name, resourceVersion: rv } });

class Recorder implements ListenerHandler<Obj> {
  readonly calls: string[] = [];
  onAdd(o: Obj): void {
    this.calls.push(`add:${o.metadata.name}`);
  }
  onUpdate(_o: Obj, n: Obj): void {
    this.calls.push(`update:${n.metadata.name}`);
  }
  onDelete(): void {
    this.calls.push("delete");
  }
}

const update = (name: string): Notification<Obj> => ({ type: "update", oldObj: obj(name), newObj: obj(name) });
const addN = (name: string): Notification<Obj> => ({ type: "add", newObj: obj(name), isInInitialList: false });

function setup(clock: FakeClock, periods: number[]) {
  const p = new SharedProcessor<Obj>(clock);
  const recs = periods.map(() => new Recorder());
  const ls = periods.map(
    (period, i) => new ProcessorListener(recs[i]!, { clock, resyncPeriod: period, requestedResyncPeriod: period }),
  );
  for (const l of ls) p.addListener(l);
  return { p, recs, ls };
}

describe("I4: determineResyncPeriod", () => {
  it("0 if desired is 0; 0 if check is 0; otherwise max(desired, check)", () => {
    expect(determineResyncPeriod(0, 1000)).toBe(0);
    expect(determineResyncPeriod(5000, 0)).toBe(0);
    expect(determineResyncPeriod(500, 1000)).toBe(1000);
    expect(determineResyncPeriod(3000, 1000)).toBe(3000);
    expect(minimumResyncPeriod).toBe(1000);
  });
});

describe("I8: sharedProcessor.distribute", () => {
  it("non-sync notifications reach every listener; sync ones only syncing listeners", async () => {
    const clock = new FakeClock(0);
    const { p, recs, ls } = setup(clock, [0, 2000]);
    const ac = new AbortController();
    const running = p.run(ac.signal);
    // Both start syncing (I9: addListener sets the flag).
    p.distribute(update("s0"), true);
    p.distribute(addN("n0"), false);
    await settle();
    expect(recs[0]!.calls).toEqual(["update:s0", "add:n0"]);
    expect(recs[1]!.calls).toEqual(["update:s0", "add:n0"]);
    // First check at t=0: listener 0 (period 0) stops syncing; listener 1 not yet due (t < 2000).
    expect(p.shouldResync()).toBe(false);
    expect(p.isSyncing(ls[0]!)).toBe(false);
    expect(p.isSyncing(ls[1]!)).toBe(false);
    p.distribute(update("s1"), true);
    await clock.step(2000);
    expect(p.shouldResync()).toBe(true);
    expect(p.isSyncing(ls[1]!)).toBe(true);
    p.distribute(update("s2"), true);
    p.distribute(update("n1"), false);
    await settle();
    expect(recs[0]!.calls).toEqual(["update:s0", "add:n0", "update:n1"]);
    expect(recs[1]!.calls).toEqual(["update:s0", "add:n0", "update:s2", "update:n1"]);
    ac.abort();
    await running;
  });

  it("TestListenerResyncPeriodsDelayed analogue: notifications distributed before run are buffered, not lost", async () => {
    const clock = new FakeClock(0);
    const { p, recs } = setup(clock, [0]);
    p.distribute(addN("early"), false);
    p.distribute(update("early-sync"), true);
    await settle();
    expect(recs[0]!.calls).toEqual([]);
    const ac = new AbortController();
    const running = p.run(ac.signal);
    await settle();
    expect(recs[0]!.calls).toEqual(["add:early", "update:early-sync"]);
    ac.abort();
    await running;
  });
});

describe("I9: shouldResync", () => {
  it("TestListenerResyncPeriods: listeners with 2 s and 3 s periods are due at their own times", async () => {
    const clock = new FakeClock(0);
    const { p, ls } = setup(clock, [0, 2000, 3000]);
    const due = () => ls.map((l) => p.isSyncing(l));
    for (let t = 1000; t <= 6000; t += 1000) {
      await clock.step(1000);
      p.shouldResync();
      const expected = [false, t % 2000 === 0, t % 3000 === 0];
      expect(due(), `t=${t}`).toEqual(expected);
    }
  });

  it("resyncCheckPeriodChanged re-derives every listener's effective period", () => {
    const clock = new FakeClock(0);
    const { p, ls } = setup(clock, [0, 2000]);
    p.resyncCheckPeriodChanged(5000);
    expect(ls.map((l) => l.resyncPeriod)).toEqual([0, 5000]);
    p.resyncCheckPeriodChanged(0);
    expect(ls.map((l) => l.resyncPeriod)).toEqual([0, 0]);
  });
});

describe("I14: removeListener and stop", () => {
  it("removing stops the listener, is idempotent, and ignores foreign handles", async () => {
    const clock = new FakeClock(0);
    const { p, recs, ls } = setup(clock, [0, 0]);
    const other = new SharedProcessor<Obj>(clock);
    expect(other.removeListener(ls[0]!)).toBe(false);
    expect(p.size).toBe(2);
    p.distribute(addN("a"), false);
    expect(p.removeListener(ls[0]!)).toBe(true);
    expect(p.removeListener(ls[0]!)).toBe(false);
    expect(p.getListener(ls[0]!)).toBeUndefined();
    expect(p.getListener(ls[1]!)).toBe(ls[1]);
    const ac = new AbortController();
    const running = p.run(ac.signal);
    await settle();
    expect(recs[0]!.calls).toEqual([]);
    expect(recs[1]!.calls).toEqual(["add:a"]);
    expect(p.started).toBe(true);
    ac.abort();
    await running;
    expect(p.started).toBe(false);
    expect(p.size).toBe(0);
    expect(ls[1]!.isStopped).toBe(true);
  });

  it("a listener added while running starts at once", async () => {
    const clock = new FakeClock(0);
    const p = new SharedProcessor<Obj>(clock);
    const ac = new AbortController();
    const running = p.run(ac.signal);
    const rec = new Recorder();
    const l = new ProcessorListener(rec, { clock });
    expect(p.addListener(l)).toBe(true);
    p.distribute(addN("x"), false);
    await settle();
    expect(rec.calls).toEqual(["add:x"]);
    expect(p.list()).toEqual([l]);
    ac.abort();
    await running;
  });

  it("run resolves only after in-flight callbacks return; buffered ones are dropped", async () => {
    const clock = new FakeClock(0);
    const p = new SharedProcessor<Obj>(clock);
    const log: string[] = [];
    const l = new ProcessorListener<Obj>(
      {
        async onAdd(o) {
          await clock.sleep(50);
          log.push(o.metadata.name);
        },
        onUpdate() {},
        onDelete() {},
      },
      { clock },
    );
    p.addListener(l);
    const ac = new AbortController();
    let finished = false;
    const running = p.run(ac.signal).then(() => {
      finished = true;
    });
    p.distribute(addN("a"), false);
    p.distribute(addN("b"), false);
    await settle();
    ac.abort();
    await settle();
    expect(finished).toBe(false);
    await clock.runUntilIdle();
    await running;
    expect(finished).toBe(true);
    expect(log).toEqual(["a"]);
  });
});
