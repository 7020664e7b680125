// test/e2e/apimachinery/garbage_collector.go (the cases that need no workload controller) re-implemented with
// @kubernetes/client-node against the simulator over HTTP.
import type { KubernetesObject, V1OwnerReference } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDefinition, randomDefinition } from "./crd-fixture.js";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (err) {
    if (codeOf(err) === 404) return false;
    throw err;
  }
}

async function definitionServed(apiVersion: string, plural: string) {
  await expect
    .poll(async () => (await c.raw("GET", `/apis/${apiVersion}`)).text.includes(`"name":"${plural}"`), {
      timeout: 10_000,
    })
    .toBe(true);
}

describe("[sig-api-machinery] Garbage collector (apimachinery/garbage_collector.go)", () => {
  it("should not be blocked by dependency circle", async () => {
    const ns = await c.namespace("gc");
    const spec = { containers: [{ name: "nginx", image: "nginx" }] };
    const ref = (p: { metadata?: { name?: string; uid?: string } }): V1OwnerReference => ({
      apiVersion: "v1",
      kind: "Pod",
      name: p.metadata?.name ?? "",
      uid: p.metadata?.uid ?? "",
      blockOwnerDeletion: true,
    });
    const pod1 = await c.core.createNamespacedPod({ namespace: ns, body: { metadata: { name: "pod1" }, spec } });
    const pod2 = await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: "pod2", ownerReferences: [ref(pod1)] }, spec },
    });
    const pod3 = await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: "pod3", ownerReferences: [ref(pod2)] }, spec },
    });
    await c.core.patchNamespacedPod(
      { namespace: ns, name: "pod1", body: { metadata: { ownerReferences: [ref(pod3)] } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
    );
    await c.core.deleteNamespacedPod({ namespace: ns, name: "pod1", propagationPolicy: "Foreground" });
    await expect
      .poll(async () => (await c.core.listNamespacedPod({ namespace: ns })).items.map((p) => p.metadata?.name), {
        timeout: 10_000,
      })
      .toEqual([]);
  });

  it("should support cascading deletion of custom resources", async () => {
    const { definition, apiVersion, kind, plural } = randomDefinition("Cluster");
    await createDefinition(c, definition);
    await definitionServed(apiVersion, plural);
    const owner = await c.objects.create<KubernetesObject>({ apiVersion, kind, metadata: { name: "owner" } });
    const dependent = await c.objects.create<KubernetesObject>({
      apiVersion,
      kind,
      metadata: {
        name: "dependent",
        ownerReferences: [{ apiVersion, kind, name: "owner", uid: owner.metadata?.uid ?? "" }],
      },
    });
    expect(dependent.metadata?.ownerReferences?.[0]?.name).toBe("owner");
    await c.objects.delete(
      { apiVersion, kind, metadata: { name: "owner" } },
      undefined,
      undefined,
      undefined,
      undefined,
      "Background",
    );
    await expect
      .poll(() => exists(() => c.objects.read({ apiVersion, kind, metadata: { name: "dependent" } })), {
        timeout: 10_000,
      })
      .toBe(false);
    await c.objects.delete(definition);
  });

  it("should support orphan deletion of custom resources", async () => {
    const { definition, apiVersion, kind, plural } = randomDefinition("Cluster");
    await createDefinition(c, definition);
    await definitionServed(apiVersion, plural);
    const owner = await c.objects.create<KubernetesObject>({ apiVersion, kind, metadata: { name: "owner" } });
    await c.objects.create<KubernetesObject>({
      apiVersion,
      kind,
      metadata: {
        name: "dependent",
        ownerReferences: [{ apiVersion, kind, name: "owner", uid: owner.metadata?.uid ?? "" }],
      },
    });
    await c.objects.delete(
      { apiVersion, kind, metadata: { name: "owner" } },
      undefined,
      undefined,
      undefined,
      undefined,
      "Orphan",
    );
    await expect
      .poll(() => exists(() => c.objects.read({ apiVersion, kind, metadata: { name: "owner" } })), { timeout: 10_000 })
      .toBe(false);
    const orphan = await c.objects.read({ apiVersion, kind, metadata: { name: "dependent" } });
    expect(orphan.metadata?.ownerReferences ?? []).toEqual([]);
    await c.objects.delete(definition);
  });
});
