import { StatusError } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
import { metaNamespaceKeyFunc } from "./keys.js";
import { type LabelSelectorLike, listAll, listAllByNamespace, newGenericLister } from "./listers.js";
import { KeyError } from "./store.js";
import { newIndexer, newStore } from "./store-impl.js";

type Labels = Readonly<Record<string, string>>;

/** `labels.SelectorFromSet`: every pair must be present. Counts how often labels were read. */
function selectorFromSet(set: Labels): LabelSelectorLike & { reads: number } {
  const entries = Object.entries(set);
  return {
    reads: 0,
    matches(labels) {
      this.reads++;
      return entries.every(([k, v]) => labels[k] === v);
    },
    empty: () => entries.length === 0,
  };
}
const everything = () => selectorFromSet({});
const nothing = (): LabelSelectorLike & { reads: number } => ({
  reads: 0,
  matches() {
    this.reads++;
    return false;
  },
  empty: () => false,
  matchesNothing: () => true,
});

interface Obj {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}

function mustCreateStore(numObjects: number, numMatching: number, labels: Record<string, string>) {
  const store = newStore<Obj>((o) => (o as Obj).metadata.name);
  for (let i = 0; i < numObjects; i++) {
    store.add({ metadata: { name: `obj-${i}`, labels: i < numMatching ? labels : {} } });
  }
  return store;
}

describe("listers_test.go", () => {
  // Upstream uses 100k and 1M objects; the counts are scaled down to keep the suite fast.
  it.each([
    ["subset match", 20_000, 2_000, { match: "true" }, selectorFromSet({ match: "true" }), 2_000],
    ["all match", 50_000, 0, {}, everything(), 50_000],
    ["no match", 50_000, 0, { nomatch: "true" }, selectorFromSet({ match: "true" }), 0],
  ])("S20 TestListAll: %s", (_name, numObjects, numMatching, labels, selector, expectedCount) => {
    const store = mustCreateStore(numObjects, numMatching, labels);
    let matching = 0;
    listAll(store, selector, () => matching++);
    expect(matching).toBe(expectedCount);
  });
});

describe("S20: listers", () => {
  const pods: Obj[] = [
    { metadata: { name: "a", namespace: "ns1", labels: { app: "web" } } },
    { metadata: { name: "b", namespace: "ns1", labels: { app: "db" } } },
    { metadata: { name: "c", namespace: "ns2", labels: { app: "web" } } },
    { metadata: { name: "n" } },
  ];
  const names = (objs: Obj[]) => objs.map((o) => o.metadata.name).sort();

  function collect(fn: (append: (o: Obj) => void) => void): Obj[] {
    const out: Obj[] = [];
    fn((o) => out.push(o));
    return out;
  }

  it("S20: an empty selector appends everything without reading labels", () => {
    const store = newStore<Obj>(metaNamespaceKeyFunc);
    for (const p of pods) store.add(p);
    const sel = everything();
    expect(names(collect((f) => listAll(store, sel, f)))).toEqual(["a", "b", "c", "n"]);
    expect(sel.reads).toBe(0);
  });

  it("S20: a selector that matches nothing returns nothing without reading the store", () => {
    const store = newIndexer<Obj>(metaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc });
    for (const p of pods) store.add(p);
    const sel = nothing();
    expect(collect((f) => listAll(store, sel, f))).toEqual([]);
    expect(collect((f) => listAllByNamespace(store, "ns1", sel, f))).toEqual([]);
    expect(sel.reads).toBe(0);
  });

  it("S20: listAll filters by labels; objects without labels match only label-free requirements", () => {
    const store = newStore<Obj>(metaNamespaceKeyFunc);
    for (const p of pods) store.add(p);
    expect(names(collect((f) => listAll(store, selectorFromSet({ app: "web" }), f)))).toEqual(["a", "c"]);
  });

  it("S20: listAllByNamespace uses the namespace index; '' means all namespaces", () => {
    const store = newIndexer<Obj>(metaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc });
    for (const p of pods) store.add(p);
    expect(names(collect((f) => listAllByNamespace(store, "ns1", everything(), f)))).toEqual(["a", "b"]);
    expect(names(collect((f) => listAllByNamespace(store, "ns1", selectorFromSet({ app: "web" }), f)))).toEqual(["a"]);
    expect(names(collect((f) => listAllByNamespace(store, "", selectorFromSet({ app: "web" }), f)))).toEqual([
      "a",
      "c",
    ]);
    expect(collect((f) => listAllByNamespace(store, "nope", everything(), f))).toEqual([]);
  });

  it("S20: without a namespace index listAllByNamespace falls back to a full scan", () => {
    let indexCalls = 0;
    const store = newIndexer<Obj>(metaNamespaceKeyFunc, {
      other: () => {
        indexCalls++;
        return ["x"];
      },
    });
    for (const p of pods) store.add(p);
    expect(names(collect((f) => listAllByNamespace(store, "ns1", everything(), f)))).toEqual(["a", "b"]);
    expect(names(collect((f) => listAllByNamespace(store, "ns2", selectorFromSet({ app: "db" }), f)))).toEqual([]);
    expect(indexCalls).toBe(pods.length);
  });

  it("S20: an object without metadata met by a label check is a KeyError", () => {
    const store = newStore<unknown>((o) => String(o));
    store.add("plain");
    expect(() => listAll(store, selectorFromSet({ a: "b" }), () => {})).toThrow(KeyError);
    // …but an empty selector never reads labels.
    expect(collect((f) => listAll(store as never, everything(), f))).toEqual(["plain"]);
  });

  describe("GenericLister", () => {
    const store = newIndexer<Obj>(metaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc });
    for (const p of pods) store.add(p);
    const lister = newGenericLister(store, { group: "", resource: "pods" });

    it("list across namespaces and get by key", () => {
      expect(names(lister.list(selectorFromSet({ app: "web" })))).toEqual(["a", "c"]);
      expect(lister.get("n")).toBe(pods[3]);
      expect(lister.get("ns1/a")).toBe(pods[0]);
    });

    it("byNamespace list and get", () => {
      const ns1 = lister.byNamespace("ns1");
      expect(names(ns1.list(everything()))).toEqual(["a", "b"]);
      expect(ns1.get("b")).toBe(pods[1]);
    });

    it("a missing object is a NotFound StatusError naming the resource", () => {
      let caught: unknown;
      try {
        lister.byNamespace("ns2").get("zzz");
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(StatusError);
      expect((caught as StatusError).status.code).toBe(404);
      expect((caught as StatusError).message).toMatch(/pods "zzz" not found/);
      expect(() => lister.get("missing")).toThrow(StatusError);
    });
  });
});
