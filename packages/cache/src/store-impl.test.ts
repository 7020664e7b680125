import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fc, test } from "@fast-check/vitest";
import type { KubeObject } from "@informer-ts/apimachinery";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceKeyFunc } from "./keys.js";
import { IndexError, type Indexers, KeyError } from "./store.js";
import { newIndexer, newStore, type StoreWithTransactions } from "./store-impl.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";
import { TransactionError } from "./transaction.js";

// ---------------------------------------------------------------------------------------------------------
// Ports of store_test.go and index_test.go

interface TestStoreObject {
  id: string;
  val: string;
}
const mkObj = (id: string, val: string): TestStoreObject => ({ id, val });
const testStoreKeyFunc = (obj: unknown) => (obj as TestStoreObject).id;
const testStoreIndexers = (): Indexers<TestStoreObject> => ({ by_val: (obj) => [obj.val] });

function doTestStore(store: StoreWithTransactions<TestStoreObject>) {
  store.add(mkObj("foo", "bar"));
  expect(store.get(mkObj("foo", ""))?.val).toBe("bar");
  store.update(mkObj("foo", "baz"));
  expect(store.get(mkObj("foo", ""))?.val).toBe("baz");
  store.delete(mkObj("foo", ""));
  expect(store.get(mkObj("foo", ""))).toBeUndefined();

  store.add(mkObj("a", "b"));
  store.add(mkObj("c", "d"));
  store.add(mkObj("e", "e"));
  expect(
    store
      .list()
      .map((o) => o.val)
      .sort(),
  ).toEqual(["b", "d", "e"]);

  store.replace([mkObj("foo", "foo"), mkObj("bar", "bar")], "0");
  expect(
    store
      .list()
      .map((o) => o.val)
      .sort(),
  ).toEqual(["bar", "foo"]);
}

const pod = (name: string, extra: Partial<NonNullable<KubeObject["metadata"]>> = {}, namespace?: string) => ({
  metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...extra },
});
type Pod = ReturnType<typeof pod>;

describe("store_test.go", () => {
  it("S5–S8 TestCache", () => {
    doTestStore(newStore(testStoreKeyFunc));
  });

  it("S9 TestCacheWithTransformer", () => {
    let called = 0;
    doTestStore(
      newStore<TestStoreObject>(testStoreKeyFunc, {
        transformer: (obj) => {
          called++;
          if (typeof obj !== "object") throw new Error("wrong object type");
          return obj;
        },
      }),
    );
    expect(called).toBeGreaterThan(0);
  });

  it("S12 TestIndex", () => {
    const indexer = newIndexer(testStoreKeyFunc, testStoreIndexers());
    indexer.add(mkObj("a", "b"));
    indexer.add(mkObj("c", "b"));
    indexer.add(mkObj("e", "f"));
    indexer.add(mkObj("g", "h"));
    const expected: Record<string, string[]> = { b: ["a", "c"], f: ["e"], h: ["g"] };
    for (const [k, ids] of Object.entries(expected)) {
      expect(
        indexer
          .index("by_val", mkObj("", k))
          .map((o) => o.id)
          .sort(),
      ).toEqual(ids);
    }
  });

  it("TestKeyError: a key-function error is wrapped in a KeyError carrying the object and the cause", () => {
    const cause = new Error("error");
    const store = newStore<number>(() => {
      throw cause;
    });
    let caught: unknown;
    try {
      store.add(100);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KeyError);
    expect((caught as KeyError).object).toBe(100);
    expect((caught as KeyError).cause).toBe(cause);
    expect((caught as KeyError).message).toBe("couldn't create key for object 100: error");
    // A KeyError from the key function passes through unchanged.
    expect(() => newStore(metaNamespaceKeyFunc).add({})).toThrow(/^object has no meta: /);
  });

  describe("S19 TestCacheTransactionShouldIndexErrors", () => {
    const keyFunc = (obj: unknown) => {
      if (obj === 1 || obj === 2) return "";
      throw new Error("test error");
    };
    it.each([
      ["all success objects", [1, 2], undefined],
      ["all fail objects", [3, 4], []],
      ["mix of success and fail objects", [1, 3, 2, 4], [0, 2]],
    ])("S19: txn %s", (_name, objs, successful) => {
      const store = newStore<number>(keyFunc);
      const err = store.transaction(objs.map((object) => ({ type: "add" as const, object })));
      if (successful === undefined) {
        expect(err).toBeUndefined();
        return;
      }
      expect(err).toBeInstanceOf(TransactionError);
      expect(err?.successfulIndices).toEqual(successful);
      expect(err?.totalTransactions).toBe(objs.length);
      expect(err?.errors).toHaveLength(objs.length - successful.length);
      expect(err?.errors.every((e) => e instanceof KeyError)).toBe(true);
      expect(err?.message).toMatch(
        new RegExp(`^failed to execute \\(${objs.length - successful.length}/${objs.length}\\) transactions`),
      );
    });
  });

  it("S18 TestWithStoreMetrics: the store publishes informer_store_resource_version", async () => {
    const { InMemoryMetrics } = await import("@informer-ts/instrumentation");
    const metrics = new InMemoryMetrics();
    const labels = { name: "test-informer", group: "apps", version: "v1", resource: "deployments" };
    const store = newStore(metaNamespaceKeyFunc, { metrics: { provider: metrics, labels } });
    store.add(pod("a", { resourceVersion: "1234" }));
    expect(metrics.value("informer_store_resource_version", labels)).toBe(1234);
  });
});

describe("index_test.go", () => {
  const testIndexFunc = (obj: Pod) => [obj.metadata.labels?.foo ?? ""];
  const testUsersIndexFunc = (obj: Pod) => (obj.metadata.annotations?.users ?? "").split(",");

  it("S15 TestGetIndexFuncValues", () => {
    const index = newIndexer<Pod>(metaNamespaceKeyFunc, { testmodes: testIndexFunc });
    index.add(pod("one", { labels: { foo: "bar" } }));
    index.add(pod("two", { labels: { foo: "bar" } }));
    index.add(pod("tre", { labels: { foo: "biz" } }));
    expect(index.listIndexFuncValues("testmodes").sort()).toEqual(["bar", "biz"]);
  });

  it("S14 TestMultiIndexKeys", () => {
    const index = newIndexer<Pod>(metaNamespaceKeyFunc, { byUser: testUsersIndexFunc });
    const pod1 = pod("one", { annotations: { users: "ernie,bert" } });
    const pod2 = pod("two", { annotations: { users: "bert,oscar" } });
    const pod3 = pod("tre", { annotations: { users: "ernie,elmo" } });
    index.add(pod1);
    index.add(pod2);
    index.add(pod3);
    const expected: Record<string, string[]> = {
      ernie: ["one", "tre"],
      bert: ["one", "two"],
      elmo: ["tre"],
      oscar: ["two"],
      elmo1: [],
    };
    for (const [k, names] of Object.entries(expected)) {
      expect(
        index
          .byIndex("byUser", k)
          .map((p) => p.metadata.name)
          .sort(),
      ).toEqual(names);
    }
    index.delete(pod3);
    expect(index.byIndex("byUser", "ernie").map((p) => p.metadata.name)).toEqual(["one"]);
    expect(index.byIndex("byUser", "elmo")).toEqual([]);
    const copyOfPod2 = structuredClone(pod2);
    copyOfPod2.metadata.annotations = { users: "oscar" };
    index.update(copyOfPod2);
    expect(index.byIndex("byUser", "bert").map((p) => p.metadata.name)).toEqual(["one"]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Store-level behaviour rows and §3 edge cases 1–7

describe("store behaviour rows", () => {
  it("S5: add of an existing key is not an error and replaces the object", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const a1 = pod("a", { resourceVersion: "1" }, "ns");
    const a2 = pod("a", { resourceVersion: "2" }, "ns");
    store.add(a1);
    store.add(a2);
    expect(store.listKeys()).toEqual(["ns/a"]);
    expect(store.getByKey("ns/a")).toBe(a2);
  });

  it("S6: delete computes the key; a missing key is a silent no-op; a tombstone deletes by its key", () => {
    const store = newIndexer<Pod>(deletionHandlingMetaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc });
    store.add(pod("a", { resourceVersion: "1" }, "ns"));
    store.delete(pod("zzz", { resourceVersion: "2" }, "ns"));
    expect(store.size).toBe(1);
    expect(store.lastStoreSyncResourceVersion()).toBe("2");
    store.delete(new DeletedFinalStateUnknown("ns/a", undefined));
    expect(store.size).toBe(0);
    expect(store.listIndexFuncValues(NamespaceIndex)).toEqual([]);
    expect(store.lastStoreSyncResourceVersion()).toBe("2");
  });

  it("S6: delete with a key error throws KeyError and changes nothing", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    store.add(pod("a", {}, "ns"));
    expect(() => store.delete({} as Pod)).toThrow(KeyError);
    expect(store.size).toBe(1);
  });

  it("S8: replace keeps the last duplicate, sets the RV and aborts on a key error before mutating", () => {
    const store = newIndexer<Pod>(metaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc });
    store.add(pod("old", {}, "ns1"));
    const first = pod("x", { resourceVersion: "1" }, "ns2");
    const second = pod("x", { resourceVersion: "2" }, "ns2");
    store.replace([first, pod("y", {}, "ns3"), second], "10");
    expect(store.getByKey("ns2/x")).toBe(second);
    expect(store.listKeys().sort()).toEqual(["ns2/x", "ns3/y"]);
    expect(store.listIndexFuncValues(NamespaceIndex).sort()).toEqual(["ns2", "ns3"]);
    expect(store.lastStoreSyncResourceVersion()).toBe("10");

    expect(() => store.replace([pod("z", {}, "ns4"), { bogus: true } as unknown as Pod], "11")).toThrow(KeyError);
    expect(store.listKeys().sort()).toEqual(["ns2/x", "ns3/y"]);
    expect(store.listIndexFuncValues(NamespaceIndex).sort()).toEqual(["ns2", "ns3"]);
    expect(store.lastStoreSyncResourceVersion()).toBe("10");
  });

  it("S9: the transformer runs on add, update and replace, never on delete or transaction", () => {
    const seen: string[] = [];
    const store = newStore<Pod & { transformed?: number }>(metaNamespaceKeyFunc, {
      transformer: (obj) => {
        seen.push(obj.metadata.name);
        return { ...obj, transformed: (obj.transformed ?? 0) + 1 };
      },
    });
    store.add(pod("a", {}, "ns"));
    store.update(pod("b", {}, "ns"));
    store.replace([pod("c", {}, "ns"), pod("d", {}, "ns")], "1");
    store.delete(pod("c", {}, "ns"));
    store.transaction([{ type: "add", object: pod("e", {}, "ns") }]);
    expect(seen).toEqual(["a", "b", "c", "d"]);
    expect(store.getByKey("ns/d")?.transformed).toBe(1);
    expect(store.getByKey("ns/e")?.transformed).toBeUndefined();
  });

  it("S9: a throwing transformer aborts the write with 'transforming: …'", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc, {
      transformer: (obj) => {
        if (obj.metadata.name === "bad") throw new Error("nope");
        return obj;
      },
    });
    store.add(pod("ok", {}, "ns"));
    expect(() => store.add(pod("bad", {}, "ns"))).toThrow("transforming: nope");
    expect(() => store.replace([pod("x", {}, "ns"), pod("bad", {}, "ns")], "5")).toThrow("transforming: nope");
    expect(store.listKeys()).toEqual(["ns/ok"]);
  });

  it("S17: metaNamespaceIndexFunc returns [namespace] ('' for cluster-scoped) and fails without metadata", () => {
    expect(metaNamespaceIndexFunc(pod("a", {}, "ns"))).toEqual(["ns"]);
    expect(metaNamespaceIndexFunc(pod("a"))).toEqual([""]);
    expect(() => metaNamespaceIndexFunc("a")).toThrow(/^object has no meta: /);
    expect(NamespaceIndex).toBe("namespace");
    const store = newIndexer<unknown>((o) => String(o), { [NamespaceIndex]: metaNamespaceIndexFunc });
    expect(() => store.add("no-meta")).toThrow(IndexError);
    expect(store.size).toBe(0);
  });

  it("S18: bookmark and lastStoreSyncResourceVersion through the Store interface", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    expect(store.lastStoreSyncResourceVersion()).toBe("");
    store.add(pod("a", { resourceVersion: "7" }));
    expect(store.lastStoreSyncResourceVersion()).toBe("7");
    store.bookmark("9");
    expect(store.lastStoreSyncResourceVersion()).toBe("9");
    const gated = newStore<Pod>(metaNamespaceKeyFunc, { atomicFIFO: false });
    gated.add(pod("a", { resourceVersion: "7" }));
    expect(gated.lastStoreSyncResourceVersion()).toBe("");
  });

  it("S19: transaction RV comes from the last successfully keyed transaction", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const err = store.transaction([
      { type: "add", object: pod("a", { resourceVersion: "5" }) },
      { type: "add", object: pod("b", { resourceVersion: "6" }) },
      { type: "add", object: {} as Pod },
    ]);
    expect(err?.successfulIndices).toEqual([0, 1]);
    expect(store.lastStoreSyncResourceVersion()).toBe("6");
    expect(store.listKeys().sort()).toEqual(["a", "b"]);
  });

  it("S19: an unknown transaction type is reported for that transaction only", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const err = store.transaction([
      { type: "add", object: pod("a") },
      { type: "upsert" as "add", object: pod("b") },
    ]);
    expect(err?.successfulIndices).toEqual([0]);
    expect(err?.errors[0]?.message).toMatch(/unknown type "upsert"/);
    expect(store.listKeys()).toEqual(["a"]);
  });

  it("resync is a no-op", () => {
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    store.add(pod("a"));
    store.resync();
    expect(store.listKeys()).toEqual(["a"]);
  });

  it("rejects a non-function key function or transformer", () => {
    expect(() => newStore(undefined as unknown as () => string)).toThrow(TypeError);
    expect(() => newStore(metaNamespaceKeyFunc, { transformer: 1 as unknown as (o: unknown) => unknown })).toThrow(
      TypeError,
    );
  });
});

describe("§3 store edge cases", () => {
  const byApp = (o: Pod) => (o.metadata.labels?.app === undefined ? [] : [o.metadata.labels.app]);

  it("edge 1: re-adding a key moves it between buckets; indexKeys never returns a stale key", () => {
    const store = newIndexer<Pod>(metaNamespaceKeyFunc, { app: byApp });
    store.add(pod("a", { labels: { app: "web" } }, "ns"));
    store.add(pod("a", { labels: { app: "db" } }, "ns"));
    expect(store.indexKeys("app", "web")).toEqual([]);
    expect(store.indexKeys("app", "db")).toEqual(["ns/a"]);
    expect(store.listIndexFuncValues("app")).toEqual(["db"]);
  });

  it("edge 2: deleting an absent key or a tombstone for an absent key changes nothing", () => {
    const store = newIndexer<Pod>(deletionHandlingMetaNamespaceKeyFunc, { app: byApp });
    store.add(pod("a", { labels: { app: "web" } }, "ns"));
    const before = [store.listKeys(), store.listIndexFuncValues("app")];
    store.delete(pod("b", {}, "ns"));
    store.delete(new DeletedFinalStateUnknown("ns/b", pod("b", {}, "ns")));
    store.delete(new DeletedFinalStateUnknown("ns/c", undefined));
    expect([store.listKeys(), store.listIndexFuncValues("app")]).toEqual(before);
  });

  it("edge 3: index functions returning [], [v], [v, v], [a, b]; the [a]→[a] fast path; last member removes the bucket", () => {
    const values: Record<string, string[]> = {};
    const store = newIndexer<{ id: string }>((o) => (o as { id: string }).id, { idx: (o) => values[o.id] ?? [] });
    values.e = [];
    values.s = ["v"];
    values.d = ["v", "v"];
    values.m = ["a", "b"];
    for (const id of ["e", "s", "d", "m"]) store.add({ id });
    expect(store.listIndexFuncValues("idx").sort()).toEqual(["a", "b", "v"]);
    expect(store.indexKeys("idx", "v")).toEqual(["d", "s"]);
    expect(store.index("idx", { id: "m" }).map((o) => o.id)).toEqual(["m"]);
    store.update({ id: "s" }); // [v] → [v]: fast path, still indexed
    expect(store.indexKeys("idx", "v")).toEqual(["d", "s"]);
    store.delete({ id: "d" }); // [v, v] removed twice: harmless
    expect(store.indexKeys("idx", "v")).toEqual(["s"]);
    store.delete({ id: "s" });
    expect(store.listIndexFuncValues("idx").sort()).toEqual(["a", "b"]);
    store.delete({ id: "m" });
    expect(store.listIndexFuncValues("idx")).toEqual([]);
  });

  it("edge 4: a throwing index function fails loudly on add, update and replace; unknown index names error", () => {
    const store = newIndexer<Pod>(metaNamespaceKeyFunc, {
      strict: (o) => {
        if (o.metadata.labels?.bad) throw new Error("bad label");
        return [o.metadata.name];
      },
    });
    store.add(pod("a", {}, "ns"));
    expect(() => store.add(pod("b", { labels: { bad: "1" } }, "ns"))).toThrow(IndexError);
    expect(() => store.update(pod("a", { labels: { bad: "1" } }, "ns"))).toThrow(IndexError);
    expect(() => store.replace([pod("c", { labels: { bad: "1" } }, "ns")], "3")).toThrow(IndexError);
    expect(store.listKeys()).toEqual(["ns/a"]);
    expect(store.indexKeys("strict", "a")).toEqual(["ns/a"]);
    expect(() => store.index("nope", pod("a"))).toThrow(/does not exist/);
    expect(() => store.indexKeys("nope", "a")).toThrow(/does not exist/);
    expect(() => store.byIndex("nope", "a")).toThrow(/does not exist/);
  });

  it("edge 5: replace with duplicates keeps the last; replace([]) clears the store and all indexes", () => {
    const store = newIndexer<Pod>(metaNamespaceKeyFunc, { app: byApp, [NamespaceIndex]: metaNamespaceIndexFunc });
    store.replace([pod("a", { labels: { app: "one" } }, "ns"), pod("a", { labels: { app: "two" } }, "ns")], "1");
    expect(store.indexKeys("app", "one")).toEqual([]);
    expect(store.indexKeys("app", "two")).toEqual(["ns/a"]);
    store.replace([], "2");
    expect(store.list()).toEqual([]);
    expect(store.listIndexFuncValues("app")).toEqual([]);
    expect(store.listIndexFuncValues(NamespaceIndex)).toEqual([]);
    expect(store.lastStoreSyncResourceVersion()).toBe("2");
  });

  it("edge 6: addIndexers with a conflicting name errors and changes nothing; later indexers see existing items", () => {
    const store = newIndexer<Pod>(metaNamespaceKeyFunc, { app: byApp });
    store.add(pod("a", { labels: { app: "web" } }, "ns"));
    expect(() => store.addIndexers({ app: byApp, [NamespaceIndex]: metaNamespaceIndexFunc })).toThrow(
      "indexer conflict: app",
    );
    expect(Object.keys(store.getIndexers())).toEqual(["app"]);
    store.addIndexers({ [NamespaceIndex]: metaNamespaceIndexFunc });
    expect(store.indexKeys(NamespaceIndex, "ns")).toEqual(["ns/a"]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Model-based property test: the store/indexer against a plain Map model.

interface MObj {
  metadata: { namespace: string; name: string; resourceVersion: string; labels: { app?: string } };
  spec: { tags: string[]; boom: boolean };
}

const mobj = fc
  .record({
    ns: fc.constantFrom("", "a", "b"),
    name: fc.constantFrom("x", "y", "z", "w"),
    app: fc.option(fc.constantFrom("web", "db"), { nil: undefined }),
    tags: fc.array(fc.constantFrom("t1", "t2", "t3"), { maxLength: 3 }),
    rv: fc.nat(60).map(String),
    boom: fc.nat(14).map((n) => n === 0),
  })
  .map(
    (r): MObj => ({
      metadata: {
        namespace: r.ns,
        name: r.name,
        resourceVersion: r.rv,
        labels: r.app === undefined ? {} : { app: r.app },
      },
      spec: { tags: r.tags, boom: r.boom },
    }),
  );

/** Index functions available to the model (the first three are installed at construction). */
const modelIndexers: Indexers<MObj> = {
  [NamespaceIndex]: metaNamespaceIndexFunc,
  app: (o) => (o.metadata.labels.app === undefined ? [] : [o.metadata.labels.app]),
  strict: (o) => {
    if (o.spec.boom) throw new Error("boom");
    return ["all"];
  },
  tags: (o) => o.spec.tags,
  tagPairs: (o) => o.spec.tags.map((t) => `${o.metadata.namespace}:${t}`),
};

const unkeyable = { spec: { tags: [], boom: false } } as unknown as MObj;

type Op =
  | { op: "add" | "update"; obj: MObj }
  | { op: "delete"; obj: MObj; tombstone: boolean }
  | { op: "replace"; list: MObj[]; rv: string; badKey: boolean }
  | { op: "bookmark"; rv: string }
  | { op: "addIndexers"; names: string[] }
  | { op: "transaction"; txns: { type: "add" | "update" | "delete"; obj: MObj; bad: boolean; tomb: boolean }[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom("add" as const, "update" as const), obj: mobj }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), obj: mobj, tombstone: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("replace" as const),
      list: fc.array(mobj, { maxLength: 8 }),
      rv: fc.nat(60).map(String),
      badKey: fc.nat(9).map((n) => n === 0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("bookmark" as const), rv: fc.nat(60).map(String) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("addIndexers" as const),
      names: fc.uniqueArray(fc.constantFrom("app", "tags", "tagPairs"), { minLength: 1, maxLength: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("transaction" as const),
      txns: fc.array(
        fc.record({
          type: fc.constantFrom("add" as const, "update" as const, "delete" as const),
          obj: mobj,
          bad: fc.nat(9).map((n) => n === 0),
          tomb: fc.boolean(),
        }),
        { maxLength: 6 },
      ),
    }),
  },
);

const keyOf = (o: MObj) =>
  o.metadata.namespace === "" ? o.metadata.name : `${o.metadata.namespace}/${o.metadata.name}`;

function checkAgainstModel(store: StoreWithTransactions<MObj>, model: Map<string, MObj>, installed: Set<string>) {
  expect(new Map(store.listKeys().map((k) => [k, store.getByKey(k)]))).toEqual(model);
  expect(store.size).toBe(model.size);
  expect(new Set(Object.keys(store.getIndexers()))).toEqual(installed);
  for (const name of installed) {
    const fn = modelIndexers[name]!;
    const expected = new Map<string, Set<string>>();
    for (const [key, obj] of model) {
      for (const v of fn(obj)) {
        if (!expected.has(v)) expected.set(v, new Set());
        expected.get(v)!.add(key);
      }
    }
    const values = store.listIndexFuncValues(name);
    expect(new Set(values)).toEqual(new Set(expected.keys()));
    expect(values.length).toBe(expected.size);
    for (const v of values) {
      const keys = store.indexKeys(name, v);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys).toEqual([...expected.get(v)!].sort());
      expect(store.byIndex(name, v).map(keyOf).sort()).toEqual(keys);
    }
  }
}

describe("model-based: store/indexer vs a Map model", () => {
  test.prop([fc.array(opArb, { maxLength: 50 })], { numRuns: 300 })(
    "S5–S19/edge 1–6: after every step items, buckets, RV match the model; no empty buckets; sorted indexKeys",
    (ops) => {
      const installed = new Set([NamespaceIndex, "strict"]);
      const store = newIndexer<MObj>(deletionHandlingMetaNamespaceKeyFunc, {
        [NamespaceIndex]: modelIndexers[NamespaceIndex]!,
        strict: modelIndexers.strict!,
      });
      const model = new Map<string, MObj>();
      let rv = "";
      for (const op of ops) {
        switch (op.op) {
          case "add":
          case "update":
            if (op.obj.spec.boom) {
              expect(() => store[op.op](op.obj)).toThrow(IndexError);
            } else {
              store[op.op](op.obj);
              model.set(keyOf(op.obj), op.obj);
              rv = op.obj.metadata.resourceVersion;
            }
            break;
          case "delete":
            if (op.tombstone) {
              store.delete(new DeletedFinalStateUnknown(keyOf(op.obj), op.obj));
            } else {
              store.delete(op.obj);
              rv = op.obj.metadata.resourceVersion;
            }
            model.delete(keyOf(op.obj));
            break;
          case "replace": {
            const list = op.badKey ? [...op.list, unkeyable] : op.list;
            if (op.badKey) {
              expect(() => store.replace(list, op.rv)).toThrow(KeyError);
            } else if ([...new Map(list.map((o) => [keyOf(o), o])).values()].some((o) => o.spec.boom)) {
              // Only the surviving duplicate of each key is indexed (a later duplicate wins).
              expect(() => store.replace(list, op.rv)).toThrow(IndexError);
            } else {
              store.replace(list, op.rv);
              model.clear();
              for (const o of list) model.set(keyOf(o), o);
              rv = op.rv;
            }
            break;
          }
          case "bookmark":
            store.bookmark(op.rv);
            rv = op.rv;
            break;
          case "addIndexers": {
            const adding = Object.fromEntries(op.names.map((n) => [n, modelIndexers[n]!]));
            if (op.names.some((n) => installed.has(n))) {
              expect(() => store.addIndexers(adding)).toThrow(/^indexer conflict: /);
            } else {
              store.addIndexers(adding);
              for (const n of op.names) installed.add(n);
            }
            break;
          }
          case "transaction": {
            const txns = op.txns.map((t) => ({
              type: t.type,
              object: t.bad
                ? unkeyable
                : t.type === "delete" && t.tomb
                  ? new DeletedFinalStateUnknown(keyOf(t.obj), t.obj)
                  : t.obj,
            }));
            const keyed = op.txns.filter((t) => !t.bad);
            if (keyed.some((t) => t.type !== "delete" && t.obj.spec.boom)) {
              expect(() => store.transaction(txns)).toThrow(IndexError);
              break;
            }
            const err = store.transaction(txns);
            const okIdx = op.txns.flatMap((t, i) => (t.bad ? [] : [i]));
            if (okIdx.length === op.txns.length) expect(err).toBeUndefined();
            else expect(err?.successfulIndices).toEqual(okIdx);
            for (const t of keyed) {
              if (t.type === "delete") model.delete(keyOf(t.obj));
              else model.set(keyOf(t.obj), t.obj);
            }
            const last = keyed[keyed.length - 1];
            if (last !== undefined && !(last.type === "delete" && last.tomb)) rv = last.obj.metadata.resourceVersion;
            break;
          }
        }
        checkAgainstModel(store, model, installed);
        expect(store.lastStoreSyncResourceVersion()).toBe(rv);
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Memory: the store never keeps a list/page/batch container alive (run in a child `node --expose-gc`).

/** Transpiles the store's module closure to a temp dir so a plain `node --expose-gc` child can import it. */
function transpileStoreModules(dir: string): void {
  const src = dirname(fileURLToPath(import.meta.url));
  const files = [
    "store-impl.ts",
    "store.ts",
    "thread-safe-store.ts",
    "transaction.ts",
    "internal/compute-key.ts",
    "internal/meta-accessor.ts",
    "internal/rv-metric.ts",
  ];
  for (const file of files) {
    const out = ts.transpileModule(readFileSync(join(src, file), "utf8"), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const target = join(dir, file.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  writeFileSync(join(dir, "package.json"), '{"type":"module"}');
}

const childScript = `
import { newIndexer } from "./store-impl.js";
const gc = globalThis.gc;
if (typeof gc !== "function") throw new Error("child started without --expose-gc");
const turn = () => new Promise((r) => setImmediate(r));
const collect = async () => { await turn(); gc(); gc(); await turn(); gc(); };
const keyFunc = (o) => o.metadata.namespace + "/" + o.metadata.name;
const store = newIndexer(keyFunc, { namespace: (o) => [o.metadata.namespace], app: (o) => [o.metadata.labels.app] });
const mk = (i, gen) => ({ metadata: { namespace: "ns" + (i % 7), name: "o" + i, resourceVersion: String(gen),
  labels: { app: "a" + (i % 3) } }, data: "x".repeat(64) + i });
const out = {};

// 1. A list response: { metadata, items }.
const refs1 = {};
(() => {
  const list = { kind: "ConfigMapList", metadata: { resourceVersion: "10" }, items: Array.from({ length: 2000 }, (_, i) => mk(i, 10)) };
  refs1.list = new WeakRef(list);
  refs1.items = new WeakRef(list.items);
  refs1.each = list.items.map((it) => new WeakRef(it));
  store.replace(list.items, list.metadata.resourceVersion);
})();
await collect();
out.listCleared = refs1.list.deref() === undefined;
out.itemsArrayCleared = refs1.items.deref() === undefined;
out.itemsAliveAfterList = refs1.each.filter((r) => r.deref() !== undefined).length;
out.sizeAfterList = store.size;

// 2. Pages accumulated into a batch array (pager style), each page holding its own items array.
const refs2 = {};
(() => {
  const pages = [0, 1, 2].map((p) => ({ metadata: { continue: p < 2 ? "c" + p : "" },
    items: Array.from({ length: 500 }, (_, i) => mk(p * 500 + i, 20)) }));
  const batch = [];
  for (const page of pages) for (const it of page.items) batch.push(it);
  refs2.pages = pages.map((p) => new WeakRef(p));
  refs2.batch = new WeakRef(batch);
  store.replace(batch, "20");
})();
await collect();
out.pagesCleared = refs2.pages.every((r) => r.deref() === undefined);
out.batchCleared = refs2.batch.deref() === undefined;
out.oldItemsAliveAfterSecondReplace = refs1.each.filter((r) => r.deref() !== undefined).length;
out.sizeAfterPages = store.size;

// 3. Deleted and overwritten objects are released (indexes keep keys, not objects).
const refs3 = {};
(() => {
  const victim = store.getByKey("ns0/o0");
  const overwritten = store.getByKey("ns1/o1");
  refs3.victim = new WeakRef(victim);
  refs3.overwritten = new WeakRef(overwritten);
  store.delete(victim);
  store.update(mk(1, 30));
})();
await collect();
out.deletedCleared = refs3.victim.deref() === undefined;
out.overwrittenCleared = refs3.overwritten.deref() === undefined;
out.finalSize = store.size;
console.log(JSON.stringify(out));
`;

describe("memory: shallow-copy guarantee (child node --expose-gc)", () => {
  it("S8: replace never keeps the list, page or batch container alive; all items stay; removed items are freed", () => {
    const dir = mkdtempSync(join(tmpdir(), "informer-store-gc-"));
    try {
      transpileStoreModules(dir);
      writeFileSync(join(dir, "child.mjs"), childScript);
      const stdout = execFileSync(process.execPath, ["--expose-gc", join(dir, "child.mjs")], {
        encoding: "utf8",
        timeout: 60_000,
      });
      const r = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, boolean | number>;
      expect(r).toEqual({
        listCleared: true,
        itemsArrayCleared: true,
        itemsAliveAfterList: 2000,
        sizeAfterList: 2000,
        pagesCleared: true,
        batchCleared: true,
        oldItemsAliveAfterSecondReplace: 0,
        sizeAfterPages: 1500,
        deletedCleared: true,
        overwrittenCleared: true,
        finalSize: 1499,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
