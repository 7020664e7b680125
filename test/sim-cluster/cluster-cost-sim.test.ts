// What the cluster's own cost cuts keep: kwok's pod-fast start-up in one status write, and kube-controller-manager's
// managedFields trim on the shared informers (docs/sim-cluster.md, Performance).
import { type Pod, type ReplicaSet, resources } from "@informer-ts/client";
import { FAST_POD_STAGES, OUTCOME_ANNOTATION, validateStages } from "@informer-ts/sim-cluster";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { available, podsOf, replicaSet } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const statusWrites = (cl: SimCluster) =>
  cl.requests.filter((r) => r.resource === "pods" && r.subresource === "status" && r.verb !== "get").length;

describe("FAST_POD_STAGES (kwok stages/pod-fast.yaml)", () => {
  it("is a valid stage list", () => {
    expect(validateStages(FAST_POD_STAGES)).toBe(FAST_POD_STAGES);
  });

  it("pod-create-and-ready: a bound pod is Running and Ready, with IPs, after one pods/status write", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, stages: FAST_POD_STAGES } });
    await c.client.create(resources.replicaSets, replicaSet("web", 4));
    await c.settle({ maxMs: 60_000, until: available(c, "web", 4) });
    expect(statusWrites(c)).toBe(4);
    for (const p of podsOf(c, "web")) {
      expect(p.status?.phase).toBe("Running");
      expect(p.status?.podIP).toMatch(/^10\./);
      expect(p.status?.hostIP).toBeTruthy();
      expect(p.status?.startTime).toBeTruthy();
      const ready = Object.fromEntries((p.status?.conditions ?? []).map((x) => [x.type, x.status]));
      expect(ready).toMatchObject({
        PodScheduled: "True",
        Initialized: "True",
        ContainersReady: "True",
        Ready: "True",
      });
      expect(p.status?.containerStatuses?.[0]).toMatchObject({ ready: true, started: true, restartCount: 0 });
    }
    expect(c.runtime!.kubelet.stats().applied).toEqual({ "pod-create-and-ready": 4 });
  });

  it("a container that crashes restarts and its pod is Ready again (pod-crash, pod-restart, pod-ready kept)", async () => {
    c = await createSimCluster({ cluster: { nodes: 1, stages: FAST_POD_STAGES } });
    const rs = replicaSet("crash", 1);
    rs.spec!.template!.metadata!.annotations = { [OUTCOME_ANNOTATION]: "Failed" };
    await c.client.create(resources.replicaSets, rs);
    const restartedAndReady = () =>
      podsOf(c!, "crash").some(
        (p) =>
          (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 &&
          p.status?.conditions?.find((x) => x.type === "Ready")?.status === "True",
      );
    await c.settle({ maxMs: 120_000, until: restartedAndReady });
    const applied = c.runtime!.kubelet.stats().applied;
    expect(applied["pod-crash"]).toBeGreaterThanOrEqual(1);
    expect(applied["pod-restart"]).toBeGreaterThanOrEqual(1);
    expect(applied["pod-ready"]).toBeGreaterThanOrEqual(1);
  });
});

describe("trimManagedFields (kube-controller-manager's informer transform)", () => {
  it("the cluster's informers hold no managedFields; the apiserver keeps every pod's", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    await c.client.create(resources.replicaSets, replicaSet("web", 3));
    await c.settle({ maxMs: 60_000, until: available(c, "web", 3) });
    const cached = c.runtime!.manager.informerFor(resources.pods).getIndexer().list() as Pod[];
    expect(cached).toHaveLength(3);
    for (const p of cached) expect(p.metadata).not.toHaveProperty("managedFields");
    const rsCached = c.runtime!.manager.informerFor(resources.replicaSets).getIndexer().list() as ReplicaSet[];
    expect(rsCached[0]?.metadata).not.toHaveProperty("managedFields");
    // Updates built from trimmed objects (kubelet status, scheduler binding) leave the stored ownership in place.
    for (const p of podsOf(c, "web")) {
      const managers = (p.metadata?.managedFields ?? []).map((m) => m.manager);
      expect(managers.length).toBeGreaterThanOrEqual(1);
    }
  });

  it("trimManagedFields: false keeps them in the informers", async () => {
    c = await createSimCluster({ cluster: { nodes: 1, trimManagedFields: false } });
    await c.client.create(resources.replicaSets, replicaSet("web", 1));
    await c.settle({ maxMs: 60_000, until: available(c, "web", 1) });
    const cached = c.runtime!.manager.informerFor(resources.pods).getIndexer().list() as Pod[];
    expect(cached[0]?.metadata?.managedFields?.length).toBeGreaterThanOrEqual(1);
  });
});
