import { type Deployment, type ReplicaSet, resources } from "@informer-ts/client";
import { newLineLogger } from "@informer-ts/instrumentation";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { all, stored } from "./cluster-helpers.js";

const DESIRED = "deployment.kubernetes.io/desired-replicas";
const MAX = "deployment.kubernetes.io/max-replicas";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

function deployment(
  name: string,
  replicas: number,
  image = "nginx:1.27",
  strategy?: Deployment["spec"] extends infer S ? (S extends { strategy?: infer T } ? T : never) : never,
): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      ...(strategy !== undefined && { strategy }),
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "web", image }] } },
    },
  } as Deployment;
}

/** kubectl rollout status's notion of done: observed, updated, no old replicas, all available. */
function rolledOut(c: SimCluster, name: string): () => boolean {
  return () => {
    const d = stored<Deployment>(c, "deployments.apps", "default", name);
    const s = d?.status;
    const r = d?.spec?.replicas ?? 1;
    return (
      d !== undefined &&
      (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
      s?.updatedReplicas === r &&
      s?.replicas === r &&
      s?.availableReplicas === r
    );
  };
}

function replicaSetsOf(c: SimCluster, name: string): ReplicaSet[] {
  return all<ReplicaSet>(c, "replicasets.apps").filter((rs) => rs.metadata?.ownerReferences?.[0]?.name === name);
}

describe("Deployment in the simulated cluster (in-process, virtual time)", () => {
  it("a Deployment of 10 replicas becomes Available with one revision-1 ReplicaSet (in virtual time)", async () => {
    c = await createSimCluster({ cluster: { nodes: 3 } });
    await c.client.create(resources.deployments, deployment("web", 10));
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    const d = stored<Deployment>(c, "deployments.apps", "default", "web")!;
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("1");
    expect(d.status?.conditions?.find((x) => x.type === "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
    });
    expect(d.status?.conditions?.find((x) => x.type === "Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetAvailable",
    });
    const [rs] = replicaSetsOf(c, "web");
    expect(rs?.metadata?.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs?.spec?.selector?.matchLabels?.["pod-template-hash"]).toBeDefined();
    expect(rs?.metadata?.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "1",
      "deployment.kubernetes.io/desired-replicas": "10",
      "deployment.kubernetes.io/max-replicas": "13",
    });
  });

  it("RollingUpdateDeployment should delete old pods and create new ones (test/e2e/apps/deployment.go; within maxSurge/maxUnavailable, revision 2)", async () => {
    c = await createSimCluster({ cluster: { nodes: 3 } });
    await c.client.create(resources.deployments, deployment("web", 8));
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    let maxPods = 0;
    let minAvailable = Number.POSITIVE_INFINITY;
    await c.client.patch(
      resources.deployments,
      "web",
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } },
      { namespace: "default" },
    );
    await c.settle({
      maxMs: 300_000,
      until: () => {
        const rss = replicaSetsOf(c!, "web");
        maxPods = Math.max(
          maxPods,
          rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0),
        );
        minAvailable = Math.min(
          minAvailable,
          rss.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0),
        );
        return rolledOut(c!, "web")();
      },
    });
    // 25 % of 8: surge 2, unavailable 2.
    expect(maxPods).toBeLessThanOrEqual(10);
    expect(minAvailable).toBeGreaterThanOrEqual(6);
    const rss = replicaSetsOf(c, "web");
    expect(rss).toHaveLength(2);
    const byRev = Object.fromEntries(
      rss.map((rs) => [rs.metadata?.annotations?.["deployment.kubernetes.io/revision"], rs.spec?.replicas]),
    );
    expect(byRev).toEqual({ "1": 0, "2": 8 });
    const d = stored<Deployment>(c, "deployments.apps", "default", "web")!;
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
  });

  it("undo (an old template written back) reuses its ReplicaSet as revision 3 with revision-history 1", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    await c.client.create(resources.deployments, deployment("web", 2));
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    const patchImage = (image: string) =>
      c!.client.patch(
        resources.deployments,
        "web",
        { spec: { template: { spec: { containers: [{ name: "web", image }] } } } },
        { namespace: "default" },
      );
    await patchImage("nginx:1.28");
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    await patchImage("nginx:1.27");
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    const rss = replicaSetsOf(c, "web");
    expect(rss).toHaveLength(2);
    const first = rss.find((rs) => rs.spec?.template?.spec?.containers?.[0]?.image === "nginx:1.27")!;
    expect(first.metadata?.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "3",
      "deployment.kubernetes.io/revision-history": "1",
    });
    expect(first.spec?.replicas).toBe(2);
  });

  it("RecreateDeployment should delete old pods and create new ones (test/e2e/apps/deployment.go; no overlap)", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    await c.client.create(resources.deployments, deployment("web", 3, "nginx:1.27", { type: "Recreate" }));
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    await c.client.patch(
      resources.deployments,
      "web",
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } },
      { namespace: "default" },
    );
    let overlap = false;
    await c.settle({
      maxMs: 300_000,
      until: () => {
        const rss = replicaSetsOf(c!, "web");
        if (rss.length === 2 && rss.every((rs) => (rs.status?.replicas ?? 0) > 0)) overlap = true;
        return rolledOut(c!, "web")();
      },
    });
    expect(overlap).toBe(false);
  });

  it("scaling a paused Deployment scales its ReplicaSet; Progressing says DeploymentPaused", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    await c.client.create(resources.deployments, deployment("web", 2));
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    await c.client.patch(
      resources.deployments,
      "web",
      { spec: { paused: true, replicas: 4 } },
      { namespace: "default" },
    );
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    const d = stored<Deployment>(c, "deployments.apps", "default", "web")!;
    expect(d.status?.conditions?.find((x) => x.type === "Progressing")).toMatchObject({
      status: "Unknown",
      reason: "DeploymentPaused",
    });
    expect(replicaSetsOf(c, "web")[0]?.spec?.replicas).toBe(4);
  });

  it("a rollout whose pods never become ready times out: Progressing=False ProgressDeadlineExceeded", async () => {
    const stages = [
      {
        name: "never-ready",
        selector: {
          matchExpressions: [
            { key: ".status.phase", operator: "In" as const, values: ["Pending"] },
            { key: ".status.containerStatuses.state", operator: "DoesNotExist" as const },
          ],
        },
        next: { containers: { state: "waiting" as const, reason: "ImagePullBackOff" } },
      },
    ];
    c = await createSimCluster({ cluster: { nodes: 2, stages } });
    const d = deployment("web", 2);
    d.spec!.progressDeadlineSeconds = 30;
    await c.client.create(resources.deployments, d);
    await c.settle({
      maxMs: 300_000,
      until: () =>
        stored<Deployment>(c!, "deployments.apps", "default", "web")?.status?.conditions?.some(
          (x) => x.reason === "ProgressDeadlineExceeded",
        ) === true,
    });
    const cond = stored<Deployment>(c, "deployments.apps", "default", "web")!.status!.conditions!.find(
      (x) => x.type === "Progressing",
    );
    expect(cond).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
  });

  it("a 409 Conflict on a Deployment write is retried through the rate limiter at debug level, not a reconcile error (handleErr)", async () => {
    const lines: string[] = [];
    c = await createSimCluster({
      cluster: { nodes: 3, logger: newLineLogger("sim-cluster", (l) => lines.push(l), "debug") },
    });
    const id = c.faults.request({ type: "status", code: 409, verbs: ["update"], resource: "deployments", count: 3 });
    await c.client.create(resources.deployments, deployment("web", 4));
    await c.settle({ maxMs: 300_000, until: rolledOut(c, "web") });
    const fired = c.engine.faults.requestFaults.list().find((f) => f.id === id)?.fired;
    expect(fired).toBe(3);
    expect(c.runtime?.deployments?.controller.status().errors).toBe(0);
    const retried = lines.filter((l) => l.includes("Error syncing deployment"));
    expect(retried).toHaveLength(3);
    expect(retried.every((l) => l.startsWith("D "))).toBe(true);
    expect(retried[0]).toContain("default/web");
  });

  it("a scaling pass with nothing to add still brings the ReplicaSets' replica annotations up to date (a pass cut short by a conflict left them stale)", async () => {
    // Only the Deployment controller runs: no pod is created, none becomes available, so the rollout to v2 stays at
    // old 4 + new 1 = replicas + maxSurge, the proportional scale has nothing to add.
    c = await createSimCluster({ cluster: { nodes: 1, controllers: ["deployment"] } });
    const strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } as never;
    await c.client.create(resources.deployments, deployment("web", 4, "nginx:1", strategy));
    const sizes = () =>
      replicaSetsOf(c!, "web")
        .map((rs) => rs.spec?.replicas ?? 0)
        .sort((a, b) => b - a);
    await c.settle({ maxMs: 10_000, until: () => replicaSetsOf(c!, "web").length === 1 });
    const d = stored<Deployment>(c, "deployments.apps", "default", "web")!;
    const t = d.spec!.template!;
    await c.client.update(resources.deployments, {
      ...d,
      spec: { ...d.spec, template: { ...t, spec: { containers: [{ name: "web", image: "nginx:2" }] } } },
    } as Deployment);
    await c.settle({ maxMs: 10_000, until: () => JSON.stringify(sizes()) === "[4,1]" });
    expect(sizes()).toEqual([4, 1]);
    // What a pass that wrote one ReplicaSet and then hit a 409 leaves: the other's desired-replicas is stale, so every
    // sync sees a scaling event (isScalingEvent) — until a scaling pass writes the annotations again.
    const oldRS = replicaSetsOf(c, "web").find((rs) => rs.spec?.replicas === 4)!;
    await c.client.update(resources.replicaSets, {
      ...oldRS,
      metadata: {
        ...oldRS.metadata,
        annotations: { ...oldRS.metadata?.annotations, [DESIRED]: "3", [MAX]: "4" },
      },
    } as ReplicaSet);
    const fresh = () =>
      replicaSetsOf(c!, "web").every(
        (rs) => rs.metadata?.annotations?.[DESIRED] === "4" && rs.metadata?.annotations?.[MAX] === "5",
      );
    await c.settle({ maxMs: 10_000, until: fresh });
    expect(fresh()).toBe(true);
    expect(sizes()).toEqual([4, 1]);
  });
});
