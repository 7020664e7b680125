// The manager's client over loopback HTTP against the simulated apiserver: objects an informer got from a LIST carry
// no apiVersion/kind (as from kube-apiserver), so setControllerReference needs { ownerType } for them; the manager's
// client reads typed copies from the caches (starting an informer on first use, answering field selectors from an
// index) and writes through the KubeClient; getAPIReader reads from the server. Lives in test/ because it joins
// packages that may not import each other.
import { isNotFound } from "@informer-ts/apimachinery";
import { silentLogger } from "@informer-ts/cache";
import { resources } from "@informer-ts/client";
import { type ObjectReader, setControllerReference } from "@informer-ts/controller";
import { afterEach, describe, expect, it } from "vitest";
import { type SimCluster, startSimCluster } from "../examples/sim-http.js";

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Resolves `p` while advancing virtual time (the HTTP round trips and the cache-sync poll need both). */
async function settled<T>(c: SimCluster, p: Promise<T>): Promise<T> {
  let done = false;
  const tracked = p.finally(() => {
    done = true;
  });
  tracked.catch(() => {});
  await c.until(() => done, 10_000);
  return tracked;
}

describe("Manager.getClient over HTTP (KubeClient → SimHttpServer)", () => {
  it("cached owners from a LIST need ownerType; the client reads typed copies from the caches and writes to the server", async () => {
    cluster = await startSimCluster();
    const c = cluster;
    const admin = c.client();
    for (const [ns, name, owner] of [
      ["default", "a", "w1"],
      ["default", "b", "w2"],
      ["other", "c", "w1"],
    ] as const) {
      if (ns !== "default" && c.stored("namespaces", "", ns) === undefined) {
        await admin.create(resources.namespaces, { metadata: { name: ns } });
      }
      await admin.create(resources.configMaps, {
        metadata: { name, namespace: ns, labels: { app: "web" } },
        data: { owner },
      });
    }
    const kube = c.client();
    const reader: ObjectReader = kube; // a KubeClient is an API reader
    const mgr = c.manager(kube, { informerOptions: { reflector: { logger: silentLogger, useWatchList: false } } });
    mgr
      .getFieldIndexer()
      .indexField(resources.configMaps, "data.owner", (cm) => (cm.data?.owner === undefined ? [] : [cm.data.owner]));
    const ac = new AbortController();
    const run = mgr.run(ac.signal);
    expect(await c.until(() => mgr.informerFor(resources.configMaps).hasSynced())).toBe(true);

    // 1. What the informer holds came from a LIST: no apiVersion/kind.
    const cached = mgr.informerFor(resources.configMaps).getIndexer().getByKey("default/a")!;
    expect(cached.kind).toBeUndefined();
    const child = { metadata: { name: "a-child", namespace: "default" }, data: {} };
    expect(() => setControllerReference(cached, child)).toThrow("pass the owner's descriptor as { ownerType }");
    setControllerReference(cached, child, { ownerType: resources.configMaps });

    // 2. Writes through the manager's client reach the server.
    const client = mgr.getClient();
    await settled(c, client.create(resources.configMaps, child));
    expect(c.stored("configmaps", "default", "a-child")?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "a",
        uid: cached.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);

    // 3. Reads from the cache are typed copies that carry apiVersion/kind.
    const a = await client.get(resources.configMaps, "a", { namespace: "default" });
    expect([a.apiVersion, a.kind, a.data?.owner]).toEqual(["v1", "ConfigMap", "w1"]);
    const again = { metadata: { name: "a-child-2", namespace: "default" } };
    setControllerReference(a, again); // no ownerType needed
    const byOwner = await client.list(resources.configMaps, { fieldSelector: "data.owner=w1" });
    expect(byOwner.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`).sort()).toEqual([
      "default/a",
      "other/c",
    ]);
    const inDefault = await client.list(resources.configMaps, { namespace: "default", labelSelector: "app=web" });
    expect(inDefault.items.map((i) => i.metadata?.name).sort()).toEqual(["a", "b"]);
    expect(
      await c.until(async () => (await client.list(resources.configMaps, { namespace: "default" })).items.length === 3),
    ).toBe(true); // the cache caught up with the create

    // 4. A resource nobody watched: its informer starts on the first read.
    expect(mgr.factory.list().has("namespaces.v1")).toBe(false);
    const nss = await settled(c, client.list(resources.namespaces));
    expect(nss.items.map((n) => n.metadata?.name)).toContain("other");
    const missing = await client.get(resources.namespaces, "nope").catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);

    // 5. The API reader reads from the server.
    expect(mgr.getAPIReader()).toBe(reader);
    const direct = await settled(c, mgr.getAPIReader().get(resources.configMaps, "a-child", { namespace: "default" }));
    expect(direct.metadata?.ownerReferences?.[0]?.name).toBe("a");

    ac.abort();
    await c.advance(1000);
    await run;
  });
});
