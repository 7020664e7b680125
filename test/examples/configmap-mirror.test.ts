// Example (a), the ConfigMap → Secret mirror, run as its users run it: a Manager over loopback HTTP (KubeClient, the
// simulated apiserver's HTTP face) with the example's setup function, under virtual time.
import { builtinResources } from "@informer-ts/client";
import { afterEach, describe, expect, it } from "vitest";
import { MIRROR_LABEL, setupMirrorController } from "../../examples/configmap-mirror/src/mirror-controller.js";
import { type SimCluster, startSimCluster } from "./sim-http.js";

const { configmaps, events } = builtinResources;
let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("example: configmap-mirror", () => {
  it("mirrors labelled ConfigMaps into owned Secrets, restores them, records events, and lets the GC clean up", async () => {
    cluster = await startSimCluster();
    const c = cluster;
    const client = c.client();
    const mgr = c.manager(client);
    setupMirrorController(mgr, client);
    const ac = new AbortController();
    const run = mgr.run(ac.signal);
    expect(await c.until(() => mgr.notReadyReason() === undefined)).toBe(true);

    await client.create(configmaps, { metadata: { name: "plain", namespace: "default" }, data: { a: "1" } });
    await client.create(configmaps, {
      metadata: { name: "app", namespace: "default", labels: { [MIRROR_LABEL]: "true" } },
      data: { a: "1", b: "two" },
    });
    expect(await c.until(() => c.stored("secrets", "default", "app-mirror") !== undefined)).toBe(true);
    const secret = c.stored("secrets", "default", "app-mirror")!;
    expect(secret.data).toEqual({ a: b64("1"), b: b64("two") });
    expect(secret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "app",
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
    expect(c.stored("secrets", "default", "plain-mirror")).toBeUndefined();

    // Someone edits the Secret: it is put back. The ConfigMap changes: the Secret follows.
    await client.update(builtinResources.secrets, { ...secret, data: { a: b64("hacked") } });
    expect(
      await c.until(
        () => JSON.stringify(c.stored("secrets", "default", "app-mirror")?.data) === JSON.stringify(secret.data),
      ),
    ).toBe(true);
    const cm = await client.get(configmaps, "app", { namespace: "default" });
    await client.update(configmaps, { ...cm, data: { a: "3" } });
    expect(
      await c.until(
        () => JSON.stringify(c.stored("secrets", "default", "app-mirror")?.data) === JSON.stringify({ a: b64("3") }),
      ),
    ).toBe(true);

    // Events were recorded on the ConfigMap.
    expect(
      await c.until(async () => {
        const evs = (await client.list(events, { namespace: "default" })).items;
        return evs.some((e) => e.reason === "MirrorUpdated");
      }),
    ).toBe(true);
    const evs = (await client.list(events, { namespace: "default" })).items;
    expect(evs.map((e) => e.reason).sort()).toEqual(["MirrorCreated", "MirrorUpdated"]);
    expect(evs.find((e) => e.reason === "MirrorUpdated")).toMatchObject({
      involvedObject: { kind: "ConfigMap", name: "app" },
      source: { component: "configmap-mirror" },
      count: 2,
    });

    // The ConfigMap goes: the garbage collector deletes its Secret.
    await client.delete(configmaps, "app", { namespace: "default" });
    expect(await c.until(() => c.stored("secrets", "default", "app-mirror") === undefined)).toBe(true);

    ac.abort();
    await c.advance(1000);
    await run;
  });
});
