import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  FilteringResourceEventHandler,
  newQueueFIFO,
  processDeltas,
  processDeltasInBatch,
  processLoop,
  type ResourceEventHandler,
  ResourceEventHandlerDetailedFuncs,
  ResourceEventHandlerFuncs,
} from "./controller.js";
import type { Delta, Deltas } from "./delta.js";
import { DeltaFIFO } from "./delta-fifo.js";
import type { Queue } from "./fifo.js";
import { nextTurn } from "./internal/fifo.test-util.js";
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceKeyFunc } from "./keys.js";
import type { Store } from "./store.js";
import { newStore, type StoreWithTransactions } from "./store-impl.js";
import { RealFIFO } from "./the-real-fifo.js";
import { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "./tombstone.js";
import { type Transaction, TransactionError, type TransactionStore } from "./transaction.js";

interface Pod {
  metadata: { name: string; namespace: string; resourceVersion: string; labels?: Record<string, string> };
}

const pod = (name: string, rv: string, labels?: Record<string, string>): Pod => ({
  metadata: { name, namespace: "default", resourceVersion: rv, ...(labels ? { labels } : {}) },
});
const keyFunc = deletionHandlingMetaNamespaceKeyFunc;
const newPodStore = () => newStore<Pod>(keyFunc);

type Call =
  | { op: "add"; key: string; rv: string; initial: boolean; storeRV: string }
  | { op: "update"; key: string; oldRV: string; rv: string; storeRV: string }
  | { op: "delete"; key: string; rv: string; tombstone: boolean; storeRV: string };

/** client-go's `eventRecorder`: records each callback with the store's view of that key at that moment. */
function recorder(store: Store<Pod>): ResourceEventHandler<Pod> & { calls: Call[] } {
  const storeRV = (key: string) => store.getByKey(key)?.metadata.resourceVersion ?? "";
  const calls: Call[] = [];
  return {
    calls,
    onAdd(obj, initial) {
      const key = keyFunc(obj);
      calls.push({ op: "add", key, rv: obj.metadata.resourceVersion, initial, storeRV: storeRV(key) });
    },
    onUpdate(oldObj, newObj) {
      const key = keyFunc(newObj);
      calls.push({
        op: "update",
        key,
        oldRV: oldObj.metadata.resourceVersion,
        rv: newObj.metadata.resourceVersion,
        storeRV: storeRV(key),
      });
    },
    onDelete(obj) {
      const key = keyFunc(obj);
      const tombstone = isDeletedFinalStateUnknown<Pod>(obj);
      const o = tombstone ? obj.obj : obj;
      calls.push({ op: "delete", key, rv: o?.metadata.resourceVersion ?? "", tombstone, storeRV: storeRV(key) });
    },
  };
}

const dl = (type: Delta<Pod>["type"], object: unknown) => ({ type, object }) as Delta<Pod>;
const keys = (s: Store<Pod>) => s.listKeys().sort();

describe("processDeltas (C3–C7)", () => {
  it("C3: Added/Updated/Sync/Replaced become add or update by store presence, store first", () => {
    const store = newPodStore();
    const h = recorder(store);
    processDeltas(h, store, [dl("Updated", pod("a", "1"))], true, keyFunc);
    processDeltas(h, store, [dl("Added", pod("a", "2"))], false, keyFunc);
    processDeltas(h, store, [dl("Sync", pod("a", "2")), dl("Replaced", pod("b", "3"))], true, keyFunc);
    expect(h.calls).toEqual([
      { op: "add", key: "default/a", rv: "1", initial: true, storeRV: "1" },
      { op: "update", key: "default/a", oldRV: "1", rv: "2", storeRV: "2" },
      { op: "update", key: "default/a", oldRV: "2", rv: "2", storeRV: "2" },
      { op: "add", key: "default/b", rv: "3", initial: true, storeRV: "3" },
    ]);
  });

  it("C4: Deleted deletes then notifies, even for an object the store never held; tombstones pass through", () => {
    const store = newPodStore();
    const h = recorder(store);
    store.add(pod("a", "1"));
    processDeltas(h, store, [dl("Deleted", pod("a", "2"))], false, keyFunc);
    processDeltas(h, store, [dl("Deleted", pod("ghost", "3"))], false, keyFunc);
    processDeltas(h, store, [dl("Deleted", new DeletedFinalStateUnknown("default/x", undefined))], false, keyFunc);
    expect(h.calls).toEqual([
      { op: "delete", key: "default/a", rv: "2", tombstone: false, storeRV: "" },
      { op: "delete", key: "default/ghost", rv: "3", tombstone: false, storeRV: "" },
      { op: "delete", key: "default/x", rv: "", tombstone: true, storeRV: "" },
    ]);
  });

  it("edge 8: a popped [Added, Deleted] gives OnAdd then OnDelete", () => {
    const store = newPodStore();
    const h = recorder(store);
    processDeltas(h, store, [dl("Added", pod("a", "1")), dl("Deleted", pod("a", "2"))], false, keyFunc);
    expect(h.calls.map((c) => c.op)).toEqual(["add", "delete"]);
    expect(store.listKeys()).toEqual([]);
  });

  it("C5/edge 18: ReplacedAll swaps the store first, then deletes, then add/update in list order", () => {
    const store = newPodStore();
    for (const p of [pod("keep", "1"), pod("same", "2"), pod("gone1", "3"), pod("gone2", "4")]) store.add(p);
    const h = recorder(store);
    const snapshots: string[][] = [];
    const spy: ResourceEventHandler<Pod> = {
      onAdd: (o, i) => {
        snapshots.push(keys(store));
        h.onAdd?.(o, i);
      },
      onUpdate: (o, n) => {
        snapshots.push(keys(store));
        h.onUpdate?.(o, n);
      },
      onDelete: (o) => {
        snapshots.push(keys(store));
        h.onDelete?.(o);
      },
    };
    const list = [pod("new", "9"), pod("keep", "8"), pod("same", "2")];
    processDeltas(spy, store, [dl("ReplacedAll", { resourceVersion: "10", objects: list })], false, keyFunc);
    expect(keys(store)).toEqual(["default/keep", "default/new", "default/same"]);
    expect(store.lastStoreSyncResourceVersion()).toBe("10");
    // Every callback saw the complete new snapshot.
    for (const s of snapshots) expect(s).toEqual(["default/keep", "default/new", "default/same"]);
    const deletes = h.calls.filter((c) => c.op === "delete");
    expect(deletes.map((c) => c.key).sort()).toEqual(["default/gone1", "default/gone2"]);
    expect(deletes.every((c) => c.op === "delete" && c.tombstone)).toBe(true);
    expect(deletes.map((c) => c.rv).sort()).toEqual(["3", "4"]);
    expect(h.calls.slice(2)).toEqual([
      { op: "add", key: "default/new", rv: "9", initial: false, storeRV: "9" },
      { op: "update", key: "default/keep", oldRV: "1", rv: "8", storeRV: "8" },
      // An unchanged RV is still an update (the informer classifies it as a resync, I7).
      { op: "update", key: "default/same", oldRV: "2", rv: "2", storeRV: "2" },
    ]);
  });

  it("C5: ReplacedAll with isInInitialList passes it to OnAdd; a key error aborts before the store changes", () => {
    const store = newPodStore();
    store.add(pod("a", "1"));
    const h = recorder(store);
    processDeltas(h, store, [dl("ReplacedAll", { resourceVersion: "2", objects: [pod("b", "2")] })], true, keyFunc);
    expect(h.calls.at(-1)).toEqual({ op: "add", key: "default/b", rv: "2", initial: true, storeRV: "2" });
    expect(() =>
      processDeltas(h, store, [dl("ReplacedAll", { resourceVersion: "3", objects: [{ nope: 1 }] })], false, keyFunc),
    ).toThrow("object has no meta");
    expect(keys(store)).toEqual(["default/b"]);
  });

  it("C6/edge 20: SyncAll replays the current store as OnUpdate(obj, obj) and ends the list", () => {
    const store = newPodStore();
    const h = recorder(store);
    processDeltas(h, store, [dl("Added", pod("a", "1")), dl("Updated", pod("a", "2"))], false, keyFunc);
    h.calls.length = 0;
    processDeltas(h, store, [dl("SyncAll", {}), dl("Added", pod("never", "3"))], false, keyFunc);
    expect(h.calls).toEqual([{ op: "update", key: "default/a", oldRV: "2", rv: "2", storeRV: "2" }]);
    expect(keys(store)).toEqual(["default/a"]);
  });

  it("C7: Bookmark records the RV in the store and calls no handler", () => {
    const store = newPodStore();
    const h = recorder(store);
    processDeltas(h, store, [dl("Bookmark", { resourceVersion: "77" })], false, keyFunc);
    expect(store.lastStoreSyncResourceVersion()).toBe("77");
    expect(h.calls).toEqual([]);
  });

  it("malformed atomic payloads and unknown types are errors naming the delta", () => {
    const store = newPodStore();
    const h = recorder(store);
    expect(() => processDeltas(h, store, [dl("ReplacedAll", { objects: "x" })], false, keyFunc)).toThrow(
      "ReplacedAll did not contain ReplacedAllInfo",
    );
    expect(() => processDeltas(h, store, [dl("SyncAll", null)], false, keyFunc)).toThrow(
      "SyncAll did not contain SyncAllInfo",
    );
    expect(() => processDeltas(h, store, [dl("Bookmark", {})], false, keyFunc)).toThrow(
      "bookmark delta did not contain BookmarkInfo",
    );
    expect(() => processDeltas(h, store, [{ type: "Weird", object: 1 } as never], false, keyFunc)).toThrow(
      'unknown delta type "Weird"',
    );
  });
});

/** client-go's `mockTxnStore`: fails the transactions whose object is in `failing`. */
class MockTxnStore implements TransactionStore<Pod> {
  succeedCount = 0;
  readonly store = newPodStore();
  constructor(private readonly failing: Pod[]) {}
  transaction(txns: readonly Transaction<Pod>[]): TransactionError | undefined {
    const ok: number[] = [];
    const errors: Error[] = [];
    txns.forEach((t, i) => {
      if (this.failing.includes(t.object as Pod)) errors.push(new Error("test error"));
      else ok.push(i);
    });
    this.succeedCount = ok.length;
    return errors.length > 0 ? new TransactionError(ok, txns.length, errors) : undefined;
  }
}

function txnStoreView(m: MockTxnStore): Store<Pod> & TransactionStore<Pod> {
  return Object.assign(Object.create(m.store) as Store<Pod>, {
    transaction: (t: readonly Transaction<Pod>[]) => m.transaction(t),
  });
}

/** `store` seen through the plain `Store` interface only (no `transaction`). */
function withoutTransactions(plain: Store<Pod>): Store<Pod> {
  return {
    add: (o) => plain.add(o),
    update: (o) => plain.update(o),
    delete: (o) => plain.delete(o),
    replace: (l, rv) => plain.replace(l, rv),
    resync: () => plain.resync(),
    bookmark: (rv) => plain.bookmark(rv),
    list: () => plain.list(),
    listKeys: () => plain.listKeys(),
    get: (o) => plain.get(o),
    getByKey: (k) => plain.getByKey(k),
    lastStoreSyncResourceVersion: () => plain.lastStoreSyncResourceVersion(),
  };
}

describe("processDeltasInBatch (C8)", () => {
  const cm1 = pod("testname1", "1");
  const cm2 = pod("testname2", "1");
  const cm3 = pod("testname3", "1");
  const cases: { name: string; deltas: Pod[]; failing: Pod[]; success: number; received: Pod[]; err?: string }[] = [
    { name: "all transaction succeeding should works", deltas: [cm1], failing: [], success: 1, received: [cm1] },
    {
      name: "all transaction failing should not trigger listener",
      deltas: [cm1],
      failing: [cm1],
      success: 0,
      received: [],
      err: "failed to execute (1/1) transactions",
    },
    {
      name: "partial transaction failing should only trigger successful events to listener #1",
      deltas: [cm1, cm2],
      failing: [cm2],
      success: 1,
      received: [cm1],
      err: "failed to execute (1/2) transactions",
    },
    {
      name: "partial transaction failing should only trigger successful events to listener #2",
      deltas: [cm1, cm2, cm3],
      failing: [cm2],
      success: 2,
      received: [cm1, cm3],
      err: "failed to execute (1/3) transactions",
    },
  ];
  for (const tc of cases) {
    it(`C8: TestProcessDeltasInBatch — ${tc.name}`, () => {
      const mock = new MockTxnStore(tc.failing);
      const received: Pod[] = [];
      const listener = new ResourceEventHandlerFuncs<Pod>({
        addFunc: (o) => void received.push(o),
        updateFunc: (_o, n) => void received.push(n),
        deleteFunc: (o) => void received.push(o as Pod),
      });
      const run = () =>
        processDeltasInBatch(
          listener,
          txnStoreView(mock),
          tc.deltas.map((p) => dl("Added", p)),
          true,
          keyFunc,
        );
      if (tc.err !== undefined) expect(run).toThrow(tc.err);
      else run();
      expect(mock.succeedCount).toBe(tc.success);
      expect(received).toEqual(tc.received);
    });
  }

  it("C8: with a real store the batch is one transaction, classified like processDeltas", () => {
    const store = newPodStore();
    store.add(pod("a", "1"));
    let txnCalls = 0;
    const original = store.transaction.bind(store);
    store.transaction = (t) => {
      txnCalls++;
      return original(t);
    };
    const h = recorder(store);
    processDeltasInBatch(
      h,
      store,
      [dl("Updated", pod("a", "2")), dl("Added", pod("b", "1")), dl("Deleted", pod("c", "5"))],
      false,
      keyFunc,
    );
    expect(txnCalls).toBe(1);
    expect(h.calls).toEqual([
      { op: "update", key: "default/a", oldRV: "1", rv: "2", storeRV: "2" },
      { op: "add", key: "default/b", rv: "1", initial: false, storeRV: "1" },
      { op: "delete", key: "default/c", rv: "5", tombstone: false, storeRV: "" },
    ]);
    expect(store.lastStoreSyncResourceVersion()).toBe("5");
  });

  it("C8: a real store's key failure runs only the successful callbacks and throws", () => {
    const store = newPodStore();
    const h = recorder(store);
    expect(() =>
      processDeltasInBatch(
        h,
        store,
        [dl("Added", pod("a", "1")), dl("Added", { bad: true }), dl("Added", pod("c", "1"))],
        false,
        keyFunc,
      ),
    ).toThrow("not all items in the batch successfully processed: failed to execute (1/3) transactions");
    expect(h.calls.map((c) => c.key)).toEqual(["default/a", "default/c"]);
  });

  it("C8: ReplacedAll/SyncAll/Bookmark are refused before anything is applied", () => {
    const store = newPodStore();
    const h = recorder(store);
    for (const bad of [
      dl("ReplacedAll", { resourceVersion: "1", objects: [] }),
      dl("SyncAll", {}),
      dl("Bookmark", { resourceVersion: "1" }),
    ]) {
      expect(() => processDeltasInBatch(h, store, [dl("Added", pod("a", "1")), bad], false, keyFunc)).toThrow(
        `Delta type "${bad.type}" is not supported in batch processing`,
      );
    }
    expect(store.listKeys()).toEqual([]);
    expect(h.calls).toEqual([]);
  });

  it("C8: without transactions each delta is processed alone and errors are aggregated", () => {
    const plain = newPodStore();
    const noTxn = withoutTransactions(plain);
    const h = recorder(plain);
    let caught: unknown;
    try {
      processDeltasInBatch(
        h,
        noTxn,
        [dl("Added", pod("a", "1")), dl("Added", 42), dl("Added", pod("c", "1"))],
        true,
        keyFunc,
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toMatch(/^unexpected error when handling deltas: \[object has no meta/);
    expect(((caught as Error).cause as AggregateError).errors).toHaveLength(1);
    expect(h.calls.map((c) => c.key)).toEqual(["default/a", "default/c"]);
  });
});

describe("event handler helpers (C9, C10)", () => {
  it("C9: ResourceEventHandlerFuncs skips missing functions and drops isInInitialList", () => {
    const seen: unknown[][] = [];
    const h = new ResourceEventHandlerFuncs<Pod>({ addFunc: (...args: unknown[]) => void seen.push(args) });
    h.onAdd(pod("a", "1"), true);
    h.onUpdate(pod("a", "1"), pod("a", "2"));
    h.onDelete(pod("a", "2"));
    expect(seen).toEqual([[pod("a", "1")]]);
    const empty = new ResourceEventHandlerFuncs<Pod>();
    expect(() => {
      empty.onAdd(pod("a", "1"), false);
      empty.onUpdate(pod("a", "1"), pod("a", "1"));
      empty.onDelete(pod("a", "1"));
    }).not.toThrow();
  });

  it("C9: ResourceEventHandlerDetailedFuncs passes isInInitialList", () => {
    const seen: unknown[] = [];
    const h = new ResourceEventHandlerDetailedFuncs<Pod>({
      addFunc: (o, initial) => void seen.push([o.metadata.name, initial]),
      updateFunc: (o, n) => void seen.push([o.metadata.resourceVersion, n.metadata.resourceVersion]),
      deleteFunc: (o) => void seen.push(keyFunc(o)),
    });
    h.onAdd(pod("a", "1"), true);
    h.onUpdate(pod("a", "1"), pod("a", "2"));
    h.onDelete(new DeletedFinalStateUnknown<Pod>("default/a", undefined));
    expect(seen).toEqual([["a", true], ["1", "2"], "default/a"]);
  });

  it("C10/edge 36: FilteringResourceEventHandler's four update transitions and direct add/delete filtering", () => {
    const log: string[] = [];
    const inner: ResourceEventHandler<Pod> = {
      onAdd: (o, i) => void log.push(`add ${o.metadata.name} ${i}`),
      onUpdate: (o, n) => void log.push(`update ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
      onDelete: (o) => void log.push(`delete ${keyFunc(o)}`),
    };
    const h = new FilteringResourceEventHandler<Pod>({
      filterFunc: (o) => !isDeletedFinalStateUnknown(o) && o.metadata.labels?.app === "web",
      handler: inner,
    });
    const web = (rv: string) => pod("p", rv, { app: "web" });
    const other = (rv: string) => pod("p", rv, { app: "db" });
    h.onUpdate(web("1"), web("2")); // both pass
    h.onUpdate(other("2"), web("3")); // only new
    h.onUpdate(web("3"), other("4")); // only old
    h.onUpdate(other("4"), other("5")); // neither
    h.onAdd(web("6"), true);
    h.onAdd(other("7"), true);
    h.onDelete(web("8"));
    h.onDelete(other("9"));
    expect(log).toEqual(["update 1->2", "add p false", "delete default/p", "add p true", "delete default/p"]);
    expect(() => new FilteringResourceEventHandler<Pod>({ filterFunc: 1 as never, handler: inner })).toThrow(
      "FilteringResourceEventHandler filterFunc is not a function: 1",
    );
    expect(() => new FilteringResourceEventHandler<Pod>({ filterFunc: () => true, handler: null as never })).toThrow(
      "event handler must be an object with onAdd/onUpdate/onDelete",
    );
    expect(
      () => new FilteringResourceEventHandler<Pod>({ filterFunc: () => true, handler: { onAdd: "x" } as never }),
    ).toThrow('event handler onAdd is not a function: "x"');
  });

  it("#10: a handler may implement any subset of the callbacks; the missing ones skip their notifications", () => {
    const store = newStore<Pod>(keyFunc);
    const adds: string[] = [];
    const onlyAdd: ResourceEventHandler<Pod> = { onAdd: (p) => adds.push(p.metadata.name) };
    processDeltas(
      onlyAdd,
      store,
      [dl("Added", pod("a", "1")), dl("Updated", pod("a", "2")), dl("Deleted", pod("a", "2"))],
      false,
      keyFunc,
    );
    processDeltasInBatch(onlyAdd, store, [dl("Added", pod("b", "1")), dl("Deleted", pod("b", "1"))], false, keyFunc);
    expect(adds).toEqual(["a", "b"]);
    const deletes: string[] = [];
    const onlyDelete: ResourceEventHandler<Pod> = { onDelete: () => void deletes.push("d") };
    processDeltas(onlyDelete, store, [dl("Added", pod("c", "1")), dl("Deleted", pod("c", "1"))], false, keyFunc);
    expect(deletes).toEqual(["d"]);
    // Even an empty handler is valid (client-go's ResourceEventHandlerFuncs{} with three nil functions).
    expect(() => processDeltas({}, store, [dl("Added", pod("e", "1"))], false, keyFunc)).not.toThrow();
    const filtered = new FilteringResourceEventHandler<Pod>({ filterFunc: () => true, handler: onlyAdd });
    expect(() => filtered.onUpdate(pod("a", "1"), pod("a", "2"))).not.toThrow();
    filtered.onAdd(pod("f", "1"), false);
    expect(adds).toEqual(["a", "b", "f"]);
  });
});

/** Runs `body` and reports every unhandled rejection Node saw meanwhile (and one macrotask turn after). */
async function unhandledRejectionsDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await body();
    await nextTurn();
    await nextTurn();
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

const rejectLater = (message: string) => Promise.reject(new Error(message));

describe("async handlers: a rejected promise is reported like a throw, never an unhandled rejection", () => {
  it("C3: processDeltas stays synchronous for synchronous handlers (returns undefined)", () => {
    const store = newPodStore();
    expect(processDeltas(recorder(store), store, [dl("Added", pod("a", "1"))], false, keyFunc)).toBeUndefined();
  });

  it("C3/C4: processDeltas returns a promise that rejects with the handler's rejection; the store was applied first", async () => {
    const store = newPodStore();
    const handler: ResourceEventHandler<Pod> = {
      onAdd: (o) => (o.metadata.name === "bad" ? rejectLater("async add failed") : Promise.resolve()),
      onUpdate: () => {},
      onDelete: () => rejectLater("async delete failed"),
    };
    const leaked = await unhandledRejectionsDuring(async () => {
      const ok = processDeltas(handler, store, [dl("Added", pod("good", "1"))], false, keyFunc);
      await expect(ok).resolves.toBeUndefined();
      const bad = processDeltas(handler, store, [dl("Added", pod("bad", "1"))], false, keyFunc);
      await expect(bad).rejects.toThrow("async add failed");
      expect(store.listKeys().sort()).toEqual(["default/bad", "default/good"]);
      const del = processDeltas(handler, store, [dl("Deleted", pod("good", "2"))], false, keyFunc);
      await expect(del).rejects.toThrow("async delete failed");
      expect(store.listKeys()).toEqual(["default/bad"]);
    });
    expect(leaked).toEqual([]);
  });

  it("C5/C6: every rejection of a ReplacedAll or SyncAll is collected; several become one AggregateError", async () => {
    const store = newPodStore();
    store.add(pod("old", "1"));
    const handler: ResourceEventHandler<Pod> = {
      onAdd: (o) => rejectLater(`add ${o.metadata.name}`),
      onUpdate: (_o, n) => rejectLater(`update ${n.metadata.name}`),
      onDelete: (o) => rejectLater(`delete ${keyFunc(o)}`),
    };
    const leaked = await unhandledRejectionsDuring(async () => {
      const replaced = processDeltas(
        handler,
        store,
        [dl("ReplacedAll", { resourceVersion: "5", objects: [pod("x", "5")] })],
        false,
        keyFunc,
      );
      const err = await Promise.resolve(replaced).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AggregateError);
      expect((err as AggregateError).errors.map((e) => (e as Error).message)).toEqual(["delete default/old", "add x"]);
      await expect(processDeltas(handler, store, [dl("SyncAll", {})], false, keyFunc)).rejects.toThrow("update x");
    });
    expect(leaked).toEqual([]);
  });

  it("C3: a synchronous throw after a pending rejection reports both, in call order", async () => {
    const store = newPodStore();
    const handler: ResourceEventHandler<Pod> = {
      onAdd: (o) => {
        if (o.metadata.name === "sync") throw new Error("sync throw");
        return rejectLater("async reject");
      },
      onUpdate: () => {},
      onDelete: () => {},
    };
    const leaked = await unhandledRejectionsDuring(async () => {
      const r = processDeltas(
        handler,
        store,
        [dl("Added", pod("a", "1")), dl("Added", pod("sync", "1"))],
        false,
        keyFunc,
      );
      const err = await Promise.resolve(r).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as AggregateError).errors.map((e) => (e as Error).message)).toEqual(["async reject", "sync throw"]);
    });
    expect(leaked).toEqual([]);
  });

  it("C8: processDeltasInBatch reports rejected callbacks, with and without transactions", async () => {
    const handler = new ResourceEventHandlerFuncs<Pod>({
      addFunc: (o) => (o.metadata.name === "b" ? rejectLater("batch add b failed") : undefined),
    });
    const leaked = await unhandledRejectionsDuring(async () => {
      const txn = processDeltasInBatch(
        handler,
        txnStoreView(new MockTxnStore([])),
        [dl("Added", pod("a", "1")), dl("Added", pod("b", "1"))],
        false,
        keyFunc,
      );
      await expect(txn).rejects.toThrow("batch add b failed");
      const plain = processDeltasInBatch(
        handler,
        withoutTransactions(newPodStore()),
        [dl("Added", pod("a", "1")), dl("Added", pod("b", "1"))],
        false,
        keyFunc,
      );
      await expect(plain).rejects.toThrow("unexpected error when handling deltas: [batch add b failed]");
    });
    expect(leaked).toEqual([]);
  });

  it("C2: through processLoop a rejection reaches onError like a throw, and the loop goes on", async () => {
    const fifo = new RealFIFO<Pod>({ atomicEvents: true });
    const store = newPodStore();
    const seen: string[] = [];
    const errors: unknown[] = [];
    const handler = new ResourceEventHandlerFuncs<Pod>({
      addFunc: async (o) => {
        seen.push(o.metadata.name);
        if (o.metadata.name === "bad") throw new Error("async handler failed");
      },
    });
    for (const n of ["a", "bad", "c"]) fifo.add(pod(n, "1"));
    fifo.close();
    const leaked = await unhandledRejectionsDuring(() =>
      processLoop<Pod>({
        queue: fifo,
        process: (deltas, initial) => processDeltas(handler, store, deltas, initial, keyFunc),
        onError: (e) => errors.push(e),
      }),
    );
    expect(leaked).toEqual([]);
    expect(seen).toEqual(["a", "bad", "c"]);
    expect(errors.map((e) => (e as Error).message)).toEqual(["async handler failed"]);
  });

  it("C10: FilteringResourceEventHandler passes the inner handler's promise on, for every transition", async () => {
    const inner: ResourceEventHandler<Pod> = {
      onAdd: (o, i) => rejectLater(`add ${o.metadata.resourceVersion} ${i}`),
      onUpdate: (o, n) => rejectLater(`update ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
      onDelete: (o) => rejectLater(`delete ${(o as Pod).metadata.resourceVersion}`),
    };
    const h = new FilteringResourceEventHandler<Pod>({
      filterFunc: (o) => !isDeletedFinalStateUnknown(o) && o.metadata.labels?.app === "web",
      handler: inner,
    });
    const web = (rv: string) => pod("p", rv, { app: "web" });
    const other = (rv: string) => pod("p", rv, { app: "db" });
    const leaked = await unhandledRejectionsDuring(async () => {
      await expect(h.onUpdate(web("1"), web("2"))).rejects.toThrow("update 1->2");
      await expect(h.onUpdate(other("2"), web("3"))).rejects.toThrow("add 3 false");
      await expect(h.onUpdate(web("3"), other("4"))).rejects.toThrow("delete 3");
      expect(h.onUpdate(other("4"), other("5"))).toBeUndefined();
      await expect(h.onAdd(web("6"), true)).rejects.toThrow("add 6 true");
      await expect(h.onDelete(web("7"))).rejects.toThrow("delete 7");
      const store = newPodStore();
      await expect(processDeltas(h, store, [dl("Added", web("8"))], false, keyFunc)).rejects.toThrow("add 8 false");
    });
    expect(leaked).toEqual([]);
  });
});

describe("processLoop (C2)", () => {
  it("C2: pops until the queue is closed and drained; process errors go to onError and are not retried", async () => {
    const fifo = new RealFIFO<Pod>({ atomicEvents: true });
    const seen: string[] = [];
    const errors: unknown[] = [];
    for (const n of ["a", "bad", "c"]) fifo.add(pod(n, "1"));
    fifo.close();
    await processLoop<Pod>({
      queue: fifo,
      process: (deltas: Deltas<Pod>) => {
        const p = deltas[0]?.object as Pod;
        seen.push(p.metadata.name);
        if (p.metadata.name === "bad") throw new Error("handler failed");
      },
      onError: (e) => errors.push(e),
    });
    expect(seen).toEqual(["a", "bad", "c"]);
    expect(errors.map((e) => (e as Error).message)).toEqual(["handler failed"]);
    expect(fifo.length).toBe(0);
  });

  it("C2: uses popBatch when the queue supports it and processBatch is given (InOrderInformersBatchProcess)", async () => {
    const make = () => {
      const f = new RealFIFO<Pod>({ atomicEvents: true });
      for (const n of ["a", "b", "c"]) f.add(pod(n, "1"));
      f.close();
      return f;
    };
    const calls: string[] = [];
    const process = (d: Deltas<Pod>) => void calls.push(`single ${d.length}`);
    const processBatch = (d: readonly Delta<Pod>[]) => void calls.push(`batch ${d.length}`);
    await processLoop({ queue: make(), process, processBatch });
    await processLoop({ queue: make(), process, processBatch, batchProcess: false });
    const df = new DeltaFIFO<Pod>();
    df.add(pod("a", "1"));
    df.close();
    await processLoop({ queue: df, process, processBatch });
    expect(calls).toEqual(["batch 3", "single 1", "single 1", "single 1", "single 1"]);
  });

  it("C2: aborting the signal closes the queue and ends a loop waiting on an empty queue", async () => {
    const fifo = new RealFIFO<Pod>({ atomicEvents: true });
    const ac = new AbortController();
    let processed = 0;
    const done = processLoop<Pod>({ queue: fifo, process: () => void processed++, signal: ac.signal });
    fifo.add(pod("a", "1"));
    await new Promise((r) => setImmediate(r));
    expect(processed).toBe(1);
    ac.abort();
    await done;
    expect(fifo.isClosed()).toBe(true);
    const pre = new AbortController();
    pre.abort();
    const other = new RealFIFO<Pod>({ atomicEvents: true });
    other.add(pod("x", "1"));
    await processLoop<Pod>({ queue: other, process: () => void processed++, signal: pre.signal });
    expect(processed).toBe(1);
  });

  it("C2: an onError that throws does not stop the loop", async () => {
    const fifo = new RealFIFO<Pod>({ atomicEvents: true });
    fifo.add(pod("a", "1"));
    fifo.add(pod("b", "1"));
    fifo.close();
    let n = 0;
    await processLoop<Pod>({
      queue: fifo,
      process: () => {
        n++;
        throw new Error("x");
      },
      onError: () => {
        throw new Error("callback broke");
      },
    });
    expect(n).toBe(2);
  });
});

/** Wires a queue to processDeltas like client-go's newInformer does. */
function runInformerLoop(queue: Queue<Pod>, store: StoreWithTransactions<Pod>, handler: ResourceEventHandler<Pod>) {
  return processLoop<Pod>({
    queue,
    process: (deltas, initial) => processDeltas(handler, store, deltas, initial, keyFunc),
    processBatch: (deltas, initial) => processDeltasInBatch(handler, store, deltas, initial, keyFunc),
  });
}

describe("TestReplaceEvents: atomic and non-atomic Replace give the same events and store", () => {
  const tcs: { name: string; initial: Pod[]; replaced: Pod[]; rv: string; expected: Call[] }[] = [
    {
      name: "Create with no initial objects",
      initial: [],
      replaced: [pod("pod-1", "1")],
      rv: "1",
      expected: [{ op: "add", key: "default/pod-1", rv: "1", initial: false, storeRV: "1" }],
    },
    {
      name: "Delete all objects",
      initial: [pod("pod-1", "1"), pod("pod-3", "2")],
      replaced: [],
      rv: "2",
      expected: [
        { op: "delete", key: "default/pod-1", rv: "1", tombstone: true, storeRV: "" },
        { op: "delete", key: "default/pod-3", rv: "2", tombstone: true, storeRV: "" },
      ],
    },
    {
      name: "Create, update, delete",
      initial: [pod("pod-1", "1"), pod("pod-2", "2", { ver: "1" }), pod("pod-3", "3")],
      replaced: [pod("pod-1", "4"), pod("pod-2", "5", { ver: "2" }), pod("pod-4", "6")],
      rv: "6",
      expected: [
        { op: "delete", key: "default/pod-3", rv: "3", tombstone: true, storeRV: "" },
        { op: "update", key: "default/pod-1", oldRV: "1", rv: "4", storeRV: "4" },
        { op: "update", key: "default/pod-2", oldRV: "2", rv: "5", storeRV: "5" },
        { op: "add", key: "default/pod-4", rv: "6", initial: false, storeRV: "6" },
      ],
    },
  ];
  for (const atomic of [false, true]) {
    for (const tc of tcs) {
      it(`${tc.name} atomic: ${atomic}`, async () => {
        const store = newPodStore();
        const fifo = atomic ? new RealFIFO<Pod>({ atomicEvents: true }) : new RealFIFO<Pod>({ knownObjects: store });
        const h = recorder(store);
        const loop = runInformerLoop(fifo, store, h);
        fifo.replace([], "0");
        for (const o of tc.initial) fifo.add(o);
        await new Promise((r) => setImmediate(r));
        expect(h.calls).toHaveLength(tc.initial.length);
        h.calls.length = 0;
        fifo.replace(tc.replaced, tc.rv);
        await new Promise((r) => setImmediate(r));
        fifo.close();
        await loop;
        const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
        const items = store.list().sort((a, b) => byKey({ key: keyFunc(a) }, { key: keyFunc(b) }));
        expect(items).toEqual(tc.replaced);
        // Synthetic deletes are unordered: sort them by key, keep everything else in order.
        const deletes = h.calls.filter((c) => c.op === "delete").sort(byKey);
        const rest = h.calls.filter((c) => c.op !== "delete");
        expect(h.calls.slice(0, deletes.length).every((c) => c.op === "delete")).toBe(true);
        expect([...deletes, ...rest]).toEqual(tc.expected);
      });
    }
  }
});

describe("TestStoreResourceVersion: the store RV follows processed events (atomic)", () => {
  it("add, update and delete set the store RV to the event's RV", async () => {
    const store = newPodStore();
    const fifo = new RealFIFO<Pod>({ atomicEvents: true, emitDeltaTypeBookmark: true });
    const h = recorder(store);
    const loop = runInformerLoop(fifo, store, h);
    fifo.replace([pod("pod-1", "1")], "1");
    await new Promise((r) => setImmediate(r));
    expect(h.calls).toEqual([{ op: "add", key: "default/pod-1", rv: "1", initial: true, storeRV: "1" }]);
    expect(fifo.hasSynced()).toBe(true);
    fifo.update(pod("pod-1", "2", { foo: "bar" }));
    fifo.bookmark("3");
    await new Promise((r) => setImmediate(r));
    expect(store.lastStoreSyncResourceVersion()).toBe("3");
    fifo.delete(pod("pod-1", "4"));
    await new Promise((r) => setImmediate(r));
    expect(store.lastStoreSyncResourceVersion()).toBe("4");
    fifo.close();
    await loop;
  });
});

describe("newQueueFIFO (§0, C11)", () => {
  it("the 1.36 default: atomic RealFIFO with bookmarks, unlock-while-processing, no known objects", async () => {
    const store = newPodStore();
    const q = newQueueFIFO<Pod>({ knownObjects: store });
    expect(q).toBeInstanceOf(RealFIFO);
    const r = q as RealFIFO<Pod>;
    r.bookmark("5");
    r.replace([pod("a", "1")], "6");
    r.resync();
    const types: string[] = [];
    while (r.length > 0) types.push(...(await r.pop(() => {})).map((x) => x.type));
    expect(types).toEqual(["Bookmark", "ReplacedAll", "SyncAll"]);
    expect(r.keyOf(pod("a", "1"))).toBe(metaNamespaceKeyFunc(pod("a", "1")));
    // unlockWhileProcessing: a mutation during an async callback applies at once.
    r.add(pod("b", "1"));
    let release!: () => void;
    const p = r.pop(() => new Promise<void>((res) => (release = res)));
    r.add(pod("c", "1"));
    expect(r.length).toBe(1);
    release();
    await p;
  });

  it("atomicFIFO: false gives the 1.33–1.35 non-atomic RealFIFO reading the store", async () => {
    const store = newPodStore();
    store.add(pod("old", "1"));
    const q = newQueueFIFO<Pod>({ knownObjects: store, atomicFIFO: false }) as RealFIFO<Pod>;
    expect(q).toBeInstanceOf(RealFIFO);
    q.bookmark("9");
    q.replace([], "2");
    const got = await q.pop(() => {});
    expect(got[0]?.type).toBe("Deleted");
    expect(q.length).toBe(0);
  });

  it("inOrderInformers: false gives a DeltaFIFO with Replaced deltas and known objects", async () => {
    const store = newPodStore();
    store.add(pod("old", "1"));
    const q = newQueueFIFO<Pod>({ knownObjects: store, inOrderInformers: false });
    expect(q).toBeInstanceOf(DeltaFIFO);
    q.replace([pod("a", "1")], "2");
    const first = await q.pop(() => {});
    const second = await q.pop(() => {});
    expect([first[0]?.type, second[0]?.type]).toEqual(["Replaced", "Deleted"]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Property: atomic and non-atomic Replace converge to the same store (and to a plain Map model).

type POp =
  | { k: "add" | "update" | "delete"; name: string; rv: number }
  | { k: "replace"; items: [string, number][]; rv: number }
  | { k: "resync" }
  | { k: "pop"; n: number };

const nameArb = fc.constantFrom("a", "b", "c", "d", "e");
const pOpArb: fc.Arbitrary<POp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constantFrom("add", "update", "delete"), name: nameArb, rv: fc.nat(50) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("replace"),
      items: fc.array(fc.tuple(nameArb, fc.nat(50)), { maxLength: 5 }),
      rv: fc.nat(50),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("resync") }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("pop"), n: fc.integer({ min: 1, max: 6 }) }) },
) as fc.Arbitrary<POp>;

describe("property: atomic vs non-atomic Replace", () => {
  test.prop([fc.array(pOpArb, { maxLength: 40, size: "medium" }), fc.boolean()], { numRuns: 200 })(
    "R4/R5/C5/edge 17, 18, 20: both pipelines end with the same store as the Map model",
    async (ops, batch) => {
      const atomicStore = newPodStore();
      const plainStore = newPodStore();
      const atomicFifo = new RealFIFO<Pod>({ atomicEvents: true, unlockWhileProcessing: true });
      const plainFifo = new RealFIFO<Pod>({ knownObjects: plainStore });
      const model = new Map<string, Pod>();
      const violations: string[] = [];

      // Edge 20: a SyncAll replay (onUpdate(x, x)) always carries the store's current object.
      const checking = (store: StoreWithTransactions<Pod>): ResourceEventHandler<Pod> => ({
        onAdd: () => {},
        onUpdate: (o, n) => {
          if (o === n && store.getByKey(keyFunc(n)) !== n) violations.push(`stale replay of ${keyFunc(n)}`);
        },
        onDelete: () => {},
      });
      const atomicHandler = checking(atomicStore);
      const plainHandler = checking(plainStore);
      const popN = async (
        fifo: RealFIFO<Pod>,
        store: StoreWithTransactions<Pod>,
        h: ResourceEventHandler<Pod>,
        n: number,
      ) => {
        for (let i = 0; i < n && fifo.length > 0; i++) {
          if (batch) {
            await fifo.popBatch(
              (ds, initial) => processDeltasInBatch(h, store, ds, initial, keyFunc),
              (ds, initial) => processDeltas(h, store, ds, initial, keyFunc),
            );
          } else {
            await fifo.pop((ds, initial) => {
              processDeltas(h, store, ds, initial, keyFunc);
              // Edge 18: right after a ReplacedAll the store equals the list (last duplicate wins).
              const first = ds[0];
              if (first?.type === "ReplacedAll") {
                const expected = new Map(first.object.objects.map((p) => [keyFunc(p), p]));
                const actual = new Map(store.list().map((p) => [keyFunc(p), p]));
                if (expected.size !== actual.size || [...expected].some(([k, v]) => actual.get(k) !== v)) {
                  violations.push("store differs from the ReplacedAll list");
                }
              }
            });
          }
        }
      };

      for (const op of ops) {
        switch (op.k) {
          case "add":
          case "update":
          case "delete": {
            const p = pod(op.name, String(op.rv));
            atomicFifo[op.k](p);
            plainFifo[op.k](p);
            if (op.k === "delete") model.delete(keyFunc(p));
            else model.set(keyFunc(p), p);
            break;
          }
          case "replace": {
            const list = op.items.map(([n, rv]) => pod(n, String(rv)));
            atomicFifo.replace(list, String(op.rv));
            plainFifo.replace(list, String(op.rv));
            model.clear();
            for (const p of list) model.set(keyFunc(p), p);
            break;
          }
          case "resync":
            atomicFifo.resync();
            plainFifo.resync();
            break;
          case "pop":
            await popN(atomicFifo, atomicStore, atomicHandler, op.n);
            await popN(plainFifo, plainStore, plainHandler, op.n);
            break;
        }
      }
      await popN(atomicFifo, atomicStore, atomicHandler, Number.POSITIVE_INFINITY);
      await popN(plainFifo, plainStore, plainHandler, Number.POSITIVE_INFINITY);
      const snapshot = (s: StoreWithTransactions<Pod>) => new Map(s.list().map((p) => [keyFunc(p), p]));
      expect(snapshot(atomicStore)).toEqual(model);
      expect(snapshot(plainStore)).toEqual(model);
      expect(violations).toEqual([]);
      expect(atomicFifo.hasSynced()).toBe(plainFifo.hasSynced());
    },
  );
});
