import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { resourceVersionMetricValue } from "./internal/rv-metric.js";
import { IndexError, type Indexers } from "./store.js";
import { newThreadSafeStore } from "./thread-safe-store.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

const meta = (resourceVersion: string) => ({ metadata: { resourceVersion } });

/** Indexer over plain strings: the comma-separated parts (`"a,b"` → `["a","b"]`). */
const splitIndexers: Indexers<string> = { testIndexer: (obj) => obj.split(",") };

describe("ThreadSafeStore (thread_safe_store_test.go)", () => {
  it("S10 TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex", () => {
    const store = newThreadSafeStore<string>({ testIndexer: (obj) => [obj] });
    store.add("testKey", "testKey");
    expect(store.indexKeys("testIndexer", "testKey")).toEqual(["testKey"]);
    store.delete("testKey");
    expect(store.listIndexFuncValues("testIndexer")).toEqual([]);
    expect(store.indexKeys("testIndexer", "testKey")).toEqual([]);
  });

  it("S10 TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex", () => {
    const store = newThreadSafeStore<string>({ testIndexer: () => ["testIndex"] });
    store.add("retain", "retain");
    store.add("delete", "delete");
    expect(store.indexKeys("testIndexer", "testIndex")).toEqual(["delete", "retain"]);
    store.delete("delete");
    expect(store.listIndexFuncValues("testIndexer")).toEqual(["testIndex"]);
    expect(store.indexKeys("testIndexer", "testIndex")).toEqual(["retain"]);
  });

  it("S10 TestThreadSafeStoreIndexingFunctionsWithMultipleValues", () => {
    const store = newThreadSafeStore<string>(splitIndexers);
    const check = (value: string, keys: string[]) => expect(store.indexKeys("testIndexer", value)).toEqual(keys);
    store.add("key1", "foo");
    store.add("key2", "bar");
    check("foo", ["key1"]);
    check("bar", ["key2"]);
    store.update("key2", "foo,bar");
    check("foo", ["key1", "key2"]);
    check("bar", ["key2"]);
    store.update("key1", "foo,bar");
    check("foo", ["key1", "key2"]);
    check("bar", ["key1", "key2"]);
    store.add("key3", "foo,bar,baz");
    check("foo", ["key1", "key2", "key3"]);
    check("bar", ["key1", "key2", "key3"]);
    check("baz", ["key3"]);
    store.update("key1", "foo");
    check("foo", ["key1", "key2", "key3"]);
    check("bar", ["key2", "key3"]);
    check("baz", ["key3"]);
    store.update("key2", "bar");
    check("foo", ["key1", "key3"]);
    check("bar", ["key2", "key3"]);
    check("baz", ["key3"]);
    store.delete("key1");
    check("foo", ["key3"]);
    check("bar", ["key2", "key3"]);
    check("baz", ["key3"]);
    store.delete("key3");
    check("foo", []);
    check("bar", ["key2"]);
    check("baz", []);
    expect(store.listIndexFuncValues("testIndexer")).toEqual(["bar"]);
  });

  describe("S18 TestThreadSafeStoreRV", () => {
    it("S18: initial state is ''", () => {
      expect(newThreadSafeStore().lastStoreSyncResourceVersion()).toBe("");
    });

    it("S18: add, update, delete, non-meta objects, nil delete and transactions", () => {
      const store = newThreadSafeStore<unknown>();
      store.add("key1", meta("10"));
      expect(store.lastStoreSyncResourceVersion()).toBe("10");
      store.add("key3", meta("10"));
      expect(store.lastStoreSyncResourceVersion()).toBe("10");
      store.add("key4", meta("20"));
      expect(store.lastStoreSyncResourceVersion()).toBe("20");
      store.deleteWithObject("key4", meta("30"));
      expect(store.lastStoreSyncResourceVersion()).toBe("30");
      store.add("key5", "just a string");
      expect(store.lastStoreSyncResourceVersion()).toBe("30");
      store.add("key6", meta("40"));
      expect(store.lastStoreSyncResourceVersion()).toBe("40");
      store.delete("key6");
      expect(store.lastStoreSyncResourceVersion()).toBe("40");
      store.transaction([
        { type: "update", object: meta("40"), key: "key9" },
        { type: "update", object: meta("30"), key: "key10" },
        { type: "update", object: meta("50"), key: "key11" },
      ]);
      expect(store.lastStoreSyncResourceVersion()).toBe("50");
    });

    it("S18: RVs are opaque: a smaller RV moves the store backwards", () => {
      const store = newThreadSafeStore<unknown>();
      store.add("a", meta("20"));
      store.update("a", meta("3"));
      expect(store.lastStoreSyncResourceVersion()).toBe("3");
    });

    it("S18: an object with metadata but no resourceVersion sets ''", () => {
      const store = newThreadSafeStore<unknown>();
      store.add("a", meta("20"));
      store.add("b", { metadata: { name: "b" } });
      expect(store.lastStoreSyncResourceVersion()).toBe("");
    });

    it("S18: replace sets the RV argument", () => {
      const store = newThreadSafeStore<unknown>();
      store.add("key1", meta("10"));
      store.replace(
        new Map<string, unknown>([
          ["key3", meta("40")],
          ["key2", meta("30")],
        ]),
        "50",
      );
      expect(store.lastStoreSyncResourceVersion()).toBe("50");
    });

    it("S18/S6: deleteWithObject sets the RV from the object, even for a missing key; a tombstone does not", () => {
      const store = newThreadSafeStore<unknown>();
      store.add("key1", meta("10"));
      store.deleteWithObject("key1", meta("20"));
      expect(store.lastStoreSyncResourceVersion()).toBe("20");
      store.deleteWithObject("missing", meta("25"));
      expect(store.lastStoreSyncResourceVersion()).toBe("25");
      store.add("key2", meta("30"));
      store.deleteWithObject("key2", new DeletedFinalStateUnknown("key2", meta("99")));
      expect(store.lastStoreSyncResourceVersion()).toBe("30");
      expect(store.get("key2")).toBeUndefined();
    });

    it("S18: bookmark sets the RV", () => {
      const store = newThreadSafeStore<unknown>();
      store.add("key1", meta("10"));
      store.bookmark("77");
      expect(store.lastStoreSyncResourceVersion()).toBe("77");
      expect(store.get("key1")).toEqual(meta("10"));
    });

    it("S18: with atomicFIFO=false (the gate off) lastStoreSyncResourceVersion returns '' but tracking continues", () => {
      const metrics = new InMemoryMetrics();
      const labels = { name: "pods", group: "", version: "v1", resource: "pods" };
      const store = newThreadSafeStore<unknown>({}, { atomicFIFO: false, metrics: { provider: metrics, labels } });
      store.add("a", meta("12"));
      expect(store.lastStoreSyncResourceVersion()).toBe("");
      expect(metrics.value("informer_store_resource_version", labels)).toBe(12);
    });
  });

  describe("S18: informer_store_resource_version gauge", () => {
    const labels = { name: "cms", group: "", version: "v1", resource: "configmaps" };

    it("is set on add, update, deleteWithObject, replace, bookmark and transaction", () => {
      const metrics = new InMemoryMetrics();
      const store = newThreadSafeStore<unknown>({}, { metrics: { provider: metrics, labels } });
      const value = () => metrics.value("informer_store_resource_version", labels);
      store.add("a", meta("1"));
      expect(value()).toBe(1);
      store.update("a", meta("2"));
      expect(value()).toBe(2);
      store.deleteWithObject("a", meta("3"));
      expect(value()).toBe(3);
      store.replace(new Map(), "4");
      expect(value()).toBe(4);
      store.bookmark("5");
      expect(value()).toBe(5);
      store.transaction([{ type: "add", object: meta("6"), key: "b" }]);
      expect(value()).toBe(6);
      store.bookmark("not-a-number");
      expect(value()).toBe(6);
      expect(store.lastStoreSyncResourceVersion()).toBe("not-a-number");
      store.bookmark("");
      expect(value()).toBe(0);
    });

    it("keeps only the last 15 digits", () => {
      expect(resourceVersionMetricValue("123456789012345678")).toBe(456789012345678);
      expect(resourceVersionMetricValue("42")).toBe(42);
      expect(resourceVersionMetricValue("")).toBe(0);
      expect(resourceVersionMetricValue("12a")).toBeUndefined();
      expect(Number.isSafeInteger(resourceVersionMetricValue("9".repeat(40)))).toBe(true);
    });
  });

  it("S5: add of an existing key overwrites and moves indexes", () => {
    const store = newThreadSafeStore<string>(splitIndexers);
    store.add("k", "a");
    store.add("k", "b");
    expect(store.get("k")).toBe("b");
    expect(store.size).toBe(1);
    expect(store.indexKeys("testIndexer", "a")).toEqual([]);
    expect(store.indexKeys("testIndexer", "b")).toEqual(["k"]);
  });

  it("S7: get, list and byIndex return the stored references", () => {
    const obj = { metadata: { name: "a" }, v: [1] };
    const store = newThreadSafeStore<typeof obj>({ all: () => ["x"] });
    store.add("a", obj);
    expect(store.get("a")).toBe(obj);
    expect(store.list()[0]).toBe(obj);
    expect(store.byIndex("all", "x")[0]).toBe(obj);
    expect(store.index("all", obj)[0]).toBe(obj);
  });

  it("S8: replace swaps in the map and rebuilds every index from scratch", () => {
    const store = newThreadSafeStore<string>(splitIndexers);
    store.add("old", "x,y");
    const next = new Map([
      ["n1", "y,z"],
      ["n2", "z"],
    ]);
    store.replace(next, "9");
    expect(store.listKeys().sort()).toEqual(["n1", "n2"]);
    expect(store.listIndexFuncValues("testIndexer").sort()).toEqual(["y", "z"]);
    expect(store.indexKeys("testIndexer", "z")).toEqual(["n1", "n2"]);
    expect(store.indexKeys("testIndexer", "x")).toEqual([]);
  });

  describe("S11/edge 4: index function failure", () => {
    const failing: Indexers<string> = {
      ok: (obj) => [obj],
      bad: (obj) => {
        if (obj.startsWith("boom")) throw new Error("cannot index");
        return [obj.slice(0, 1)];
      },
    };

    const snapshot = (store: ReturnType<typeof newThreadSafeStore<string>>) => ({
      items: store.listKeys().map((k) => [k, store.get(k)]),
      ok: store.listIndexFuncValues("ok").map((v) => [v, store.indexKeys("ok", v)]),
      bad: store.listIndexFuncValues("bad").map((v) => [v, store.indexKeys("bad", v)]),
      rv: store.lastStoreSyncResourceVersion(),
    });

    it("S11: add/update throws IndexError naming index and key; the store is unchanged", () => {
      const store = newThreadSafeStore<string>(failing);
      store.add("k1", "abc");
      const before = snapshot(store);
      let caught: unknown;
      try {
        store.update("k1", "boom!");
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(IndexError);
      expect((caught as Error).message).toBe(
        'unable to calculate an index entry for key "k1" on index "bad": cannot index',
      );
      expect((caught as Error).cause).toBeInstanceOf(Error);
      expect(snapshot(store)).toEqual(before);
      expect(() => store.add("k2", "boom")).toThrow(IndexError);
      expect(snapshot(store)).toEqual(before);
    });

    it("S11: replace with a failing item throws and keeps the previous content and indexes", () => {
      const store = newThreadSafeStore<string>(failing);
      store.add("k1", "abc");
      store.bookmark("5");
      const before = snapshot(store);
      expect(() =>
        store.replace(
          new Map([
            ["n1", "xyz"],
            ["n2", "boom"],
          ]),
          "6",
        ),
      ).toThrow(/on index "bad"/);
      expect(snapshot(store)).toEqual(before);
    });

    it("S11: a transaction with a failing object applies nothing", () => {
      const store = newThreadSafeStore<string>(failing);
      store.add("k1", "abc");
      const before = snapshot(store);
      expect(() =>
        store.transaction([
          { type: "add", key: "k2", object: "def" },
          { type: "delete", key: "k1", object: "abc" },
          { type: "update", key: "k3", object: "boom" },
        ]),
      ).toThrow(IndexError);
      expect(snapshot(store)).toEqual(before);
    });

    it("S11: addIndexers whose function fails on an existing item installs nothing", () => {
      const store = newThreadSafeStore<string>({ ok: (obj) => [obj] });
      store.add("k1", "boom");
      expect(() => store.addIndexers({ other: (o) => [o], bad: failing.bad! })).toThrow(IndexError);
      expect(Object.keys(store.getIndexers())).toEqual(["ok"]);
      expect(store.listIndexFuncValues("other")).toEqual([]);
      store.addIndexers({ other: (o) => [o] });
      expect(store.indexKeys("other", "boom")).toEqual(["k1"]);
    });

    it("S11: a non-array or non-string result is an IndexError", () => {
      const store = newThreadSafeStore<unknown>({
        weird: (o) => (o === 1 ? ("x" as unknown as string[]) : ([1] as unknown as string[])),
      });
      expect(() => store.add("a", 1)).toThrow(/expected an array of strings/);
      expect(() => store.add("b", 2)).toThrow(/non-string value 1/);
      expect(store.size).toBe(0);
    });

    it("modifying the store from inside an index function is refused", () => {
      const holder: { store?: ReturnType<typeof newThreadSafeStore<string>> } = {};
      holder.store = newThreadSafeStore<string>({
        evil: (o) => {
          holder.store?.add("other", "x");
          return [o];
        },
      });
      expect(() => holder.store?.add("a", "a")).toThrow(/modified from inside one of its index functions/);
      expect(holder.store.size).toBe(0);
      // The store is still usable afterwards.
      const plain = newThreadSafeStore<string>({ ok: (o) => [o] });
      plain.add("a", "a");
      expect(plain.size).toBe(1);
    });
  });

  describe("S12–S15: queries", () => {
    const store = newThreadSafeStore<string>(splitIndexers);
    store.add("k1", "a,b");
    store.add("k2", "b,c");
    store.add("k3", "d");

    it("S12: index with one value returns that bucket; several values return the deduplicated union", () => {
      expect(store.index("testIndexer", "b").sort()).toEqual(["a,b", "b,c"]);
      expect(store.index("testIndexer", "a,b,c").sort()).toEqual(["a,b", "b,c"]);
      expect(store.index("testIndexer", "zzz")).toEqual([]);
    });
    it("S12/S13/S14: unknown index names are errors", () => {
      expect(() => store.index("nope", "a")).toThrow("Index with name nope does not exist");
      expect(() => store.indexKeys("nope", "a")).toThrow("Index with name nope does not exist");
      expect(() => store.byIndex("nope", "a")).toThrow("Index with name nope does not exist");
    });
    it("S13: indexKeys is sorted", () => {
      const s = newThreadSafeStore<string>({ all: () => ["x"] });
      for (const k of ["m", "b", "z", "a", "q"]) s.add(k, k);
      expect(s.indexKeys("all", "x")).toEqual(["a", "b", "m", "q", "z"]);
    });
    it("S14: byIndex returns the objects of a bucket", () => {
      expect(store.byIndex("testIndexer", "b").sort()).toEqual(["a,b", "b,c"]);
      expect(store.byIndex("testIndexer", "none")).toEqual([]);
    });
    it("S15: listIndexFuncValues of an unknown index is empty, not an error", () => {
      expect(store.listIndexFuncValues("nope")).toEqual([]);
      expect(store.listIndexFuncValues("testIndexer").sort()).toEqual(["a", "b", "c", "d"]);
    });
  });

  describe("S16: addIndexers", () => {
    it("S16: conflicting names throw 'indexer conflict' and change nothing", () => {
      const store = newThreadSafeStore<string>({ a: (o) => [o] });
      store.add("k", "v");
      expect(() => store.addIndexers({ b: (o) => [o], a: (o) => [o] })).toThrow("indexer conflict: a");
      expect(Object.keys(store.getIndexers())).toEqual(["a"]);
      expect(store.listIndexFuncValues("b")).toEqual([]);
    });
    it("S16: new indexers index existing items immediately", () => {
      const store = newThreadSafeStore<string>();
      store.add("k1", "x,y");
      store.add("k2", "y");
      store.addIndexers(splitIndexers);
      expect(store.indexKeys("testIndexer", "y")).toEqual(["k1", "k2"]);
      store.update("k1", "z");
      expect(store.indexKeys("testIndexer", "y")).toEqual(["k2"]);
    });
    it("getIndexers returns a copy", () => {
      const store = newThreadSafeStore<string>(splitIndexers);
      const copy = store.getIndexers();
      delete copy.testIndexer;
      expect(Object.keys(store.getIndexers())).toEqual(["testIndexer"]);
    });
    it("a non-function indexer is a TypeError", () => {
      expect(() => newThreadSafeStore<string>({ x: 5 as unknown as () => string[] })).toThrow(TypeError);
    });
  });

  describe("S19: transaction", () => {
    it("S19: applies adds, updates and deletes in order, including repeated keys", () => {
      const store = newThreadSafeStore<string>(splitIndexers);
      store.add("k1", "a");
      store.transaction([
        { type: "update", key: "k1", object: "b" },
        { type: "add", key: "k2", object: "b,c" },
        { type: "delete", key: "k1", object: "b" },
        { type: "add", key: "k1", object: "c" },
        { type: "delete", key: "missing", object: "x" },
        { type: "update", key: "k2", object: "d" },
      ]);
      expect(Object.fromEntries(store.listKeys().map((k) => [k, store.get(k)]))).toEqual({ k1: "c", k2: "d" });
      expect(store.listIndexFuncValues("testIndexer").sort()).toEqual(["c", "d"]);
      expect(store.indexKeys("testIndexer", "c")).toEqual(["k1"]);
    });
    it("S19: only the last transaction's object sets the RV; a tombstone there leaves it unchanged", () => {
      const store = newThreadSafeStore<unknown>();
      store.bookmark("3");
      store.transaction([
        { type: "add", key: "a", object: meta("5") },
        { type: "delete", key: "a", object: new DeletedFinalStateUnknown("a", meta("5")) },
      ]);
      expect(store.lastStoreSyncResourceVersion()).toBe("3");
      expect(store.size).toBe(0);
    });
    it("S19: an unknown transaction type throws before anything is applied", () => {
      const store = newThreadSafeStore<string>();
      expect(() =>
        store.transaction([
          { type: "add", key: "a", object: "a" },
          { type: "upsert" as "add", key: "b", object: "b" },
        ]),
      ).toThrow(/unknown transaction type "upsert"/);
      expect(store.size).toBe(0);
    });
    it("S19: an empty transaction changes nothing", () => {
      const store = newThreadSafeStore<unknown>();
      store.bookmark("3");
      store.transaction([]);
      expect(store.lastStoreSyncResourceVersion()).toBe("3");
    });
  });
});
