// The storage API tests that need no CSI driver — storage/csistoragecapacity.go and storageclass.go —
// re-implemented with raw requests (as their typed clients send them) against the simulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collection, expectDiscovered, type Obj, retryOnConflict } from "./api-operations.js";
import { type E2eCluster, startE2eCluster, watchEvents } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

const heldByFinalizers = (o: Obj) =>
  o.metadata.deletionTimestamp !== undefined && (o.metadata.finalizers ?? []).length > 0;

describe("[sig-storage] CSIStorageCapacity (storage/csistoragecapacity.go)", () => {
  it("should support CSIStorageCapacities API operations", async () => {
    const ns = await c.namespace("csistoragecapacity");
    const unique = `${ns}-u`;
    const col = collection(c, `/apis/storage.k8s.io/v1/namespaces/${ns}/csistoragecapacities`);
    const capacity = (suffix: string) => ({
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIStorageCapacity",
      metadata: { name: `${unique}${suffix}`, labels: { test: unique } },
      storageClassName: "e2e.example.com",
    });
    await expectDiscovered(c, "storage.k8s.io", "v1", ["csistoragecapacities"]);
    const created = await col.create(capacity("-csc1"));
    expect((await c.raw("POST", col.base, capacity("-csc1"))).status).toBe(409);
    await col.create(capacity("-csc2"));
    const label = `labelSelector=test%3D${unique}`;
    const everywhere = collection(c, "/apis/storage.k8s.io/v1/csistoragecapacities");
    // one watch in the namespace, one across namespaces: each sees the ADDED csc3 and the patch and the update
    const watchAll = watchEvents(c, everywhere.base, { labelSelector: `test=${unique}` }, (evs) =>
      evs.some((e) => (e.object as Obj).metadata.annotations?.updated === "true"),
    );
    const events = await watchEvents(
      c,
      col.base,
      { labelSelector: `test=${unique}` },
      (evs) => evs.some((e) => (e.object as Obj).metadata.annotations?.updated === "true"),
      async () => {
        await col.create(capacity("-csc3"));
        const got = await col.get(created.metadata.name);
        expect(got.metadata.uid).toBe(created.metadata.uid);
        expect(got.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
        expect((await col.list(label)).items).toHaveLength(3);
        expect((await everywhere.list(label)).items).toHaveLength(3);
        const patched = await col.mergePatch(created.metadata.name, { metadata: { annotations: { patched: "true" } } });
        expect(patched.metadata.annotations?.patched).toBe("true");
        expect(BigInt(patched.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
        patched.metadata.annotations = { ...patched.metadata.annotations, updated: "true" };
        expect((await col.update(patched)).metadata.annotations?.updated).toBe("true");
      },
    );
    for (const evs of [events, await watchAll]) {
      expect(evs.some((e) => e.type === "ADDED")).toBe(true);
      expect(evs.some((e) => e.type === "MODIFIED" && (e.object as Obj).metadata.annotations?.patched === "true")).toBe(
        true,
      );
    }
    await col.delete(created.metadata.name);
    expect(await col.status(created.metadata.name)).toBe(404);
    expect((await col.list(label)).items).toHaveLength(2);
    await col.deleteCollection(label);
    expect((await col.list(label)).items.filter((i) => !heldByFinalizers(i))).toEqual([]);
  });
});

describe("[sig-storage] StorageClasses CSI Conformance (storage/storageclass.go)", () => {
  it("should run through the lifecycle of a StorageClass", async () => {
    const col = collection(c, "/apis/storage.k8s.io/v1/storageclasses");
    const sc = (generateName: string) => ({
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { generateName },
      provisioner: "e2e-fake-provisioner",
    });
    const created = await col.create(sc("e2e-"));
    expect(created.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
    const got = await col.get(created.metadata.name);
    const patched = (
      await c.raw(
        "PATCH",
        `${col.base}/${got.metadata.name}`,
        { metadata: { labels: { [got.metadata.name]: "patched" } } },
        {
          "content-type": "application/strategic-merge-patch+json",
        },
      )
    ).json as Obj;
    expect(patched.metadata.labels?.[patched.metadata.name]).toBe("patched");
    expect(BigInt(patched.metadata.resourceVersion)).toBeGreaterThan(BigInt(got.metadata.resourceVersion));
    await col.delete(patched.metadata.name);
    await expect
      .poll(async () => (await col.list(`labelSelector=${patched.metadata.name}%3Dpatched`)).items)
      .toEqual([]);

    const replacement = await col.create(sc("e2e-v2-"));
    const name = replacement.metadata.name;
    const updated = await retryOnConflict(col, name, (o) => {
      o.metadata.labels = { [name]: "updated" };
    });
    expect(updated.metadata.labels?.[name]).toBe("updated");
    const selector = `labelSelector=${name}%3Dupdated`;
    expect((await col.list(selector)).items).toHaveLength(1);
    await col.deleteCollection(selector);
    await expect.poll(async () => (await col.list(selector)).items).toEqual([]);
  });
});
