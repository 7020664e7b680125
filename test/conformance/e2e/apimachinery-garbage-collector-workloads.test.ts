// test/e2e/apimachinery/garbage_collector.go, the cases that need workload controllers: re-implemented with
// @kubernetes/client-node against the simulator over HTTP with its cluster running (sim-cluster's ReplicaSet,
// ReplicationController and Deployment controllers, scheduler and kubelet stand-in), as against
// `pnpm apiserver --cluster`. Upstream waits 30 s to see that nothing is deleted by mistake; here 2 s (the
// simulator's garbage collector runs within 100 ms of a change).
import type { AppsV1Api, V1Deployment, V1Pod, V1ReplicationController } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let apps: AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 2 } });
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
});
afterAll(async () => {
  await c.close();
});

const POLL = { timeout: 20_000, interval: 50 };
const QUIET_MS = 2000;

/** `newOwnerRC`: a ReplicationController of `replicas` nginx pods labelled `labels`. */
function ownerRC(name: string, replicas: number, labels: Record<string, string>): V1ReplicationController {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: labels,
      template: { metadata: { labels }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
    },
  };
}

/** `newOwnerDeployment`. */
function ownerDeployment(name: string, replicas: number, labels: Record<string, string>): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
    },
  };
}

async function pods(ns: string): Promise<V1Pod[]> {
  return (await c.core.listNamespacedPod({ namespace: ns })).items;
}

async function rcReplicas(ns: string, name: string): Promise<number | undefined> {
  return (await c.core.readNamespacedReplicationController({ namespace: ns, name })).status?.replicas;
}

async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if (codeOf(err) === 404) return true;
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("[sig-api-machinery] Garbage collector, with workload controllers (apimachinery/garbage_collector.go)", () => {
  it("should delete pods created by rc when not orphaning", async () => {
    const ns = await c.namespace("gc-rc");
    const labels = { gctest: "delete_pods" };
    await c.core.createNamespacedReplicationController({ namespace: ns, body: ownerRC("simpletest.rc", 2, labels) });
    await expect.poll(() => rcReplicas(ns, "simpletest.rc"), POLL).toBe(2);
    expect((await pods(ns)).every((p) => p.metadata?.ownerReferences?.[0]?.kind === "ReplicationController")).toBe(
      true,
    );
    await c.core.deleteNamespacedReplicationController({
      namespace: ns,
      name: "simpletest.rc",
      propagationPolicy: "Background",
    });
    await expect.poll(async () => (await pods(ns)).length, POLL).toBe(0);
    expect((await c.core.listNamespacedReplicationController({ namespace: ns })).items).toHaveLength(0);
  });

  it("should orphan pods created by rc if delete options say so", async () => {
    const ns = await c.namespace("gc-rc-orphan");
    const labels = { gctest: "orphan_pods" };
    await c.core.createNamespacedReplicationController({ namespace: ns, body: ownerRC("simpletest.rc", 3, labels) });
    await expect.poll(() => rcReplicas(ns, "simpletest.rc"), POLL).toBe(3);
    await c.core.deleteNamespacedReplicationController({
      namespace: ns,
      name: "simpletest.rc",
      propagationPolicy: "Orphan",
    });
    await expect.poll(() => gone(() => rcReplicas(ns, "simpletest.rc")), POLL).toBe(true);
    await sleep(QUIET_MS);
    const left = await pods(ns);
    expect(left).toHaveLength(3);
    expect(left.every((p) => (p.metadata?.ownerReferences ?? []).length === 0)).toBe(true);
  });

  it("should delete RS created by deployment when not orphaning", async () => {
    const ns = await c.namespace("gc-deploy");
    const labels = { gctest: "delete_rs" };
    await apps.createNamespacedDeployment({ namespace: ns, body: ownerDeployment("simpletest.deployment", 2, labels) });
    await expect.poll(async () => (await apps.listNamespacedReplicaSet({ namespace: ns })).items.length, POLL).toBe(1);
    await apps.deleteNamespacedDeployment({
      namespace: ns,
      name: "simpletest.deployment",
      propagationPolicy: "Background",
    });
    await expect.poll(async () => (await apps.listNamespacedReplicaSet({ namespace: ns })).items.length, POLL).toBe(0);
    await expect.poll(async () => (await pods(ns)).length, POLL).toBe(0);
    expect((await apps.listNamespacedDeployment({ namespace: ns })).items).toHaveLength(0);
  });

  it("should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan", async () => {
    const ns = await c.namespace("gc-deploy-orphan");
    const labels = { gctest: "orphan_rs" };
    await apps.createNamespacedDeployment({ namespace: ns, body: ownerDeployment("simpletest.deployment", 2, labels) });
    await expect.poll(async () => (await apps.listNamespacedReplicaSet({ namespace: ns })).items.length, POLL).toBe(1);
    await apps.deleteNamespacedDeployment({
      namespace: ns,
      name: "simpletest.deployment",
      propagationPolicy: "Orphan",
    });
    await expect.poll(async () => (await apps.listNamespacedDeployment({ namespace: ns })).items.length, POLL).toBe(0);
    await sleep(QUIET_MS);
    const rss = (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
    expect(rss).toHaveLength(1);
    expect(rss[0]?.metadata?.ownerReferences ?? []).toHaveLength(0);
  });

  it("should keep the rc around until all its pods are deleted if the deleteOptions says so", async () => {
    const ns = await c.namespace("gc-rc-foreground");
    const labels = { gctest: "delete_pods_foreground" };
    const replicas = 8;
    await c.core.createNamespacedReplicationController({
      namespace: ns,
      body: ownerRC("simpletest.rc", replicas, labels),
    });
    await expect.poll(() => rcReplicas(ns, "simpletest.rc"), POLL).toBe(replicas);
    // The pods stay until the kubelet confirms their deletion: the rc must wait for every one of them.
    await c.core.deleteNamespacedReplicationController({
      namespace: ns,
      name: "simpletest.rc",
      propagationPolicy: "Foreground",
    });
    const held = await c.core.readNamespacedReplicationController({ namespace: ns, name: "simpletest.rc" });
    expect(held.metadata?.finalizers).toContain("foregroundDeletion");
    const deadline = Date.now() + POLL.timeout;
    for (;;) {
      const rcGone = await gone(() => rcReplicas(ns, "simpletest.rc"));
      const left = await pods(ns);
      if (rcGone) {
        expect(left, "the rc was deleted while pods remained").toHaveLength(0);
        break;
      }
      expect(Date.now(), "the rc was never deleted").toBeLessThan(deadline);
      await sleep(POLL.interval);
    }
  });

  it("should not delete dependents that have both valid owner and owner that's waiting for dependents to be deleted", async () => {
    const ns = await c.namespace("gc-two-owners");
    const replicas = 6;
    const half = replicas / 2;
    const toDelete = await c.core.createNamespacedReplicationController({
      namespace: ns,
      body: ownerRC("simpletest-rc-to-be-deleted", replicas, { gctest: "valid_and_pending_owners" }),
    });
    const toStay = await c.core.createNamespacedReplicationController({
      namespace: ns,
      body: ownerRC("simpletest-rc-to-stay", 0, { gctest: "valid_and_pending_owners_stay" }),
    });
    await expect.poll(() => rcReplicas(ns, "simpletest-rc-to-be-deleted"), POLL).toBe(replicas);
    // Half of the pods get the staying rc as a second (non-controller) owner.
    const owned = (await pods(ns)).slice(0, half);
    for (const p of owned) {
      await c.core.patchNamespacedPod(
        {
          namespace: ns,
          name: p.metadata?.name ?? "",
          body: {
            metadata: {
              ownerReferences: [
                ...(p.metadata?.ownerReferences ?? []),
                {
                  apiVersion: "v1",
                  kind: "ReplicationController",
                  name: toStay.metadata?.name ?? "",
                  uid: toStay.metadata?.uid ?? "",
                },
              ],
            },
          },
        },
        c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch),
      );
    }
    expect(toDelete.metadata?.uid).toBeDefined();
    await c.core.deleteNamespacedReplicationController({
      namespace: ns,
      name: "simpletest-rc-to-be-deleted",
      propagationPolicy: "Foreground",
    });
    await expect.poll(() => gone(() => rcReplicas(ns, "simpletest-rc-to-be-deleted")), POLL).toBe(true);
    await sleep(QUIET_MS);
    const left = await pods(ns);
    expect(left.map((p) => p.metadata?.name).sort()).toEqual(owned.map((p) => p.metadata?.name).sort());
    for (const p of left) {
      expect(p.metadata?.ownerReferences?.map((r) => r.name)).toEqual(["simpletest-rc-to-stay"]);
    }
    expect(await gone(() => rcReplicas(ns, "simpletest-rc-to-stay"))).toBe(false);
  });
});
