// test/e2e/apimachinery/watch.go re-implemented with @kubernetes/client-node against the simulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster, watchEvents } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

const LABEL = "watch-this-configmap";
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const names = (evs: ReadonlyArray<{ type: string; object: { metadata?: { name?: string } } }>) =>
  evs.map((e) => `${e.type} ${e.object.metadata?.name}`);

describe("[sig-api-machinery] Watchers (apimachinery/watch.go)", () => {
  it("should observe add, update, and delete watch notifications on configmaps", async () => {
    const ns = await c.namespace("watch");
    const watchAll = (value: string) => ({ labelSelector: `${LABEL} in (${value})`, allowWatchBookmarks: false });
    const events = await watchEvents(
      c,
      cmPath(ns),
      watchAll("multiple-watchers-A,multiple-watchers-B"),
      (evs) => evs.length >= 6,
      async () => {
        for (const [name, label] of [
          ["e2e-watch-test-configmap-a", "multiple-watchers-A"],
          ["e2e-watch-test-configmap-b", "multiple-watchers-B"],
        ] as const) {
          await c.core.createNamespacedConfigMap({
            namespace: ns,
            body: { metadata: { name, labels: { [LABEL]: label } } },
          });
          await c.core.patchNamespacedConfigMap(
            { namespace: ns, name, body: { data: { mutation: "1" } } },
            c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
          );
          await c.core.deleteNamespacedConfigMap({ namespace: ns, name });
        }
      },
    );
    expect(names(events)).toEqual([
      "ADDED e2e-watch-test-configmap-a",
      "MODIFIED e2e-watch-test-configmap-a",
      "DELETED e2e-watch-test-configmap-a",
      "ADDED e2e-watch-test-configmap-b",
      "MODIFIED e2e-watch-test-configmap-b",
      "DELETED e2e-watch-test-configmap-b",
    ]);
  });

  it("should be able to start watching from a specific resource version", async () => {
    const ns = await c.namespace("watch");
    const name = "e2e-watch-test-resource-version";
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name, labels: { [LABEL]: "from-resource-version" } } },
    });
    const merge = c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);
    const first = await c.core.patchNamespacedConfigMap(
      { namespace: ns, name, body: { data: { mutation: "1" } } },
      merge,
    );
    await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { data: { mutation: "2" } } }, merge);
    await c.core.deleteNamespacedConfigMap({ namespace: ns, name });
    const events = await watchEvents(
      c,
      cmPath(ns),
      { labelSelector: `${LABEL}=from-resource-version`, resourceVersion: first.metadata?.resourceVersion },
      (evs) => evs.length >= 2,
    );
    expect(events.map((e) => [e.type, (e.object as { data?: Record<string, string> }).data?.mutation])).toEqual([
      ["MODIFIED", "2"],
      ["DELETED", "2"],
    ]);
  });

  it("should be able to restart watching from the last resource version observed by the previous watch", async () => {
    const ns = await c.namespace("watch");
    const name = "e2e-watch-test-watch-closed";
    const sel = { labelSelector: `${LABEL}=watch-closed-and-restarted` };
    const merge = c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);
    const firstWatch = await watchEvents(
      c,
      cmPath(ns),
      sel,
      (evs) => evs.length >= 2,
      async () => {
        await c.core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name, labels: { [LABEL]: "watch-closed-and-restarted" } } },
        });
        await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { data: { mutation: "1" } } }, merge);
      },
    );
    expect(firstWatch.map((e) => e.type)).toEqual(["ADDED", "MODIFIED"]);
    const lastRv = firstWatch[1]!.object.metadata?.resourceVersion;
    await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { data: { mutation: "2" } } }, merge);
    await c.core.deleteNamespacedConfigMap({ namespace: ns, name });
    const restarted = await watchEvents(c, cmPath(ns), { ...sel, resourceVersion: lastRv }, (evs) => evs.length >= 2);
    expect(restarted.map((e) => [e.type, (e.object as { data?: Record<string, string> }).data?.mutation])).toEqual([
      ["MODIFIED", "2"],
      ["DELETED", "2"],
    ]);
  });

  it("should observe an object deletion if it stops meeting the requirements of the selector", async () => {
    const ns = await c.namespace("watch");
    const name = "e2e-watch-test-label-changed";
    const labels = { [LABEL]: "label-changed-and-restored" };
    const merge = c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);
    const events = await watchEvents(
      c,
      cmPath(ns),
      { labelSelector: `${LABEL}=label-changed-and-restored` },
      (evs) => evs.length >= 6,
      async () => {
        await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels } } });
        await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { data: { mutation: "1" } } }, merge);
        await c.core.patchNamespacedConfigMap(
          { namespace: ns, name, body: { metadata: { labels: { [LABEL]: "wrong-value" } } } },
          merge,
        );
        // Not observed: the object does not match the selector.
        await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { data: { mutation: "2" } } }, merge);
        await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { metadata: { labels } } }, merge);
        await c.core.patchNamespacedConfigMap({ namespace: ns, name, body: { data: { mutation: "3" } } }, merge);
        await c.core.deleteNamespacedConfigMap({ namespace: ns, name });
      },
    );
    expect(events.map((e) => [e.type, (e.object as { data?: Record<string, string> }).data?.mutation])).toEqual([
      ["ADDED", undefined],
      ["MODIFIED", "1"],
      ["DELETED", "1"],
      ["ADDED", "2"],
      ["MODIFIED", "3"],
      ["DELETED", "3"],
    ]);
  });

  it("should receive events on concurrent watches in same order", async () => {
    const ns = await c.namespace("watch");
    const start = await c.core.listNamespacedConfigMap({ namespace: ns });
    const rv = start.metadata?.resourceVersion;
    const count = 20;
    for (let i = 0; i < count; i++) {
      await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `cm-${i}` } } });
      if (i % 3 === 0) await c.core.deleteNamespacedConfigMap({ namespace: ns, name: `cm-${i}` });
    }
    const total = count + Math.ceil(count / 3);
    const watches = await Promise.all(
      [0, 1, 2].map(() => watchEvents(c, cmPath(ns), { resourceVersion: rv }, (evs) => evs.length >= total)),
    );
    const orders = watches.map((evs) =>
      evs.map((e) => `${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`),
    );
    expect(orders[0]).toHaveLength(total);
    expect(orders[1]).toEqual(orders[0]);
    expect(orders[2]).toEqual(orders[0]);
  });
});
