// The StatefulSet controller in the simulated cluster (in-process, virtual time): behaviours of
// test/e2e/apps/statefulset.go ("Basic StatefulSet functionality") that need pods to run.
import { type PersistentVolumeClaim, type Pod, resources, type StatefulSet } from "@informer-ts/client";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { all, podsOf, statefulSet, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const setOf = (name: string) => stored<StatefulSet>(c!, "statefulsets.apps", "default", name);
const live = (name: string) => podsOf(c!, name).filter((p) => p.metadata?.deletionTimestamp == null);
const readyPods = (name: string) =>
  live(name).filter((p) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"));

/** Settles until the set has `n` ready pods and its status says so; records the order pods first appeared and left. */
async function settleReady(name: string, n: number, seen?: { created: string[]; deleted: string[] }) {
  let last = new Set(podsOf(c!, name).map((p) => p.metadata?.name ?? ""));
  await c!.settle({
    maxMs: 300_000,
    until: () => {
      const now = new Set(podsOf(c!, name).map((p) => p.metadata?.name ?? ""));
      for (const p of now) if (!last.has(p)) seen?.created.push(p);
      for (const p of last) if (!now.has(p)) seen?.deleted.push(p);
      last = now;
      const s = setOf(name)?.status;
      return (
        readyPods(name).length === n &&
        podsOf(c!, name).length === n &&
        s?.readyReplicas === n &&
        s.replicas === n &&
        s.currentRevision === s.updateRevision
      );
    },
  });
}

const image = (p: Pod) => p.spec?.containers?.[0]?.image;

describe("StatefulSet in the simulated cluster", () => {
  it("should provide basic identity (test/e2e/apps/statefulset.go): stable names, hostname, subdomain, claims", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("ss", 3, { claims: true }));
    await settleReady("ss", 3);
    const pods = podsOf(c, "ss").sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    expect(pods.map((p) => p.metadata?.name)).toEqual(["ss-0", "ss-1", "ss-2"]);
    for (const [i, p] of pods.entries()) {
      expect(p.spec?.hostname).toBe(`ss-${i}`);
      expect(p.spec?.subdomain).toBe("ss");
      expect(p.metadata?.labels).toMatchObject({
        "statefulset.kubernetes.io/pod-name": `ss-${i}`,
        "apps.kubernetes.io/pod-index": String(i),
      });
      expect(p.spec?.volumes).toContainEqual({ name: "www", persistentVolumeClaim: { claimName: `www-ss-${i}` } });
      expect(stored<PersistentVolumeClaim>(c, "persistentvolumeclaims", "default", `www-ss-${i}`)).toBeDefined();
    }
    const s = setOf("ss")!.status!;
    expect(s).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
    });
    expect(s.currentRevision).toMatch(/^ss-[a-z0-9]+$/);
    expect(pods.every((p) => p.metadata?.labels?.["controller-revision-hash"] === s.currentRevision)).toBe(true);
    expect(all(c, "controllerrevisions.apps")).toHaveLength(1);
    // A deleted pod comes back with the same name (and claim).
    await c.client.delete(resources.pods, "ss-1", { namespace: "default", gracePeriodSeconds: 0 });
    await settleReady("ss", 3);
    expect(stored<Pod>(c, "pods", "default", "ss-1")?.spec?.volumes).toContainEqual({
      name: "www",
      persistentVolumeClaim: { claimName: "www-ss-1" },
    });
  });

  it("Scaling should happen in predictable order and halt if any stateful pod is unhealthy (test/e2e/apps/statefulset.go), order basics", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    const seen = { created: [] as string[], deleted: [] as string[] };
    await c.client.create(resources.statefulSets, statefulSet("ss", 3));
    await settleReady("ss", 3, seen);
    expect(seen.created).toEqual(["ss-0", "ss-1", "ss-2"]);
    // While ss-0 is unhealthy (not Ready), scaling up halts.
    const ss0 = stored<Pod>(c, "pods", "default", "ss-0")!;
    await c.client.updateStatus(resources.pods, {
      ...ss0,
      status: {
        ...ss0.status,
        conditions: ss0.status!.conditions!.map((x) => (x.type === "Ready" ? { ...x, status: "False" } : x)),
      },
    } as Pod);
    await c.client.patchScale(resources.statefulSets, "ss", { spec: { replicas: 5 } }, { namespace: "default" });
    await c.settle({ maxMs: 300 });
    expect(podsOf(c, "ss")).toHaveLength(3);
    // The kubelet stand-in's pod-ready stage makes ss-0 Ready again; scaling continues in order.
    await settleReady("ss", 5, seen);
    expect(seen.created).toEqual(["ss-0", "ss-1", "ss-2", "ss-3", "ss-4"]);
    await c.client.patchScale(resources.statefulSets, "ss", { spec: { replicas: 0 } }, { namespace: "default" });
    await c.settle({
      maxMs: 600_000,
      until: () => podsOf(c!, "ss").length === 0 && setOf("ss")?.status?.replicas === 0,
    });
    // From the highest ordinal down, one at a time.
    const deletes = all<{ reason?: string; message?: string }>(c, "events")
      .filter((e) => e.reason === "SuccessfulDelete")
      .map((e) => /Pod (\S+)/.exec(e.message ?? "")?.[1]);
    expect(deletes).toEqual(["ss-4", "ss-3", "ss-2", "ss-1", "ss-0"]);
  });

  it("Burst scaling should run to completion even with unhealthy pods (test/e2e/apps/statefulset.go): Parallel creates all at once", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("burst", 3, { podManagementPolicy: "Parallel" }));
    let readyWhenAllExisted = -1;
    await c.settle({
      maxMs: 60_000,
      until: () => {
        if (podsOf(c!, "burst").length === 3 && readyWhenAllExisted < 0)
          readyWhenAllExisted = readyPods("burst").length;
        return readyWhenAllExisted >= 0;
      },
    });
    // All three existed before any was Ready (OrderedReady would have waited for ss-0 and ss-1).
    expect(readyWhenAllExisted).toBe(0);
    await settleReady("burst", 3);
  });

  it("should perform rolling updates and roll backs of template modifications (test/e2e/apps/statefulset.go)", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("ss", 3));
    await settleReady("ss", 3);
    const rev1 = setOf("ss")!.status!.currentRevision!;
    await c.client.patch(
      resources.statefulSets,
      "ss",
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } },
      { namespace: "default" },
    );
    await settleReady("ss", 3);
    const rev2 = setOf("ss")!.status!.currentRevision!;
    expect(rev2).not.toBe(rev1);
    for (const p of live("ss")) {
      expect(image(p)).toBe("nginx:1.28");
      expect(p.metadata?.labels?.["controller-revision-hash"]).toBe(rev2);
    }
    const updateDeletes = all<{ reason?: string; message?: string }>(c, "events")
      .filter((e) => e.reason === "SuccessfulDelete")
      .map((e) => /Pod (\S+)/.exec(e.message ?? "")?.[1]);
    expect(updateDeletes).toEqual(["ss-2", "ss-1", "ss-0"]);
    // Roll back: the old template again re-uses (re-numbers) revision 1.
    await c.client.patch(
      resources.statefulSets,
      "ss",
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx" }] } } } },
      { namespace: "default" },
    );
    await settleReady("ss", 3);
    expect(setOf("ss")!.status!.currentRevision).toBe(rev1);
    expect(live("ss").every((p) => image(p) === "nginx")).toBe(true);
    const revisions = all<{ metadata?: { name?: string }; revision?: number }>(c, "controllerrevisions.apps");
    expect(revisions.find((r) => r.metadata?.name === rev1)?.revision).toBe(3);
    expect(revisions).toHaveLength(2);
  });

  it("should perform canary updates and phased rolling updates of template modifications (test/e2e/apps/statefulset.go)", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("ss", 3, { partition: 3 }));
    await settleReady("ss", 3);
    // Partition 3: a template change updates no pod.
    await c.client.patch(
      resources.statefulSets,
      "ss",
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } },
      { namespace: "default" },
    );
    await c.settle({
      maxMs: 30_000,
      until: () => setOf("ss")?.status?.updateRevision !== setOf("ss")?.status?.currentRevision,
    });
    await c.settle({ maxMs: 30_000 });
    expect(live("ss").every((p) => image(p) === "nginx")).toBe(true);
    // Canary: partition 2 updates ss-2 only.
    await c.client.patch(
      resources.statefulSets,
      "ss",
      { spec: { updateStrategy: { rollingUpdate: { partition: 2 } } } },
      { namespace: "default" },
    );
    await c.settle({
      maxMs: 120_000,
      until: () =>
        image(stored<Pod>(c!, "pods", "default", "ss-2") ?? ({} as Pod)) === "nginx:1.28" &&
        readyPods("ss").length === 3,
    });
    await c.settle({ maxMs: 30_000 });
    expect(image(stored<Pod>(c, "pods", "default", "ss-0")!)).toBe("nginx");
    expect(image(stored<Pod>(c, "pods", "default", "ss-1")!)).toBe("nginx");
    expect(setOf("ss")!.status).toMatchObject({ updatedReplicas: 1, currentReplicas: 2 });
    // Phased: partition 0 finishes the rollout.
    await c.client.patch(
      resources.statefulSets,
      "ss",
      { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } },
      { namespace: "default" },
    );
    await settleReady("ss", 3);
    expect(live("ss").every((p) => image(p) === "nginx:1.28")).toBe(true);
  });
});

describe("StatefulSet status writes in the simulated cluster", () => {
  it("a 409 Conflict on the status write is retried on the set as the server has it (updateStatefulSetStatus's RetryOnConflict), not a reconcile error", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    const id = c.faults.request({ type: "status", code: 409, verbs: ["update"], resource: "statefulsets", count: 2 });
    await c.client.create(resources.statefulSets, statefulSet("ss", 2));
    await settleReady("ss", 2);
    expect(c.engine.faults.requestFaults.list().find((f) => f.id === id)?.fired).toBe(2);
    expect(c.runtime?.workloads.statefulSets?.controller.status().errors).toBe(0);
  });
});

describe("StatefulSet start ordinal and maxUnavailable in the simulated cluster", () => {
  // test/integration/statefulset/statefulset_test.go TestStatefulSetStartOrdinal: pods from the start ordinal, and a
  // scale-down to 1 keeps the first.
  const cases = [
    { name: "default start ordinal, no ordinals set", replicas: 3, want: ["sts-0", "sts-1", "sts-2"] },
    { name: "default start ordinal", start: 0, replicas: 3, want: ["sts-0", "sts-1", "sts-2"] },
    { name: "start ordinal 4", start: 4, replicas: 4, want: ["sts-4", "sts-5", "sts-6", "sts-7"] },
    {
      name: "start ordinal 5",
      start: 2,
      replicas: 7,
      want: ["sts-2", "sts-3", "sts-4", "sts-5", "sts-6", "sts-7", "sts-8"],
    },
  ];
  for (const tc of cases) {
    it(`TestStatefulSetStartOrdinal: ${tc.name}`, async () => {
      c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
      await c.client.create(
        resources.statefulSets,
        statefulSet("sts", tc.replicas, {
          podManagementPolicy: "Parallel",
          ...(tc.start !== undefined && { start: tc.start }),
        }),
      );
      await settleReady("sts", tc.replicas);
      expect(
        live("sts")
          .map((p) => p.metadata?.name)
          .sort(),
      ).toEqual([...tc.want].sort());
      await c.client.patch(resources.statefulSets, "sts", { spec: { replicas: 1 } }, { namespace: "default" });
      await settleReady("sts", 1);
      expect(live("sts").map((p) => p.metadata?.name)).toEqual([tc.want[0]]);
    });
  }

  it("moving ordinals.start condemns the pods below the new start and creates those above (OrderedReady)", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("mv", 3));
    await settleReady("mv", 3);
    await c.client.patch(resources.statefulSets, "mv", { spec: { ordinals: { start: 2 } } }, { namespace: "default" });
    const seen = { created: [] as string[], deleted: [] as string[] };
    await settleReady("mv", 3, seen);
    expect(
      live("mv")
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(["mv-2", "mv-3", "mv-4"]);
    expect(seen.created).toEqual(["mv-3", "mv-4"]);
    expect(seen.deleted).toEqual(["mv-1", "mv-0"]);
  });

  /** Rolls `name` to a new image and returns the most pods of the set that were unavailable at once. */
  async function rollAndCountUnavailable(name: string, replicas: number): Promise<number> {
    await c!.client.patch(
      resources.statefulSets,
      name,
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } },
      { namespace: "default" },
    );
    let most = 0;
    await c!.settle({
      maxMs: 300_000,
      until: () => {
        most = Math.max(most, replicas - readyPods(name).length);
        const s = setOf(name)?.status;
        return (
          live(name).length === replicas &&
          live(name).every((p) => image(p) === "nginx:1.28") &&
          readyPods(name).length === replicas &&
          s?.currentRevision === s?.updateRevision
        );
      },
    });
    return most;
  }

  it("TestStatefulSetControlRollingUpdateWithMaxUnavailable: with the MaxUnavailableStatefulSet gate, 2 of 5 pods are replaced at a time", async () => {
    c = await createSimCluster({
      cluster: { nodes: 3, controllers: ["statefulset"], featureGates: { MaxUnavailableStatefulSet: true } },
    });
    await c.client.create(resources.statefulSets, statefulSet("mu", 5, { maxUnavailable: 2 }));
    await settleReady("mu", 5);
    expect(await rollAndCountUnavailable("mu", 5)).toBe(2);
    const deletes = all<{ reason?: string; message?: string }>(c, "events")
      .filter((e) => e.reason === "SuccessfulDelete")
      .map((e) => /Pod (\S+)/.exec(e.message ?? "")?.[1]);
    // The highest ordinals go first.
    expect(deletes.slice(0, 2)).toEqual(["mu-4", "mu-3"]);
    expect([...deletes].sort()).toEqual(["mu-0", "mu-1", "mu-2", "mu-3", "mu-4"]);
  });

  it("without the gate (Kubernetes 1.34's default) maxUnavailable is ignored: one pod at a time", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("one", 5, { maxUnavailable: 2 }));
    await settleReady("one", 5);
    expect(await rollAndCountUnavailable("one", 5)).toBe(1);
  });
});

describe("StatefulSet persistentVolumeClaimRetentionPolicy in the simulated cluster (test/e2e/apps/statefulset.go, Non-retain StatefulSetPersistentVolumeClaimPolicy)", () => {
  const claimsOf = (set: string) =>
    all<PersistentVolumeClaim>(c!, "persistentvolumeclaims")
      .filter((p) => p.metadata?.name?.startsWith(`www-${set}-`) && p.metadata?.deletionTimestamp == null)
      .map((p) => p.metadata?.name)
      .sort();

  it("should delete PVCs with a WhenDeleted policy", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(
      resources.statefulSets,
      statefulSet("wd", 3, { claims: true, retention: { whenDeleted: "Delete", whenScaled: "Retain" } }),
    );
    await settleReady("wd", 3);
    const set = setOf("wd")!;
    const claim = stored<PersistentVolumeClaim>(c, "persistentvolumeclaims", "default", "www-wd-0")!;
    expect(claim.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        name: "wd",
        uid: set.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await c.client.delete(resources.statefulSets, "wd", { namespace: "default" });
    await c.settle({ maxMs: 120_000, until: () => claimsOf("wd").length === 0 && podsOf(c!, "wd").length === 0 });
    expect(claimsOf("wd")).toEqual([]);
  });

  it("should delete PVCs with a OnScaledown policy", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(
      resources.statefulSets,
      statefulSet("sd", 3, { claims: true, retention: { whenDeleted: "Retain", whenScaled: "Delete" } }),
    );
    await settleReady("sd", 3);
    expect(
      stored<PersistentVolumeClaim>(c, "persistentvolumeclaims", "default", "www-sd-2")?.metadata?.ownerReferences,
    ).toBeUndefined();
    await c.client.patch(resources.statefulSets, "sd", { spec: { replicas: 1 } }, { namespace: "default" });
    await settleReady("sd", 1);
    await c.settle({ maxMs: 60_000, until: () => claimsOf("sd").length === 1 });
    expect(claimsOf("sd")).toEqual(["www-sd-0"]);
    // Scaling up again creates fresh claims for the new pods.
    await c.client.patch(resources.statefulSets, "sd", { spec: { replicas: 3 } }, { namespace: "default" });
    await settleReady("sd", 3);
    expect(claimsOf("sd")).toEqual(["www-sd-0", "www-sd-1", "www-sd-2"]);
    // Whendeleted Retain: deleting the set keeps the claims.
    await c.client.delete(resources.statefulSets, "sd", { namespace: "default" });
    await c.settle({ maxMs: 120_000, until: () => podsOf(c!, "sd").length === 0 });
    expect(claimsOf("sd")).toEqual(["www-sd-0", "www-sd-1", "www-sd-2"]);
  });

  it("the default Retain policy keeps claims on scale-down and set deletion", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("rt", 2, { claims: true }));
    await settleReady("rt", 2);
    await c.client.patch(resources.statefulSets, "rt", { spec: { replicas: 1 } }, { namespace: "default" });
    await settleReady("rt", 1);
    await c.client.delete(resources.statefulSets, "rt", { namespace: "default" });
    await c.settle({ maxMs: 120_000, until: () => podsOf(c!, "rt").length === 0 });
    expect(claimsOf("rt")).toEqual(["www-rt-0", "www-rt-1"]);
  });

  it("changing the policy on a running set re-owns its claims", async () => {
    c = await createSimCluster({ cluster: { nodes: 3, controllers: ["statefulset"] } });
    await c.client.create(resources.statefulSets, statefulSet("ch", 2, { claims: true }));
    await settleReady("ch", 2);
    await c.client.patch(
      resources.statefulSets,
      "ch",
      { spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } } },
      { namespace: "default" },
    );
    const uid = setOf("ch")!.metadata?.uid;
    const owned = () =>
      ["www-ch-0", "www-ch-1"].every(
        (n) =>
          stored<PersistentVolumeClaim>(c!, "persistentvolumeclaims", "default", n)?.metadata?.ownerReferences?.[0]
            ?.uid === uid,
      );
    await c.settle({ maxMs: 60_000, until: owned });
    expect(owned()).toBe(true);
  });
});
