// test/e2e/apps/controller_revision.go and the history cases of test/e2e/apps/daemon_set.go (a rollback that leaves
// the old pods alone, a failed pod re-created) re-implemented with @kubernetes/client-node over HTTP against the
// simulator with its cluster (sim-cluster's DaemonSet controller keeping ControllerRevisions, the scheduler, the
// kubelet stand-in), on a RealClock 30 times as fast as the wall clock (the harness's `clockRate`).
//
// Upstream's rollout to the image `foo:non-existent` leaves the new pod pulling forever; here the kubelet stand-in has
// no images, so the rollout also gives the template the `imagePullFails` behaviour (no `pod-running` stage), and the
// rollback takes both back — the template equals the first revision's again, as upstream's does.
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { daemonTemplateHash } from "../../../packages/sim-cluster/src/daemonset/daemon-set-util.js";
import {
  BEHAVIOUR_ANNOTATION,
  codeOf,
  E2E_STAGES,
  type E2eCluster,
  stagesExceptFor,
  startE2eCluster,
} from "./harness.js";

const PULL_FAILS = "imagePullFails";

let c: E2eCluster;
let apps: K8s.AppsV1Api;
beforeAll(async () => {
  c = await startE2eCluster({
    cluster: { nodes: 2, stages: stagesExceptFor(E2E_STAGES, ["pod-running"], PULL_FAILS), controllers: ["daemonset"] },
    clockRate: 30,
  });
  apps = c.kc.makeApiClient(c.k8s.AppsV1Api);
  // The framework's wait for schedulable nodes.
  await vi.waitFor(
    async () => {
      const n = (await c.core.listNode()).items.length;
      if (n < 2) throw new Error(`e2e: ${n} of the cluster's 2 nodes registered`);
    },
    { timeout: 20_000, interval: 50 },
  );
});
afterAll(async () => {
  await c.close();
});

/** Upstream's `dsRetryTimeout` (5 min) is 20 s of wall time here, polled every 50 ms. */
const POLL = { timeout: 20_000, interval: 50 };
const AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53";
const HTTPD = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
const NAME_LABEL = "daemonset-name";
const HASH_LABEL = "controller-revision-hash";

/** `newDaemonSet` (`newDaemonSetWithLabel`). */
function newDaemonSet(name: string, image: string, labels: Record<string, string>): K8s.V1DaemonSet {
  return {
    metadata: { name, labels },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "app", image, ports: [{ containerPort: 9376 }] }] },
      },
    },
  };
}

const isReady = (p: K8s.V1Pod) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;

/** `listDaemonPods`: the set's pods not being deleted. */
async function daemonPods(ns: string, name: string): Promise<K8s.V1Pod[]> {
  return (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `${NAME_LABEL}=${name}` })).items.filter(
    (p) => p.metadata?.deletionTimestamp == null,
  );
}

async function nodeNames(): Promise<string[]> {
  return (await c.core.listNode()).items.map((n) => n.metadata?.name ?? "").sort();
}

/** `checkRunningOnAllNodes`: exactly one ready pod on every node. */
async function runningOnAllNodes(ns: string, name: string): Promise<boolean> {
  const pods = await daemonPods(ns, name);
  const on = pods
    .filter(isReady)
    .map((p) => p.spec?.nodeName ?? "")
    .sort();
  return pods.length === on.length && JSON.stringify(on) === JSON.stringify(await nodeNames());
}

/** `CheckDaemonStatus`: desired = current = ready. */
async function checkDaemonStatus(ns: string, name: string): Promise<void> {
  await expect
    .poll(async () => {
      const s = (await apps.readNamespacedDaemonSet({ namespace: ns, name })).status;
      return [s?.currentNumberScheduled, s?.numberReady];
    }, POLL)
    .toEqual(Array(2).fill((await nodeNames()).length));
}

/** `updateDaemonSetWithRetries`. */
async function updateDaemonSet(ns: string, name: string, change: (ds: K8s.V1DaemonSet) => void) {
  for (let attempt = 0; ; attempt++) {
    const cur = await apps.readNamespacedDaemonSet({ namespace: ns, name });
    change(cur);
    try {
      return await apps.replaceNamespacedDaemonSet({ namespace: ns, name, body: cur });
    } catch (err) {
      if (attempt > 20 || codeOf(err) !== 409) throw err;
    }
  }
}

/** `checkControllerRevisionListQuantity`. */
async function revisionCount(ns: string, selector: string, n: number): Promise<void> {
  await expect
    .poll(
      async () =>
        (await apps.listNamespacedControllerRevision({ namespace: ns, labelSelector: selector })).items.length,
      POLL,
    )
    .toBe(n);
}

describe("[sig-apps] ControllerRevision [Serial] (apps/controller_revision.go)", () => {
  it("should manage the lifecycle of a ControllerRevision", async () => {
    const ns = await c.namespace("controllerrevisions");
    const dsName = "e2e-abcde-daemon-set";
    const dsLabel = { [NAME_LABEL]: dsName };
    const selector = `${NAME_LABEL}=${dsName}`;
    // Creating DaemonSet.
    await apps.createNamespacedDaemonSet({ namespace: ns, body: newDaemonSet(dsName, AGNHOST, dsLabel) });
    // Check that daemon pods launch on every node of the cluster.
    await expect.poll(() => runningOnAllNodes(ns, dsName), POLL).toBe(true);
    await checkDaemonStatus(ns, dsName);
    // Confirm DaemonSet successfully created with the label.
    expect((await apps.listDaemonSetForAllNamespaces({ labelSelector: selector })).items).toHaveLength(1);
    const ds = await apps.readNamespacedDaemonSet({ namespace: ns, name: dsName });
    // Listing all ControllerRevisions with the label (across all namespaces).
    const revs = await apps.listControllerRevisionForAllNamespaces({ labelSelector: selector });
    expect(revs.items).toHaveLength(1);
    const oref = revs.items[0]!.metadata?.ownerReferences?.[0];
    expect([oref?.kind, oref?.uid]).toEqual(["DaemonSet", ds.metadata?.uid]);
    const initialRevision = await apps.readNamespacedControllerRevision({
      namespace: ns,
      name: revs.items[0]!.metadata!.name!,
    });
    const initialName = initialRevision.metadata!.name!;
    // Patching ControllerRevision.
    const patched = await apps.patchNamespacedControllerRevision(
      { namespace: ns, name: initialName, body: { metadata: { labels: { [initialName]: "patched" } } } },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(patched.metadata?.labels?.[initialName]).toBe("patched");
    // Create a new ControllerRevision (named as the controller would name the template with a 1 s grace period).
    const graceful = structuredClone(ds);
    graceful.spec!.template.spec!.terminationGracePeriodSeconds = 1;
    const newHash = daemonTemplateHash(graceful as never);
    const created = await apps.createNamespacedControllerRevision({
      namespace: ns,
      body: {
        metadata: {
          name: `${dsName}-${newHash}`,
          namespace: ns,
          labels: { ...ds.spec?.template.metadata?.labels, [HASH_LABEL]: newHash },
          ...(ds.metadata?.annotations !== undefined && { annotations: ds.metadata.annotations }),
          ownerReferences: [
            {
              apiVersion: "apps/v1",
              kind: "DaemonSet",
              name: dsName,
              uid: ds.metadata!.uid!,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        data: initialRevision.data,
        revision: initialRevision.revision + 1,
      },
    });
    // Confirm that there are two ControllerRevisions.
    await revisionCount(ns, selector, 2);
    // Deleting the initial ControllerRevision.
    await apps.deleteNamespacedControllerRevision({ namespace: ns, name: initialName });
    // Confirm that there is only one ControllerRevision.
    await revisionCount(ns, selector, 1);
    const current = (await apps.listNamespacedControllerRevision({ namespace: ns })).items[0]!;
    expect(current.metadata?.name).toBe(created.metadata?.name);
    // Updating ControllerRevision.
    let updated: K8s.V1ControllerRevision | undefined;
    for (let attempt = 0; updated === undefined; attempt++) {
      const cur = await apps.readNamespacedControllerRevision({ namespace: ns, name: current.metadata!.name! });
      cur.metadata!.labels = { ...cur.metadata?.labels, [current.metadata!.name!]: "updated" };
      try {
        updated = await apps.replaceNamespacedControllerRevision({
          namespace: ns,
          name: cur.metadata!.name!,
          body: cur,
        });
      } catch (err) {
        if (attempt > 20 || codeOf(err) !== 409) throw err;
      }
    }
    expect(updated.metadata?.labels?.[current.metadata!.name!]).toBe("updated");
    // Generate another ControllerRevision by patching the Daemonset (upstream's patch carries a stray top-level
    // `updateStrategy`, which the server drops as an unknown field).
    await apps.patchNamespacedDaemonSet(
      {
        namespace: ns,
        name: dsName,
        body: {
          spec: { template: { spec: { terminationGracePeriodSeconds: 1 } } },
          updateStrategy: { type: "RollingUpdate" },
        },
      },
      c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch),
    );
    // Confirm that there are two ControllerRevisions.
    await revisionCount(ns, selector, 2);
    // Removing a ControllerRevision via 'DeleteCollection' with the updated label.
    await apps.deleteCollectionNamespacedControllerRevision({
      namespace: ns,
      labelSelector: `${updated.metadata!.name!}=updated`,
    });
    // Confirm that there is only one ControllerRevision, and that it is revision 3.
    await revisionCount(ns, selector, 1);
    const list = await apps.listNamespacedControllerRevision({ namespace: ns });
    expect(list.items[0]?.revision).toBe(3);
  });
});

describe("[sig-apps] Daemon set [Serial] (apps/daemon_set.go): history", () => {
  it("should retry creating failed daemon pods", async () => {
    const ns = await c.namespace("daemonsets");
    const name = "daemon-set";
    await apps.createNamespacedDaemonSet({ namespace: ns, body: newDaemonSet(name, HTTPD, { [NAME_LABEL]: name }) });
    // Check that daemon pods launch on every node of the cluster.
    await expect.poll(() => runningOnAllNodes(ns, name), POLL).toBe(true);
    await checkDaemonStatus(ns, name);
    // Set a daemon pod's phase to 'Failed', check that the daemon pod is revived.
    const pod = (await daemonPods(ns, name))[0]!;
    pod.status = { ...pod.status, phase: "Failed" };
    delete pod.metadata!.resourceVersion;
    await c.core.replaceNamespacedPodStatus({ namespace: ns, name: pod.metadata!.name!, body: pod });
    // waitFailedDaemonPodDeleted: the failed pod goes (its replacement has another name).
    await expect
      .poll(async () => {
        try {
          await c.core.readNamespacedPod({ namespace: ns, name: pod.metadata!.name! });
          return false;
        } catch (err) {
          return codeOf(err) === 404;
        }
      }, POLL)
      .toBe(true);
    await expect.poll(() => runningOnAllNodes(ns, name), POLL).toBe(true);
  });

  it("should rollback without unnecessary restarts", async () => {
    const ns = await c.namespace("daemonsets");
    const name = "daemon-set";
    expect((await nodeNames()).length).toBeGreaterThan(1);
    // Create a RollingUpdate DaemonSet.
    const ds = newDaemonSet(name, HTTPD, { [NAME_LABEL]: name });
    ds.spec!.updateStrategy = { type: "RollingUpdate" };
    await apps.createNamespacedDaemonSet({ namespace: ns, body: ds });
    // Check that daemon pods launch on every node of the cluster.
    await expect.poll(() => runningOnAllNodes(ns, name), POLL).toBe(true);
    // Update the DaemonSet to trigger a rollout, to an image whose pull never succeeds.
    const newImage = "foo:non-existent";
    await updateDaemonSet(ns, name, (cur) => {
      cur.spec!.template.spec!.containers[0]!.image = newImage;
      cur.spec!.template.metadata!.annotations = { [BEHAVIOUR_ANNOTATION]: PULL_FAILS };
    });
    // Make sure we're in the middle of a rollout (checkAtLeastOneNewPod).
    await expect
      .poll(async () => (await daemonPods(ns, name)).some((p) => p.spec?.containers[0]?.image === newImage), POLL)
      .toBe(true);
    const pods = await daemonPods(ns, name);
    const existingPods = pods.filter((p) => p.spec?.containers[0]?.image === HTTPD);
    const newPods = pods.filter((p) => p.spec?.containers[0]?.image === newImage);
    expect(existingPods.length + newPods.length).toBe(pods.length);
    expect(existingPods.length).not.toBe(0);
    expect(newPods.length).not.toBe(0);
    // Roll back the DaemonSet before rollout is complete.
    await updateDaemonSet(ns, name, (cur) => {
      cur.spec!.template.spec!.containers[0]!.image = HTTPD;
      delete cur.spec!.template.metadata!.annotations;
    });
    // Make sure DaemonSet rollback is complete (checkDaemonPodsImageAndAvailability, maxUnavailable 1).
    const nodes = await nodeNames();
    const overBudget: number[] = [];
    await expect
      .poll(async () => {
        const all = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `${NAME_LABEL}=${name}` })).items;
        const unavailable = all.filter((p) => !isReady(p)).length;
        if (unavailable > 1) overBudget.push(unavailable);
        const updatedOn = new Set(
          all.filter((p) => p.spec?.containers[0]?.image === HTTPD).map((p) => p.spec?.nodeName),
        );
        return nodes.every((n) => updatedOn.has(n)) && unavailable === 0;
      }, POLL)
      .toBe(true);
    expect(overBudget, "more daemon pods unavailable than maxUnavailable 1").toEqual([]);
    // After rollback is done, the pods of the old revision were not restarted.
    const rollbackPods = new Set((await daemonPods(ns, name)).map((p) => p.metadata?.name));
    for (const p of existingPods)
      expect(rollbackPods.has(p.metadata?.name), `pod ${p.metadata?.name} restarted`).toBe(true);
    // The rollback reused the first revision: its pods keep their hash.
    const hashes = new Set((await daemonPods(ns, name)).map((p) => p.metadata?.labels?.[HASH_LABEL]));
    expect([...hashes]).toEqual([existingPods[0]?.metadata?.labels?.[HASH_LABEL]]);
  });
});
