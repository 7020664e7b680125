import { resources } from "@informer-ts/client";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

function replicaSet(name: string, replicas: number) {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: "web", image: "nginx", resources: { requests: { cpu: "100m", memory: "64Mi" } } }],
        },
      },
    },
  };
}

describe("ReplicaSet in the simulated cluster (in-process, virtual time)", () => {
  it("creates, schedules and readies spec.replicas pods; status counts them", async () => {
    c = await createSimCluster({ cluster: { nodes: 3 } });
    await c.client.create(resources.replicaSets, replicaSet("web", 5) as never);
    let rs: {
      status?: { readyReplicas?: number; availableReplicas?: number; replicas?: number; observedGeneration?: number };
    } = {};
    await c.settle({
      maxMs: 120_000,
      until: () => {
        rs = (c!.engine.storage.get(c!.engine.resource("replicasets.apps"), "default", "web") ?? {}) as never;
        return rs.status?.availableReplicas === 5;
      },
    });
    expect(rs.status).toMatchObject({
      replicas: 5,
      readyReplicas: 5,
      availableReplicas: 5,
      fullyLabeledReplicas: 5,
      observedGeneration: 1,
    });
    const pods = await c.client.list(resources.pods, { namespace: "default" });
    expect(pods.items).toHaveLength(5);
    for (const p of pods.items) {
      expect(p.spec?.nodeName).toMatch(/^node-[0-2]$/);
      expect(p.status?.phase).toBe("Running");
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "ReplicaSet", name: "web", controller: true });
    }
  });
});
