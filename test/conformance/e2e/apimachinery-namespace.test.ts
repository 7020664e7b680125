// test/e2e/apimachinery/namespace.go re-implemented with @kubernetes/client-node against the simulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

async function gone(p: () => Promise<unknown>): Promise<boolean> {
  try {
    await p();
    return false;
  } catch (err) {
    return codeOf(err) === 404;
  }
}

describe("[sig-api-machinery] Namespaces [Serial] (apimachinery/namespace.go)", () => {
  it("should ensure that all pods are removed when a namespace is deleted", async () => {
    const ns = await c.namespace("nsdeletetest");
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: "test-pod" }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
    });
    await c.core.deleteNamespace({ name: ns });
    await expect.poll(() => gone(() => c.core.readNamespace({ name: ns })), { timeout: 10_000 }).toBe(true);
    const recreated = await c.core.createNamespace({ body: { metadata: { name: ns } } });
    expect(recreated.status?.phase).toBe("Active");
    expect((await c.core.listNamespacedPod({ namespace: ns })).items).toEqual([]);
  });

  it("should ensure that all services are removed when a namespace is deleted", async () => {
    const ns = await c.namespace("nsdeletetest");
    await c.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: "test-service" },
        spec: { selector: { foo: "bar" }, ports: [{ port: 80, targetPort: 80 }] },
      },
    });
    await c.core.deleteNamespace({ name: ns });
    await expect.poll(() => gone(() => c.core.readNamespace({ name: ns })), { timeout: 10_000 }).toBe(true);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    expect(await gone(() => c.core.readNamespacedService({ namespace: ns, name: "test-service" }))).toBe(true);
  });

  it("should patch a Namespace", async () => {
    const ns = await c.namespace("nspatchtest");
    await c.core.patchNamespace(
      { name: ns, body: { metadata: { labels: { testLabel: "testValue" } } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
    expect((await c.core.readNamespace({ name: ns })).metadata?.labels?.testLabel).toBe("testValue");
  });

  it("should apply changes to a namespace status", async () => {
    const ns = await c.namespace("nsstatus");
    const status = await c.core.readNamespaceStatus({ name: ns });
    expect(status.status?.phase).toBe("Active");
    const condition = { type: "StatusUpdate", status: "True", reason: "E2E", message: "Set from an e2e test" };
    const patched = await c.core.patchNamespaceStatus(
      { name: ns, body: { status: { conditions: [condition] } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    expect(patched.status?.conditions).toContainEqual(expect.objectContaining(condition));
    const fresh = await c.core.readNamespaceStatus({ name: ns });
    const updatedCondition = { type: "StatusUpdate", status: "True", reason: "E2E", message: "Updated by an e2e test" };
    fresh.status = { ...fresh.status, conditions: [updatedCondition] };
    const updated = await c.core.replaceNamespaceStatus({ name: ns, body: fresh });
    expect(updated.status?.conditions).toEqual([expect.objectContaining(updatedCondition)]);
  });

  it("should apply an update to a Namespace", async () => {
    const ns = await c.namespace("nsupdate");
    const current = await c.core.readNamespace({ name: ns });
    current.metadata = { ...current.metadata, labels: { ...current.metadata?.labels, "e2e-update": "updated" } };
    const updated = await c.core.replaceNamespace({ name: ns, body: current });
    expect(updated.metadata?.labels?.["e2e-update"]).toBe("updated");
  });

  it("should apply a finalizer to a Namespace", async () => {
    const ns = await c.namespace("nsfinalize");
    const current = await c.core.readNamespace({ name: ns });
    expect(current.spec?.finalizers).toEqual(["kubernetes"]);
    const withFake = await c.core.replaceNamespaceFinalize({
      name: ns,
      body: { ...current, spec: { finalizers: ["kubernetes", "e2e.example.com/fakeFinalizer"] } },
    });
    expect(withFake.spec?.finalizers).toEqual(["kubernetes", "e2e.example.com/fakeFinalizer"]);
    const removed = await c.core.replaceNamespaceFinalize({
      name: ns,
      body: { ...withFake, spec: { finalizers: ["kubernetes"] } },
    });
    expect(removed.spec?.finalizers).toEqual(["kubernetes"]);
  });

  it("should always delete fast (ALL of 100 namespaces in 150 seconds)", async () => {
    const names: string[] = [];
    for (let i = 0; i < 100; i++) {
      const ns = await c.namespace("nslifetest");
      names.push(ns);
      await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "content" } } });
    }
    await Promise.all(names.map((name) => c.core.deleteNamespace({ name })));
    await expect
      .poll(
        async () => {
          const left = (await c.core.listNamespace({})).items.map((n) => n.metadata?.name ?? "");
          return left.filter((n) => names.includes(n)).length;
        },
        { timeout: 150_000, interval: 200 },
      )
      .toBe(0);
  });
});
