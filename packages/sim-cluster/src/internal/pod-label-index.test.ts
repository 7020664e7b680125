import type { SharedIndexInformer } from "@informer-ts/cache";
import { metaNamespaceKeyFunc, newIndexer } from "@informer-ts/cache";
import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { addNamespaceLabelIndexer, NAMESPACE_LABEL_INDEX, objectsWithLabels } from "./pod-label-index.js";

/** The part of a shared informer the index uses: its indexer, and adding indexers to it. */
function informerOf(pods: Pod[]): SharedIndexInformer<Pod> {
  const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {});
  const informer = {
    getIndexer: () => indexer,
    addIndexers: (i: Parameters<typeof indexer.addIndexers>[0]) => indexer.addIndexers(i),
  } as unknown as SharedIndexInformer<Pod>;
  addNamespaceLabelIndexer(informer);
  addNamespaceLabelIndexer(informer); // idempotent
  for (const p of pods) indexer.add(p);
  return informer;
}

const pod = (ns: string, name: string, labels?: Record<string, string>): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace: ns, name, ...(labels !== undefined && { labels }) },
});

describe("namespace/label index of pods (the endpoint controllers' selector reads)", () => {
  const pods = [
    pod("a", "web-1", { app: "web", tier: "front" }),
    pod("a", "web-2", { app: "web", tier: "front" }),
    pod("a", "api-1", { app: "api", tier: "front" }),
    pod("a", "bare"),
    pod("b", "web-1", { app: "web", tier: "front" }),
  ];

  it("finds the pods of one namespace carrying every pair of the selector, as a namespace scan would", () => {
    const inf = informerOf(pods);
    const names = (sel: Record<string, string>, ns = "a") =>
      objectsWithLabels(inf, ns, sel)
        .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)
        .sort();
    expect(names({ app: "web" })).toEqual(["a/web-1", "a/web-2"]);
    expect(names({ tier: "front" })).toEqual(["a/api-1", "a/web-1", "a/web-2"]);
    expect(names({ tier: "front", app: "api" })).toEqual(["a/api-1"]);
    expect(names({ app: "web", tier: "back" })).toEqual([]);
    expect(names({ app: "web" }, "b")).toEqual(["b/web-1"]);
    expect(names({})).toEqual([]);
    // The same answer as filtering the whole namespace, for every selector of the pods' own labels.
    for (const p of pods) {
      const sel = p.metadata?.labels ?? {};
      if (Object.keys(sel).length === 0) continue;
      const ns = p.metadata?.namespace ?? "";
      const scan = pods
        .filter(
          (q) => q.metadata?.namespace === ns && Object.entries(sel).every(([k, v]) => q.metadata?.labels?.[k] === v),
        )
        .map((q) => q.metadata?.name)
        .sort();
      expect(names(sel, ns).map((n) => n.slice(ns.length + 1))).toEqual(scan);
    }
  });

  it("follows label changes and deletions", () => {
    const inf = informerOf(pods);
    const indexer = inf.getIndexer();
    indexer.update(pod("a", "web-2", { app: "api", tier: "front" }));
    indexer.delete(pod("a", "web-1", { app: "web", tier: "front" }));
    expect(objectsWithLabels(inf, "a", { app: "web" })).toEqual([]);
    expect(
      objectsWithLabels(inf, "a", { app: "api" })
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(["api-1", "web-2"]);
    expect(indexer.indexKeys(NAMESPACE_LABEL_INDEX, "a/app=api").sort()).toEqual(["a/api-1", "a/web-2"]);
  });
});
