import { type Pod, type ReplicaSet, resources } from "@informer-ts/client";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { all, available, podsOf, replicaSet, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

describe("ReplicaSet in the simulated cluster (in-process, virtual time)", () => {
  it("should serve a basic image on each replica with a public image (test/e2e/apps/replica_set.go): pods scheduled, Running, Ready; status counts them", async () => {
    c = await createSimCluster({ cluster: { nodes: 3 } });
    await c.client.create(resources.replicaSets, replicaSet("web", 5, { cpu: "8" }));
    await c.settle({ maxMs: 120_000, until: available(c, "web", 5) });
    const rs = stored<ReplicaSet>(c, "replicasets.apps", "default", "web")!;
    expect(rs.status).toMatchObject({
      replicas: 5,
      readyReplicas: 5,
      availableReplicas: 5,
      fullyLabeledReplicas: 5,
      observedGeneration: 1,
    });
    const pods = podsOf(c, "web");
    for (const p of pods) {
      expect(p.spec?.nodeName).toMatch(/^node-[0-2]$/);
      expect(p.status?.phase).toBe("Running");
      expect(p.status?.podIP).toMatch(/^10\./);
      expect(p.status?.containerStatuses?.[0]).toMatchObject({
        name: "web",
        ready: true,
        restartCount: 0,
        started: true,
      });
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "ReplicaSet", name: "web", controller: true });
    }
    // LeastAllocated spreads pods that request a quarter of a node: every node got one.
    expect(new Set(pods.map((p) => p.spec?.nodeName)).size).toBe(3);
    const reasons = all<{ reason?: string }>(c, "events").map((e) => e.reason);
    expect(reasons).toContain("SuccessfulCreate");
    expect(reasons).toContain("Scheduled");
    expect(reasons).toContain("Started");
  });

  it("should adopt matching pods on creation and release no longer matching pods (test/e2e/apps/replica_set.go), adoption and scale-down", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    const orphan = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "orphan", namespace: "default", labels: { app: "web" } },
      spec: { containers: [{ name: "web", image: "nginx" }] },
    };
    await c.client.create(resources.pods, orphan as Pod);
    await c.client.create(resources.replicaSets, replicaSet("web", 3));
    await c.settle({ maxMs: 120_000, until: available(c, "web", 3) });
    const adopted = stored<Pod>(c, "pods", "default", "orphan")!;
    expect(adopted.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "ReplicaSet", name: "web", controller: true });
    await c.client.patchScale(resources.replicaSets, "web", { spec: { replicas: 1 } }, { namespace: "default" });
    await c.settle({ maxMs: 120_000, until: available(c, "web", 1) });
    expect(stored<ReplicaSet>(c, "replicasets.apps", "default", "web")?.status).toMatchObject({
      replicas: 1,
      observedGeneration: 2,
    });
  });

  it("should adopt matching pods on creation and release no longer matching pods (test/e2e/apps/replica_set.go), release and replacement", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    await c.client.create(resources.replicaSets, replicaSet("web", 2));
    await c.settle({ maxMs: 120_000, until: available(c, "web", 2) });
    const victim = podsOf(c, "web")[0]!;
    await c.client.patch(
      resources.pods,
      victim.metadata!.name!,
      { metadata: { labels: { app: "other" } } },
      { namespace: "default" },
    );
    await c.settle({ maxMs: 120_000, until: available(c, "web", 2) });
    expect(stored<Pod>(c, "pods", "default", victim.metadata!.name!)?.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it("a pod no node fits stays Pending with PodScheduled=False and upstream's message", async () => {
    c = await createSimCluster({ cluster: { nodes: 3 } });
    await c.client.create(resources.replicaSets, replicaSet("big", 1, { cpu: "64" }));
    let pod: Pod | undefined;
    await c.settle({
      maxMs: 60_000,
      until: () => {
        pod = podsOf(c!, "big")[0];
        // Retried as each node appears: the message settles once the scheduler knows all three.
        return pod?.status?.conditions?.some((x) => x.type === "PodScheduled" && x.message?.startsWith("0/3")) === true;
      },
    });
    expect(pod?.spec?.nodeName ?? "").toBe("");
    expect(pod?.status?.conditions?.find((x) => x.type === "PodScheduled")).toMatchObject({
      reason: "Unschedulable",
      message: "0/3 nodes are available: 3 Insufficient cpu.",
    });
  });

  it("a failed node's pods turn NotReady, are evicted after their toleration and replaced on live nodes", async () => {
    c = await createSimCluster({ cluster: { nodes: 3 } });
    await c.client.create(resources.replicaSets, replicaSet("web", 6));
    await c.settle({ maxMs: 120_000, until: available(c, "web", 6) });
    const rt = c.runtime!;
    rt.nodes.fail("node-1");
    await c.settle({
      maxMs: 120_000,
      until: () =>
        stored<{ spec?: { taints?: { key: string }[] } }>(c!, "nodes", "", "node-1")?.spec?.taints?.some(
          (t) => t.key === "node.kubernetes.io/unreachable",
        ) === true,
    });
    const onFailed = podsOf(c, "web").filter((p) => p.spec?.nodeName === "node-1");
    expect(onFailed.length).toBeGreaterThan(0);
    for (const p of onFailed) expect(p.status?.conditions?.find((x) => x.type === "Ready")?.status).toBe("False");
    expect(stored<ReplicaSet>(c, "replicasets.apps", "default", "web")?.status?.readyReplicas).toBe(
      6 - onFailed.length,
    );
    await c.settle({
      maxMs: 600_000,
      until: () => available(c!, "web", 6)() && podsOf(c!, "web").every((p) => p.spec?.nodeName !== "node-1"),
    });
    rt.nodes.recover("node-1");
    await c.settle({
      maxMs: 120_000,
      until: () =>
        (stored<{ spec?: { taints?: unknown[] } }>(c!, "nodes", "", "node-1")?.spec?.taints ?? []).length === 0,
    });
  });
});

describe("namespace defaults (serviceaccount and root-ca-cert-publisher controllers)", () => {
  it("every namespace gets a default ServiceAccount and kube-root-ca.crt, re-created after a delete", async () => {
    c = await createSimCluster({ cluster: { nodes: 1, rootCA: "PEM" } });
    await c.client.create(resources.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } });
    const has = () =>
      ["default", "kube-system", "team-a"].every(
        (ns) =>
          stored(c!, "serviceaccounts", ns, "default") !== undefined &&
          (stored<{ data?: Record<string, string> }>(c!, "configmaps", ns, "kube-root-ca.crt")?.data?.["ca.crt"] ??
            "") === "PEM",
      );
    await c.settle({ maxMs: 60_000, until: has });
    await c.client.delete(resources.serviceAccounts, "default", { namespace: "team-a" });
    await c.client.delete(resources.configMaps, "kube-root-ca.crt", { namespace: "team-a" });
    await c.settle({
      maxMs: 60_000,
      until: () => stored(c!, "serviceaccounts", "team-a", "default") === undefined || has(),
    });
    await c.settle({ maxMs: 60_000, until: has });
    expect(
      stored<{ metadata?: { annotations?: Record<string, string> } }>(c, "configmaps", "team-a", "kube-root-ca.crt")
        ?.metadata?.annotations?.["kubernetes.io/description"],
    ).toContain("CA bundle");
  });
});
