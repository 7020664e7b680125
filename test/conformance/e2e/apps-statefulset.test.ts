// test/e2e/apps/statefulset.go (partitions, unhealthy pods, PVC retention with adoption and foreign owners,
// minReadySeconds) re-implemented with @kubernetes/client-node over HTTP against the simulator with its cluster
// (sim-cluster's StatefulSet controller, scheduler, kubelet stand-in, the garbage collector), on a RealClock 30 times
// as fast as the wall clock (the harness's `clockRate`), so that upstream's minutes of waiting take seconds.
//
// Upstream drives readiness by exec'ing into the webserver containers (`breakHTTPProbe` moves index.html away,
// `PauseNewPods` waits for a marker file `ResumeNextPod` writes); here the kubelet stand-in's stages read a pod
// annotation instead ({@link BROKEN}, {@link PAUSED}): a pod annotated so never turns Ready (and a ready broken pod
// turns unready), and the test patches the annotation where upstream runs its command. A deleted pod's containers
// stop before the pod goes ({@link STAGES}), so a pod kept by a finalizer is seen terminating and not ready, as a
// kubelet reports it.
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stage, StageRequirement } from "../../../packages/sim-cluster/src/kubelet/stage.js";
import {
  BEHAVIOUR_ANNOTATION,
  codeOf,
  E2E_STAGES,
  type E2eCluster,
  stagesExceptFor,
  startE2eCluster,
  watchEvents,
} from "./harness.js";

/** A pod whose readiness probe fails (upstream's `breakHTTPProbe`/`breakPodHTTPProbe`). */
const BROKEN = "broken";
/** A pod waiting for `ResumeNextPod` (upstream's `PauseNewPods` readiness probe on a marker file). */
const PAUSED = "paused";

const TERMINATING: StageRequirement = { key: ".metadata.deletionTimestamp", operator: "Exists" };
const CONTAINERS_RUNNING: StageRequirement = {
  key: ".status.containerStatuses.state",
  operator: "In",
  values: ["running"],
};

/**
 * The e2e stages with: no `pod-ready` for {@link BROKEN} or {@link PAUSED} pods; `pod-unready` taking a ready
 * broken pod back to not ready; `pod-stop` stopping a deleted pod's containers (exit 0) before `pod-delete` removes
 * it — and `pod-stop-failing` for `ss3-0`, whose container exits 1 on SIGTERM in upstream's "with failing container"
 * case, so that pod ends `Failed`.
 */
const STAGES: Stage[] = (() => {
  const base = stagesExceptFor(stagesExceptFor(E2E_STAGES, ["pod-ready"], BROKEN), ["pod-ready"], PAUSED).map((s) =>
    s.name === "pod-delete"
      ? {
          ...s,
          selector: {
            matchExpressions: [
              ...(s.selector?.matchExpressions ?? []),
              { ...CONTAINERS_RUNNING, operator: "NotIn" as const },
            ],
          },
        }
      : s,
  );
  const notReady = { Ready: "False", ContainersReady: "False" } as const;
  return [
    ...base,
    {
      name: "pod-unready",
      selector: {
        matchAnnotations: { [BEHAVIOUR_ANNOTATION]: BROKEN },
        matchExpressions: [
          { key: ".metadata.deletionTimestamp", operator: "DoesNotExist" },
          { key: ".status.conditions.Ready", operator: "In", values: ["True"] },
        ],
      },
      delay: { durationMs: 100 },
      next: { conditions: notReady, containers: { state: "running", ready: false } },
    },
    {
      name: "pod-stop",
      selector: {
        matchExpressions: [
          TERMINATING,
          CONTAINERS_RUNNING,
          { key: ".metadata.name", operator: "NotIn", values: ["ss3-0"] },
        ],
      },
      next: { conditions: notReady, containers: { state: "terminated", reason: "Completed", exitCode: 0 } },
    },
    {
      name: "pod-stop-failing",
      selector: {
        matchExpressions: [
          TERMINATING,
          CONTAINERS_RUNNING,
          { key: ".metadata.name", operator: "In", values: ["ss3-0"] },
        ],
      },
      next: {
        phase: "Failed",
        conditions: notReady,
        containers: { state: "terminated", reason: "Error", exitCode: 1 },
      },
    },
  ];
})();

let c: E2eCluster;
let apps: K8s.AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster({
    cluster: { nodes: 3, stages: STAGES, controllers: ["statefulset"] },
    clockRate: 30,
  });
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
});
afterAll(async () => {
  await c.close();
});

/** Upstream's `StatefulSetTimeout` (10 min) is 20 s of wall time here, polled every 50 ms. */
const POLL = { timeout: 20_000, interval: 50 };
const OLD_IMAGE = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
const NEW_IMAGE = "registry.k8s.io/e2e-test-images/httpd:2.4.39-4";
const REVISION = "controller-revision-hash";
const LABELS = { foo: "bar", baz: "blah" };
const SELECTOR = "foo=bar,baz=blah";
const mergePatch = () => c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.MergePatch);

/**
 * `e2estatefulset.NewStatefulSet`: `replicas` webserver pods with a readiness probe (`setHTTPProbe`), and with
 * `claims` a `datadir` claim template mounted at /data.
 */
function newSet(name: string, replicas: number, o: { claims?: boolean; paused?: boolean } = {}): K8s.V1StatefulSet {
  return {
    metadata: { name },
    spec: {
      replicas,
      serviceName: "test",
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS, ...(o.paused === true && { annotations: { [BEHAVIOUR_ANNOTATION]: PAUSED } }) },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: "webserver",
              image: OLD_IMAGE,
              readinessProbe: { httpGet: { path: "/index.html", port: 80 as never }, periodSeconds: 1 },
              ...(o.claims === true && { volumeMounts: [{ name: "datadir", mountPath: "/data/" }] }),
            },
          ],
        },
      },
      ...(o.claims === true && {
        volumeClaimTemplates: [
          {
            metadata: { name: "datadir" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Mi" } } },
          },
        ],
      }),
    },
  };
}

const isReady = (p: K8s.V1Pod) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
const ordinalOf = (p: K8s.V1Pod) => Number(/-(\d+)$/.exec(p.metadata?.name ?? "")?.[1] ?? -1);

/** `GetPodList`, sorted by ordinal (`SortStatefulPods`). */
async function podList(ns: string): Promise<K8s.V1Pod[]> {
  const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: SELECTOR })).items;
  return pods.sort((a, b) => ordinalOf(a) - ordinalOf(b));
}

const readSet = (ns: string, name: string) => apps.readNamespacedStatefulSet({ name, namespace: ns });

/** `WaitForRunningAndReady`: exactly `n` pods, all Running and Ready. */
async function waitForRunningAndReady(ns: string, n: number): Promise<void> {
  await expect
    .poll(async () => {
      const pods = await podList(ns);
      return pods.length === n && pods.every((p) => p.status?.phase === "Running" && isReady(p));
    }, POLL)
    .toBe(true);
}

/** `WaitForRunning(numPodsRunning, numPodsReady)`. */
async function waitForRunning(ns: string, running: number, ready: number): Promise<void> {
  await expect
    .poll(async () => {
      const pods = (await podList(ns)).filter((p) => p.metadata?.deletionTimestamp == null);
      const up = pods.filter((p) => p.status?.phase === "Running");
      return [pods.length, up.length, up.filter(isReady).length];
    }, POLL)
    .toEqual([running, running, ready]);
}

/** `waitForStatus`: the controller observed the set's generation. */
async function waitForStatus(ns: string, name: string): Promise<K8s.V1StatefulSet> {
  await expect
    .poll(async () => {
      const s = await readSet(ns, name);
      return (s.status?.observedGeneration ?? 0) >= (s.metadata?.generation ?? 0);
    }, POLL)
    .toBe(true);
  return readSet(ns, name);
}

/** `updateStatefulSetWithRetries`. */
async function updateSet(ns: string, name: string, change: (s: K8s.V1StatefulSet) => void) {
  for (let attempt = 0; ; attempt++) {
    const cur = await readSet(ns, name);
    change(cur);
    try {
      return await apps.replaceNamespacedStatefulSet({ name, namespace: ns, body: cur });
    } catch (err) {
      if (attempt > 20 || codeOf(err) !== 409) throw err;
    }
  }
}

/** Sets (or with null removes) a pod's behaviour annotation: the probe broken, paused or restored. */
async function setBehaviour(ns: string, pod: string, behaviour: string | null): Promise<void> {
  await c.core.patchNamespacedPod(
    { name: pod, namespace: ns, body: { metadata: { annotations: { [BEHAVIOUR_ANNOTATION]: behaviour } } } },
    mergePatch(),
  );
}

/** `breakHTTPProbe` / `restoreHTTPProbe` on every pod of the set. */
async function setProbe(ns: string, broken: boolean): Promise<void> {
  for (const p of await podList(ns)) {
    if (p.metadata?.deletionTimestamp == null) await setBehaviour(ns, p.metadata?.name ?? "", broken ? BROKEN : null);
  }
}

/** `waitForPodNotReady` / `WaitForPodReady`. */
async function waitForPodReady(ns: string, pod: string, ready: boolean): Promise<void> {
  await expect
    .poll(async () => {
      const p = (await podList(ns)).find((x) => x.metadata?.name === pod);
      return p !== undefined && p.metadata?.deletionTimestamp == null && isReady(p);
    }, POLL)
    .toBe(ready);
}

/** `waitForRollingUpdate`: the update revision is current and every pod is of it. */
async function waitForRollingUpdate(ns: string, name: string): Promise<[K8s.V1StatefulSet, K8s.V1Pod[]]> {
  await expect
    .poll(async () => {
      const s = await readSet(ns, name);
      if (s.status?.currentRevision !== s.status?.updateRevision) return false;
      const pods = await podList(ns);
      return (
        pods.length === s.spec?.replicas &&
        pods.every((p) => p.metadata?.labels?.[REVISION] === s.status?.updateRevision && isReady(p))
      );
    }, POLL)
    .toBe(true);
  return [await readSet(ns, name), await podList(ns)];
}

/**
 * `waitForPartitionedRollingUpdate`: every pod at or above the partition is of the update revision, ready, and the
 * ones below still of the current revision.
 */
async function waitForPartitionedRollingUpdate(ns: string, name: string): Promise<[K8s.V1StatefulSet, K8s.V1Pod[]]> {
  await expect
    .poll(async () => {
      const s = await readSet(ns, name);
      const partition = s.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
      const pods = await podList(ns);
      return (
        pods.length === s.spec?.replicas &&
        pods.every(
          (p) =>
            isReady(p) &&
            p.metadata?.deletionTimestamp == null &&
            p.metadata?.labels?.[REVISION] ===
              (ordinalOf(p) < partition ? s.status?.currentRevision : s.status?.updateRevision),
        )
      );
    }, POLL)
    .toBe(true);
  return [await readSet(ns, name), await podList(ns)];
}

/** Each pod's image and revision: the current ones below `partition`, the update ones from it. */
function expectPartitioned(pods: K8s.V1Pod[], partition: number, current: string, update: string): void {
  expect(pods.map((p) => [p.metadata?.name, p.spec?.containers[0]?.image, p.metadata?.labels?.[REVISION]])).toEqual(
    pods.map((p) => [
      p.metadata?.name,
      ordinalOf(p) < partition ? OLD_IMAGE : NEW_IMAGE,
      ordinalOf(p) < partition ? current : update,
    ]),
  );
}

/** `deleteStatefulPodAtIndex` (grace period 0). */
async function deletePodAt(ns: string, name: string, index: number): Promise<void> {
  await c.core.deleteNamespacedPod({ name: `${name}-${index}`, namespace: ns, gracePeriodSeconds: 0 });
}

/** `e2estatefulset.Scale` / `UpdateReplicas` through the scale subresource. */
async function scale(ns: string, name: string, replicas: number): Promise<void> {
  await apps.patchNamespacedStatefulSetScale({ name, namespace: ns, body: { spec: { replicas } } }, mergePatch());
}

/**
 * `confirmStatefulPodCount(count, hard)`, in wall time: over `ms`, the pod count stays `count` (hard) or reaches it
 * (soft).
 */
async function confirmPodCount(ns: string, count: number, hard: boolean, ms = 1000): Promise<void> {
  if (!hard) {
    await expect.poll(async () => (await podList(ns)).length, POLL).toBe(count);
    return;
  }
  const seen = new Set<number>();
  const until = Date.now() + ms;
  while (Date.now() < until) {
    seen.add((await podList(ns)).length);
    await new Promise((r) => setTimeout(r, 50));
  }
  expect([...seen]).toEqual([count]);
}

/** `verifyStatefulSetPVCsExist`: exactly the claims `datadir-<set>-<i>` for `ids` exist (terminating ones count). */
async function claimsExist(ns: string, name: string, ids: number[]): Promise<void> {
  const re = new RegExp(`^datadir-${name}-(\\d+)$`);
  await expect
    .poll(async () => {
      const claims = (await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns })).items;
      return claims
        .map((x) => re.exec(x.metadata?.name ?? "")?.[1])
        .filter((x): x is string => x !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
    }, POLL)
    .toEqual(ids);
}

const readClaim = (ns: string, name: string) => c.core.readNamespacedPersistentVolumeClaim({ name, namespace: ns });

/** `updatePVCWithRetries`. */
async function updateClaim(ns: string, name: string, change: (x: K8s.V1PersistentVolumeClaim) => void) {
  for (let attempt = 0; ; attempt++) {
    const cur = await readClaim(ns, name);
    change(cur);
    try {
      return await c.core.replaceNamespacedPersistentVolumeClaim({ name, namespace: ns, body: cur });
    } catch (err) {
      if (attempt > 20 || codeOf(err) !== 409) throw err;
    }
  }
}

/** Owner references as upstream compares them (`reflect.DeepEqual` of the set fields). */
const refsOf = (x: K8s.V1PersistentVolumeClaim) =>
  (x.metadata?.ownerReferences ?? []).map((r) => ({
    apiVersion: r.apiVersion,
    kind: r.kind,
    name: r.name,
    uid: r.uid,
    ...(r.controller !== undefined && { controller: r.controller }),
    ...(r.blockOwnerDeletion !== undefined && { blockOwnerDeletion: r.blockOwnerDeletion }),
  }));

describe("[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] (apps/statefulset.go)", () => {
  it("should not deadlock when a pod's predecessor fails", async () => {
    const ns = await c.namespace("sts");
    await apps.createNamespacedStatefulSet({ namespace: ns, body: newSet("ss", 2, { claims: true, paused: true }) });
    await waitForRunning(ns, 1, 0);
    // Resuming stateful pod at index 0.
    await setBehaviour(ns, "ss-0", "resumed");
    // Waiting for stateful pod at index 1 to enter running.
    await waitForRunning(ns, 2, 1);
    // Deleting the healthy pod 0: it is re-created although pod 1 is not healthy.
    const uid = (await c.core.readNamespacedPod({ name: "ss-0", namespace: ns })).metadata?.uid;
    await deletePodAt(ns, "ss", 0);
    await expect
      .poll(async () => {
        const p = (await podList(ns)).find((x) => x.metadata?.name === "ss-0");
        return p !== undefined && p.metadata?.uid !== uid && p.status?.phase === "Running";
      }, POLL)
      .toBe(true);
    // Upstream's marker file is on the pod's claim, so the new pod 0 finds it: resumed again here.
    await setBehaviour(ns, "ss-0", "resumed");
    await waitForRunning(ns, 2, 1);
    // Resuming stateful pod at index 1.
    await setBehaviour(ns, "ss-1", "resumed");
    await waitForRunningAndReady(ns, 2);
  });

  /** `rollbackTest`: a rolling update held by an unready pod, completed, then rolled back the same way. */
  async function rollbackTest(ns: string, set: K8s.V1StatefulSet): Promise<void> {
    const name = set.metadata?.name ?? "";
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    await waitForRunningAndReady(ns, 3);
    let ss = await waitForStatus(ns, name);
    const first = ss.status!;
    expect(first.currentRevision).toBe(first.updateRevision);
    for (const p of await podList(ns)) expect(p.metadata?.labels?.[REVISION]).toBe(first.currentRevision);
    await setBehaviour(ns, `${name}-1`, BROKEN);
    await waitForPodReady(ns, `${name}-1`, false);
    // Updating StatefulSet template: update image.
    await updateSet(ns, name, (s) => {
      s.spec!.template.spec!.containers[0]!.image = NEW_IMAGE;
    });
    // Creating a new revision.
    ss = await waitForStatus(ns, name);
    const { currentRevision, updateRevision } = ss.status!;
    expect(currentRevision).not.toBe(updateRevision);
    // With pod 1 unready nothing is replaced.
    for (const p of await podList(ns)) expect(p.metadata?.labels?.[REVISION]).toBe(currentRevision);
    // Updating Pods in reverse ordinal order.
    await setBehaviour(ns, `${name}-1`, null);
    await waitForPodReady(ns, `${name}-1`, true);
    let pods: K8s.V1Pod[];
    [ss, pods] = await waitForRollingUpdate(ns, name);
    expect(ss.status?.currentRevision).toBe(updateRevision);
    for (const p of pods) {
      expect([p.spec?.containers[0]?.image, p.metadata?.labels?.[REVISION]]).toEqual([NEW_IMAGE, updateRevision]);
    }
    // Rolling back to a previous revision.
    await setBehaviour(ns, `${name}-1`, BROKEN);
    await waitForPodReady(ns, `${name}-1`, false);
    const priorRevision = currentRevision;
    await updateSet(ns, name, (s) => {
      s.spec!.template.spec!.containers[0]!.image = OLD_IMAGE;
    });
    ss = await waitForStatus(ns, name);
    expect(ss.status?.updateRevision).toBe(priorRevision);
    expect(ss.status?.currentRevision).not.toBe(ss.status?.updateRevision);
    // Rolling back update in reverse ordinal order.
    await setBehaviour(ns, `${name}-1`, null);
    await waitForPodReady(ns, `${name}-1`, true);
    [ss, pods] = await waitForRollingUpdate(ns, name);
    expect(ss.status?.currentRevision).toBe(priorRevision);
    for (const p of pods) {
      expect([p.spec?.containers[0]?.image, p.metadata?.labels?.[REVISION]]).toEqual([OLD_IMAGE, priorRevision]);
    }
  }

  it("should perform rolling updates and roll backs of template modifications with PVCs", async () => {
    const ns = await c.namespace("sts");
    await rollbackTest(ns, newSet("ss", 3, { claims: true }));
    // The claims stay the pods' own across both rollouts.
    await claimsExist(ns, "ss", [0, 1, 2]);
  });

  it("should perform canary updates and phased rolling updates of template modifications", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss2", 3);
    set.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 3 } };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    await waitForRunningAndReady(ns, 3);
    let ss = await waitForStatus(ns, "ss2");
    expect(ss.status?.currentRevision).toBe(ss.status?.updateRevision);
    const before = await podList(ns);
    for (const p of before) expect(p.metadata?.labels?.[REVISION]).toBe(ss.status?.currentRevision);
    await updateSet(ns, "ss2", (s) => {
      s.spec!.template.spec!.containers[0]!.image = NEW_IMAGE;
    });
    // Creating a new revision.
    ss = await waitForStatus(ns, "ss2");
    const { currentRevision, updateRevision } = ss.status as { currentRevision: string; updateRevision: string };
    expect(currentRevision).not.toBe(updateRevision);
    // Not applying an update when the partition is greater than the number of replicas.
    expectPartitioned(await podList(ns), 3, currentRevision, updateRevision);
    expect((await podList(ns)).map((p) => p.metadata?.uid)).toEqual(before.map((p) => p.metadata?.uid));
    // Performing a canary update.
    await updateSet(ns, "ss2", (s) => {
      s.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 2 } };
    });
    let pods: K8s.V1Pod[];
    [ss, pods] = await waitForPartitionedRollingUpdate(ns, "ss2");
    expectPartitioned(pods, 2, currentRevision, updateRevision);
    // Restoring Pods to the correct revision when they are deleted.
    await deletePodAt(ns, "ss2", 0);
    await deletePodAt(ns, "ss2", 2);
    await waitForRunningAndReady(ns, 3);
    [ss, pods] = await waitForPartitionedRollingUpdate(ns, "ss2");
    expectPartitioned(pods, 2, currentRevision, updateRevision);
    // Performing a phased rolling update.
    for (let partition = 1; partition >= 0; partition--) {
      await updateSet(ns, "ss2", (s) => {
        s.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition } };
      });
      [ss, pods] = await waitForPartitionedRollingUpdate(ns, "ss2");
      expectPartitioned(pods, partition, currentRevision, updateRevision);
    }
    await expect.poll(async () => (await readSet(ns, "ss2")).status?.currentRevision, POLL).toBe(updateRevision);
  });

  /**
   * `deletingPodForRollingUpdatePartitionTest`: with partition 1 pod 0 keeps the old revision; deleted while a
   * finalizer holds it, the set waits for it (counted not ready), and re-creates it from the current revision once
   * it is gone — whether its container exited 0 or 1 on the way.
   */
  async function deletingPodForRollingUpdatePartitionTest(ns: string, set: K8s.V1StatefulSet): Promise<void> {
    const name = set.metadata?.name ?? "";
    set.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 1 } };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    await waitForRunningAndReady(ns, 3);
    let ss = await waitForStatus(ns, name);
    expect(ss.status?.currentRevision).toBe(ss.status?.updateRevision);
    // Adding finalizer for pod-0.
    const pod0 = `${name}-0`;
    const held = await c.core.readNamespacedPod({ name: pod0, namespace: ns });
    held.metadata!.finalizers = [...(held.metadata?.finalizers ?? []), "example.com/test-finalizer"];
    await c.core.replaceNamespacedPod({ name: pod0, namespace: ns, body: held });
    // Updating image on StatefulSet.
    await updateSet(ns, name, (s) => {
      s.spec!.template.spec!.containers[0]!.image = NEW_IMAGE;
    });
    ss = await waitForStatus(ns, name);
    const { currentRevision, updateRevision } = ss.status as { currentRevision: string; updateRevision: string };
    expect(currentRevision).not.toBe(updateRevision);
    // Await for all replicas running, all are updated but pod-0.
    await expect
      .poll(async () => {
        const s = (await readSet(ns, name)).status;
        return [s?.updatedReplicas, s?.replicas, s?.readyReplicas];
      }, POLL)
      .toEqual([2, 3, 3]);
    expectPartitioned(await podList(ns), 1, currentRevision, updateRevision);
    // Deleting the pod-0 so that kubelet terminates it and StatefulSet controller recreates it.
    await deletePodAt(ns, name, 0);
    // Await for two replicas to be updated, while the pod-0 is not running.
    await expect.poll(async () => (await readSet(ns, name)).status?.readyReplicas, POLL).toBe(2);
    const terminating = await c.core.readNamespacedPod({ name: pod0, namespace: ns });
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    // Removing finalizer from pod-0 to allow recreation.
    await c.core.patchNamespacedPod(
      { name: pod0, namespace: ns, body: { metadata: { finalizers: null } } },
      mergePatch(),
    );
    // Await for recreation of pod-0, so that all replicas are running.
    await expect
      .poll(async () => {
        const p = (await podList(ns)).find((x) => x.metadata?.name === pod0);
        return p?.metadata?.uid !== terminating.metadata?.uid && (await readSet(ns, name)).status?.readyReplicas;
      }, POLL)
      .toBe(3);
    // Verify pod images after pod-0 deletion and recreation.
    await waitForRunningAndReady(ns, 3);
    expectPartitioned(await podList(ns), 1, currentRevision, updateRevision);
  }

  it("should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 without failing container", async () => {
    const ns = await c.namespace("sts");
    await deletingPodForRollingUpdatePartitionTest(ns, newSet("ss2", 3));
  });

  it("should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 with failing container", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss3", 3);
    // Upstream's second container exits 1 on SIGTERM in ss3-0 only: here the `pod-stop-failing` stage.
    set.spec!.template.spec!.containers.push({ name: "sleep-exit-with-1", image: "busybox" });
    await deletingPodForRollingUpdatePartitionTest(ns, set);
  });

  it("Burst scaling should run to completion even with unhealthy pods", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss", 1);
    set.spec!.podManagementPolicy = "Parallel";
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    await waitForRunningAndReady(ns, 1);
    // Confirming that stateful set scale up will not halt with unhealthy stateful pod.
    await setProbe(ns, true);
    await waitForRunning(ns, 1, 0);
    await expect.poll(async () => (await readSet(ns, "ss")).status?.readyReplicas ?? 0, POLL).toBe(0);
    await scale(ns, "ss", 3);
    await confirmPodCount(ns, 3, false);
    // Scaling up stateful set to 3 replicas and waiting until all of them will be running.
    await setProbe(ns, false);
    await waitForRunningAndReady(ns, 3);
    // Scale down will not halt with unhealthy stateful pod.
    await setProbe(ns, true);
    await expect.poll(async () => (await readSet(ns, "ss")).status?.readyReplicas ?? 0, POLL).toBe(0);
    await waitForRunning(ns, 3, 0);
    await scale(ns, "ss", 0);
    await confirmPodCount(ns, 0, false);
    await expect.poll(async () => (await readSet(ns, "ss")).status?.replicas, POLL).toBe(0);
  });
});

describe("[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] (apps/statefulset.go): eviction", () => {
  it("Should recreate evicted statefulset", async () => {
    const ns = await c.namespace("sts");
    const statefulPodName = "ss-0";
    // Looking for a node to schedule stateful set and pod.
    await expect.poll(async () => (await c.core.listNode()).items.length, POLL).toBeGreaterThan(0);
    const node = (await c.core.listNode()).items[0]!.metadata!.name!;
    // Creating pod with conflicting port.
    const conflictingPort = { hostPort: 21017, containerPort: 21017, name: "conflict" };
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: "test-pod" },
        spec: { nodeName: node, containers: [{ name: "webserver", image: OLD_IMAGE, ports: [conflictingPort] }] },
      },
    });
    // Waiting until pod test-pod will start running.
    await expect
      .poll(async () => (await c.core.readNamespacedPod({ name: "test-pod", namespace: ns })).status?.phase, POLL)
      .toBe("Running");
    // Creating statefulset with conflicting port: the kubelet rejects its pod, the controller re-creates it.
    const set = newSet("ss", 1);
    set.spec!.template.spec!.containers[0]!.ports = [conflictingPort];
    set.spec!.template.spec!.nodeName = node;
    // Waiting until stateful pod will be recreated and deleted at least once (a deletion after a seen pod).
    const events = await watchEvents(
      c,
      `/api/v1/namespaces/${ns}/pods`,
      { fieldSelector: `metadata.name=${statefulPodName}` },
      (evs) => evs.some((e, i) => e.type === "DELETED" && i > 0),
      async () => {
        await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
      },
      POLL.timeout,
    );
    const deleted = events.find((e, i) => e.type === "DELETED" && i > 0);
    expect(deleted, "the stateful pod was deleted at least once").toBeDefined();
    const rejected = events.find((e) => (e.object as K8s.V1Pod).status?.phase === "Failed")?.object as K8s.V1Pod;
    expect([rejected?.status?.reason, rejected?.status?.message]).toEqual([
      "NodePorts",
      "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
    ]);
    const initialUid = deleted!.object.metadata?.uid;
    // Removing pod with conflicting port.
    await c.core.deleteNamespacedPod({ name: "test-pod", namespace: ns, gracePeriodSeconds: 0 });
    // Waiting when stateful pod will be recreated and will be in running state.
    await expect
      .poll(async () => {
        try {
          const p = await c.core.readNamespacedPod({ name: statefulPodName, namespace: ns });
          return p.status?.phase === "Running" && p.metadata?.uid !== initialUid;
        } catch {
          return false;
        }
      }, POLL)
      .toBe(true);
  });
});

describe("[sig-apps] StatefulSet (apps/statefulset.go): minReadySeconds", () => {
  it("AvailableReplicas should get updated accordingly when MinReadySeconds is enabled", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("test-ss", 2);
    set.spec!.minReadySeconds = 30;
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    // A ready pod that is not available yet (upstream sleeps 5 s of the 30 and finds availableReplicas still 0).
    await expect
      .poll(async () => {
        const s = (await readSet(ns, "test-ss")).status;
        return [s?.readyReplicas, s?.availableReplicas ?? 0];
      }, POLL)
      .toEqual([1, 0]);
    await expect.poll(async () => (await readSet(ns, "test-ss")).status?.availableReplicas, POLL).toBe(2);
    await updateSet(ns, "test-ss", (s) => {
      s.spec!.minReadySeconds = 3600;
    });
    // We don't expect replicas to be updated till 1 hour, so the availableReplicas should be 0.
    await expect.poll(async () => (await readSet(ns, "test-ss")).status?.availableReplicas ?? 0, POLL).toBe(0);
    await updateSet(ns, "test-ss", (s) => {
      s.spec!.minReadySeconds = 0;
    });
    await expect.poll(async () => (await readSet(ns, "test-ss")).status?.availableReplicas, POLL).toBe(2);
    // Check availableReplicas are shown in status (upstream reads `kubectl get -o yaml`).
    const raw = await c.raw("GET", `/apis/apps/v1/namespaces/${ns}/statefulsets/test-ss`);
    expect((raw.json as { status?: { availableReplicas?: number } }).status?.availableReplicas).toBe(2);
  });
});

describe("[sig-apps] StatefulSet Non-retain StatefulSetPersistentVolumeClaimPolicy (apps/statefulset.go)", () => {
  /** Orphans pod `<set>-2` with a strategic merge patch of empty owner references, as upstream does. */
  const orphanThird = async (ns: string) => {
    await c.core.patchNamespacedPod(
      { name: "ss-2", namespace: ns, body: { metadata: { ownerReferences: [] } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
  };

  it("should delete PVCs after adopting pod (WhenDeleted)", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss", 3, { claims: true });
    set.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete" };
    const created = await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    // Confirming all 3 PVCs exist with their owner refs.
    await claimsExist(ns, "ss", [0, 1, 2]);
    await expect
      .poll(async () => {
        const claims = (await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns })).items;
        return claims.map((x) => refsOf(x).map((r) => [r.kind, r.uid, r.controller]));
      }, POLL)
      .toEqual(Array(3).fill([["StatefulSet", created.metadata?.uid, true]]));
    // Orphaning the 3rd pod.
    await orphanThird(ns);
    // Deleting stateful set: the set re-adopted the pod, and the garbage collector takes every claim.
    await apps.deleteNamespacedStatefulSet({ name: "ss", namespace: ns });
    await claimsExist(ns, "ss", []);
  });

  it("should delete PVCs after adopting pod (WhenScaled)", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss", 3, { claims: true });
    set.spec!.persistentVolumeClaimRetentionPolicy = { whenScaled: "Delete" };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    // Confirming all 3 PVCs exist.
    await claimsExist(ns, "ss", [0, 1, 2]);
    await waitForRunningAndReady(ns, 3);
    // Orphaning the 3rd pod.
    await orphanThird(ns);
    // Scaling stateful set to one replica: the re-adopted pods' claims go with them.
    await scale(ns, "ss", 1);
    await claimsExist(ns, "ss", [0]);
  });

  it("should not delete PVCs when there is another controller", async () => {
    const ns = await c.namespace("sts");
    const set = newSet("ss", 4, { claims: true });
    await apps.createNamespacedStatefulSet({ namespace: ns, body: set });
    // Confirming all 4 PVCs exist.
    await claimsExist(ns, "ss", [0, 1, 2, 3]);
    const claimNames = [0, 1, 2, 3].map((i) => `datadir-ss-${i}`);
    // Create configmap to use as random owner.
    const owner = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { generateName: "random-owner", namespace: ns } },
    });
    // Add external owner to PVC 1.
    const externalRef = [
      { apiVersion: "v1", kind: "ConfigMap", name: owner.metadata!.name!, uid: owner.metadata!.uid! },
    ];
    await updateClaim(ns, claimNames[1]!, (x) => {
      x.metadata!.ownerReferences = externalRef;
    });
    // Add stale statefulset controller to PVC 3, with finalizer to prevent garbage collection.
    const staleRef = [
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        name: "unknown",
        uid: "9d86d6ae-4e06-4ff1-bc55-f77f52e272e9",
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    await updateClaim(ns, claimNames[3]!, (x) => {
      x.metadata!.ownerReferences = staleRef;
      x.metadata!.finalizers = ["keep-with/stale-ref"];
    });
    // Check references updated.
    await expect
      .poll(
        async () => [refsOf(await readClaim(ns, claimNames[1]!)), refsOf(await readClaim(ns, claimNames[3]!))],
        POLL,
      )
      .toEqual([externalRef, staleRef]);
    // Update retention policy to delete to force claims to resync.
    const updated = await updateSet(ns, "ss", (s) => {
      s.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete" };
    });
    const ownerRef = [
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        name: "ss",
        uid: updated.metadata!.uid!,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    // Expect claims 0, 1 and 2 to have ownerRefs to the statefulset, and 3 to have a stale reference.
    await expect
      .poll(async () => Promise.all(claimNames.map(async (n) => refsOf(await readClaim(ns, n)))), POLL)
      .toEqual([ownerRef, [...externalRef, ...ownerRef], ownerRef, staleRef]);
    // Remove controller flag from claim 0.
    await updateClaim(ns, claimNames[0]!, (x) => {
      x.metadata!.ownerReferences = [{ ...ownerRef[0]!, controller: false }];
    });
    // Update statefulset to provoke a reconcile.
    await updateSet(ns, "ss", (s) => {
      s.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete", whenScaled: "Delete" };
    });
    // Expect controller flag for claim 0 to reconcile back to true.
    await expect.poll(async () => refsOf(await readClaim(ns, claimNames[0]!)), POLL).toEqual(ownerRef);
    // Delete the stateful set and wait for claims 0 and 2 but not 1 and 3 to disappear.
    await apps.deleteNamespacedStatefulSet({ name: "ss", namespace: ns });
    await claimsExist(ns, "ss", [1, 3]);
    // Cleanup: the finalizer off claim 3.
    await updateClaim(ns, claimNames[3]!, (x) => {
      x.metadata!.finalizers = [];
    });
  });
});
