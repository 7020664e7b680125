import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { AsyncTracker, DoneLatch, SingleFileTracker, SyncTrackerError } from "./synctrack.js";

interface TrackerFuncs {
  upstreamHasSynced(): void;
  start(): void;
  finished(): void;
  hasSynced(): boolean;
  isDone(): boolean;
  done(): Promise<void>;
}

function singleFile(): TrackerFuncs {
  const t = new SingleFileTracker("sft");
  return {
    upstreamHasSynced: () => t.upstreamHasSynced(),
    start: () => t.start(),
    finished: () => t.finished(),
    hasSynced: () => t.hasSynced(),
    isDone: () => t.isDone(),
    done: () => t.done(),
  };
}

function async(): TrackerFuncs {
  const t = new AsyncTracker<string>("at");
  return {
    upstreamHasSynced: () => t.upstreamHasSynced(),
    start: () => t.start("key"),
    finished: () => t.finished("key"),
    hasSynced: () => t.hasSynced(),
    isDone: () => t.isDone(),
    done: () => t.done(),
  };
}

async function resolvedNow(p: Promise<void>): Promise<boolean> {
  let resolved = false;
  void p.then(() => {
    resolved = true;
  });
  await Promise.resolve();
  await Promise.resolve();
  return resolved;
}

describe("I12: synctrack", () => {
  // TestBasicLogic: {synced, syncedBeforeFinish, start, finish, expectSynced}
  const table: [boolean, boolean, boolean, boolean, boolean][] = [
    [false, false, true, true, false],
    [true, false, true, false, false],
    [true, true, true, false, false],
    [false, false, true, false, false],
    [true, false, true, true, true],
    [true, true, true, true, true],
  ];
  for (const [kind, construct] of [
    ["SingleFile", singleFile],
    ["Async", async],
  ] as const) {
    for (const [synced, syncedBeforeFinish, start, finish, expectSynced] of table) {
      it(`TestBasicLogic ${kind}: synced=${synced} beforeFinish=${syncedBeforeFinish} start=${start} finish=${finish}`, async () => {
        const t = construct();
        expect(t.hasSynced()).toBe(false);
        if (start) t.start();
        expect(t.hasSynced()).toBe(false);
        if (synced && syncedBeforeFinish) {
          t.upstreamHasSynced();
          expect(t.hasSynced()).toBe(false);
        }
        if (finish) t.finished();
        if (synced && !syncedBeforeFinish) {
          expect(t.hasSynced()).toBe(false);
          t.upstreamHasSynced();
        }
        expect(t.hasSynced()).toBe(expectSynced);
        expect(t.isDone()).toBe(expectSynced);
        expect(await resolvedNow(t.done())).toBe(expectSynced);
      });
    }
  }

  it("TestSingleFileCounting: 100 starts need 100 finishes; an extra finish throws but stays synced", () => {
    const sft = new SingleFileTracker("counting");
    for (let i = 0; i < 100; i++) sft.start();
    expect(sft.hasSynced()).toBe(false);
    for (let i = 0; i < 99; i++) sft.finished();
    expect(sft.outstanding).toBe(1);
    expect(sft.hasSynced()).toBe(false);
    sft.finished();
    sft.upstreamHasSynced();
    expect(sft.hasSynced()).toBe(true);
    expect(() => sft.finished()).toThrow(SyncTrackerError);
    expect(() => sft.finished()).toThrow(/negative counter/);
    expect(sft.hasSynced()).toBe(true);
  });

  it("TestAsyncLocking: keys finished in any order, and finishing an unknown key is harmless", () => {
    const t = new AsyncTracker<number>("");
    const keys = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    for (const k of keys) t.start(k);
    t.finished(99);
    for (const k of [...keys].reverse()) t.finished(k);
    expect(t.hasSynced()).toBe(false);
    t.upstreamHasSynced();
    expect(t.hasSynced()).toBe(true);
  });

  it("once synced, a tracker stays synced (a later start does not un-sync it)", () => {
    const t = new SingleFileTracker("x");
    t.upstreamHasSynced();
    expect(t.hasSynced()).toBe(true);
    t.start();
    expect(t.hasSynced()).toBe(true);
    expect(t.name()).toBe("x");
  });

  it("DoneLatch: done() before and after completion resolves, complete is idempotent", async () => {
    const l = new DoneLatch("latch");
    const before = l.done();
    expect(await resolvedNow(before)).toBe(false);
    l.complete();
    l.complete();
    expect(await resolvedNow(before)).toBe(true);
    expect(l.done()).toBe(before);
    const late = new DoneLatch("late");
    late.complete();
    expect(await resolvedNow(late.done())).toBe(true);
  });

  // Model: synced ⇔ upstream called ∧ every started item finished, latched forever.
  test.prop([fc.array(fc.constantFrom("start", "finish", "upstream"), { maxLength: 40 })], { numRuns: 200 })(
    "SingleFileTracker matches its model for any valid call sequence",
    (ops) => {
      const t = new SingleFileTracker("model");
      let count = 0;
      let upstream = false;
      let synced = false;
      for (const op of ops) {
        if (op === "start") {
          count++;
          t.start();
        } else if (op === "finish") {
          if (count === 0) continue; // invalid in the contract; covered above
          count--;
          t.finished();
        } else {
          upstream = true;
          t.upstreamHasSynced();
        }
        if (upstream && count === 0) synced = true;
        expect(t.hasSynced()).toBe(synced);
      }
    },
  );
});
