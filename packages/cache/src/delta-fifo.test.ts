import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { Delta } from "./delta.js";
import { DeltaFIFO, type DeltaFIFOOptions, dedupDeltas } from "./delta-fifo.js";
import { ErrFIFOClosed } from "./fifo.js";
import {
  applyToKnown,
  d,
  drain,
  emptyKnownObjects,
  type FObj,
  type HeldPop,
  holdPop,
  literalListerGetter,
  markTransformed,
  mkFifoObj,
  newestObj,
  newGate,
  pop2,
  popOnce,
  testFifoObjectKeyFunc,
  tomb,
} from "./internal/fifo.test-util.js";
import type { FIFOEvent } from "./internal/fifo-core.js";
import { KeyError } from "./store.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

function newDeltaFIFO(extra: Omit<DeltaFIFOOptions<FObj>, "keyFunction"> = {}): DeltaFIFO<FObj> {
  return new DeltaFIFO<FObj>({ keyFunction: testFifoObjectKeyFunc, ...extra });
}

const knownThree = () => literalListerGetter(() => [mkFifoObj("foo", 5), mkFifoObj("bar", 6), mkFifoObj("baz", 7)]);

describe("DeltaFIFO (ported from delta_fifo_test.go)", () => {
  it("D4: TestDeltaFIFO_basic — per-producer order is kept", async () => {
    const f = newDeltaFIFO();
    const amount = 500;
    for (let i = 0; i < amount; i++) {
      f.add(mkFifoObj(`a${i}`, i + 1));
      f.add(mkFifoObj(`b${i}`, BigInt(i + 1)));
    }
    let lastInt = 0;
    let lastBig = 0n;
    for (let i = 0; i < amount * 2; i++) {
      const obj = newestObj(await popOnce(f));
      if (typeof obj.val === "number") {
        expect(obj.val).toBeGreaterThan(lastInt);
        lastInt = obj.val;
      } else {
        expect((obj.val as bigint) > lastBig).toBe(true);
        lastBig = obj.val as bigint;
      }
    }
  });

  it("D8: TestDeltaFIFO_replaceWithDeleteDeltaIn — a terminal Delete does not suppress the Sync (issue 83810)", async () => {
    const oldObj = mkFifoObj("foo", 1);
    const newObj = mkFifoObj("foo", 2);
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [oldObj]) });
    f.delete(oldObj);
    f.replace([newObj], "");
    expect(await popOnce(f)).toEqual([d("Deleted", oldObj), d("Sync", newObj)]);
  });

  describe("D8: TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue", () => {
    const obj = mkFifoObj("foo", 2);
    const objV2 = mkFifoObj("foo", 3);
    const table: {
      name: string;
      replaced?: boolean;
      operations: (f: DeltaFIFO<FObj>) => void;
      expected: Delta<FObj>[];
    }[] = [
      {
        name: "Added object should be deleted on Replace",
        operations: (f) => {
          f.add(obj);
          f.replace([], "0");
        },
        expected: [d("Added", obj), d("Deleted", tomb("foo", obj))],
      },
      {
        name: "Replaced object should have only a single Delete",
        replaced: true,
        operations: (f) => {
          f.add(obj);
          f.replace([obj], "0");
          f.replace([], "0");
        },
        expected: [d("Added", obj), d("Replaced", obj), d("Deleted", tomb("foo", obj))],
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
        expected: [d("Added", obj), d("Sync", obj), d("Sync", obj), d("Deleted", tomb("foo", obj))],
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
    ];
    for (const tt of table) {
      it(tt.name, async () => {
        for (const knownObjects of [emptyKnownObjects(), undefined]) {
          const f = newDeltaFIFO({ knownObjects, emitDeltaTypeReplaced: tt.replaced === true });
          tt.operations(f);
          expect(await popOnce(f)).toEqual(tt.expected);
          expect(f.length).toBe(0);
        }
      });
    }
  });

  it("D4/D6: TestDeltaFIFO_addUpdate — one key, three deltas, one pop", async () => {
    const f = newDeltaFIFO();
    f.add(mkFifoObj("foo", 10));
    f.update(mkFifoObj("foo", 12));
    f.delete(mkFifoObj("foo", 15));
    expect(f.length).toBe(1);
    const got = await popOnce(f);
    expect(newestObj(got).val).toBe(15);
    expect(got.map((x) => x.type)).toEqual(["Added", "Updated", "Deleted"]);
    expect(f.length).toBe(0);
  });

  it("D7: TestDeltaFIFO_transformer — each object transformed exactly once; tombstones not transformed", async () => {
    interface RvX {
      rv: number;
      xfrm: number;
    }
    const mk = (name: string, rv: number) => mkFifoObj(name, { rv, xfrm: 0 } satisfies RvX);
    const f = newDeltaFIFO({
      transformer: (obj) => {
        (obj.val as RvX).xfrm++;
        return obj;
      },
    });
    f.add(mk("foo", 10));
    f.add(mk("bar", 11));
    f.update(mk("foo", 12));
    f.delete(mk("foo", 15));
    f.replace([], "");
    f.add(mk("bar", 16));
    f.replace([], "");
    expect(f.length).toBe(2);
    const first = await popOnce(f);
    const foo = first[first.length - 1]?.object as FObj;
    expect(foo.name).toBe("foo");
    expect(foo.val).toEqual({ rv: 15, xfrm: 1 });
    const second = await popOnce(f);
    const barTomb = second[second.length - 1]?.object as DeletedFinalStateUnknown<FObj>;
    expect(barTomb).toBeInstanceOf(DeletedFinalStateUnknown);
    expect(barTomb.obj?.name).toBe("bar");
    expect(barTomb.obj?.val).toEqual({ rv: 16, xfrm: 1 });
  });

  it("D5: TestDeltaFIFO_enqueueingNoLister — a delete of an unknown key is dropped", async () => {
    const f = newDeltaFIFO();
    f.add(mkFifoObj("foo", 10));
    f.update(mkFifoObj("bar", 15));
    f.add(mkFifoObj("qux", 17));
    f.delete(mkFifoObj("qux", 18));
    f.delete(mkFifoObj("baz", 20));
    expect((await drain(f)).map((x) => newestObj(x).val)).toEqual([10, 15, 18]);
  });

  it("D5: TestDeltaFIFO_enqueueingWithLister — a delete of a known key is queued", async () => {
    const f = newDeltaFIFO({ knownObjects: knownThree() });
    f.add(mkFifoObj("foo", 10));
    f.update(mkFifoObj("bar", 15));
    f.delete(mkFifoObj("baz", 20));
    expect((await drain(f)).map((x) => newestObj(x).val)).toEqual([10, 15, 20]);
  });

  it("D8: TestDeltaFIFO_addReplace — Add then Replace is one pop whose newest is the replace", async () => {
    const f = newDeltaFIFO();
    f.add(mkFifoObj("foo", 10));
    f.replace([mkFifoObj("foo", 15)], "0");
    const got = await drain(f);
    expect(got).toHaveLength(1);
    expect(newestObj(got[0] as Delta<FObj>[]).val).toBe(15);
  });

  it("D9: TestDeltaFIFO_ResyncNonExisting — no Sync for a key with queued deltas", async () => {
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [mkFifoObj("foo", 5)]) });
    f.delete(mkFifoObj("foo", 10));
    f.resync();
    expect(await drain(f)).toEqual([[d("Deleted", mkFifoObj("foo", 10))]]);
  });

  it("D9: TestDeltaFIFO_Resync", async () => {
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [mkFifoObj("foo", 5)]) });
    f.resync();
    expect(await drain(f)).toEqual([[d("Sync", mkFifoObj("foo", 5))]]);
  });

  it("D5: TestDeltaFIFO_DeleteExistingNonPropagated — a delete of a queued key is queued", async () => {
    const f = newDeltaFIFO({ knownObjects: emptyKnownObjects() });
    f.add(mkFifoObj("foo", 5));
    f.delete(mkFifoObj("foo", 6));
    const got = await popOnce(f);
    expect(got).toHaveLength(2);
    expect(got[1]?.type).toBe("Deleted");
  });

  describe("D8: TestDeltaFIFO_ReplaceMakesDeletions", () => {
    it("with a pre-existing Delete", async () => {
      const f = newDeltaFIFO({ knownObjects: knownThree() });
      f.delete(mkFifoObj("baz", 10));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Deleted", mkFifoObj("baz", 10))],
        [d("Sync", mkFifoObj("foo", 5))],
        [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
      ]);
    });
    it("starting with an Add", async () => {
      const f = newDeltaFIFO({ knownObjects: knownThree() });
      f.add(mkFifoObj("baz", 10));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Added", mkFifoObj("baz", 10)), d("Deleted", tomb("baz", mkFifoObj("baz", 10)))],
        [d("Sync", mkFifoObj("foo", 5))],
        [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
      ]);
    });
    it("deleting and recreating in the queue, then deleted by Replace", async () => {
      const f = newDeltaFIFO({ knownObjects: knownThree() });
      f.delete(mkFifoObj("bar", 6));
      f.add(mkFifoObj("bar", 100));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [
          d("Deleted", mkFifoObj("bar", 6)),
          d("Added", mkFifoObj("bar", 100)),
          d("Deleted", tomb("bar", mkFifoObj("bar", 100))),
        ],
        [d("Sync", mkFifoObj("foo", 5))],
        [d("Deleted", tomb("baz", mkFifoObj("baz", 7)))],
      ]);
    });
    it("syncing first so the delete uses the latest version", async () => {
      const f = newDeltaFIFO({ knownObjects: knownThree() });
      f.replace([mkFifoObj("bar", 100), mkFifoObj("foo", 5)], "0");
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Sync", mkFifoObj("bar", 100)), d("Deleted", tomb("bar", mkFifoObj("bar", 100)))],
        [d("Sync", mkFifoObj("foo", 5)), d("Sync", mkFifoObj("foo", 5))],
        [d("Deleted", tomb("baz", mkFifoObj("baz", 7)))],
      ]);
    });
    it("without known objects", async () => {
      const f = newDeltaFIFO();
      f.add(mkFifoObj("baz", 10));
      f.replace([mkFifoObj("foo", 5)], "0");
      expect(await drain(f)).toEqual([
        [d("Added", mkFifoObj("baz", 10)), d("Deleted", tomb("baz", mkFifoObj("baz", 10)))],
        [d("Sync", mkFifoObj("foo", 5))],
      ]);
    });
  });

  it("D8: TestDeltaFIFO_ReplaceMakesDeletionsReplaced", async () => {
    const f = newDeltaFIFO({ knownObjects: knownThree(), emitDeltaTypeReplaced: true });
    f.delete(mkFifoObj("baz", 10));
    f.replace([mkFifoObj("foo", 6)], "0");
    expect(await drain(f)).toEqual([
      [d("Deleted", mkFifoObj("baz", 10))],
      [d("Replaced", mkFifoObj("foo", 6))],
      [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
    ]);
  });

  it("D8: TestDeltaFIFO_ReplaceDeltaType", async () => {
    const f = newDeltaFIFO({
      knownObjects: literalListerGetter(() => [mkFifoObj("foo", 5)]),
      emitDeltaTypeReplaced: true,
    });
    f.replace([mkFifoObj("foo", 5)], "0");
    expect(await drain(f)).toEqual([[d("Replaced", mkFifoObj("foo", 5))]]);
  });

  it("D9: TestDeltaFIFO_UpdateResyncRace", async () => {
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [mkFifoObj("foo", 5)]) });
    f.update(mkFifoObj("foo", 6));
    f.resync();
    expect(await drain(f)).toEqual([[d("Updated", mkFifoObj("foo", 6))]]);
  });

  it("D11: TestDeltaFIFO_HasSyncedCorrectOnDeletion", async () => {
    const f = newDeltaFIFO({ knownObjects: knownThree() });
    f.replace([mkFifoObj("foo", 5)], "0");
    const expected = [
      [d("Sync", mkFifoObj("foo", 5))],
      [d("Deleted", tomb("bar", mkFifoObj("bar", 6)))],
      [d("Deleted", tomb("baz", mkFifoObj("baz", 7)))],
    ];
    for (const e of expected) {
      expect(f.hasSynced()).toBe(false);
      const [cur, initial] = await pop2(f);
      expect(cur).toEqual(e);
      expect(initial).toBe(true);
    }
    expect(f.hasSynced()).toBe(true);
  });

  it("D4: TestDeltaFIFO_detectLineJumpers — a queued key keeps its position", async () => {
    const f = newDeltaFIFO();
    f.add(mkFifoObj("foo", 10));
    f.add(mkFifoObj("bar", 1));
    f.add(mkFifoObj("foo", 11));
    f.add(mkFifoObj("foo", 13));
    f.add(mkFifoObj("zab", 30));
    expect(newestObj(await popOnce(f)).val).toBe(13);
    f.add(mkFifoObj("foo", 14));
    const rest: unknown[] = [];
    for (let i = 0; i < 3; i++) rest.push(newestObj(await popOnce(f)).val);
    expect(rest).toEqual([1, 30, 14]);
  });

  it("D3: TestDeltaFIFO_KeyOf", () => {
    const f = newDeltaFIFO();
    expect(f.keyOf(mkFifoObj("A", 0))).toBe("A");
    expect(f.keyOf(tomb("B", undefined))).toBe("B");
    expect(f.keyOf([d("Added", mkFifoObj("C", 0))])).toBe("C");
    expect(f.keyOf([d("Deleted", tomb("D", undefined))])).toBe("D");
    expect(() => f.keyOf([])).toThrow("0 length Deltas object; can't get key");
  });

  describe("D11: TestDeltaFIFO_HasSynced", () => {
    const cases: { name: string; actions: ((f: DeltaFIFO<FObj>) => unknown)[]; synced: boolean }[] = [
      { name: "nothing", actions: [], synced: false },
      { name: "add first", actions: [(f) => f.add(mkFifoObj("a", 1))], synced: true },
      { name: "empty replace", actions: [(f) => f.replace([], "0")], synced: true },
      {
        name: "replace of two",
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
        name: "duplicate keys count once",
        actions: [(f) => f.replace([mkFifoObj("a", 1), mkFifoObj("a", 2)], "0"), popOnce],
        synced: true,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const f = newDeltaFIFO();
        for (const a of c.actions) await a(f);
        expect(f.hasSynced()).toBe(c.synced);
      });
    }
  });

  it("D12: TestDeltaFIFO_PopShouldUnblockWhenClosed", async () => {
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [mkFifoObj("foo", 5)]) });
    const pops = Array.from({ length: 10 }, () => popOnce(f));
    f.close();
    for (const r of await Promise.allSettled(pops)) {
      expect(r).toEqual({ status: "rejected", reason: ErrFIFOClosed });
    }
  });
});

describe("DeltaFIFO behaviour beyond the upstream tests", () => {
  it("D6: dedupDeltas merges only two trailing Deleted deltas", () => {
    const real = d("Deleted", mkFifoObj("a", 1));
    const real2 = d("Deleted", mkFifoObj("a", 2));
    const t = d("Deleted", tomb("a", mkFifoObj("a", 0)));
    const t2 = d("Deleted", tomb("a", mkFifoObj("a", 9)));
    const u = d("Updated", mkFifoObj("a", 3));
    expect(dedupDeltas([real, real2])).toEqual([real]);
    expect(dedupDeltas([real, t])).toEqual([real]);
    expect(dedupDeltas([t, real])).toEqual([real]);
    expect(dedupDeltas([t, t2])).toEqual([t2]);
    expect(dedupDeltas([real, u, real2])).toEqual([real, u, real2]);
    expect(dedupDeltas([u])).toEqual([u]);
  });

  it("edge 10: [Deleted, Updated, Deleted] is not deduplicated; two Deletes become one", async () => {
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [mkFifoObj("a", 0)]) });
    f.delete(mkFifoObj("a", 1));
    f.delete(mkFifoObj("a", 2));
    expect(await popOnce(f)).toEqual([d("Deleted", mkFifoObj("a", 1))]);
    f.delete(mkFifoObj("a", 1));
    f.update(mkFifoObj("a", 2));
    f.delete(mkFifoObj("a", 3));
    expect((await popOnce(f)).map((x) => x.type)).toEqual(["Deleted", "Updated", "Deleted"]);
  });

  it("D5: delete sets populated even when dropped; a lookup error queues the delete", async () => {
    const f = newDeltaFIFO();
    f.delete(mkFifoObj("ghost", 1));
    expect(f.length).toBe(0);
    expect(f.hasSynced()).toBe(true);
    const g = newDeltaFIFO({
      knownObjects: {
        listKeys: () => [],
        getByKey: () => {
          throw new Error("lookup failed");
        },
      },
    });
    g.delete(mkFifoObj("x", 1));
    expect(await popOnce(g)).toEqual([d("Deleted", mkFifoObj("x", 1))]);
  });

  it("D7: the transformer runs on Deleted and Replace items but not on Sync or tombstones, and not for a dropped delete", async () => {
    const seen: string[] = [];
    const f = newDeltaFIFO({
      knownObjects: literalListerGetter(() => [mkFifoObj("k", 0)]),
      transformer: (o) => {
        seen.push(`${o.name}:${String(o.val)}`);
        return o;
      },
    });
    f.delete(mkFifoObj("nope", 1));
    f.delete(mkFifoObj("k", 1));
    f.delete(tomb("k", mkFifoObj("k", 2)) as never);
    f.replace([mkFifoObj("r", 3)], "1");
    await drain(f);
    f.resync();
    expect(await drain(f)).toEqual([[d("Sync", mkFifoObj("k", 0))]]);
    expect(seen).toEqual(["k:1", "r:3"]);
  });

  it("D8: step 3 uses the known object, or undefined with a knownObjectLookup event", async () => {
    const events: FIFOEvent[] = [];
    const f = newDeltaFIFO({
      knownObjects: {
        listKeys: () => ["a", "gone"],
        getByKey: (k) => (k === "a" ? mkFifoObj("a", 1) : undefined),
      },
    });
    f.events$.subscribe((e) => events.push(e));
    f.replace([], "1");
    expect(await drain(f)).toEqual([
      [d("Deleted", tomb("a", mkFifoObj("a", 1)))],
      [d("Deleted", tomb("gone", undefined))],
    ]);
    expect(events).toEqual([
      { type: "knownObjectLookup", fifo: "DeltaFIFO", operation: "replace", key: "gone", reason: "missing" },
    ]);
  });

  it("D8: a nested tombstone is unwrapped; a key already tombstoned keeps one Delete", async () => {
    const f = newDeltaFIFO();
    f.add(mkFifoObj("a", 1));
    f.replace([], "1");
    f.replace([], "2");
    expect(await drain(f)).toEqual([[d("Added", mkFifoObj("a", 1)), d("Deleted", tomb("a", mkFifoObj("a", 1)))]]);
  });

  it("D8: errors leave the queue untouched (all-or-nothing)", () => {
    const f = newDeltaFIFO({
      transformer: (o) => {
        if (o.val === "bad") throw new Error("cannot transform");
        return o;
      },
    });
    expect(() => f.replace([mkFifoObj("a", 1), 3 as unknown as FObj], "1")).toThrow(KeyError);
    expect(() => f.replace([mkFifoObj("a", 1), mkFifoObj("b", "bad")], "1")).toThrow("cannot transform");
    expect(f.length).toBe(0);
    expect(f.hasSynced()).toBe(false);
  });

  it("D10 (deliberate fix): the initial count drops after processing, so hasSynced is false during the last initial item", async () => {
    const f = newDeltaFIFO();
    f.replace([mkFifoObj("a", 1)], "1");
    const seen: boolean[] = [];
    await f.pop(async (_x, initial) => {
      seen.push(initial, f.hasSynced());
      await Promise.resolve();
      seen.push(f.hasSynced());
    });
    expect(seen).toEqual([true, false, false]);
    expect(f.hasSynced()).toBe(true);
  });

  it("D10: process runs under the lock; mutations made meanwhile are applied in order afterwards", async () => {
    const f = newDeltaFIFO({ knownObjects: literalListerGetter(() => [mkFifoObj("k", 0)]) });
    f.add(mkFifoObj("a", 1));
    const gate = newGate();
    const p = f.pop(() => gate.promise);
    f.add(mkFifoObj("b", 1));
    f.delete(mkFifoObj("k", 2));
    f.replace([mkFifoObj("b", 2)], "5");
    expect(f.length).toBe(0);
    gate.open();
    await p;
    expect(await drain(f)).toEqual([
      [d("Added", mkFifoObj("b", 1)), d("Sync", mkFifoObj("b", 2))],
      [d("Deleted", mkFifoObj("k", 2))],
    ]);
  });

  it("D12: close drains queued keys first", async () => {
    const f = newDeltaFIFO();
    f.add(mkFifoObj("a", 1));
    f.close();
    expect(newestObj(await popOnce(f)).name).toBe("a");
    await expect(popOnce(f)).rejects.toBe(ErrFIFOClosed);
    expect(f.isClosed()).toBe(true);
  });

  it("D13: the transformer is exposed (TransformingStore) and the sync checker resolves", async () => {
    const t = (o: FObj) => o;
    const f = newDeltaFIFO({ transformer: t });
    expect(f.transformer()).toBe(t);
    expect(f.hasSyncedChecker().isDone()).toBe(false);
    f.replace([], "1");
    await f.hasSyncedChecker().done();
    expect(f.hasSyncedChecker().name()).toBe("DeltaFIFO");
    expect("bookmark" in f).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Model-based: DeltaFIFO against a Map + array reference model (edge cases 8–15).

type DOp =
  | { k: "add" | "update" | "delete"; key: string; v: number }
  | { k: "tomb"; key: string }
  | { k: "replace"; items: [string, number][] }
  | { k: "resync" }
  | { k: "pop" }
  | { k: "hold" }
  | { k: "release" }
  | { k: "close" };

const dKeyArb = fc.constantFrom("a", "b", "c", "d");
const dOpArb: fc.Arbitrary<DOp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constantFrom("add", "update", "delete"), key: dKeyArb, v: fc.nat(99) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("tomb"), key: dKeyArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("replace"),
      items: fc.array(fc.tuple(dKeyArb, fc.nat(99)), { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("resync") }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("pop") }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("hold") }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("release") }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("close") }) },
) as fc.Arbitrary<DOp>;

const dOpsArb: fc.Arbitrary<DOp[]> = fc
  .tuple(
    fc.option(
      fc.record({
        k: fc.constant("replace" as const),
        items: fc.array(fc.tuple(dKeyArb, fc.nat(99)), { minLength: 1, maxLength: 4 }),
      }),
    ),
    fc.array(dOpArb, { maxLength: 40, size: "medium" }),
  )
  .map(([first, rest]) => (first === null ? rest : [first, ...rest]));

interface DConfig {
  /** Objects the consumer's store already holds (knownObjects) before the first operation. */
  preKnown: [string, number][];
  withKnown: boolean;
  emitReplaced: boolean;
  transform: boolean;
}

const isTomb = (o: unknown): o is DeletedFinalStateUnknown<FObj> => o instanceof DeletedFinalStateUnknown;

/** The D-rows over a Map of arrays and a key array. */
class DeltaFIFOModel {
  items = new Map<string, Delta<FObj>[]>();
  queue: string[] = [];
  populated = false;
  initial = 0;
  synced = false;
  locked = false;
  deferred: (() => void)[] = [];
  constructor(
    private readonly cfg: DConfig,
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
  private append(key: string, type: Delta<FObj>["type"], object: unknown): void {
    const list = this.items.get(key);
    const delta = { type, object } as Delta<FObj>;
    if (list === undefined) {
      this.items.set(key, [delta]);
      this.queue.push(key);
      return;
    }
    const prev = list[list.length - 1] as Delta<FObj>;
    if (prev.type === "Deleted" && type === "Deleted") {
      if (isTomb(prev.object)) list[list.length - 1] = delta;
      return;
    }
    list.push(delta);
  }
  event(type: "Added" | "Updated", obj: FObj): void {
    const stored = this.t(obj);
    this.run(() => {
      this.populated = true;
      this.check();
      this.append(obj.name, type, stored);
    });
  }
  delete(obj: FObj | DeletedFinalStateUnknown<FObj>): void {
    const key = isTomb(obj) ? obj.key : obj.name;
    const stored = isTomb(obj) ? obj : this.t(obj);
    this.run(() => {
      this.populated = true;
      this.check();
      if (!this.items.has(key) && !(this.cfg.withKnown && this.known.has(key))) return;
      this.append(key, "Deleted", stored);
    });
  }
  replace(list: FObj[]): void {
    const objs = list.map((o) => this.t(o));
    this.run(() => {
      const listed = new Set<string>();
      for (const o of objs) {
        listed.add(o.name);
        this.append(o.name, this.cfg.emitReplaced ? "Replaced" : "Sync", o);
      }
      let dels = 0;
      for (const [k, ds] of this.items) {
        if (listed.has(k)) continue;
        const newest = (ds[ds.length - 1] as Delta<FObj>).object;
        dels++;
        this.append(k, "Deleted", tomb(k, isTomb(newest) ? newest.obj : (newest as FObj)));
      }
      if (this.cfg.withKnown) {
        for (const [k, o] of this.known) {
          if (listed.has(k) || this.items.has(k)) continue;
          dels++;
          this.append(k, "Deleted", tomb(k, o));
        }
      }
      if (!this.populated) {
        this.populated = true;
        this.initial = listed.size + dels;
        this.check();
      }
    });
  }
  resync(): void {
    if (!this.cfg.withKnown) return;
    this.run(() => {
      for (const [k, o] of this.known) if (!this.items.has(k)) this.append(k, "Sync", o);
    });
  }
  take(): [Delta<FObj>[], boolean] {
    const initial = !this.synced;
    const key = this.queue.shift() as string;
    const ds = this.items.get(key) as Delta<FObj>[];
    this.items.delete(key);
    return [ds, initial];
  }
  finish(): void {
    if (this.initial > 0) {
      this.initial--;
      this.check();
    }
    this.locked = false;
    const ops = this.deferred;
    this.deferred = [];
    for (const op of ops) op();
  }
}

describe("model-based: DeltaFIFO vs reference model", () => {
  const cfgArb: fc.Arbitrary<DConfig> = fc.record({
    withKnown: fc.boolean(),
    emitReplaced: fc.boolean(),
    transform: fc.boolean(),
    preKnown: fc.array(fc.tuple(dKeyArb, fc.nat(9)), { maxLength: 3 }),
  });

  test.prop([cfgArb, dOpsArb], { numRuns: 250 })(
    "D1–D13/edge 8–15: popped Deltas, isInInitialList, hasSynced and queue length match the model",
    async (cfg, ops) => {
      const known = new Map<string, FObj>(cfg.preKnown.map(([k, v]) => [k, mkFifoObj(k, v)]));
      let transforms = 0;
      const real = new DeltaFIFO<FObj>({
        keyFunction: testFifoObjectKeyFunc,
        knownObjects: cfg.withKnown ? { listKeys: () => [...known.keys()], getByKey: (k) => known.get(k) } : undefined,
        emitDeltaTypeReplaced: cfg.emitReplaced,
        transformer: cfg.transform
          ? (o) => {
              transforms++;
              return markTransformed(o);
            }
          : undefined,
      });
      const model = new DeltaFIFOModel(cfg, known);
      let expectedTransforms = 0;
      let closed = false;
      let held: HeldPop | undefined;
      let heldModel: [Delta<FObj>[], boolean] | undefined;
      const release = async () => {
        if (held === undefined) return;
        held.release();
        await held.done;
        expect(held.got).toEqual(heldModel);
        model.finish();
        held = undefined;
      };
      for (const op of ops) {
        switch (op.k) {
          case "add":
          case "update": {
            const obj = mkFifoObj(op.key, op.v);
            real[op.k](obj);
            model.event(op.k === "add" ? "Added" : "Updated", obj);
            expectedTransforms++;
            break;
          }
          case "delete": {
            const obj = mkFifoObj(op.key, op.v);
            // Edge 15: a delete is transformed once unless dropped (when unlocked the drop is decided first).
            const dropped = held === undefined && !model.items.has(op.key) && !(cfg.withKnown && known.has(op.key));
            real.delete(obj);
            model.delete(obj);
            if (!dropped) expectedTransforms++;
            break;
          }
          case "tomb": {
            const t = tomb(op.key, mkFifoObj(op.key, -1));
            real.delete(t);
            model.delete(t);
            break;
          }
          case "replace": {
            const list = op.items.map(([k, v]) => mkFifoObj(k, v));
            real.replace(list, "1");
            model.replace(list);
            expectedTransforms += list.length;
            break;
          }
          case "resync":
            real.resync();
            model.resync();
            break;
          case "pop": {
            if (held !== undefined) break;
            if (model.queue.length === 0) {
              if (closed) await expect(popOnce(real)).rejects.toBe(ErrFIFOClosed);
              break;
            }
            let got: [Delta<FObj>[], boolean] | undefined;
            await real.pop((x, initial) => {
              got = [[...x], initial];
              applyToKnown(known, x);
            });
            expect(got).toEqual(model.take());
            model.finish();
            break;
          }
          case "hold": {
            if (held !== undefined || model.queue.length === 0) break;
            held = holdPop(real, (x) => applyToKnown(known, x));
            heldModel = model.take();
            model.locked = true;
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
        expect(real.length).toBe(model.queue.length);
        expect(real.hasSynced()).toBe(model.synced);
        if (cfg.transform) expect(transforms).toBe(expectedTransforms);
      }
      await release();
      real.close();
      while (model.queue.length > 0) {
        const got = await pop2(real);
        expect([[...got[0]], got[1]]).toEqual(model.take());
        model.finish();
      }
      await expect(popOnce(real)).rejects.toBe(ErrFIFOClosed);
    },
  );
});
