// test/e2e/apps/disruption.go re-implemented with @kubernetes/client-node against the simulator over HTTP with its
// cluster running (sim-cluster's disruption controller keeping the PodDisruptionBudgets' status, the ReplicaSet
// controller, scheduler and kubelet stand-in; the apiserver's pods/eviction checking the budgets), as against
// `pnpm apiserver --cluster` — the default stages (and readiness-probe delays) 20 times faster, on 2 nodes.
import { silentLogger } from "@informer-ts/instrumentation";
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fasterStages } from "../../interop/kubectl-cluster-harness.js";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let policy: K8s.PolicyV1Api;
let apps: K8s.AppsV1Api;

beforeAll(async () => {
  c = await startE2eCluster({
    cluster: { nodes: 2, stages: fasterStages(20), controllers: ["replicaset", "disruption"], logger: silentLogger },
  });
  policy = c.kc.makeApiClient(c.k8s.PolicyV1Api);
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
});

afterAll(async () => {
  await c.close();
});

const POLL = { timeout: 20_000, interval: 50 };
const DEFAULT_NAME = "foo";
const DEFAULT_LABELS = { foo: "bar" };
const merge = () => c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);

/** `waitForPdbToBeProcessed`: the controller has seen the budget's newest generation. */
async function processed(ns: string, name: string): Promise<K8s.V1PodDisruptionBudget> {
  let pdb: K8s.V1PodDisruptionBudget | undefined;
  await expect
    .poll(async () => {
      pdb = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name });
      return (pdb.status?.observedGeneration ?? 0) >= (pdb.metadata?.generation ?? 1);
    }, POLL)
    .toBe(true);
  return pdb!;
}

/** `createPDBMinAvailableOrDie` / `createPDBMaxUnavailableOrDie`, waiting for the budget to be processed. */
async function createPDB(
  ns: string,
  name: string,
  spec: { minAvailable?: number | string; maxUnavailable?: number | string; unhealthyPodEvictionPolicy?: string },
  labels?: Record<string, string>,
): Promise<K8s.V1PodDisruptionBudget> {
  await policy.createNamespacedPodDisruptionBudget({
    namespace: ns,
    body: {
      metadata: { name, ...(labels !== undefined && { labels }) },
      spec: { selector: { matchLabels: DEFAULT_LABELS }, ...spec } as K8s.V1PodDisruptionBudgetSpec,
    },
  });
  return processed(ns, name);
}

/** `createPodsOrDie` and `waitForPodsOrDie`: `n` bare pods labelled foo=bar, all Running and Ready. */
async function createPods(ns: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: `pod-${i}`, labels: DEFAULT_LABELS },
        spec: {
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 0,
          containers: [{ name: "donothing", image: "registry.k8s.io/pause:3.10" }],
        },
      },
    });
  }
  await expect
    .poll(async () => {
      const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "foo=bar" })).items;
      return pods.filter(
        (p) =>
          p.status?.phase === "Running" && p.status.conditions?.some((x) => x.type === "Ready" && x.status === "True"),
      ).length;
    }, POLL)
    .toBe(n);
}

/** `createReplicaSetOrDie`: `size` pause pods labelled foo=bar; `exclusive` binds host port 5555 (one per node). */
async function createReplicaSet(ns: string, size: number, exclusive: boolean): Promise<void> {
  await apps.createNamespacedReplicaSet({
    namespace: ns,
    body: {
      metadata: { name: "rs" },
      spec: {
        replicas: size,
        selector: { matchLabels: DEFAULT_LABELS },
        template: {
          metadata: { labels: DEFAULT_LABELS },
          spec: {
            containers: [
              {
                name: "donothing",
                image: "registry.k8s.io/pause:3.10",
                ...(exclusive && { ports: [{ hostPort: 5555, containerPort: 5555 }] }),
              },
            ],
          },
        },
      },
    },
  });
}

/**
 * The framework deletes a test's namespace; here (no namespace controller runs) the ReplicaSet goes and its pods at
 * once, so that the next exclusive test finds host port 5555 free on every node.
 */
async function deleteReplicaSetAndPods(ns: string): Promise<void> {
  await apps.deleteNamespacedReplicaSet({ namespace: ns, name: "rs", propagationPolicy: "Orphan" });
  await c.core.deleteCollectionNamespacedPod({ namespace: ns, gracePeriodSeconds: 0 });
  await expect.poll(async () => (await c.core.listNamespacedPod({ namespace: ns })).items.length, POLL).toBe(0);
}

const isReady = (p: K8s.V1Pod) =>
  p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true &&
  p.metadata?.deletionTimestamp == null;

/** `waitForPodsOrDie`: at least `n` pods labelled foo=bar ready and not being deleted. */
async function waitForPods(ns: string, n: number): Promise<void> {
  await expect
    .poll(
      async () =>
        (await c.core.listNamespacedPod({ namespace: ns, labelSelector: "foo=bar" })).items.filter(isReady).length,
      POLL,
    )
    .toBeGreaterThanOrEqual(n);
}

/** `locateRunningPod`: a ready pod of the namespace that is not being deleted. */
async function locateRunningPod(ns: string): Promise<string> {
  let name = "";
  await expect
    .poll(async () => {
      const pod = (await c.core.listNamespacedPod({ namespace: ns })).items.find(isReady);
      name = pod?.metadata?.name ?? "";
      return name;
    }, POLL)
    .not.toBe("");
  return name;
}

/** `waitForPdbToObserveHealthyPods`: the budget's `currentHealthy` and `desiredHealthy` are these. */
async function waitForPdbToObserveHealthyPods(ns: string, currentHealthy: number, desiredHealthy: number) {
  await expect
    .poll(async () => {
      const st = (await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME })).status;
      return { currentHealthy: st?.currentHealthy, desiredHealthy: st?.desiredHealthy };
    }, POLL)
    .toEqual({ currentHealthy, desiredHealthy });
}

/** `EvictV1`: undefined when the pod was evicted, else the error. */
async function evict(ns: string, name: string): Promise<unknown> {
  try {
    await c.core.createNamespacedPodEviction({
      namespace: ns,
      name,
      body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: ns } },
    });
    return undefined;
  } catch (err) {
    return err ?? new Error("eviction failed");
  }
}

/** `apierrors.HasStatusCause(err, policyv1.DisruptionBudgetCause)`. */
function hasDisruptionBudgetCause(err: unknown): boolean {
  if (err === undefined) return false;
  let body: { details?: { causes?: { reason?: string }[] } } = {};
  try {
    body = JSON.parse(String((err as { body?: unknown }).body ?? "{}"));
  } catch {
    return false;
  }
  return body.details?.causes?.some((x) => x.reason === "DisruptionBudget") === true;
}

/** Evicts `name` once it is allowed (the budget counted the pods), as upstream's poll does. */
async function evictOnceAllowed(ns: string, name: string): Promise<void> {
  await expect.poll(async () => (await evict(ns, name)) === undefined, POLL).toBe(true);
}

const syncFailed = (pdb: K8s.V1PodDisruptionBudget) =>
  pdb.status?.conditions?.some((x) => x.type === "DisruptionAllowed" && x.reason === "SyncFailed") === true;

interface EvictionCase {
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
  readonly podCount: number;
  readonly replicaSetSize: number;
  readonly shouldDeny: boolean;
  readonly exclusive: boolean;
}

/** One case of upstream's `evictionCases`. */
async function evictionCase(tc: EvictionCase): Promise<void> {
  const ns = await c.namespace("disruption");
  if (tc.podCount > 0) await createPods(ns, tc.podCount);
  if (tc.replicaSetSize > 0) await createReplicaSet(ns, tc.replicaSetSize, tc.exclusive);
  if (tc.minAvailable !== undefined) await createPDB(ns, DEFAULT_NAME, { minAvailable: tc.minAvailable });
  if (tc.maxUnavailable !== undefined) await createPDB(ns, DEFAULT_NAME, { maxUnavailable: tc.maxUnavailable });
  const pod = await locateRunningPod(ns);
  if (tc.shouldDeny) {
    const err = await evict(ns, pod);
    expect(hasDisruptionBudgetCause(err)).toBe(true);
    expect((await c.core.readNamespacedPod({ namespace: ns, name: pod })).metadata?.deletionTimestamp).toBeFalsy();
  } else {
    await waitForPods(ns, tc.podCount + tc.replicaSetSize);
    await evictOnceAllowed(ns, pod);
  }
  if (tc.exclusive) {
    // Only 2 of the 10 exclusive pods found a node: the scheduler kept the others pending.
    const pods = (await c.core.listNamespacedPod({ namespace: ns })).items;
    expect(pods.filter((p) => (p.spec?.nodeName ?? "") !== "")).toHaveLength(2);
    await deleteReplicaSetAndPods(ns);
  }
}

interface UnhealthyPolicyCase {
  readonly policy?: "IfHealthyBudget" | "AlwaysAllow";
  readonly readyFirst: boolean;
  readonly evicted: number;
}

/** One case of upstream's `unhealthyPodEvictionPolicyCases`. */
async function unhealthyPolicyCase(tc: UnhealthyPolicyCase): Promise<void> {
  const ns = await c.namespace("disruption");
  await createPDB(ns, DEFAULT_NAME, {
    maxUnavailable: 1,
    ...(tc.policy !== undefined && { unhealthyPodEvictionPolicy: tc.policy }),
  });
  const rsName = "test-rs-with-delayed-ready";
  const replicas = 3;
  // framework.PodStartTimeout (5 min) + 30 s, or 20 s.
  const initialDelaySeconds = tc.readyFirst ? 20 : 5 * 60 + 30;
  await apps.createNamespacedReplicaSet({
    namespace: ns,
    body: {
      metadata: { name: rsName, labels: { ...DEFAULT_LABELS, name: rsName } },
      spec: {
        replicas,
        selector: { matchLabels: DEFAULT_LABELS },
        template: {
          metadata: { labels: DEFAULT_LABELS },
          spec: {
            containers: [
              {
                name: "agnhost",
                image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
                args: ["netexec", "--http-port=80"],
                readinessProbe: { httpGet: { path: "/", port: 80 as never }, initialDelaySeconds },
              },
            ],
          },
        },
      },
    },
  });
  if (tc.readyFirst) {
    await waitForPods(ns, replicas);
    await waitForPdbToObserveHealthyPods(ns, replicas, replicas - 1);
  } else {
    // e2epod.VerifyPodsRunning without the readiness check: running, not ready.
    await expect
      .poll(
        async () =>
          (await c.core.listNamespacedPod({ namespace: ns })).items.filter(
            (p) => p.status?.phase === "Running" && !isReady(p),
          ).length,
        POLL,
      )
      .toBe(replicas);
    await waitForPdbToObserveHealthyPods(ns, 0, replicas - 1);
  }
  // Try to evict all pods guarded by a PDB.
  const pods = (await c.core.listNamespacedPod({ namespace: ns })).items;
  const evicted = new Set<string>();
  for (const p of pods) {
    const name = p.metadata?.name ?? "";
    if ((await evict(ns, name)) === undefined) evicted.add(name);
  }
  expect(evicted.size).toBe(tc.evicted);
  // The evicted pods are gone or being deleted.
  await expect
    .poll(
      async () =>
        (await c.core.listNamespacedPod({ namespace: ns })).items.filter(
          (p) => evicted.has(p.metadata?.name ?? "") && p.metadata?.deletionTimestamp == null,
        ).length,
      POLL,
    )
    .toBe(0);
}

describe("[sig-apps] DisruptionController (apps/disruption.go)", () => {
  it("should list and delete a collection of PodDisruptionBudgets", async () => {
    const ns = await c.namespace("disruption");
    const ns2 = await c.namespace("disruption-2");
    // One budget in another namespace with the same label: listing across namespaces finds both.
    const label = { "e2e-pdb-label": ns };
    await createPDB(ns2, DEFAULT_NAME, { minAvailable: "1%" }, label);
    for (const name of ["foo", "foo2", "foo3"]) await createPDB(ns, name, { minAvailable: "1%" }, label);
    const all = await policy.listPodDisruptionBudgetForAllNamespaces({ labelSelector: `e2e-pdb-label=${ns}` });
    expect(all.items).toHaveLength(4);
    expect((await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items).toHaveLength(3);
    await policy.deleteCollectionNamespacedPodDisruptionBudget({ namespace: ns });
    await expect
      .poll(async () => (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items.length, POLL)
      .toBe(0);
    expect((await policy.listNamespacedPodDisruptionBudget({ namespace: ns2 })).items).toHaveLength(1);
  });

  it("should create a PodDisruptionBudget", async () => {
    const ns = await c.namespace("disruption");
    await createPDB(ns, DEFAULT_NAME, { minAvailable: "1%" });
    // updatePDBOrDie: minAvailable 2%, then processed again.
    const cur = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
    cur.spec = { ...cur.spec, minAvailable: "2%" as never };
    const updated = await policy.replaceNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME, body: cur });
    expect(String(updated.spec?.minAvailable)).toBe("2%");
    await processed(ns, DEFAULT_NAME);
    // patchPDBOrDie: minAvailable 3%.
    const patched = await policy.patchNamespacedPodDisruptionBudget(
      { namespace: ns, name: DEFAULT_NAME, body: { spec: { minAvailable: "3%" } } },
      merge(),
    );
    expect(String(patched.spec?.minAvailable)).toBe("3%");
    const after = await processed(ns, DEFAULT_NAME);
    expect(after.status?.observedGeneration).toBe(patched.metadata?.generation);
    // deletePDBOrDie.
    await policy.deleteNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
    expect((await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items).toHaveLength(0);
  });

  it("should observe PodDisruptionBudget status updated", async () => {
    const ns = await c.namespace("disruption");
    await createPDB(ns, DEFAULT_NAME, { minAvailable: 1 });
    await createPods(ns, 3);
    // disruptionsAllowed starts at 0: seeing it positive shows the controller counted the healthy pods.
    await expect
      .poll(
        async () =>
          (await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME })).status
            ?.disruptionsAllowed ?? 0,
        POLL,
      )
      .toBeGreaterThan(0);
    const pdb = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
    expect(pdb.status).toMatchObject({ currentHealthy: 3, desiredHealthy: 1, expectedPods: 3, disruptionsAllowed: 2 });
    expect(pdb.status?.conditions?.find((x) => x.type === "DisruptionAllowed")).toMatchObject({
      status: "True",
      reason: "SufficientPods",
    });
  });

  it("should update/patch PodDisruptionBudget status", async () => {
    const ns = await c.namespace("disruption");
    await createPDB(ns, DEFAULT_NAME, { minAvailable: 1 });
    // The pod must exist, or the controller drops it from disruptedPods.
    await createPods(ns, 1);
    const [pod] = (await c.core.listNamespacedPod({ namespace: ns })).items;
    const podName = pod?.metadata?.name ?? "";
    for (let attempt = 0; ; attempt++) {
      const cur = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
      cur.status = { ...cur.status!, disruptedPods: { [podName]: new Date() } };
      try {
        await policy.replaceNamespacedPodDisruptionBudgetStatus({ namespace: ns, name: DEFAULT_NAME, body: cur });
        break;
      } catch (err) {
        // RetryOnConflict: the controller may have written the status in between.
        if (attempt > 10 || (err as { code?: number }).code !== 409) throw err;
      }
    }
    const updated = await policy.readNamespacedPodDisruptionBudgetStatus({ namespace: ns, name: DEFAULT_NAME });
    expect(Object.keys(updated.status?.disruptedPods ?? {})).toEqual([podName]);
    const patched = await policy.patchNamespacedPodDisruptionBudgetStatus(
      { namespace: ns, name: DEFAULT_NAME, body: { status: { disruptedPods: null } } },
      merge(),
    );
    expect(patched.status?.disruptedPods ?? {}).toEqual({});
  });

  it("should observe that the PodDisruptionBudget status is not updated for unmanaged pods", async () => {
    const ns = await c.namespace("disruption");
    await createPDB(ns, DEFAULT_NAME, { maxUnavailable: 1 });
    await createPods(ns, 1);
    // Upstream watches for a minute that the budget never turns SyncFailed; here a pod without a controller is
    // reported (the UnmanagedPods event) and left out of the expected scale, and the budget synced with it is not
    // failing.
    await expect
      .poll(
        async () =>
          (await c.core.listNamespacedEvent({ namespace: ns })).items.some(
            (e) => e.reason === "UnmanagedPods" && e.involvedObject.name === DEFAULT_NAME,
          ),
        POLL,
      )
      .toBe(true);
    const pdb = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
    expect(syncFailed(pdb)).toBe(false);
    expect(pdb.status).toMatchObject({ expectedPods: 0, desiredHealthy: 0, disruptionsAllowed: 0 });
  });

  // The evictions table: pods, a ReplicaSet (its `exclusive` pods bind host port 5555, so only one fits a node —
  // 2 of 10 run here), a budget, then an eviction of a running pod that is refused with a DisruptionBudget cause or,
  // once the controller counted the pods, allowed. Each case is an `it` named `evictions: <case> => <expectation>`.
  const rs = { podCount: 0, replicaSetSize: 10 };
  it("evictions: no PDB => should allow an eviction", () =>
    evictionCase({ podCount: 1, replicaSetSize: 0, shouldDeny: false, exclusive: false }));
  it("evictions: too few pods, absolute => should not allow an eviction", () =>
    evictionCase({ minAvailable: 2, podCount: 2, replicaSetSize: 0, shouldDeny: true, exclusive: false }));
  it("evictions: enough pods, absolute => should allow an eviction", () =>
    evictionCase({ minAvailable: 2, podCount: 3, replicaSetSize: 0, shouldDeny: false, exclusive: false }));
  it("evictions: enough pods, replicaSet, percentage => should allow an eviction", () =>
    evictionCase({ minAvailable: "90%", ...rs, shouldDeny: false, exclusive: false }));
  it("evictions: too few pods, replicaSet, percentage => should not allow an eviction", () =>
    evictionCase({ minAvailable: "90%", ...rs, shouldDeny: true, exclusive: true }));
  it("evictions: maxUnavailable allow single eviction, percentage => should allow an eviction", () =>
    evictionCase({ maxUnavailable: "10%", ...rs, shouldDeny: false, exclusive: false }));
  it("evictions: maxUnavailable deny evictions, integer => should not allow an eviction", () =>
    evictionCase({ maxUnavailable: 1, ...rs, shouldDeny: true, exclusive: true }));

  it("should block an eviction until the PDB is updated to allow it", async () => {
    const ns = await c.namespace("disruption");
    await createPDB(ns, DEFAULT_NAME, { minAvailable: 3 });
    await createReplicaSet(ns, 3, false);
    // First trying to evict a pod which shouldn't be evictable.
    await waitForPods(ns, 3);
    const pod = await locateRunningPod(ns);
    expect(hasDisruptionBudgetCause(await evict(ns, pod))).toBe(true);
    // Updating the pdb to allow a pod to be evicted.
    const cur = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
    cur.spec = { ...cur.spec, minAvailable: 2 };
    await policy.replaceNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME, body: cur });
    await processed(ns, DEFAULT_NAME);
    // Trying to evict the same pod we tried earlier which should now be evictable.
    await waitForPods(ns, 3);
    await waitForPdbToObserveHealthyPods(ns, 3, 2);
    expect(await evict(ns, pod)).toBeUndefined();
    // Patching the pdb to disallow a pod to be evicted.
    await policy.patchNamespacedPodDisruptionBudget(
      { namespace: ns, name: DEFAULT_NAME, body: { spec: { minAvailable: null, maxUnavailable: 0 } } },
      merge(),
    );
    await processed(ns, DEFAULT_NAME);
    await waitForPods(ns, 3);
    const next = await locateRunningPod(ns);
    expect(hasDisruptionBudgetCause(await evict(ns, next))).toBe(true);
    // Deleting the pdb to allow a pod to be evicted.
    await policy.deleteNamespacedPodDisruptionBudget({ namespace: ns, name: DEFAULT_NAME });
    await expect
      .poll(async () => (await policy.listNamespacedPodDisruptionBudget({ namespace: ns })).items.length, POLL)
      .toBe(0);
    // Trying to evict the same pod we tried earlier which should now be evictable.
    await waitForPods(ns, 3);
    expect(await evict(ns, next)).toBeUndefined();
  });

  // The unhealthyPodEvictionPolicy table: a budget of maxUnavailable 1 over a ReplicaSet of 3 whose readiness probe
  // waits 20 s (the pods become ready first) or the pod start timeout and 30 s more (they stay running and unready
  // while the test runs); then every pod is evicted once and the evictions that succeeded are counted.
  it("should evict ready pods with Default UnhealthyPodEvictionPolicy", () =>
    unhealthyPolicyCase({ readyFirst: true, evicted: 1 }));
  it("should evict ready pods with IfHealthyBudget UnhealthyPodEvictionPolicy", () =>
    unhealthyPolicyCase({ policy: "IfHealthyBudget", readyFirst: true, evicted: 1 }));
  it("should evict ready pods with AlwaysAllow UnhealthyPodEvictionPolicy", () =>
    unhealthyPolicyCase({ policy: "AlwaysAllow", readyFirst: true, evicted: 1 }));
  it("should not evict unready pods with Default UnhealthyPodEvictionPolicy", () =>
    unhealthyPolicyCase({ readyFirst: false, evicted: 0 }));
  it("should not evict unready pods with IfHealthyBudget UnhealthyPodEvictionPolicy", () =>
    unhealthyPolicyCase({ policy: "IfHealthyBudget", readyFirst: false, evicted: 0 }));
  it("should evict unready pods with AlwaysAllow UnhealthyPodEvictionPolicy", () =>
    unhealthyPolicyCase({ policy: "AlwaysAllow", readyFirst: false, evicted: 3 }));
});
