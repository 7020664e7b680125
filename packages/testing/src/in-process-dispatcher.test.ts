import type { KubeObject } from "@informer-ts/apimachinery";
import { metaNamespaceKeyFunc, newStore, Reflector, silentLogger } from "@informer-ts/cache";
import { startRun } from "@informer-ts/cache/testing";
import { builtinResources, listWatchFor } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { InProcessDispatcher } from "./in-process-dispatcher.js";
import { createSimCluster } from "./sim-cluster.js";

const { configmaps } = builtinResources;
const cm = (name: string, v = "1"): KubeObject => ({ metadata: { name, namespace: "default" }, data: { v } });
const names = (xs: readonly KubeObject[]) => xs.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();

describe("InProcessDispatcher", () => {
  it("carries a reflector's list and watch through KubeClient with no socket, across a watch drop, in virtual time", async () => {
    const c = await createSimCluster({ seed: 5 });
    for (let i = 0; i < 10; i++) await c.client.create(configmaps, cm(`cm-${i}`));
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    const r = new Reflector(
      listWatchFor(c.client, configmaps, { namespace: "default" }),
      { apiVersion: "v1", kind: "ConfigMap" },
      store,
      { clock: c.clock, rand: seededRand(1), logger: silentLogger, name: "in-process" },
    );
    const run = startRun(r);
    const truth = async () => names((await c.engine.list("configmaps", "default", {})).items);
    await c.settle({ until: () => store.list().length === 10 });
    expect(names(store.list())).toEqual(await truth());
    c.faults.dropWatches(undefined, true);
    await c.client.delete(configmaps, "cm-0", { namespace: "default" });
    await c.client.update(configmaps, cm("cm-1", "2"));
    await c.client.create(configmaps, cm("cm-new"));
    const want = await truth();
    await c.settle({ until: () => JSON.stringify(names(store.list())) === JSON.stringify(want) });
    expect(names(store.list())).toEqual(want);
    // The dropped watch is finished (recorded); its replacement is open.
    expect(c.requests.filter((q) => q.verb === "watch")).toHaveLength(1);
    expect(c.server.stats.openWatches).toBe(1);
    await run.stop();
    await c.settle({ until: () => c.server.stats.openWatches === 0 });
    await c.close();
    expect(c.clock.pendingTimers()).toBe(0);
  });

  it("works with undici's request() directly, keeps headers, and rejects once closed", async () => {
    const c = await createSimCluster();
    const d = new InProcessDispatcher(c.server, { host: "example.test" });
    const res = await request("http://example.test/version", { dispatcher: d });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("application/json");
    expect(((await res.body.json()) as { major: string }).major).toBe("1");
    const created = await request("http://example.test/api/v1/namespaces/default/configmaps", {
      dispatcher: d,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(cm("raw")),
    });
    expect(created.statusCode).toBe(201);
    await created.body.dump();
    expect(d.requests).toBe(2);
    expect(d.inflight).toEqual([]);
    await d.close();
    await expect(request("http://example.test/version", { dispatcher: d })).rejects.toThrow(/closed/);
    await c.close();
  });

  it("propagates back-pressure: a watch whose client does not read blocks the server's writer", async () => {
    const c = await createSimCluster({ engine: { dispatchBudgetMs: 100_000 } });
    const w = await c.client.watch(configmaps, { namespace: "default", allowWatchBookmarks: false });
    const big = "x".repeat(64 * 1024);
    for (let i = 0; i < 8; i++) await c.client.create(configmaps, cm(`big-${i}`, big));
    await c.settle({ until: () => c.server.stats.backpressureWaits > 0, maxMs: 1000 }).catch(() => undefined);
    expect(c.server.stats.backpressureWaits).toBeGreaterThan(0);
    const it = w[Symbol.asyncIterator]();
    let seen = 0;
    for (; seen < 8; seen++) {
      const n = await it.next();
      if (n.done === true) break;
    }
    expect(seen).toBe(8);
    w.stop();
    await c.close();
  });
});
