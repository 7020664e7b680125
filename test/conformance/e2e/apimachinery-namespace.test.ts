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

/**
 * upstream's `extinguish`: creates `total` namespaces (each with some content), deletes them all, and waits until at
 * most `maxAllowedAfterDel` of them are left, within `maxSeconds`.
 */
async function extinguish(total: number, maxAllowedAfterDel: number, maxSeconds: number): Promise<void> {
  const names: string[] = [];
  for (let i = 0; i < total; i++) {
    const ns = await c.namespace("nslifetest");
    names.push(ns);
    await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "content" } } });
  }
  await Promise.all(names.map((name) => c.core.deleteNamespace({ name })));
  await expect
    .poll(
      async () => {
        const left = (await c.core.listNamespace({})).items.map((n) => n.metadata?.name ?? "");
        return left.filter((n) => names.includes(n)).length <= maxAllowedAfterDel;
      },
      { timeout: maxSeconds * 1000, interval: 200 },
    )
    .toBe(true);
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

  it("should delete fast enough (90 percent of 100 namespaces in 150 seconds)", async () => {
    await extinguish(100, 10, 150);
  });

  it("should always delete fast (ALL of 100 namespaces in 150 seconds)", async () => {
    await extinguish(100, 0, 150);
  });
});

describe("[sig-api-machinery] OrderedNamespaceDeletion (apimachinery/namespace.go)", () => {
  // The pod must run first: this test needs the cluster's moving parts (kubelet stand-in, service-account
  // controller), started for this block only.
  let cl: E2eCluster;
  beforeAll(async () => {
    cl = await startE2eCluster({ cluster: { nodes: 1 } });
  });
  afterAll(async () => {
    await cl.close();
  });

  it("namespace deletion should delete pod first", async () => {
    // Creating a test namespace; waiting for its default service account
    const ns = await cl.namespace("nsdeletetest");
    await expect
      .poll(async () => !(await gone(() => cl.core.readNamespacedServiceAccount({ namespace: ns, name: "default" }))), {
        timeout: 30_000,
      })
      .toBe(true);
    // Creating a pod with finalizer in the namespace, waiting for it to run
    const podName = "test-pod";
    await cl.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: podName, finalizers: ["e2e.example.com/finalizer"] },
        spec: { containers: [{ name: "nginx", image: "registry.k8s.io/pause:3.10" }] },
      },
    });
    await expect
      .poll(async () => (await cl.core.readNamespacedPod({ namespace: ns, name: podName })).status?.phase, {
        timeout: 30_000,
      })
      .toBe("Running");
    const configMapName = "test-configmap";
    await cl.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: configMapName, namespace: ns }, data: { key: "value" } },
    });

    // Deleting the namespace; wait until the namespace controller had time to process (Terminating with a
    // NamespaceDeletionContentFailure condition; the namespace must not be gone meanwhile)
    await cl.core.deleteNamespace({ name: ns });
    await expect
      .poll(
        async () => {
          const got = await cl.core.readNamespace({ name: ns }).catch((err: unknown) => {
            if (codeOf(err) === 404) throw new Error(`namespace ${ns} was deleted unexpectedly`);
            return undefined;
          });
          return (
            got?.status?.phase === "Terminating" &&
            (got.status.conditions ?? []).some((cond) => cond.type === "NamespaceDeletionContentFailure")
          );
        },
        { timeout: 30_000 },
      )
      .toBe(true);

    // The pod should be deleted before processing deletion for other resources: the configmap is still there while
    // the pod, held by its finalizer, has a deletionTimestamp
    await expect
      .poll(
        async () => {
          if (await gone(() => cl.core.readNamespacedConfigMap({ namespace: ns, name: configMapName }))) {
            throw new Error(`configmap "${configMapName}" should still exist in namespace "${ns}"`);
          }
          const pod = await cl.core.readNamespacedPod({ namespace: ns, name: podName });
          return pod.metadata?.deletionTimestamp !== undefined;
        },
        { timeout: 30_000 },
      )
      .toBe(true);

    // Removing finalizer from the pod (retry on conflict: the kubelet stand-in writes its status meanwhile)
    for (let attempt = 0; ; attempt++) {
      const pod = await cl.core.readNamespacedPod({ namespace: ns, name: podName });
      pod.metadata = { ...pod.metadata, finalizers: [] };
      try {
        await cl.core.replaceNamespacedPod({ namespace: ns, name: podName, body: pod });
        break;
      } catch (err) {
        if (codeOf(err) !== 409 || attempt >= 5) throw err;
      }
    }

    // Waiting for the pod to not be present in the namespace, then for the namespace to be removed
    await expect
      .poll(() => gone(() => cl.core.readNamespacedPod({ namespace: ns, name: podName })), { timeout: 30_000 })
      .toBe(true);
    await expect.poll(() => gone(() => cl.core.readNamespace({ name: ns })), { timeout: 30_000 }).toBe(true);
  });
});
