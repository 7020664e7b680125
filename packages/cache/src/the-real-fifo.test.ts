import { fc, test } from "@fast-check/vitest";
import { FakeClock } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { type Delta, type Deltas, DeltaType } from "./delta.js";
import { ErrFIFOClosed, isFIFOClosedError } from "./fifo.js";
import {
  applyToKnown,
  cacheSourceUrl,
  d,
  drain,
  drainFlat,
  emptyKnownObjects,
  type FObj,
  type HeldPop,
  holdPop,
  keyOfObj,
  literalListerGetter,
  markTransformed,
  mkFifoObj,
  newestObj,
  newGate,
  nextTurn,
  pop2,
  popOnce,
  runGcChild,
  testFifoObjectKeyFunc,
  tomb,
} from "./internal/fifo.test-util.js";
import type { FIFOEvent } from "./internal/fifo-core.js";
import { metaNamespaceKeyFunc } from "./keys.js";
import { KeyError } from "./store.js";
import { defaultBatchSize, informerProcessingLatencyBuckets, RealFIFO, type RealFIFOOptions } from "./the-real-fifo.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

type Opts = Omit<RealFIFOOptions<FObj>, "keyFunction">;

/** `NewRealFIFO(testFifoObjectKeyFunc, knownObjects, transformer)`: non-atomic. */
function newRealFIFO(known = emptyKnownObjects(), extra: Opts = {}): RealFIFO<FObj> {
  return new RealFIFO<FObj>({ keyFunction: testFifoObjectKeyFunc, knownObjects: known, ...extra });
}

function newAtomicFIFO(extra: Opts = {}): RealFIFO<FObj> {
  return new RealFIFO<FObj>({ keyFunction: testFifoObjectKeyFunc, atomicEvents: true, ...extra });
}

describe("RealFIFO construction (R1)", () => {
  it("R1: atomicEvents with knownObjects throws", () => {
    expect(() => new RealFIFO({ atomicEvents: true, knownObjects: emptyKnownObjects() })).toThrow(
      "coding error: knownObjects must not be provided when atomicEvents is true",
    );
  });
  it("R1: non-atomic without knownObjects throws", () => {
    expect(() => new RealFIFO({})).toThrow("coding error: knownObjects must be provided when atomicEvents is false");
  });
  it("R1: non-atomic with unlockWhileProcessing throws", () => {
    expect(() => new RealFIFO({ knownObjects: emptyKnownObjects(), unlockWhileProcessing: true })).toThrow(
      "coding error: unlockWhileProcessing must be false when atomicEvents is false",
    );
  });
  it("R1: non-atomic with emitDeltaTypeBookmark throws", () => {
    expect(() => new RealFIFO({ knownObjects: emptyKnownObjects(), emitDeltaTypeBookmark: true })).toThrow(
      "coding error: emitDeltaTypeBookmark must be false when atomicEvents is false",
    );
  });
  it("R1: bad option types are named", () => {
    expect(() => new RealFIFO({ atomicEvents: true, keyFunction: 3 as never })).toThrow(
      "RealFIFO keyFunction is not a function: 3",
    );
    expect(() => new RealFIFO({ atomicEvents: true, transformer: "x" as never })).toThrow(
      'RealFIFO transformer is not a function: "x"',
    );
    expect(() => new RealFIFO({ atomicEvents: true, batchSize: 0 })).toThrow(
      "RealFIFO batchSize must be a positive integer, got 0",
    );
  });
  it("R1: the default key function is metaNamespaceKeyFunc and batchSize is 1000", async () => {
    const f = new RealFIFO<{ metadata: { name: string; namespace?: string } }>({ atomicEvents: true });
    expect(f.keyOf({ metadata: { name: "a", namespace: "ns" } })).toBe(
      metaNamespaceKeyFunc({ metadata: { name: "a", namespace: "ns" } }),
    );
    expect(defaultBatchSize).toBe(1000);
    for (let i = 0; i < 1500; i++) f.add({ metadata: { name: `o${i}` } });
    const sizes: number[] = [];
    while (f.length > 0)
      await f.popBatch(
        (b) => void sizes.push(b.length),
        () => void sizes.push(1),
      );
    expect(sizes).toEqual([1000, 500]);
  });
  it("R1: the name defaults to RealFIFO and names the sync checker", () => {
    expect(newAtomicFIFO().hasSyncedChecker().name()).toBe("RealFIFO");
    expect(newAtomicFIFO({ name: "RealFIFO *v1.Pod" }).name()).toBe("RealFIFO *v1.Pod");
  });
});

describe("RealFIFO (ported from the_real_fifo_test.go)", () => {
  it("R2: TestRealFIFO_basic — two interleaved producers come out in enqueue order", async () => {
    const f = newRealFIFO();
    const amount = 500;
    const order: string[] = [];
    for (let i = 0; i < amount; i++) {
      f.add(mkFifoObj(`a${i}`, i + 1));
      order.push(`a${i}`);
      f.add(mkFifoObj(`b${i}`, BigInt(i + 1)));
      order.push(`b${i}`);
    }
    let lastInt = 0;
    let lastBig = 0n;
    const popped: string[] = [];
    for (let i = 0; i < amount * 2; i++) {
      const obj = newestObj(await popOnce(f));
      popped.push(obj.name);
      if (typeof obj.val === "number") {
        expect(obj.val).toBeGreaterThan(lastInt);
        lastInt = obj.val;
      } else {
        expect((obj.val as bigint) > lastBig).toBe(true);
        lastBig = obj.val as bigint;
      }
    }
    expect(popped).toEqual(order);
  });

  it("R4: TestRealFIFO_replaceWithDeleteDeltaIn — a queued Delete does not suppress the Replaced", async () => {
    const oldObj = mkFifoObj("foo", 1);
    const newObj = mkFifoObj("foo", 2);
    const f = newRealFIFO(literalListerGetter(() => [oldObj]));
    f.delete(oldObj);
    f.replace([newObj], "");
    expect(await drainFlat(f)).toEqual([d("Deleted", oldObj), d("Replaced", newObj)]);
  });

  describe("R4: TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue", () => {
    const obj = mkFifoObj("foo", 2);
    const objV2 = mkFifoObj("foo", 3);
    const table: { name: string; operations: (f: RealFIFO<FObj>) => void; expected: Delta<FObj>[] }[] = [
      {
        name: "Added object should be deleted on Replace",
        operations: (f) => {
          f.add(obj);
          f.replace([], "0");
        },
        expected: [d("Added", obj), d("Deleted", tomb("foo", obj))],
      },
      {
        name: "Deleted object should have only a single Delete",
        operations: (f) => {
          f.add(obj);
          f.delete(obj);
          f.replace([], "0");
        },
        expected: [d("Added", obj), d("Deleted", obj)],
      },
      {
        name: "Synced objects should have a single delete",
        operations: (f) => {
          f.add(obj);
          f.replace([obj], "0");
          f.replace([obj], "0");
          f.replace([], "0");
        },
        expected: [d("Added", obj), d("Replaced", obj), d("Replaced", obj), d("Deleted", tomb("foo", obj))],
      },
      {
        name: "Added objects should have a single delete on multiple Replaces",
        operations: (f) => {
          f.add(obj);
          f.replace([], "0");
          f.replace([], "1");
        },
        expected: [d("Added", obj), d("Deleted", tomb("foo", obj))],
      },
      {
        name: "Added and deleted and added object should be deleted",
        operations: (f) => {
          f.add(obj);
          f.delete(obj);
          f.add(objV2);
          f.replace([], "0");
        },
        expected: [d("Added", obj), d("Deleted", obj), d("Added", objV2), d("Deleted", tomb("foo", objV2))],
      },
      {
        name: "R9: Bookmark object should not be added without atomic",
        operations: (f) => {
          f.bookmark("123");
          f.replace([], "0");
          f.replace([], "1");
        },
        expected: [],
      },
    ];
    for (const tt of table) {
      it(tt.name, async () => {
        const f = newRealFIFO();
        tt.operations(f);
        expect(await drainFlat(f)).toEqual(tt.expected);
        expect(f.length).toBe(0);
      });
    }
  });

  it("R2: TestRealFIFO_addUpdate — every event is kept, in order", async () => {
    const f = newRealFIFO();
    f.add(mkFifoObj("foo", 10));
    f.update(mkFifoObj("foo", 12));
    f.delete(mkFifoObj("foo", 15));
    expect(f.length).toBe(3);
    const got: unknown[] = [];
    for (let i = 0; i < 3; i++) got.push(newestObj(await popOnce(f)).val);
    expect(got).toEqual([10, 12, 15]);
    expect(f.length).toBe(0);
    f.close();
    await expect(popOnce(f)).rejects.toBe(ErrFIFOClosed);
  });

  it("R2: TestRealFIFO_transformer — transformed once per event, tombstones carry the transformed object", async () => {
    interface RvX {
      rv: number;
      xfrm: number;
    }
    const mk = (name: string, rv: number) => mkFifoObj(name, { rv, xfrm: 0 } satisfies RvX);
    const xfrm = (obj: FObj): FObj => {
      (obj.val as RvX).xfrm++;
      return obj;
    };
    const f = newRealFIFO(emptyKnownObjects(), { transformer: xfrm });
    f.add(mk("foo", 10));
    f.add(mk("bar", 11));
    f.update(mk("foo", 12));
    f.delete(mk("foo", 15));
    f.replace([], "");
    f.add(mk("bar", 16));
    f.replace([], "");
    const once = (name: string, rv: number) => mkFifoObj(name, { rv, xfrm: 1 });
    expect(await drainFlat(f)).toEqual([
      d("Added", once("foo", 10)),
      d("Added", once("bar", 11)),
      d("Updated", once("foo", 12)),
      d("Deleted", once("foo", 15)),
      d("Deleted", tomb("bar", once("bar", 11))),
      d("Added", once("bar", 16)),
      d("Deleted", tomb("bar", once("bar", 16))),
    ]);
  });

  it("R2: TestRealFIFO_enqueueingNoLister — a delete of an unknown object is queued", async () => {
    const f = newRealFIFO();
    f.add(mkFifoObj("foo", 10));
    f.update(mkFifoObj("bar", 15));
    f.add(mkFifoObj("qux", 17));
    f.delete(mkFifoObj("qux", 18));
    f.delete(mkFifoObj("baz", 20));
    expect((await drain(f)).map((x) => newestObj(x).val)).toEqual([10, 15, 17, 18, 20]);
    expect(f.length).toBe(0);
  });

  it("R2: TestRealFIFO_enqueueingWithLister", async () => {
    const f = newRealFIFO(literalListerGetter(() => [mkFifoObj("foo", 5), mkFifoObj("bar", 6), mkFifoObj("baz", 7)]));
    f.add(mkFifoObj("foo", 10));
    f.update(mkFifoObj("bar", 15));
    f.delete(mkFifoObj("baz", 20));
    const vals = (await drain(f)).map((x) => newestObj(x).val);
    expect(vals).toEqual([10, 15, 20]);
  });

  it("R4: TestRealFIFO_addReplace — both the add and the replaced item are delivered", async () => {
    const f = newRealFIFO();
    f.add(mkFifoObj("foo", 10));
    f.replace([mkFifoObj("foo", 15)], "0");
    expect((await drain(f)).map((x) => newestObj(x).val)).toEqual([10, 15]);
  });

  it("R7: TestRealFIFO_ResyncNonExisting — no Sync for a key with a queued delta", async () => {
    const f = newRealFIFO(literalListerGetter(() => [mkFifoObj("foo", 5)]));
    f.delete(mkFifoObj("foo", 10));
    f.resync();
    expect((await drainFlat(f)).map((x) => x.type)).toEqual(["Deleted"]);
  });

  it("R7: TestRealFIFO_Resync — Sync for a known key, untransformed", async () => {
    let calls = 0;
    const known = mkFifoObj("foo", 5);
    const f = newRealFIFO(
      literalListerGetter(() => [known]),
      {
        transformer: (o) => {
          calls++;
          return o;
        },
      },
    );
    f.resync();
    const items = await drainFlat(f);
    expect(items).toEqual([d("Sync", known)]);
    expect(items[0]?.object).toBe(known);
    expect(calls).toBe(0);
  });

  it("R2: TestRealFIFO_DeleteExistingNonPropagated", async () => {
    const f = newRealFIFO();
    f.add(mkFifoObj("foo", 5));
    f.delete(mkFifoObj("foo", 6));
    const items = await drainFlat(f);
    expect(items).toHaveLength(2);
    expect(items[1]?.type).toBe("Deleted");
  });

  describe("R4: TestRealFIFO_ReplaceMakesDeletions", () => {
    const knownThree = () => literalListerGetter(() => [mkFifoObj("foo", 5), mkFifoObj("bar", 6), mkFifoObj("baz", 7)]);
    it("with a pre-existing Delete", async () => {
      const f = newRealFIFO(knownThree());
      f.delete(mkFifoObj("baz", 10));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Deleted", mkFifoObj("baz", 10))],
        [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
        [d("Replaced", mkFifoObj("foo", 5))],
      ]);
    });
    it("starting with an Add", async () => {
      const f = newRealFIFO(knownThree());
      f.add(mkFifoObj("baz", 10));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Added", mkFifoObj("baz", 10))],
        [d("Deleted", tomb("baz", mkFifoObj("baz", 10)))],
        [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
        [d("Replaced", mkFifoObj("foo", 5))],
      ]);
    });
    it("deleting and recreating in the queue, then deleted by Replace", async () => {
      const f = newRealFIFO(knownThree());
      f.delete(mkFifoObj("bar", 6));
      f.add(mkFifoObj("bar", 100));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Deleted", mkFifoObj("bar", 6))],
        [d("Added", mkFifoObj("bar", 100))],
        [d("Deleted", tomb("bar", mkFifoObj("bar", 100)))],
        [d("Deleted", tomb("baz", mkFifoObj("baz", 7)))],
        [d("Replaced", mkFifoObj("foo", 5))],
      ]);
    });
    it("syncing first so the delete uses the latest version", async () => {
      const f = newRealFIFO(knownThree());
      f.replace([mkFifoObj("bar", 100), mkFifoObj("foo", 5)], "0");
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Deleted", tomb("baz", mkFifoObj("baz", 7)))],
        [d("Replaced", mkFifoObj("bar", 100))],
        [d("Replaced", mkFifoObj("foo", 5))],
        [d("Deleted", tomb("bar", mkFifoObj("bar", 100)))],
        [d("Replaced", mkFifoObj("foo", 5))],
      ]);
    });
    it("with empty known objects", async () => {
      const f = newRealFIFO();
      f.add(mkFifoObj("baz", 10));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Added", mkFifoObj("baz", 10))],
        [d("Deleted", tomb("baz", mkFifoObj("baz", 10)))],
        [d("Replaced", mkFifoObj("foo", 5))],
      ]);
    });
  });

  it("R4: TestRealFIFO_ReplaceMakesDeletionsReplaced", async () => {
    const f = newRealFIFO(literalListerGetter(() => [mkFifoObj("foo", 5), mkFifoObj("bar", 6), mkFifoObj("baz", 7)]));
    f.delete(mkFifoObj("baz", 10));
    f.replace([mkFifoObj("foo", 6)], "0");
    expect(await drain(f)).toEqual([
      [d("Deleted", mkFifoObj("baz", 10))],
      [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
      [d("Replaced", mkFifoObj("foo", 6))],
    ]);
  });

  it("R7: TestRealFIFO_UpdateResyncRace", async () => {
    const f = newRealFIFO(literalListerGetter(() => [mkFifoObj("foo", 5)]));
    f.update(mkFifoObj("foo", 6));
    f.resync();
    expect(await drain(f)).toEqual([[d("Updated", mkFifoObj("foo", 6))]]);
  });

  it("R6/R13: TestRealFIFO_HasSyncedCorrectOnDeletion — every initial delta is in the initial list", async () => {
    const f = newRealFIFO(literalListerGetter(() => [mkFifoObj("foo", 5), mkFifoObj("bar", 6), mkFifoObj("baz", 7)]));
    f.replace([mkFifoObj("foo", 5)], "0");
    const expected = [
      [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
      [d("Deleted", tomb("baz", mkFifoObj("baz", 7)))],
      [d("Replaced", mkFifoObj("foo", 5))],
    ];
    for (const e of expected) {
      expect(f.hasSynced()).toBe(false);
      const [cur, initial] = await pop2(f);
      expect(cur).toEqual(e);
      expect(initial).toBe(true);
    }
    expect(f.hasSynced()).toBe(true);
  });

  it("R2: TestRealFIFO_detectLineJumpers — no per-key merging", async () => {
    const f = newRealFIFO();
    f.add(mkFifoObj("foo", 10));
    f.add(mkFifoObj("bar", 1));
    f.add(mkFifoObj("foo", 11));
    f.add(mkFifoObj("foo", 13));
    f.add(mkFifoObj("zab", 30));
    expect(newestObj(await popOnce(f)).val).toBe(10);
    f.add(mkFifoObj("foo", 14));
    const rest: unknown[] = [];
    for (let i = 0; i < 5; i++) rest.push(newestObj(await popOnce(f)).val);
    expect(rest).toEqual([1, 11, 13, 30, 14]);
  });

  it("R3: TestRealFIFO_KeyOf — objects, tombstones, Deltas and Delta", () => {
    const f = newRealFIFO();
    expect(f.keyOf(mkFifoObj("A", 0))).toBe("A");
    expect(f.keyOf(tomb("B", undefined))).toBe("B");
    expect(f.keyOf([d("Added", mkFifoObj("C", 0))])).toBe("C");
    expect(f.keyOf([d("Deleted", tomb("D", undefined))])).toBe("D");
    expect(f.keyOf(d("Updated", mkFifoObj("E", 0)))).toBe("E");
    expect(() => f.keyOf([])).toThrow(KeyError);
    expect(() => f.keyOf([])).toThrow("0 length Deltas object; can't get key");
  });

  describe("R13: TestRealFIFO_HasSynced", () => {
    const cases: { name: string; actions: ((f: RealFIFO<FObj>) => unknown)[]; synced: boolean }[] = [
      { name: "nothing", actions: [], synced: false },
      { name: "add first", actions: [(f) => f.add(mkFifoObj("a", 1))], synced: true },
      { name: "empty replace", actions: [(f) => f.replace([], "0")], synced: true },
      {
        name: "replace of two, nothing popped",
        actions: [(f) => f.replace([mkFifoObj("a", 1), mkFifoObj("b", 2)], "0")],
        synced: false,
      },
      {
        name: "replace of two, one popped",
        actions: [(f) => f.replace([mkFifoObj("a", 1), mkFifoObj("b", 2)], "0"), popOnce],
        synced: false,
      },
      {
        name: "replace of two, both popped",
        actions: [(f) => f.replace([mkFifoObj("a", 1), mkFifoObj("b", 2)], "0"), popOnce, popOnce],
        synced: true,
      },
      {
        name: "duplicate keys are two deltas",
        actions: [(f) => f.replace([mkFifoObj("a", 1), mkFifoObj("a", 2)], "0"), popOnce, popOnce],
        synced: true,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const f = newRealFIFO();
        for (const a of c.actions) await a(f);
        expect(f.hasSynced()).toBe(c.synced);
      });
    }
  });

  it("R13: TestRealFIFO_PopShouldUnblockWhenClosed — every waiting pop rejects with ErrFIFOClosed", async () => {
    const f = newRealFIFO(literalListerGetter(() => [mkFifoObj("foo", 5)]));
    const pops = Array.from({ length: 10 }, () => popOnce(f));
    f.close();
    const results = await Promise.allSettled(pops);
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason).toBe(ErrFIFOClosed);
    }
    expect(isFIFOClosedError(ErrFIFOClosed)).toBe(true);
    expect(ErrFIFOClosed.message).toBe("DeltaFIFO: manipulating with closed queue");
  });

  describe("R12: TestRealFIFO_PopMultipleDeltaInBatch", () => {
    const unlimited = 999_999;
    const obj1 = mkFifoObj("foo1", 5);
    const obj2 = mkFifoObj("foo2", 5);
    const obj3 = mkFifoObj("foo3", 5);
    const obj4 = mkFifoObj("foo4", 5);
    const cases: {
      name: string;
      initial: FObj[];
      actions: ((f: RealFIFO<FObj>) => void)[];
      batchSize: number;
      expected: Delta<FObj>[][];
    }[] = [
      {
        name: "non-split: pop unique items should work",
        initial: [obj1, obj2, obj3],
        actions: [],
        batchSize: unlimited,
        expected: [[d("Replaced", obj1), d("Replaced", obj2), d("Replaced", obj3)]],
      },
      {
        name: "split due to initial list: initial 2 items with 2 updates should have 2 batches",
        initial: [obj1, obj2],
        actions: [(f) => f.update(obj3), (f) => f.update(obj4)],
        batchSize: 2,
        expected: [
          [d("Replaced", obj1), d("Replaced", obj2)],
          [d("Updated", obj3), d("Updated", obj4)],
        ],
      },
      {
        name: "split due to non-unique#1: update single item for multiple items should have separate batch",
        initial: [obj1],
        actions: [(f) => f.update(obj1), (f) => f.update(obj1)],
        batchSize: unlimited,
        expected: [[d("Replaced", obj1)], [d("Updated", obj1)], [d("Updated", obj1)]],
      },
      {
        name: "split due to non-unique#2: non-unique item at the end",
        initial: [obj1, obj2],
        actions: [(f) => f.update(obj2), (f) => f.update(obj3)],
        batchSize: unlimited,
        expected: [
          [d("Replaced", obj1), d("Replaced", obj2)],
          [d("Updated", obj2), d("Updated", obj3)],
        ],
      },
      {
        name: "split due to non-unique#3: non-unique item in the middle",
        initial: [obj1, obj2, obj3],
        actions: [(f) => f.update(obj2)],
        batchSize: unlimited,
        expected: [[d("Replaced", obj1), d("Replaced", obj2), d("Replaced", obj3)], [d("Updated", obj2)]],
      },
      {
        name: "split due to batch size#1: batching initial list should work",
        initial: [obj1, obj2, obj3],
        actions: [],
        batchSize: 2,
        expected: [[d("Replaced", obj1), d("Replaced", obj2)], [d("Replaced", obj3)]],
      },
      {
        name: "split due to batch size#2: batching incoming non-initial deltas should work",
        initial: [],
        actions: [(f) => f.update(obj1), (f) => f.update(obj2), (f) => f.update(obj3)],
        batchSize: 2,
        expected: [[d("Updated", obj1), d("Updated", obj2)], [d("Updated", obj3)]],
      },
      {
        name: "split due to batch size#3: 4 mixed initial & non-initial items with batch size 2 make 3 batches",
        initial: [obj1, obj2, obj3],
        actions: [(f) => f.update(obj4)],
        batchSize: 2,
        expected: [[d("Replaced", obj1), d("Replaced", obj2)], [d("Replaced", obj3)], [d("Updated", obj4)]],
      },
    ];
    for (const tc of cases) {
      it(tc.name, async () => {
        const f = newRealFIFO(
          literalListerGetter(() => tc.initial),
          { batchSize: tc.batchSize },
        );
        f.replace(tc.initial, "123");
        for (const a of tc.actions) a(f);
        const received: Delta<FObj>[][] = [];
        const receivedInitial: FObj[] = [];
        while (f.length > 0) {
          await f.popBatch(
            (batch, isInInitialList) => {
              received.push([...batch]);
              if (isInInitialList) for (const x of batch) receivedInitial.push(x.object as FObj);
            },
            (deltas, isInInitialList) => {
              received.push([...deltas]);
              if (isInInitialList) for (const x of deltas) receivedInitial.push(x.object as FObj);
            },
          );
        }
        expect(received).toEqual(tc.expected);
        expect(receivedInitial).toEqual(tc.initial);
      });
    }
  });

  describe("R12: TestRealFIFO_PopBrokenItemsInBatch — a key error closes the batch", () => {
    const ok1 = mkFifoObj("foo1", 5);
    const ok2 = mkFifoObj("foo2", 5);
    const fail3 = mkFifoObj("foo3", 5);
    const fail4 = mkFifoObj("foo4", 5);
    const cases: { name: string; incoming: FObj[]; expected: Delta<FObj>[][] }[] = [
      { name: "1st item is broken", incoming: [fail3], expected: [[d("Added", fail3)]] },
      {
        name: "nth item is broken",
        incoming: [ok1, ok2, fail3],
        expected: [[d("Added", ok1), d("Added", ok2), d("Added", fail3)]],
      },
      {
        name: "multiple nth items are broken",
        incoming: [ok1, ok2, fail3, fail4],
        expected: [[d("Added", ok1), d("Added", ok2), d("Added", fail3)], [d("Added", fail4)]],
      },
      {
        name: "mixed 1st and nth items are broken",
        incoming: [fail3, ok1, fail4],
        expected: [[d("Added", fail3)], [d("Added", ok1), d("Added", fail4)]],
      },
    ];
    for (const tc of cases) {
      it(tc.name, async () => {
        // The key function breaks only after the items are queued (client-go injects them into f.items).
        let broken = false;
        const f = new RealFIFO<FObj>({
          knownObjects: emptyKnownObjects(),
          batchSize: 999_999,
          keyFunction: (obj) => {
            if (broken && (obj === fail3 || obj === fail4)) throw new Error("test key func error");
            return testFifoObjectKeyFunc(obj);
          },
        });
        for (const item of tc.incoming) f.add(item);
        broken = true;
        const received: Delta<FObj>[][] = [];
        while (f.length > 0) {
          await f.popBatch(
            (b) => void received.push([...b]),
            (x) => void received.push([...x]),
          );
        }
        expect(received).toEqual(tc.expected);
      });
    }
  });

  describe("R5/R9: TestRealFIFO_ReplaceAtomic", () => {
    const obj = mkFifoObj("foo", 2);
    const all = (resourceVersion: string, objects: FObj[]) => d("ReplacedAll", { resourceVersion, objects });
    const cases: { name: string; operations: (f: RealFIFO<FObj>) => void; expected: Delta<FObj>[] }[] = [
      { name: "Base replace", operations: (f) => f.replace([], "123"), expected: [all("123", [])] },
      {
        name: "Added object exists in deltas on Atomic Replace",
        operations: (f) => {
          f.add(obj);
          f.replace([], "123");
        },
        expected: [d("Added", obj), all("123", [])],
      },
      {
        name: "Multiple replaces run in order",
        operations: (f) => {
          f.add(obj);
          f.replace([obj], "10");
          f.replace([obj], "20");
          f.replace([], "56");
        },
        expected: [d("Added", obj), all("10", [obj]), all("20", [obj]), all("56", [])],
      },
      {
        name: "Bookmark object should not be included in Replace",
        operations: (f) => {
          f.bookmark("123");
          f.replace([], "1234");
        },
        expected: [d("Bookmark", { resourceVersion: "123" }), all("1234", [])],
      },
    ];
    for (const tt of cases) {
      it(tt.name, async () => {
        const f = newAtomicFIFO({ emitDeltaTypeBookmark: true });
        tt.operations(f);
        expect(await drainFlat(f)).toEqual(tt.expected);
        expect(f.length).toBe(0);
      });
    }
  });

  it("R5: TestRealFIFO_ReplaceAtomicPop", async () => {
    const f = newAtomicFIFO();
    f.add(mkFifoObj("foo", 10));
    f.replace([mkFifoObj("foo", 15)], "20");
    const first = await popOnce(f);
    expect(newestObj(first)).toEqual(mkFifoObj("foo", 10));
    const second = await popOnce(f);
    expect(second).toEqual([d("ReplacedAll", { resourceVersion: "20", objects: [mkFifoObj("foo", 15)] })]);
    expect(f.length).toBe(0);
  });

  describe("R8: TestRealFIFO_ResyncAtomic", () => {
    it("Base resync", async () => {
      const f = newAtomicFIFO();
      f.resync();
      expect(await drainFlat(f)).toEqual([d("SyncAll", {})]);
    });
    it("Added object exists in deltas on Atomic Resync", async () => {
      const f = newAtomicFIFO();
      const obj = mkFifoObj("foo", 2);
      f.add(obj);
      f.resync();
      expect(await drainFlat(f)).toEqual([d("Added", obj), d("SyncAll", {})]);
    });
  });
});

describe("RealFIFO behaviour beyond the upstream tests", () => {
  it("R5: ReplacedAll owns a transformed copy of the list, never the caller's array", async () => {
    const list = [mkFifoObj("a", 1), mkFifoObj("b", 2)];
    const f = newAtomicFIFO();
    f.replace(list, "7");
    list.length = 0;
    const [delta] = await popOnce(f);
    expect(delta?.type).toBe("ReplacedAll");
    const info = delta?.object as { objects: FObj[]; resourceVersion: string };
    expect(info.objects).not.toBe(list);
    expect(info.objects).toEqual([mkFifoObj("a", 1), mkFifoObj("b", 2)]);
    const t = newAtomicFIFO({ transformer: (o) => ({ ...o, val: `t${String(o.val)}` }) });
    t.replace([mkFifoObj("a", 1)], "8");
    expect(await drainFlat(t)).toEqual([d("ReplacedAll", { resourceVersion: "8", objects: [mkFifoObj("a", "t1")] })]);
  });

  it("R6: the first replace counts the whole queue, including deltas queued before it", async () => {
    const f = newAtomicFIFO();
    // add() populates; so build the "earlier entries" case with a bookmark, which does not populate.
    const b = newAtomicFIFO({ emitDeltaTypeBookmark: true });
    b.bookmark("1");
    b.bookmark("2");
    b.replace([mkFifoObj("a", 1)], "3");
    expect(b.hasSynced()).toBe(false);
    await popOnce(b);
    await popOnce(b);
    expect(b.hasSynced()).toBe(false);
    await popOnce(b);
    expect(b.hasSynced()).toBe(true);
    // Non-atomic: deletions and replacements all count.
    const n = newRealFIFO(literalListerGetter(() => [mkFifoObj("x", 0)]));
    n.replace([mkFifoObj("a", 1), mkFifoObj("b", 2)], "1");
    expect(n.length).toBe(3);
    for (let i = 0; i < 2; i++) {
      await popOnce(n);
      expect(n.hasSynced()).toBe(false);
    }
    await popOnce(n);
    expect(n.hasSynced()).toBe(true);
    // A second replace never resets the sync state.
    f.replace([mkFifoObj("a", 1)], "1");
    await popOnce(f);
    expect(f.hasSynced()).toBe(true);
    f.replace([mkFifoObj("a", 1), mkFifoObj("b", 1)], "2");
    expect(f.hasSynced()).toBe(true);
  });

  it("R9: bookmark neither populates the queue nor counts as an event without the option", async () => {
    const f = newAtomicFIFO({ emitDeltaTypeBookmark: true });
    f.bookmark("5");
    expect(f.hasSynced()).toBe(false);
    expect(await popOnce(f)).toEqual([d("Bookmark", { resourceVersion: "5" })]);
    const quiet = newAtomicFIFO();
    quiet.bookmark("5");
    expect(quiet.length).toBe(0);
  });

  it("R10: the initial count drops only after processing; the synced signal follows", async () => {
    const f = newAtomicFIFO();
    f.replace([mkFifoObj("a", 1)], "1");
    const seen: boolean[] = [];
    let doneDuring = false;
    void f
      .hasSyncedChecker()
      .done()
      .then(() => {
        doneDuring = true;
      });
    await f.pop(async (_deltas, isInInitialList) => {
      seen.push(isInInitialList, f.hasSynced());
      await Promise.resolve();
      await Promise.resolve();
      seen.push(f.hasSynced());
    });
    expect(seen).toEqual([true, false, false]);
    expect(f.hasSynced()).toBe(true);
    await f.hasSyncedChecker().done();
    expect(doneDuring).toBe(true);
    f.add(mkFifoObj("b", 1));
    const [, initial] = await pop2(f);
    expect(initial).toBe(false);
  });

  it("R10: a process error rejects the pop, the delta is not requeued, and the count still drops", async () => {
    const f = newAtomicFIFO();
    f.replace([mkFifoObj("a", 1)], "1");
    const boom = new Error("boom");
    await expect(
      f.pop(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(f.length).toBe(0);
    expect(f.hasSynced()).toBe(true);
    f.add(mkFifoObj("b", 1));
    await expect(f.pop(() => Promise.reject(boom))).rejects.toBe(boom);
    expect(f.length).toBe(0);
  });

  it("R10: a pop callback runs synchronously when an item is ready; a waiting pop is woken on a microtask", async () => {
    const f = newAtomicFIFO();
    f.add(mkFifoObj("a", 1));
    let ran = false;
    const p = f.pop(() => {
      ran = true;
    });
    expect(ran).toBe(true);
    await p;
    let woke = false;
    const waiting = f.pop(() => {
      woke = true;
    });
    f.add(mkFifoObj("b", 1));
    expect(woke).toBe(false); // never inside the producer's call
    await waiting;
    expect(woke).toBe(true);
  });

  it("async callbacks: pops are served one at a time in call order; the next waits for the promise", async () => {
    const f = newAtomicFIFO();
    const log: string[] = [];
    const gate = newGate();
    const p1 = f.pop(async (deltas) => {
      log.push(`start ${newestObj(deltas).name}`);
      await gate.promise;
      log.push(`end ${newestObj(deltas).name}`);
    });
    const p2 = f.pop((deltas) => void log.push(`second ${newestObj(deltas).name}`));
    const p3 = f.pop((deltas) => void log.push(`third ${newestObj(deltas).name}`));
    f.add(mkFifoObj("a", 1));
    f.add(mkFifoObj("b", 1));
    f.add(mkFifoObj("c", 1));
    await nextTurn();
    expect(log).toEqual(["start a"]);
    gate.open();
    await Promise.all([p1, p2, p3]);
    expect(log).toEqual(["start a", "end a", "second b", "third c"]);
  });

  it("locked callback: mutations are validated at once and applied in order after the callback settles", async () => {
    const f = newRealFIFO(emptyKnownObjects());
    f.add(mkFifoObj("a", 1));
    const gate = newGate();
    const lengths: number[] = [];
    const p = f.pop(async () => {
      await gate.promise;
      lengths.push(f.length);
    });
    f.add(mkFifoObj("b", 1));
    f.update(mkFifoObj("b", 2));
    expect(() => f.add({ nope: true } as unknown as FObj)).toThrow(KeyError);
    expect(f.length).toBe(0); // deferred
    gate.open();
    await p;
    expect(lengths).toEqual([0]);
    expect(f.length).toBe(2);
    expect((await drainFlat(f)).map((x) => x.type)).toEqual(["Added", "Updated"]);
  });

  it("locked callback: a reentrant add from a synchronous callback is applied right after it returns", async () => {
    const f = newRealFIFO(emptyKnownObjects());
    f.add(mkFifoObj("a", 1));
    const seen: number[] = [];
    await f.pop(() => {
      f.add(mkFifoObj("b", 1));
      seen.push(f.length);
    });
    expect(seen).toEqual([0]);
    expect(f.length).toBe(1);
  });

  it("R11: unlockWhileProcessing applies mutations during an async callback while fewer than 2×batchSize are queued", async () => {
    const f = newAtomicFIFO({ unlockWhileProcessing: true, batchSize: 2 });
    f.add(mkFifoObj("a", 1));
    let gate = newGate();
    const p = f.pop(() => gate.promise);
    f.add(mkFifoObj("b", 1));
    expect(f.length).toBe(1); // applied at once: the lock is released
    gate.open();
    await p;
    // Queue 5; after the next take 4 remain, which is not < 2 × batchSize, so that callback holds the lock.
    for (const n of ["c", "d", "e", "f"]) f.add(mkFifoObj(n, 1));
    expect(f.length).toBe(5);
    gate = newGate();
    const p2 = f.pop(() => gate.promise); // 4 remain: not < 4, so the lock is held
    f.add(mkFifoObj("g", 1));
    expect(f.length).toBe(4);
    gate.open();
    await p2;
    expect(f.length).toBe(5);
  });

  it("close: queued items are still handed out, then ErrFIFOClosed", async () => {
    const f = newAtomicFIFO();
    f.add(mkFifoObj("a", 1));
    f.add(mkFifoObj("b", 1));
    f.close();
    expect(f.isClosed()).toBe(true);
    expect(newestObj(await popOnce(f)).name).toBe("a");
    expect(newestObj(await popOnce(f)).name).toBe("b");
    await expect(popOnce(f)).rejects.toBe(ErrFIFOClosed);
    await expect(
      f.popBatch(
        () => {},
        () => {},
      ),
    ).rejects.toBe(ErrFIFOClosed);
  });

  it("add/update/delete errors: KeyError and transformer errors throw; the queue is still marked populated", () => {
    const f = newAtomicFIFO({
      transformer: (o) => {
        if (o.val === "bad") throw new Error("cannot transform");
        return o;
      },
    });
    expect(() => f.add("x" as unknown as FObj)).toThrow(KeyError);
    expect(f.hasSynced()).toBe(true);
    expect(() => f.update(mkFifoObj("a", "bad"))).toThrow("cannot transform");
    expect(() => f.replace([mkFifoObj("a", 1), mkFifoObj("b", "bad")], "1")).toThrow("cannot transform");
    expect(f.length).toBe(0);
    const g = newRealFIFO();
    expect(() => g.replace([mkFifoObj("a", 1), 7 as unknown as FObj], "1")).toThrow(KeyError);
    expect(g.length).toBe(0);
  });

  it("knownObjectLookup events: a listed key that cannot be fetched", async () => {
    const events: FIFOEvent[] = [];
    const f = new RealFIFO<FObj>({
      keyFunction: testFifoObjectKeyFunc,
      knownObjects: {
        listKeys: () => ["gone", "broken"],
        getByKey: (key) => {
          if (key === "broken") throw new Error("lookup failed");
          return undefined;
        },
      },
    });
    f.events$.subscribe((e) => events.push(e));
    f.replace([], "1");
    expect(await drainFlat(f)).toEqual([
      d("Deleted", tomb("gone", undefined)),
      d("Deleted", tomb("broken", undefined)),
    ]);
    f.resync(); // both keys fail the lookup: nothing is queued
    expect(f.length).toBe(0);
    expect(
      events.map((e) => (e.type === "knownObjectLookup" ? `${e.operation} ${e.key} ${e.reason}` : e.type)),
    ).toEqual(["replace gone missing", "replace broken error", "resync gone missing", "resync broken error"]);
  });
});

describe("RealFIFO metrics (§2b)", () => {
  const labels = { name: "pods", group: "", version: "v1", resource: "pods" };

  it("informer_queued_items follows every enqueue and pop (not bookmarks)", async () => {
    const metrics = new InMemoryMetrics();
    const f = newAtomicFIFO({ metrics: { provider: metrics, labels }, emitDeltaTypeBookmark: true });
    const q = () => metrics.value("informer_queued_items", labels);
    f.add(mkFifoObj("a", 1));
    expect(q()).toBe(1);
    f.replace([mkFifoObj("a", 1)], "2");
    expect(q()).toBe(2);
    f.resync();
    expect(q()).toBe(3);
    f.bookmark("4");
    expect(q()).toBe(3); // client-go: Bookmark does not update the gauge
    expect(f.length).toBe(4);
    await popOnce(f);
    expect(q()).toBe(3);
    await f.popBatch(
      () => {},
      () => {},
    );
    expect(q()).toBe(2);
    expect(metrics.describe("informer_queued_items")?.labelNames).toEqual(["name", "group", "version", "resource"]);
  });

  it("informer_processing_latency_seconds: exact buckets and the callback's duration on the clock", async () => {
    const metrics = new InMemoryMetrics();
    const clock = new FakeClock();
    const f = newAtomicFIFO({ metrics: { provider: metrics, labels }, clock });
    const desc = metrics.describe("informer_processing_latency_seconds") as unknown as {
      buckets: number[];
      labelNames: string[];
    };
    expect(desc.buckets).toEqual([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    expect(informerProcessingLatencyBuckets).toEqual(desc.buckets);
    expect(desc.labelNames).toEqual(["name", "group", "version", "resource"]);
    f.add(mkFifoObj("a", 1));
    f.add(mkFifoObj("b", 1));
    const p = f.pop(() => clock.sleep(250));
    await clock.step(250);
    await p;
    await f.popBatch(
      () => {},
      () => {},
    );
    expect(metrics.histogramValue("informer_processing_latency_seconds", labels).values).toEqual([0.25, 0]);
  });

  it("slowProcess event: depth > 10 and processing > 100 ms", async () => {
    const clock = new FakeClock();
    const f = newAtomicFIFO({ clock });
    const events: FIFOEvent[] = [];
    f.events$.subscribe((e) => events.push(e));
    for (let i = 0; i < 13; i++) f.add(mkFifoObj(`o${i}`, i));
    const p = f.pop(() => clock.sleep(101));
    await clock.step(101);
    await p;
    const q = f.pop(() => clock.sleep(100));
    await clock.step(100);
    await q;
    expect(events).toEqual([
      { type: "slowProcess", fifo: "RealFIFO", key: "o0", depth: 12, batchSize: 1, durationMs: 101 },
    ]);
  });
});

describe("D2: delta types", () => {
  it("D2: DeltaType lists the eight client-go delta types", () => {
    expect(Object.values(DeltaType)).toEqual([
      "Added",
      "Updated",
      "Deleted",
      "Replaced",
      "ReplacedAll",
      "Sync",
      "SyncAll",
      "Bookmark",
    ]);
    const x: Deltas<FObj> = [];
    expect(x).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Model-based: RealFIFO (atomic and non-atomic) against a plain-array reference model (edge cases 16–19).

type ROp =
  | { k: "add" | "update" | "delete"; key: string; v: number }
  | { k: "tomb"; key: string }
  | { k: "replace"; items: [string, number][]; rv: string }
  | { k: "resync" }
  | { k: "bookmark"; rv: string }
  | { k: "pop" }
  | { k: "popBatch" }
  | { k: "hold" }
  | { k: "release" }
  | { k: "close" };

const keyArb = fc.constantFrom("a", "b", "c", "d");
const rOpArb: fc.Arbitrary<ROp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constantFrom("add", "update", "delete"), key: keyArb, v: fc.nat(99) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("tomb"), key: keyArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("replace"),
      items: fc.array(fc.tuple(keyArb, fc.nat(99)), { maxLength: 4 }),
      rv: fc.constantFrom("1", "2", "3"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("resync") }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("bookmark"), rv: fc.constantFrom("7", "8") }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("pop") }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("popBatch") }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("hold") }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("release") }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("close") }) },
) as fc.Arbitrary<ROp>;

interface RConfig {
  /** Objects the consumer's store already holds (knownObjects) before the first operation. */
  preKnown: [string, number][];
  atomic: boolean;
  unlock: boolean;
  bookmarks: boolean;
  batchSize: number;
  transform: boolean;
}

/** The reference model: the R-rows written directly over a plain array, no deque, no scheduler. */
class RealFIFOModel {
  items: Delta<FObj>[] = [];
  populated = false;
  initial = 0;
  synced = false;
  locked = false;
  deferred: (() => void)[] = [];
  constructor(
    private readonly cfg: RConfig,
    private readonly known: Map<string, FObj>,
  ) {}
  private t(o: FObj): FObj {
    return this.cfg.transform ? markTransformed(o) : o;
  }
  private check(): void {
    if (this.populated && this.initial === 0) this.synced = true;
  }
  private run(fn: () => void): void {
    if (this.locked) this.deferred.push(fn);
    else fn();
  }
  event(type: "Added" | "Updated" | "Deleted", obj: FObj | DeletedFinalStateUnknown<FObj>): void {
    const stored = obj instanceof DeletedFinalStateUnknown ? obj : this.t(obj);
    this.run(() => {
      this.populated = true;
      this.check();
      this.items.push({ type, object: stored } as Delta<FObj>);
    });
  }
  replace(list: FObj[], rv: string): void {
    const objects = list.map((o) => this.t(o));
    this.run(() => {
      if (this.cfg.atomic) {
        this.items.push({ type: "ReplacedAll", object: { resourceVersion: rv, objects } });
      } else {
        const newKeys = new Set(list.map((o) => o.name));
        const last = new Map<string, Delta<FObj>>();
        const order: string[] = [];
        for (const dd of this.items) {
          const k = keyOfObj(dd.object);
          if (!last.has(k)) order.push(k);
          last.set(k, dd);
        }
        const dels: Delta<FObj>[] = [];
        for (const k of order) {
          const l = last.get(k) as Delta<FObj>;
          if (!newKeys.has(k) && l.type !== "Deleted")
            dels.push({ type: "Deleted", object: tomb(k, l.object as FObj) });
        }
        for (const k of this.known.keys()) {
          if (!newKeys.has(k) && !last.has(k)) dels.push({ type: "Deleted", object: tomb(k, this.known.get(k)) });
        }
        this.items.push(...dels, ...objects.map((o) => ({ type: "Replaced", object: o }) as Delta<FObj>));
      }
      if (!this.populated) {
        this.populated = true;
        this.initial = this.items.length;
        this.check();
      }
    });
  }
  resync(): void {
    this.run(() => {
      if (this.cfg.atomic) {
        this.items.push({ type: "SyncAll", object: {} });
        return;
      }
      const queued = new Set(this.items.map((x) => keyOfObj(x.object)));
      for (const [k, o] of this.known) if (!queued.has(k)) this.items.push({ type: "Sync", object: o });
    });
  }
  bookmark(rv: string): void {
    if (!this.cfg.bookmarks) return;
    this.run(() => this.items.push({ type: "Bookmark", object: { resourceVersion: rv } }));
  }
  takeOne(): [Delta<FObj>[], boolean] {
    const initial = !this.synced;
    return [[this.items.shift() as Delta<FObj>], initial];
  }
  takeBatch(): [Delta<FObj>[], boolean] {
    const initial = !this.synced;
    const out: Delta<FObj>[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < Math.min(this.cfg.batchSize, this.items.length); i++) {
      if (this.initial > 0 && i >= this.initial) break;
      const item = this.items[i] as Delta<FObj>;
      if (!["Sync", "Replaced", "Added", "Updated", "Deleted"].includes(item.type)) {
        if (out.length === 0) out.push(item);
        break;
      }
      const k = keyOfObj(item.object);
      if (seen.has(k)) break;
      seen.add(k);
      out.push(item);
    }
    this.items.splice(0, out.length);
    return [out, initial];
  }
  finish(n: number): void {
    if (this.initial > 0) {
      this.initial -= n;
      this.check();
    }
    this.locked = false;
    const ops = this.deferred;
    this.deferred = [];
    for (const op of ops) op();
  }
}

/** Half the runs start with a relist (so an initial population exists), then random operations. */
const opsArb: fc.Arbitrary<ROp[]> = fc
  .tuple(
    fc.option(
      fc.record({
        k: fc.constant("replace" as const),
        items: fc.array(fc.tuple(keyArb, fc.nat(99)), { minLength: 1, maxLength: 4 }),
        rv: fc.constant("1"),
      }),
    ),
    fc.array(rOpArb, { maxLength: 40, size: "medium" }),
  )
  .map(([first, rest]) => (first === null ? rest : [first, ...rest]));

describe("model-based: RealFIFO vs reference model", () => {
  const cfgArb: fc.Arbitrary<RConfig> = fc
    .record({
      atomic: fc.boolean(),
      unlock: fc.boolean(),
      bookmarks: fc.boolean(),
      batchSize: fc.constantFrom(1, 2, 3, 1000),
      transform: fc.boolean(),
      preKnown: fc.array(fc.tuple(keyArb, fc.nat(9)), { maxLength: 3 }),
    })
    .map((c) => ({ ...c, unlock: c.atomic && c.unlock, bookmarks: c.atomic && c.bookmarks }));

  test.prop([cfgArb, opsArb], { numRuns: 250 })(
    "R2–R13/edge 16–19: pops, batches, isInInitialList, hasSynced and length match the model",
    async (cfg, ops) => {
      const known = new Map<string, FObj>(cfg.preKnown.map(([k, v]) => [k, mkFifoObj(k, v)]));
      const knownObjects = { listKeys: () => [...known.keys()], getByKey: (k: string) => known.get(k) };
      const real = new RealFIFO<FObj>({
        keyFunction: testFifoObjectKeyFunc,
        atomicEvents: cfg.atomic,
        unlockWhileProcessing: cfg.unlock,
        emitDeltaTypeBookmark: cfg.bookmarks,
        batchSize: cfg.batchSize,
        knownObjects: cfg.atomic ? undefined : knownObjects,
        transformer: cfg.transform ? markTransformed : undefined,
      });
      const model = new RealFIFOModel(cfg, known);
      let closed = false;
      let held: HeldPop | undefined;
      let heldModel: [Delta<FObj>[], boolean] | undefined;

      const release = async () => {
        if (held === undefined) return;
        held.release();
        await held.done;
        expect(held.got).toEqual(heldModel);
        model.finish(1);
        held = undefined;
      };

      for (const op of ops) {
        switch (op.k) {
          case "add":
          case "update":
          case "delete": {
            const obj = mkFifoObj(op.key, op.v);
            real[op.k](obj);
            model.event(op.k === "add" ? "Added" : op.k === "update" ? "Updated" : "Deleted", obj);
            break;
          }
          case "tomb": {
            const t = tomb(op.key, mkFifoObj(op.key, -1));
            real.delete(t);
            model.event("Deleted", t);
            break;
          }
          case "replace": {
            const list = op.items.map(([k, v]) => mkFifoObj(k, v));
            real.replace(list, op.rv);
            model.replace(list, op.rv);
            break;
          }
          case "resync":
            real.resync();
            model.resync();
            break;
          case "bookmark":
            real.bookmark(op.rv);
            model.bookmark(op.rv);
            break;
          case "pop":
          case "popBatch": {
            if (held !== undefined) break;
            if (model.items.length === 0) {
              if (!closed) break;
              await expect(popOnce(real)).rejects.toBe(ErrFIFOClosed);
              break;
            }
            const initialLeft = model.initial;
            let got: [Delta<FObj>[], boolean] | undefined;
            const capture = (x: readonly Delta<FObj>[], initial: boolean) => {
              got = [[...x], initial];
              applyToKnown(known, x);
            };
            if (op.k === "pop") await real.pop(capture);
            else await real.popBatch(capture, capture);
            const expected = op.k === "pop" ? model.takeOne() : model.takeBatch();
            expect(got).toEqual(expected);
            const batch = (got as [Delta<FObj>[], boolean])[0];
            // Edge 19, stated directly.
            expect(batch.length).toBeLessThanOrEqual(cfg.batchSize);
            if (initialLeft > 0) expect(batch.length).toBeLessThanOrEqual(initialLeft);
            if (batch.length > 1) {
              expect(new Set(batch.map((x) => keyOfObj(x.object))).size).toBe(batch.length);
              expect(batch.some((x) => ["ReplacedAll", "SyncAll", "Bookmark"].includes(x.type))).toBe(false);
            }
            model.finish(batch.length);
            break;
          }
          case "hold": {
            if (held !== undefined || model.items.length === 0) break;
            held = holdPop(real, (x) => applyToKnown(known, x));
            heldModel = model.takeOne();
            model.locked = !(cfg.unlock && model.items.length < cfg.batchSize * 2);
            break;
          }
          case "release":
            await release();
            break;
          case "close":
            real.close();
            closed = true;
            break;
        }
        expect(real.length).toBe(model.items.length);
        expect(real.hasSynced()).toBe(model.synced);
      }
      await release();
      real.close();
      while (model.items.length > 0) {
        const got = await pop2(real);
        expect([[...got[0]], got[1]]).toEqual(model.takeOne());
        model.finish(1);
      }
      await expect(popOnce(real)).rejects.toBe(ErrFIFOClosed);
    },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Memory: popped slots, batches and relist lists are released (child `node --expose-gc`, never skipped).

const memoryScript = `
import { RealFIFO } from ${JSON.stringify(cacheSourceUrl("the-real-fifo.ts"))};
import { DeltaFIFO } from ${JSON.stringify(cacheSourceUrl("delta-fifo.ts"))};
import { processDeltas } from ${JSON.stringify(cacheSourceUrl("controller.ts"))};
import { newStore } from ${JSON.stringify(cacheSourceUrl("store-impl.ts"))};
import { deletionHandlingMetaNamespaceKeyFunc } from ${JSON.stringify(cacheSourceUrl("keys.ts"))};
const gc = globalThis.gc;
if (typeof gc !== "function") throw new Error("child started without --expose-gc");
const turn = () => new Promise((r) => setImmediate(r));
const collect = async () => { await turn(); gc(); gc(); await turn(); gc(); };
const heap = async () => { await collect(); return process.memoryUsage().heapUsed; };
const mk = (i) => ({ metadata: { namespace: "ns", name: "o" + i, resourceVersion: String(i) }, data: "x".repeat(48) + i });
const N = 200000;
const out = {};
const noop = { onAdd() {}, onUpdate() {}, onDelete() {} };

// 1. RealFIFO: fill with N deltas, pop them all; sampled popped containers and objects are collected.
{
  const fifo = new RealFIFO({ atomicEvents: true });
  const base = await heap();
  const refs = [];
  (() => { for (let i = 0; i < N; i++) fifo.add(mk(i)); })();
  out.realCapacityFull = fifo.items.capacity >= N;
  const full = await heap();
  for (let i = 0; i < N; i++) {
    await fifo.pop((deltas) => { if (i % 1000 === 0) refs.push(new WeakRef(deltas), new WeakRef(deltas[0].object)); });
  }
  const drained = await heap();
  out.realPoppedReleased = refs.every((r) => r.deref() === undefined);
  out.realCapacityAfter = fifo.items.capacity;
  out.realGrewMiB = Math.round((full - base) / 1048576) >= 8;
  out.realBackNearBaseline = drained - base < 1048576;
}

// 2. RealFIFO.popBatch: batch arrays and their deltas are not retained.
{
  const fifo = new RealFIFO({ atomicEvents: true });
  const refs = [];
  (() => { for (let i = 0; i < 50000; i++) fifo.add(mk(i)); })();
  while (fifo.length > 0) {
    await fifo.popBatch((batch) => { refs.push(new WeakRef(batch), new WeakRef(batch[0])); }, (one) => { refs.push(new WeakRef(one)); });
  }
  await collect();
  out.batches = refs.length / 2;
  out.batchesReleased = refs.every((r) => r.deref() === undefined);
  out.batchCapacityAfter = fifo.items.capacity;
}

// 3. Atomic replace: the caller's list is never pinned; the ReplacedAll objects array is released once
//    popped and processed into a store (whose items stay alive).
{
  const fifo = new RealFIFO({ atomicEvents: true });
  const store = newStore(deletionHandlingMetaNamespaceKeyFunc);
  const refs = {};
  (() => {
    const list = { metadata: { resourceVersion: "10" }, items: Array.from({ length: 5000 }, (_, i) => mk(i)) };
    refs.list = new WeakRef(list);
    refs.items = new WeakRef(list.items);
    fifo.replace(list.items, list.metadata.resourceVersion);
  })();
  await collect();
  out.listReleasedWhileQueued = refs.list.deref() === undefined && refs.items.deref() === undefined;
  await fifo.pop((deltas, initial) => {
    refs.objects = new WeakRef(deltas[0].object.objects);
    refs.delta = new WeakRef(deltas[0]);
    processDeltas(noop, store, deltas, initial, deletionHandlingMetaNamespaceKeyFunc);
  });
  await collect();
  out.replacedAllReleased = refs.objects.deref() === undefined && refs.delta.deref() === undefined;
  out.storeSize = store.size;
}

// 4. Non-atomic replace: the list is not pinned either.
{
  const store = newStore(deletionHandlingMetaNamespaceKeyFunc);
  const fifo = new RealFIFO({ knownObjects: store });
  const refs = {};
  (() => {
    const items = Array.from({ length: 3000 }, (_, i) => mk(i));
    refs.items = new WeakRef(items);
    fifo.replace(items, "5");
  })();
  await collect();
  out.nonAtomicListReleased = refs.items.deref() === undefined;
  while (fifo.length > 0) await fifo.pop((d, i) => processDeltas(noop, store, d, i, deletionHandlingMetaNamespaceKeyFunc));
  out.nonAtomicStoreSize = store.size;
}

// 5. DeltaFIFO: keys, per-key Deltas arrays and objects are released after popping.
{
  const fifo = new DeltaFIFO();
  const base = await heap();
  const refs = [];
  (() => { for (let i = 0; i < 100000; i++) { fifo.add(mk(i)); fifo.update(mk(i)); } })();
  (() => { const list = Array.from({ length: 1000 }, (_, i) => mk(i)); refs.push(new WeakRef(list)); fifo.replace(list, "1"); })();
  let n = 0;
  while (fifo.length > 0) {
    await fifo.pop((deltas) => { if (n++ % 1000 === 0) refs.push(new WeakRef(deltas), new WeakRef(deltas[0].object)); });
  }
  const drained = await heap();
  out.deltaPoppedReleased = refs.every((r) => r.deref() === undefined);
  out.deltaItemsAfter = fifo.items.size;
  out.deltaQueueCapacityAfter = fifo.queue.capacity;
  out.deltaBackNearBaseline = drained - base < 1048576;
}
console.log(JSON.stringify(out));
`;

describe("memory (child node --expose-gc)", () => {
  it("R10/R12/R5/D10: popped slots, batches, Deltas and relist lists are released; the queues shrink back", () => {
    const r = runGcChild(memoryScript);
    expect(r).toEqual({
      realCapacityFull: true,
      realPoppedReleased: true,
      realCapacityAfter: 16,
      realGrewMiB: true,
      realBackNearBaseline: true,
      batches: 50,
      batchesReleased: true,
      batchCapacityAfter: 16,
      listReleasedWhileQueued: true,
      replacedAllReleased: true,
      storeSize: 5000,
      nonAtomicListReleased: true,
      nonAtomicStoreSize: 3000,
      deltaPoppedReleased: true,
      deltaItemsAfter: 0,
      deltaQueueCapacityAfter: 16,
      deltaBackNearBaseline: true,
    });
  });
});
