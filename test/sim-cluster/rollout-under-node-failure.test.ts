import { type Deployment, type Pod, resources } from "@informer-ts/client";
import { createSimCluster } from "@informer-ts/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { all, stored } from "./cluster-helpers.js";

function deployment(replicas: number, image: string): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } },
    },
  } as Deployment;
}

describe("a rollout converges under a node failure (property)", () => {
  it("whatever node fails and when, the rollout completes with every replica updated, available and on a live node", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          replicas: fc.integer({ min: 2, max: 8 }),
          failed: fc.integer({ min: 0, max: 2 }),
          failAfterMs: fc.integer({ min: 0, max: 5000 }),
        }),
        async ({ seed, replicas, failed, failAfterMs }) => {
          const c = await createSimCluster({ seed, cluster: { nodes: 3, events: false } });
          try {
            await c.client.create(resources.deployments, deployment(replicas, "nginx:1.27"));
            const done = (image: string) => () => {
              const d = stored<Deployment>(c, "deployments.apps", "default", "web");
              const live = all<Pod>(c, "pods").filter((p) => p.metadata?.deletionTimestamp == null);
              return (
                d?.status?.updatedReplicas === replicas &&
                d.status.availableReplicas === replicas &&
                d.status.replicas === replicas &&
                (d.status.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
                live.length === replicas &&
                live.every((p) => p.spec?.containers?.[0]?.image === image && p.spec?.nodeName !== `node-${failed}`)
              );
            };
            await c.settle({
              maxMs: 300_000,
              until: () =>
                (stored<Deployment>(c, "deployments.apps", "default", "web")?.status?.availableReplicas ?? 0) ===
                replicas,
            });
            await c.client.patch(
              resources.deployments,
              "web",
              { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } },
              { namespace: "default" },
            );
            await c.clock.step(failAfterMs);
            c.runtime!.nodes.fail(`node-${failed}`);
            await c.settle({ maxMs: 1_800_000, until: done("nginx:1.28") });
            expect(done("nginx:1.28")()).toBe(true);
          } finally {
            await c.close();
          }
        },
      ),
      { numRuns: 4 },
    );
  }, 240_000);
});
