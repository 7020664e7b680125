// The disruption controller's counting in virtual time (FakeClock, in-process): expectedPods, desiredHealthy,
// currentHealthy, disruptionsAllowed and the disruptedPods expiry, after pkg/controller/disruption/disruption_test.go.
// Pods sit on a node no kubelet runs ("ghost"), so the test alone sets their readiness.
import type { KubeObject } from "@informer-ts/apimachinery";
import { type Pod, type PodDisruptionBudget, resources } from "@informer-ts/client";
import { DISRUPTED_POD_DELETION_TIMEOUT_MS } from "@informer-ts/sim-cluster";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { stored } from "./cluster-helpers.js";

let c: SimCluster;
afterEach(async () => {
  await c?.close();
});

const NS = "default";
const LABELS = { foo: "bar" };

async function start(): Promise<SimCluster> {
  c = await createSimCluster({ cluster: { nodes: 1, controllers: ["disruption"] } });
  return c;
}

/** A ReplicaSet, Deployment or StatefulSet object of `replicas` (no controller runs for it: only its scale counts). */
async function owner(kind: "ReplicaSet" | "Deployment" | "StatefulSet", name: string, replicas: number) {
  const r =
    kind === "ReplicaSet"
      ? resources.replicaSets
      : kind === "Deployment"
        ? resources.deployments
        : resources.statefulSets;
  const template = { metadata: { labels: LABELS }, spec: { containers: [{ name: "c", image: "pause" }] } };
  return (await c.client.create(
    r as never,
    {
      apiVersion: "apps/v1",
      kind,
      metadata: { name, namespace: NS },
      spec: {
        replicas,
        selector: { matchLabels: LABELS },
        template,
        ...(kind === "StatefulSet" && { serviceName: name }),
      },
    } as never,
  )) as KubeObject;
}

/** `newPod` of upstream's test: a pod on the ghost node, running, ready or not, controlled by `by` when given. */
async function pod(name: string, ready: boolean, by?: KubeObject): Promise<Pod> {
  const created = await c.client.create(resources.pods, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: NS,
      labels: LABELS,
      ...(by !== undefined && {
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: by.kind ?? "",
            name: by.metadata?.name ?? "",
            uid: by.metadata?.uid ?? "",
            controller: true,
          },
        ],
      }),
    },
    spec: { nodeName: "ghost", containers: [{ name: "c", image: "pause" }] },
  } as Pod);
  return setReady(created, ready);
}

async function setReady(p: Pod, ready: boolean): Promise<Pod> {
  const cur = (await c.client.get(resources.pods, p.metadata?.name ?? "", { namespace: NS })) as Pod;
  return c.client.updateStatus(resources.pods, {
    ...cur,
    status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  } as Pod);
}

async function pdb(spec: Record<string, unknown>): Promise<void> {
  await c.client.create(resources.podDisruptionBudgets, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "foo", namespace: NS },
    spec: { selector: { matchLabels: LABELS }, ...spec },
  } as PodDisruptionBudget);
}

const statusOf = () => stored<PodDisruptionBudget>(c, "poddisruptionbudgets.policy", NS, "foo")?.status;

/** The counted fields of the budget's status. */
function counted() {
  const st = statusOf();
  return {
    disruptionsAllowed: st?.disruptionsAllowed,
    currentHealthy: st?.currentHealthy,
    desiredHealthy: st?.desiredHealthy,
    expectedPods: st?.expectedPods,
  };
}

/** `ps.VerifyPdbStatus`: lets virtual time run until the status has these counts (or 10 s pass), then compares. */
async function verify(
  disruptionsAllowed: number,
  currentHealthy: number,
  desiredHealthy: number,
  expectedPods: number,
) {
  const want = { disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods };
  await settleUntil(() => JSON.stringify(counted()) === JSON.stringify(want), 10_000);
  expect(counted()).toEqual(want);
  const cond = statusOf()?.conditions?.find((x) => x.type === "DisruptionAllowed");
  expect(cond?.reason).toBe(disruptionsAllowed > 0 ? "SufficientPods" : "InsufficientPods");
}

/** Advances virtual time until `until` holds, at most `maxMs`; the caller's assertions report a miss. */
async function settleUntil(until: () => boolean, maxMs: number): Promise<void> {
  await c.settle({ maxMs, until }).catch(() => undefined);
}

describe("the disruption controller's counting (pkg/controller/disruption/disruption_test.go, virtual time)", () => {
  it("TestNoSelector: an empty selector (policy/v1) selects every pod of the namespace", async () => {
    await start();
    await pdb({ minAvailable: 3, selector: {} });
    await verify(0, 0, 3, 0);
    await pod("p0", true);
    await verify(0, 1, 3, 1);
  });

  it("TestUnavailable: an integer minAvailable counts the selected pods; an unready pod stops the disruption", async () => {
    await start();
    await pdb({ minAvailable: 3 });
    const pods: Pod[] = [];
    for (let i = 0; i < 4; i++) pods.push(await pod(`p${i}`, true));
    await verify(1, 4, 3, 4);
    await setReady(pods[0]!, false);
    await verify(0, 3, 3, 4);
  });

  it("TestNakedPod: maxUnavailable over pods without a controller expects none and allows nothing", async () => {
    await start();
    await pdb({ maxUnavailable: 1 });
    await pod("naked", true);
    await verify(0, 1, 0, 0);
  });

  it("TestReplicaSet: a percentage minAvailable is taken of the ReplicaSet's replicas, rounded up", async () => {
    await start();
    const rs = await owner("ReplicaSet", "rs", 10);
    await pdb({ minAvailable: "20%" });
    await pod("p0", true, rs);
    await verify(0, 1, 2, 10);
    await pod("p1", true, rs);
    await verify(0, 2, 2, 10);
    await pod("p2", true, rs);
    await verify(1, 3, 2, 10);
  });

  it("TestIntegerMaxUnavailableWithScaling: maxUnavailable follows the controller's scale", async () => {
    await start();
    const rs = await owner("ReplicaSet", "rs", 7);
    await pdb({ maxUnavailable: 2 });
    for (let i = 0; i < 5; i++) await pod(`p${i}`, true, rs);
    await verify(0, 5, 5, 7);
    const cur = stored<KubeObject & { spec: { replicas: number } }>(c, "replicasets.apps", NS, "rs")!;
    await c.client.update(resources.replicaSets as never, { ...cur, spec: { ...cur.spec, replicas: 5 } } as never);
    await verify(2, 5, 3, 5);
  });

  it("TestPercentageMaxUnavailableWithScaling: a percentage maxUnavailable rounds up of the scale", async () => {
    await start();
    const rs = await owner("ReplicaSet", "rs", 7);
    await pdb({ maxUnavailable: "30%" });
    for (let i = 0; i < 5; i++) await pod(`p${i}`, true, rs);
    // 30 % of 7 is 2.1, 3 unavailable: 4 healthy wanted.
    await verify(1, 5, 4, 7);
    const cur = stored<KubeObject & { spec: { replicas: number } }>(c, "replicasets.apps", NS, "rs")!;
    await c.client.update(resources.replicaSets as never, { ...cur, spec: { ...cur.spec, replicas: 5 } } as never);
    // 30 % of 5 is 1.5, 2 unavailable: 3 healthy wanted.
    await verify(2, 5, 3, 5);
  });

  it("TestTwoControllers: a ReplicaSet owned by a Deployment counts with the Deployment's replicas, a StatefulSet with its own", async () => {
    await start();
    const dep = await owner("Deployment", "d", 4);
    const rs = (await c.client.create(
      resources.replicaSets as never,
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name: "d-abc",
          namespace: NS,
          ownerReferences: [
            { apiVersion: "apps/v1", kind: "Deployment", name: "d", uid: dep.metadata?.uid ?? "", controller: true },
          ],
        },
        spec: {
          replicas: 1,
          selector: { matchLabels: LABELS },
          template: { metadata: { labels: LABELS }, spec: { containers: [{ name: "c", image: "pause" }] } },
        },
      } as never,
    )) as KubeObject;
    const sts = await owner("StatefulSet", "s", 2);
    await pdb({ minAvailable: "50%" });
    await pod("a", true, rs);
    await pod("b", true, rs);
    await pod("s-0", true, sts);
    // 4 + 2 expected, half of 6 wanted healthy.
    await verify(0, 3, 3, 6);
    await pod("s-1", true, sts);
    await verify(1, 4, 3, 6);
  });

  it("TestPDBNotExist / a pod owned by an unknown kind: the budget is SyncFailed and allows nothing", async () => {
    await start();
    await pdb({ maxUnavailable: 1 });
    const ghost = { kind: "ReplicaSet", metadata: { name: "gone", uid: "no-such-uid" } } as KubeObject;
    await pod("p0", true, ghost);
    const failed = () => statusOf()?.conditions?.some((x) => x.reason === "SyncFailed") === true;
    await settleUntil(failed, 10_000);
    const st = statusOf();
    expect(st?.disruptionsAllowed).toBe(0);
    expect(st?.conditions?.find((x) => x.type === "DisruptionAllowed")).toMatchObject({
      status: "False",
      reason: "SyncFailed",
    });
  });

  it("TestUpdateDisruptedPods: missing, deleting and expired disrupted pods are dropped; a kept one expires after DeletionTimeout", async () => {
    await start();
    const rs = await owner("ReplicaSet", "rs", 3);
    for (const n of ["p1", "p2", "p3", "p4"]) await pod(n, true, rs);
    const now = c.clock.now();
    const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
    // p4 is being deleted: a finalizer keeps it.
    const p4 = (await c.client.get(resources.pods, "p4", { namespace: NS })) as Pod;
    await c.client.update(resources.pods, { ...p4, metadata: { ...p4.metadata, finalizers: ["test/keep"] } } as Pod);
    await c.client.delete(resources.pods, "p4", { namespace: NS });
    await pdb({ minAvailable: 1 });
    await settleUntil(() => statusOf()?.observedGeneration === 1, 1_000);
    // The eviction registry's record of four evictions (dc.sync in upstream's test reads the same status).
    const cur = (await c.client.get(resources.podDisruptionBudgets, "foo", { namespace: NS })) as PodDisruptionBudget;
    const disruptedPods = {
      p1: at(now),
      missing: at(now),
      p3: at(now - DISRUPTED_POD_DELETION_TIMEOUT_MS - 60_000),
      p4: at(now),
    };
    await c.client.updateStatus(resources.podDisruptionBudgets, {
      ...cur,
      status: { ...cur.status, disruptedPods },
    } as PodDisruptionBudget);
    // A pod event makes the controller sync the budget again.
    const p2 = (await c.client.get(resources.pods, "p2", { namespace: NS })) as Pod;
    await c.client.update(resources.pods, {
      ...p2,
      metadata: { ...p2.metadata, annotations: { touched: "1" } },
    } as Pod);
    await settleUntil(() => Object.keys(statusOf()?.disruptedPods ?? {}).length < 4, 1_000);
    // p1 is still expected to go: it is not healthy. p3's deadline passed: healthy again.
    expect(Object.keys(statusOf()?.disruptedPods ?? {})).toEqual(["p1"]);
    expect(statusOf()).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
    // Not deleted within DeletionTimeout: the controller's recheck drops p1 and counts it.
    await settleUntil(() => statusOf()?.currentHealthy === 3, DISRUPTED_POD_DELETION_TIMEOUT_MS + 5_000);
    expect(statusOf()?.disruptedPods ?? {}).toEqual({});
    expect(statusOf()).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 2 });
    expect(c.clock.now() - now).toBeGreaterThanOrEqual(DISRUPTED_POD_DELETION_TIMEOUT_MS);
  });
});
