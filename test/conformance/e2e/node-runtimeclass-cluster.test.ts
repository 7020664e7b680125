// test/e2e/common/node/runtimeclass.go, the cases the RuntimeClass admission plugin decides: re-implemented with
// @kubernetes/client-node against the simulator over HTTP with its cluster running (the scheduler binds the pods),
// as against `pnpm apiserver --cluster`.
import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, failsWith, startE2eCluster } from "./harness.js";

const POLL = { timeout: 20_000, interval: 50 };

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 1 } });
});
afterAll(async () => {
  await c.close();
});

/** `e2eruntimeclass.NewRuntimeClassPod`: a one-shot busybox pod asking for the class. */
const runtimeClassPod = (runtimeClassName: string): V1Pod => ({
  metadata: { generateName: "test-runtimeclass-" },
  spec: {
    runtimeClassName,
    containers: [{ name: "test", image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1", command: ["true"] }],
    restartPolicy: "Never",
    automountServiceAccountToken: false,
  },
});

const node = () => c.kc.makeApiClient(c.k8s.NodeV1Api);

/** `createRuntimeClass`: a class named `<namespace>-<name>` for `handler`, with an optional overhead. */
async function createRuntimeClass(ns: string, name: string, handler: string, podFixed?: Record<string, string>) {
  const created = await node().createRuntimeClass({
    body: { metadata: { name: `${ns}-${name}` }, handler, ...(podFixed !== undefined && { overhead: { podFixed } }) },
  });
  return created.metadata!.name!;
}

/** `WaitForPodsWithLabelScheduled` for the namespace's only pod: its pods once every one has a node. */
async function scheduledPods(ns: string) {
  await expect
    .poll(async () => {
      const pods = (await c.core.listNamespacedPod({ namespace: ns })).items;
      return pods.length > 0 && pods.every((p) => (p.spec?.nodeName ?? "") !== "");
    }, POLL)
    .toBe(true);
  return (await c.core.listNamespacedPod({ namespace: ns })).items;
}

describe("[sig-node] RuntimeClass (common/node/runtimeclass.go)", () => {
  it("should reject a Pod requesting a non-existent RuntimeClass", async () => {
    const ns = await c.namespace("runtimeclass");
    // expectPodRejection: the create is Forbidden.
    expect(
      await failsWith(c.core.createNamespacedPod({ namespace: ns, body: runtimeClassPod(`${ns}-nonexistent`) })),
    ).toBe(403);
  });

  it("should schedule a Pod requesting a RuntimeClass without PodOverhead", async () => {
    const ns = await c.namespace("runtimeclass");
    const rcName = await createRuntimeClass(ns, "preconfigured-handler", "test-handler");
    try {
      const pod = await c.core.createNamespacedPod({ namespace: ns, body: runtimeClassPod(rcName) });
      const pods = await scheduledPods(ns);
      expect(pods).toHaveLength(1);
      expect(pods[0]!.metadata?.name).toBe(pod.metadata?.name);
      expect(pods[0]!.spec?.overhead ?? {}).toEqual({});
    } finally {
      await node().deleteRuntimeClass({ name: rcName });
    }
  });

  it("should schedule a Pod requesting a RuntimeClass and initialize its Overhead", async () => {
    const ns = await c.namespace("runtimeclass");
    const rcName = await createRuntimeClass(ns, "preconfigured-handler", "test-handler", { cpu: "10m", memory: "1Mi" });
    try {
      const pod = await c.core.createNamespacedPod({ namespace: ns, body: runtimeClassPod(rcName) });
      const pods = await scheduledPods(ns);
      expect(pods).toHaveLength(1);
      expect(pods[0]!.metadata?.name).toBe(pod.metadata?.name);
      expect(pods[0]!.spec?.overhead).toEqual({ cpu: "10m", memory: "1Mi" });
    } finally {
      await node().deleteRuntimeClass({ name: rcName });
    }
  });

  it("should reject a Pod requesting a deleted RuntimeClass", async () => {
    const ns = await c.namespace("runtimeclass");
    const rcName = await createRuntimeClass(ns, "delete-me", "runc");
    await node().deleteRuntimeClass({ name: rcName });
    // Waiting for the RuntimeClass to disappear.
    await expect
      .poll(async () => {
        try {
          await node().readRuntimeClass({ name: rcName });
          return 200;
        } catch (err) {
          return codeOf(err);
        }
      }, POLL)
      .toBe(404);
    expect(await failsWith(c.core.createNamespacedPod({ namespace: ns, body: runtimeClassPod(rcName) }))).toBe(403);
  });
});
